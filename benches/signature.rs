//! The cost of a signature step's check of the second person: one Argon2id verification at the
//! floor parameters (m = 19 MiB, t = 2, p = 1) when they type their password, one HMAC-SHA256
//! when they type their signing PIN (`password::pin`). Every second person's signature (an
//! opener, a closer, a fill or credit received or voided, a count) pays one before anything is
//! written. Figures go in BENCHMARKS.md ("A signature step under the confirm load").

use std::hint::black_box;

use criterion::{criterion_group, Criterion};
use pusoy_pit::password::pin::PinKey;
use pusoy_pit::password::{hash, verify, HashParams};

fn signature(c: &mut Criterion) {
    let stored = hash("a second person's password", HashParams::FLOOR).expect("hash");
    let mut group = c.benchmark_group("signature");
    group.sample_size(30);
    group.bench_function("argon2id verify at the floor", |b| {
        b.iter(|| verify(black_box("a second person's password"), black_box(&stored)))
    });
    let key = PinKey::random();
    let sealed = key.seal(42, "402917");
    group.sample_size(100);
    group.bench_function("signing PIN verify (HMAC-SHA256)", |b| {
        b.iter(|| key.verify(black_box(42), black_box("402917"), black_box(&sealed)))
    });
    group.finish();
}

criterion_group!(benches, signature);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
