//! The canonical JSON writer, which `audit verify`, the events export and `verify-export`
//! run over every event's details: a settled round's details as PostgreSQL's `jsonb` sends
//! them (keys by length, spaces after `:` and `,`) and as a JSON Lines export holds them
//! (compact, keys already in order). Figures go in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{criterion_group, Criterion, Throughput};
use pusoy_pit::db::canonical_json::{write_text, Buffers};

/// A settled round's details as PostgreSQL sends them (from a generated history).
const FROM_POSTGRESQL: &str = include_str!("data/round-settled-details.json");

fn canonical(c: &mut Criterion) {
    let mut compact = String::new();
    write_text(FROM_POSTGRESQL.trim_end(), &mut compact).expect("the sample is JSON");
    let mut group = c.benchmark_group("canonical_json");
    for (name, text) in [
        ("round details from PostgreSQL", FROM_POSTGRESQL.trim_end()),
        ("round details already canonical", compact.as_str()),
    ] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        let mut buffers = Buffers::default();
        let mut out = String::with_capacity(4096);
        group.bench_function(name, |b| {
            b.iter(|| {
                out.clear();
                buffers
                    .write_text(black_box(text), &mut out)
                    .expect("the sample is JSON");
                black_box(out.len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, canonical);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
