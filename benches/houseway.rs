//! House-way speed: one 13-card hand set by the house way (target ≤ 50 µs on one core), the
//! pieces it is made of, and enumerating every legal split for comparison with the public
//! figure of about 130 µs. Figures go in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{criterion_group, Criterion, Throughput};
use pusoy_pit::rules::card::Card;
use pusoy_pit::rules::houseway::simulate::fixed_shuffle;
use pusoy_pit::rules::houseway::split::Subsets;
use pusoy_pit::rules::houseway::tables::WinTable;
use pusoy_pit::rules::houseway::{best_split, house_way, house_way_json, Chances, Side};
use pusoy_pit::rules::profile::RuleProfile;

/// 256 deals from a fixed shuffle, so every run sees the same hands.
fn deals() -> Vec<[Card; 13]> {
    (0..256)
        .map(|seed| {
            let deck = fixed_shuffle(seed);
            let mut cards = [deck[0]; 13];
            cards.copy_from_slice(&deck[..13]);
            cards
        })
        .collect()
}

fn houseway(c: &mut Criterion) {
    let deals = deals();
    let profile = RuleProfile::default();
    let lookup = WinTable::shipped_lookup(profile.wheel);
    let mut group = c.benchmark_group("houseway");
    group.throughput(Throughput::Elements(deals.len() as u64));
    group.sample_size(20);
    group.bench_function("house_way_256_hands", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for cards in black_box(&deals) {
                sum += house_way(cards, &profile, Side::Dealer).map_or(0.0, |choice| choice.ev);
            }
            sum
        })
    });
    group.bench_function("subsets_256_hands", |b| {
        b.iter(|| {
            let mut sum = 0u32;
            for cards in black_box(&deals) {
                if let Ok(subsets) = Subsets::new(cards, &profile) {
                    sum = sum.wrapping_add(
                        subsets.values(subsets.splits().next().unwrap_or_default())[0].bits(),
                    );
                }
            }
            sum
        })
    });
    let prepared: Vec<Subsets> = deals
        .iter()
        .filter_map(|cards| Subsets::new(cards, &profile).ok())
        .collect();
    group.bench_function("chances_256_hands", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for subsets in black_box(&prepared) {
                sum += Chances::new(subsets, lookup, Side::Dealer).of(Default::default());
            }
            sum
        })
    });
    let chances: Vec<Chances> = prepared
        .iter()
        .map(|subsets| Chances::new(subsets, lookup, Side::Dealer))
        .collect();
    group.bench_function("search_256_hands", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for (subsets, chances) in black_box(&prepared).iter().zip(&chances) {
                sum += best_split(subsets, chances).1;
            }
            sum
        })
    });
    group.bench_function("all_legal_splits_256_hands", |b| {
        b.iter(|| {
            let mut count = 0usize;
            for cards in black_box(&deals) {
                if let Ok(subsets) = Subsets::new(cards, &profile) {
                    count += subsets.legal_splits().count();
                }
            }
            count
        })
    });
    let lines: Vec<String> = deals
        .iter()
        .map(|cards| {
            let text: Vec<String> = cards.iter().map(Card::to_string).collect();
            format!(r#"{{"cards": "{}"}}"#, text.join(" "))
        })
        .collect();
    group.bench_function("json_line_256_hands", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for line in black_box(&lines) {
                sum += house_way_json(line).map_or(0.0, |out| out.ev);
            }
            sum
        })
    });
    group.finish();
}

criterion_group!(benches, houseway);

/// `HOUSEWAY_BENCH_ONCE=<passes>` runs the house way over the 256 deals that many times instead
/// of the timed benches (for `valgrind --tool=callgrind` instruction counts, which do not
/// depend on the neighbours' load).
fn main() {
    if let Some(passes) = std::env::var("HOUSEWAY_BENCH_ONCE")
        .ok()
        .and_then(|n| n.parse::<u32>().ok())
    {
        let deals = deals();
        let profile = RuleProfile::default();
        let mut sum = 0.0;
        for _ in 0..passes {
            for cards in &deals {
                sum += house_way(cards, &profile, Side::Dealer).map_or(0.0, |choice| choice.ev);
            }
        }
        println!("{passes} passes of {} hands: {sum}", deals.len());
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
