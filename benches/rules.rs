//! Rules engine speed: our 5-card evaluator against the `pokers` crate over every hand (in
//! order and shuffled), and settling a 4-place round. Figures go in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{criterion_group, Criterion, Throughput};
use pusoy_pit::rules::hand::Evaluator;
use pusoy_pit::rules::points::settle::settle_points;
use pusoy_pit::rules::points::wire::{settle_points_json, PointsRoundIn};
use pusoy_pit::rules::profile::Wheel;
use pusoy_pit::rules::settle::settle;
use pusoy_pit::rules::wire::{settle_json, RoundIn};

fn all_hands() -> Vec<[u8; 5]> {
    let mut hands = Vec::with_capacity(2_598_960);
    for a in 0..52u8 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                for d in c + 1..52 {
                    for e in d + 1..52 {
                        hands.push([a, b, c, d, e]);
                    }
                }
            }
        }
    }
    hands
}

/// Fisher-Yates with xorshift64*: a fixed seed, so every run sees the same order.
fn shuffled(mut hands: Vec<[u8; 5]>) -> Vec<[u8; 5]> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..hands.len()).rev() {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let j = (state.wrapping_mul(0x2545_F491_4F6C_DD1D) % (i as u64 + 1)) as usize;
        hands.swap(i, j);
    }
    hands
}

fn evaluators(c: &mut Criterion) {
    let in_order = all_hands();
    let random = shuffled(in_order.clone());
    let ours = Evaluator::new(Wheel::Lowest);
    let mut group = c.benchmark_group("five_card_hands");
    group.throughput(Throughput::Elements(in_order.len() as u64));
    group.sample_size(20);
    for (order, hands) in [("in_order", &in_order), ("shuffled", &random)] {
        group.bench_function(format!("ours/{order}"), |b| {
            b.iter(|| {
                let mut sum = 0u32;
                for &hand in black_box(hands.as_slice()) {
                    sum = sum.wrapping_add(ours.evaluate_indices(hand).bits());
                }
                sum
            })
        });
        group.bench_function(format!("pokers/{order}"), |b| {
            b.iter(|| {
                let mut sum = 0u32;
                for hand in black_box(hands.as_slice()) {
                    let h = hand.iter().fold(pokers::Hand::default(), |h, &card| {
                        h + pokers::CARDS[usize::from(card)]
                    });
                    sum = sum.wrapping_add(u32::from(h.evaluate()));
                }
                sum
            })
        });
    }
    group.finish();
}

/// Dealer and three seats, all playing: fouls checked for four sets, nine hand comparisons.
pub const FOUR_PLACE_ROUND: &str = r#"{"rules": {"ties": "suit_order"}, "dealer": {"back": "Kc Kd 8h 8s 3c", "middle": "Qh Qs 7h 5c 2c", "front": "Jc Td 4h"}, "seats": [{"seat": 1, "bet": 100, "back": "As Ah Ac 9d 9c", "middle": "Qc Qd 7c 5d 2d", "front": "9s 7d 4d"}, {"seat": 2, "bet": 50, "back": "Js Jh Jd 3s 3d", "middle": "2h 3h 4s 5h 6h", "front": "Ts Th 2s"}, {"seat": 3, "bet": 200, "back": "Ks Kh 6s 6d 4c", "middle": "Ad 8c 8d 7s 6c", "front": "Tc 9h 5s"}]}"#;

fn settlement(c: &mut Criterion) {
    let parsed: RoundIn<'_> = match serde_json::from_str(FOUR_PLACE_ROUND) {
        Ok(parsed) => parsed,
        Err(error) => panic!("bench round does not parse: {error}"),
    };
    let round = match parsed.to_round() {
        Ok(round) => round,
        Err(error) => panic!("bench round is not valid: {error}"),
    };
    let mut group = c.benchmark_group("round");
    group.bench_function("settle_validated_4_places", |b| {
        b.iter(|| settle(black_box(&round)))
    });
    group.bench_function("validate_and_settle_4_places", |b| {
        b.iter(|| {
            let round = black_box(&parsed).to_round();
            round.map(|round| settle(&round))
        })
    });
    group.bench_function("json_line_to_settlement_4_places", |b| {
        b.iter(|| settle_json(black_box(FOUR_PLACE_ROUND)).map(|out| out.seats.len()))
    });
    group.finish();
}

/// Four players who all set hands: fouls checked for four sets, six pairs of players compared
/// position by position (two exact ties go by suit), then the pusoy check.
pub const FOUR_PLAYER_POINTS_ROUND: &str = r#"{"game": "points", "unit": 100, "seats": [{"seat": 1, "back": "Kc Kd 8h 8s 3c", "middle": "Qh Qs 7h 5c 2c", "front": "Jc Td 4h"}, {"seat": 2, "back": "As Ah Ac 9d 9c", "middle": "Qc Qd 7c 5d 2d", "front": "9s 7d 4d"}, {"seat": 3, "back": "Js Jh Jd 3s 3d", "middle": "2h 3h 4s 5h 6h", "front": "Ts Th 2s"}, {"seat": 4, "back": "Ks Kh 6s 6d 4c", "middle": "Ad 8c 8d 7s 6c", "front": "Tc 9h 5s"}]}"#;

