//! The cost of a signature step's password check: one Argon2id verification at the floor
//! parameters (m = 19 MiB, t = 2, p = 1), which every second person's signature (an opener, a
//! closer, a fill or credit received or voided, a count) pays before anything is written.
//! Figures go in BENCHMARKS.md ("A signature step under the confirm load").

use std::hint::black_box;

use criterion::{criterion_group, Criterion};
use pusoy_pit::password::{hash, verify, HashParams};

fn signature(c: &mut Criterion) {
    let stored = hash("a second person's password", HashParams::FLOOR).expect("hash");
    let mut group = c.benchmark_group("signature");
    group.sample_size(30);
    group.bench_function("argon2id verify at the floor", |b| {
        b.iter(|| verify(black_box("a second person's password"), black_box(&stored)))
    });
    group.finish();
}

criterion_group!(benches, signature);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