fn points_settlement(c: &mut Criterion) {
    let parsed: PointsRoundIn<'_> = match serde_json::from_str(FOUR_PLAYER_POINTS_ROUND) {
        Ok(parsed) => parsed,
        Err(error) => panic!("bench round does not parse: {error}"),
    };
    let round = match parsed.to_round() {
        Ok(round) => round,
        Err(error) => panic!("bench round is not valid: {error}"),
    };
    let mut group = c.benchmark_group("points");
    group.bench_function("settle_validated_4_players", |b| {
        b.iter(|| settle_points(black_box(&round)))
    });
    group.bench_function("json_line_to_settlement_4_players", |b| {
        b.iter(|| {
            settle_points_json(black_box(FOUR_PLAYER_POINTS_ROUND)).map(|out| out.seats.len())
        })
    });
    group.finish();
}

criterion_group!(benches, evaluators, settlement, points_settlement);

/// `RULES_BENCH_ONCE=<routine> [RULES_BENCH_PASSES=n]` runs one routine a fixed number of times
/// instead of the timed benches, for instruction and cache-miss counts under
/// `valgrind --tool=callgrind --cache-sim=yes` (load-independent, unlike wall time). Routines:
/// `ours/in_order`, `ours/shuffled`, `pokers/in_order`, `pokers/shuffled` (one pass = all
/// 2,598,960 hands), `settle` (one pass = 1,000 settlements of the 4-place round),
/// `settle_points` (one pass = 1,000 settlements of the 4-player points round).
fn main() {
    if let Some(rounds) = std::env::var("RULES_BENCH_PAIRED")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        paired(rounds);
        return;
    }
    match std::env::var("RULES_BENCH_ONCE") {
        Ok(routine) => {
            let passes = std::env::var("RULES_BENCH_PASSES")
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(1);
            println!("{routine} x {passes}: {}", run_fixed(&routine, passes));
        }
        Err(_) => {
            benches();
            Criterion::default().configure_from_args().final_summary();
        }
    }
}

/// `RULES_BENCH_PAIRED=<rounds>`: one timed pass of each evaluator over all hands, in order and
/// shuffled, per round, the order of the four alternating between rounds, so that neighbours'
/// load hits both evaluators alike. Prints the minimum and median ns per hand of each.
fn paired(rounds: usize) {
    let in_order = all_hands();
    let random = shuffled(in_order.clone());
    let ours = Evaluator::new(Wheel::Lowest);
    let evaluate_ours = |hands: &[[u8; 5]]| {
        let mut sum = 0u32;
        for &hand in black_box(hands) {
            sum = sum.wrapping_add(ours.evaluate_indices(hand).bits());
        }
        sum
    };
    let evaluate_pokers = |hands: &[[u8; 5]]| {
        let mut sum = 0u32;
        for hand in black_box(hands) {
            let h = hand.iter().fold(pokers::Hand::default(), |h, &card| {
                h + pokers::CARDS[usize::from(card)]
            });
            sum = sum.wrapping_add(u32::from(h.evaluate()));
        }
        sum
    };
    let names = [
        "ours/in_order",
        "pokers/in_order",
        "ours/shuffled",
        "pokers/shuffled",
    ];
    let mut times: [Vec<f64>; 4] = Default::default();
    for round in 0..rounds {
        let mut order = [0, 1, 2, 3];
        if round % 2 == 1 {
            order = [1, 0, 3, 2];
        }
        for i in order {
            let hands = if i < 2 { &in_order } else { &random };
            let start = std::time::Instant::now();
            let sum = if i % 2 == 0 {
                evaluate_ours(hands)
            } else {
                evaluate_pokers(hands)
            };
            black_box(sum);
            times[i].push(start.elapsed().as_nanos() as f64 / hands.len() as f64);
        }
    }
    for (name, mut samples) in names.into_iter().zip(times) {
        samples.sort_by(f64::total_cmp);
        let median = samples.get(samples.len() / 2).copied().unwrap_or(f64::NAN);
        let min = samples.first().copied().unwrap_or(f64::NAN);
        println!("{name:16} min {min:.3} ns/hand  median {median:.3} ns/hand  ({rounds} passes)");
    }
}

fn run_fixed(routine: &str, passes: u32) -> u64 {
    let in_order = all_hands();
    let hands = if routine.ends_with("shuffled") {
        shuffled(in_order)
    } else {
        in_order
    };
    let ours = Evaluator::new(Wheel::Lowest);
    let round = match serde_json::from_str::<RoundIn<'_>>(FOUR_PLACE_ROUND).map(|r| r.to_round()) {
        Ok(Ok(round)) => round,
        _ => panic!("bench round is not valid"),
    };
    let points_round = match serde_json::from_str::<PointsRoundIn<'_>>(FOUR_PLAYER_POINTS_ROUND)
        .map(|r| r.to_round())
    {
        Ok(Ok(round)) => round,
        _ => panic!("bench points round is not valid"),
    };
    let mut sum = 0u64;
    for _ in 0..passes {
        match routine {
            "ours/in_order" | "ours/shuffled" => {
                for &hand in black_box(hands.as_slice()) {
                    sum += u64::from(ours.evaluate_indices(hand).bits());
                }
            }
            "pokers/in_order" | "pokers/shuffled" => {
                for hand in black_box(hands.as_slice()) {
                    let h = hand.iter().fold(pokers::Hand::default(), |h, &card| {
                        h + pokers::CARDS[usize::from(card)]
                    });
                    sum += u64::from(h.evaluate());
                }
            }
            "settle_points" => {
                for _ in 0..1000 {
                    let settlement = settle_points(black_box(&points_round));
                    sum += settlement.map_or(0, |s| s.players().count() as u64);
                }
            }
            "settle" => {
                for _ in 0..1000 {
                    let settlement = settle(black_box(&round));
                    sum += settlement.map_or(0, |s| s.dealer.result.minor_units().unsigned_abs());
                }
            }
            other => panic!("unknown routine {other}"),
        }
    }
    sum
}
