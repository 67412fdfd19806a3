//! A table's win two ways, and how far apart they may be (docs/accounting.md, "Win, hold and the
//! reconciliation"). Pure: no I/O.
//!
//! - **Win by inventory**, the regulator's figure: closer − opener + credits − fills + drop. The
//!   chips on the table at the end, less those at the start, plus the chips sent back to the
//!   cage, less those brought from it, plus the cash (and non-cash items) that bought chips.
//! - **Win by rounds**: the house result of every round settled at the table in the period (a
//!   void round out, its re-entry in), plus the points game's table fees, the house's income at
//!   a points table.
//!
//! The two agree when every chip that moved is on a document: the **variance** (inventory −
//! rounds) is what is not. It is flagged when it is beyond the **tolerance**: a fixed amount or
//! a percentage of the drop, whichever is greater (a variance must exceed both, as the state
//! rules that file two thresholds read).

use crate::rules::money::Money;

/// The drop of a table's period: counted by the count team, or not yet (then only what the
/// table recorded is known, and the figures are not final).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drop {
    Counted(Money),
    Pending { recorded: Money },
}

impl Drop {
    /// The count when there is one, else what the table recorded.
    pub fn amount(self) -> Money {
        match self {
            Drop::Counted(amount) | Drop::Pending { recorded: amount } => amount,
        }
    }

    pub fn is_counted(self) -> bool {
        matches!(self, Drop::Counted(_))
    }
}

/// What a table's documents say of one period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Documents {
    /// The opening and closing inventories' totals (`None`: not counted).
    pub opener: Option<Money>,
    pub closer: Option<Money>,
    /// Fills and credits received at the table (not void).
    pub fills: Money,
    pub credits: Money,
    pub drop: Drop,
}

/// `a + b`, or `None` when it does not fit.
fn add(a: Money, b: Money) -> Option<Money> {
    a.minor_units()
        .checked_add(b.minor_units())
        .map(Money::from_minor_units)
}

/// `a - b`, or `None` when it does not fit.
fn sub(a: Money, b: Money) -> Option<Money> {
    a.minor_units()
        .checked_sub(b.minor_units())
        .map(Money::from_minor_units)
}

/// closer − opener + credits − fills + drop; `None` without an opener or a closer, or when an
/// amount does not fit.
pub fn inventory_win(documents: &Documents) -> Option<Money> {
    let (opener, closer) = (documents.opener?, documents.closer?);
    let win = sub(closer, opener)?;
    let win = add(win, documents.credits)?;
    let win = sub(win, documents.fills)?;
    add(win, documents.drop.amount())
}

/// The house result of the rounds plus the fees.
pub fn rounds_win(house_result: Money, fees: Money) -> Option<Money> {
    add(house_result, fees)
}

/// Hold: the win as a share of the drop, in hundredths of a percentage point (basis points:
/// 1,234 is 12.34 %), rounded half away from zero; `None` when nothing was dropped.
pub fn hold_basis_points(win: Money, drop: Money) -> Option<i64> {
    hold_of_sums(
        i128::from(win.minor_units()),
        i128::from(drop.minor_units()),
    )
}

/// [`hold_basis_points`] of sums of many days' wins and drops (in minor units), which may not
/// fit a [`Money`].
pub fn hold_of_sums(win: i128, drop: i128) -> Option<i64> {
    if drop <= 0 {
        return None;
    }
    let scaled = win * 10_000;
    let half = drop / 2;
    let rounded = if scaled >= 0 {
        (scaled + half) / drop
    } else {
        (scaled - half) / drop
    };
    i64::try_from(rounded).ok()
}

/// How far the two wins may be apart before a table's day is flagged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tolerance {
    /// A fixed amount, in the table's currency.
    pub amount: Money,
    /// A share of the drop, in basis points (200 is 2 %).
    pub share_of_drop: i64,
}

impl Tolerance {
    /// The amount a variance must exceed to be flagged for this drop: the fixed amount or the
    /// share of the drop, whichever is greater.
    pub fn for_drop(self, drop: Money) -> Money {
        let share = i128::from(drop.minor_units().max(0)) * i128::from(self.share_of_drop) / 10_000;
        let share = Money::from_minor_units(i64::try_from(share).unwrap_or(i64::MAX));
        self.amount.max(share)
    }

    /// Whether `variance` (either sign) is beyond the tolerance for `drop`.
    pub fn exceeded_by(self, variance: Money, drop: Money) -> bool {
        variance.minor_units().unsigned_abs() > self.for_drop(drop).minor_units().unsigned_abs()
    }
}

/// A table's period reconciled: both wins, their variance, the hold, the flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reconciliation {
    pub inventory_win: Option<Money>,
    pub rounds_win: Money,
    /// inventory − rounds, when the inventory win is known.
    pub variance: Option<Money>,
    /// The inventory win's hold in basis points, when both are known.
    pub hold: Option<i64>,
    pub tolerance: Money,
    /// The variance is beyond the tolerance.
    pub flagged: bool,
    /// Opener, closer and count are all in: the figures no longer wait for a document.
    pub is_final: bool,
}

/// Reconciles a table's documents with its rounds. `None` when an amount does not fit.
pub fn reconcile(
    documents: &Documents,
    house_result: Money,
    fees: Money,
    tolerance: Tolerance,
) -> Option<Reconciliation> {
    let rounds_win = rounds_win(house_result, fees)?;
    let drop = documents.drop.amount();
    let inventory_win = match (documents.opener, documents.closer) {
        (Some(_), Some(_)) => Some(inventory_win(documents)?),
        _ => None,
    };
    let variance = match inventory_win {
        Some(win) => Some(sub(win, rounds_win)?),
        None => None,
    };
    let limit = tolerance.for_drop(drop);
    Some(Reconciliation {
        inventory_win,
        rounds_win,
        variance,
        hold: inventory_win.and_then(|win| hold_basis_points(win, drop)),
        tolerance: limit,
        flagged: variance.is_some_and(|v| tolerance.exceeded_by(v, drop)),
        is_final: inventory_win.is_some() && documents.drop.is_counted(),
    })
}

/// The statistical check a regulator asks for: a day's hold against the table's hold over the
/// days before it (win over drop of those days, not an average of percentages). Flagged when
/// the two differ by more than `band` basis points (400 is ±4 points).
pub fn hold_out_of_band(
    day_hold: i64,
    rolling_win: Money,
    rolling_drop: Money,
    band: i64,
) -> Option<bool> {
    let rolling = hold_basis_points(rolling_win, rolling_drop)?;
    Some((day_hold - rolling).abs() > band)
}

/// What happened to a table's chips at a moment of its day, for the wins by shift: a count
/// (opener, closer) or chips moved (a fill or a credit received), not void.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChipEvent {
    Opener(Money),
    Closer(Money),
    Fill(Money),
    Credit(Money),
}

/// A dealer's shift at the table: from `on` to `off` (still on: `None`), with the buy-ins
/// recorded while it lasted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShiftSpan<T> {
    pub on: T,
    pub off: Option<T>,
    pub drop: Money,
}

/// Each shift's win by inventory, where the table counted its chips per shift
/// (docs/accounting.md, "By dealer shift and by dealer"): the table's day cut by its
/// counts into **spans**, an opener to the next closer, with the fills and credits received
/// within it. A shift has a win when it is the only shift that overlaps its span and overlaps
/// no other: closer − opener + credits − fills + the buy-ins of the shift (the count team
/// counts the day's drop box, not the shift's). `events` and `shifts` are one table-day's, in
/// any order; the answer is by shift, in the order given.
pub fn shift_inventory_wins<T: Ord + Copy>(
    events: &[(T, ChipEvent)],
    shifts: &[ShiftSpan<T>],
) -> Vec<Option<Money>> {
    /// An opener to its closer: when, and the documents (`None` where a sum does not fit).
    struct Span<T> {
        start: T,
        end: T,
        documents: Option<Documents>,
    }
    let mut events = events.to_vec();
    events.sort_by_key(|(at, _)| *at);
    let mut spans = Vec::new();
    let mut open: Option<(T, Option<Documents>)> = None;
    for (at, event) in events {
        let documents = open.as_mut().map(|(_, documents)| documents);
        match (event, documents) {
            (ChipEvent::Opener(total), _) => {
                let documents = Documents {
                    opener: Some(total),
                    closer: None,
                    fills: Money::ZERO,
                    credits: Money::ZERO,
                    drop: Drop::Pending {
                        recorded: Money::ZERO,
                    },
                };
                open = Some((at, Some(documents)));
            }
            (ChipEvent::Fill(amount), Some(documents)) => {
                *documents = documents.and_then(|d| {
                    Some(Documents {
                        fills: add(d.fills, amount)?,
                        ..d
                    })
                });
            }
            (ChipEvent::Credit(amount), Some(documents)) => {
                *documents = documents.and_then(|d| {
                    Some(Documents {
                        credits: add(d.credits, amount)?,
                        ..d
                    })
                });
            }
            (ChipEvent::Closer(total), Some(_)) => {
                if let Some((start, documents)) = open.take() {
                    spans.push(Span {
                        start,
                        end: at,
                        documents: documents.map(|d| Documents {
                            closer: Some(total),
                            ..d
                        }),
                    });
                }
            }
            (_, None) => {}
        }
    }
    let overlaps = |shift: &ShiftSpan<T>, span: &Span<T>| {
        shift.on < span.end && shift.off.is_none_or(|off| off > span.start)
    };
    shifts
        .iter()
        .map(|shift| {
            let mine: Vec<&Span<T>> = spans.iter().filter(|span| overlaps(shift, span)).collect();
            let [span] = mine.as_slice() else {
                return None;
            };
            if shifts.iter().filter(|s| overlaps(s, span)).count() != 1 {
                return None;
            }
            inventory_win(&Documents {
                drop: Drop::Pending {
                    recorded: shift.drop,
                },
                ..span.documents?
            })
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn php(major: i64) -> Money {
        Money::from_minor_units(major * 100)
    }

    fn day(opener: i64, closer: i64, fills: i64, credits: i64, drop: Drop) -> Documents {
        Documents {
            opener: Some(php(opener)),
            closer: Some(php(closer)),
            fills: php(fills),
            credits: php(credits),
            drop,
        }
    }

    const TOLERANCE: Tolerance = Tolerance {
        amount: Money::from_minor_units(100_000),
        share_of_drop: 200,
    };

    #[test]
    fn win_by_inventory_is_closer_less_opener_plus_credits_less_fills_plus_drop() {
        // Opened with 100,000; 20,000 filled; 5,000 credited back; 30,000 bought in; closed
        // with 104,000: the house won 104,000 − 100,000 + 5,000 − 20,000 + 30,000 = 19,000.
        let documents = day(100_000, 104_000, 20_000, 5_000, Drop::Counted(php(30_000)));
        assert_eq!(inventory_win(&documents), Some(php(19_000)));
        let missing = Documents {
            closer: None,
            ..documents
        };
        assert_eq!(inventory_win(&missing), None);
    }

    #[test]
    fn an_honest_day_reconciles_to_zero_and_a_miscount_is_its_variance() {
        let documents = day(100_000, 104_000, 20_000, 5_000, Drop::Counted(php(30_000)));
        let honest = reconcile(&documents, php(19_000), Money::ZERO, TOLERANCE).unwrap();
        assert_eq!(honest.variance, Some(Money::ZERO));
        assert!(!honest.flagged);
        assert!(honest.is_final);
        // 19,000 ÷ 30,000 = 63.33 %.
        assert_eq!(honest.hold, Some(6_333));

        // The closer counted 2,500 short.
        let short = Documents {
            closer: Some(php(101_500)),
            ..documents
        };
        let found = reconcile(&short, php(19_000), Money::ZERO, TOLERANCE).unwrap();
        assert_eq!(found.variance, Some(php(-2_500)));
        assert!(found.flagged);
    }

    #[test]
    fn fees_are_the_points_tables_win() {
        // A points table: the players' results sum to zero, the house keeps its fees.
        let documents = day(50_000, 50_600, 0, 0, Drop::Counted(php(8_000)));
        let found = reconcile(&documents, Money::ZERO, php(8_600), TOLERANCE).unwrap();
        assert_eq!(found.rounds_win, php(8_600));
        assert_eq!(found.variance, Some(Money::ZERO));
    }

    #[test]
    fn the_tolerance_is_the_greater_of_the_amount_and_the_share_of_the_drop() {
        // 2 % of 30,000 is 600: the fixed 1,000 applies.
        assert_eq!(TOLERANCE.for_drop(php(30_000)), php(1_000));
        // 2 % of 200,000 is 4,000.
        assert_eq!(TOLERANCE.for_drop(php(200_000)), php(4_000));
        assert!(!TOLERANCE.exceeded_by(php(-1_000), php(30_000)));
        assert!(TOLERANCE.exceeded_by(Money::from_minor_units(-100_001), php(30_000)));
        assert!(!TOLERANCE.exceeded_by(php(4_000), php(200_000)));
        assert!(TOLERANCE.exceeded_by(Money::from_minor_units(400_001), php(200_000)));
    }

    #[test]
    fn figures_wait_for_every_document() {
        let pending = day(1_000, 1_000, 0, 0, Drop::Pending { recorded: php(500) });
        let found = reconcile(&pending, php(500), Money::ZERO, TOLERANCE).unwrap();
        assert_eq!(found.variance, Some(Money::ZERO));
        assert!(!found.is_final);
        let no_closer = Documents {
            closer: None,
            ..pending
        };
        let found = reconcile(&no_closer, php(500), Money::ZERO, TOLERANCE).unwrap();
        assert_eq!(
            (found.inventory_win, found.variance, found.hold),
            (None, None, None)
        );
        assert!(!found.flagged && !found.is_final);
    }

    #[test]
    fn hold_rounds_half_away_from_zero_and_needs_a_drop() {
        assert_eq!(
            hold_basis_points(Money::from_minor_units(1), Money::from_minor_units(3)),
            Some(3_333)
        );
        assert_eq!(
            hold_basis_points(Money::from_minor_units(2), Money::from_minor_units(3)),
            Some(6_667)
        );
        assert_eq!(
            hold_basis_points(Money::from_minor_units(-2), Money::from_minor_units(3)),
            Some(-6_667)
        );
        assert_eq!(
            hold_basis_points(Money::from_minor_units(5), Money::from_minor_units(0)),
            None
        );
        assert_eq!(
            hold_out_of_band(2_000, php(150), php(1_000), 400),
            Some(true)
        );
        assert_eq!(
            hold_out_of_band(1_800, php(150), php(1_000), 400),
            Some(false)
        );
        assert_eq!(hold_out_of_band(1_800, php(150), Money::ZERO, 400), None);
    }

    /// A table's chips moved as the floor moves them, round by round, with the engine settling
    /// random deals: whatever the rounds, buy-ins, fills and credits, an honest closer and count
    /// reconcile to zero. The tray pays and takes each seat's result, never the dealer's total,
    /// so the house result is checked against the seats it came from.
    mod shifts {
        use proptest::prelude::*;

        use super::super::*;
        use super::TOLERANCE;
        use crate::rules::settle::settle;
        use crate::rules::test_support::{build_round, deck_strategy, profile_strategy};

        #[derive(Debug, Clone)]
        enum Move {
            BuyIn(i64),
            Fill(i64),
            Credit(i64),
            Round(Vec<i64>, Vec<bool>),
        }

        fn moves() -> impl Strategy<Value = Vec<Move>> {
            let one = prop_oneof![
                (1i64..500_000).prop_map(Move::BuyIn),
                (1i64..500_000).prop_map(Move::Fill),
                (1i64..200_000).prop_map(Move::Credit),
                (
                    proptest::collection::vec(100i64..100_000, 3),
                    proptest::collection::vec(any::<bool>(), 3)
                )
                    .prop_map(|(bets, legal)| Move::Round(bets, legal)),
            ];
            proptest::collection::vec(one, 1..12)
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            #[test]
            fn an_honest_shift_reconciles_to_zero(
                profile in profile_strategy(),
                deck in deck_strategy(),
                opener in 1_000_000i64..5_000_000,
                moves in moves(),
                fees in 0i64..50_000,
            ) {
                let mut tray = opener;
                let (mut drop, mut fills, mut credits, mut house) = (0i64, 0i64, 0i64, 0i64);
                for (n, step) in moves.iter().enumerate() {
                    match step {
                        // Cash into the drop box, the same value of chips out of the tray.
                        Move::BuyIn(amount) => {
                            drop += amount;
                            tray -= amount;
                        }
                        Move::Fill(amount) => {
                            fills += amount;
                            tray += amount;
                        }
                        Move::Credit(amount) => {
                            credits += amount;
                            tray -= amount;
                        }
                        Move::Round(bets, legal) => {
                            let mut cards = deck.clone();
                            cards.rotate_left(n % 52);
                            let round = build_round(profile, &cards, bets, &[false; 3], legal[0]);
                            let settlement = settle(&round).expect("settles");
                            for seat in settlement.seats() {
                                tray -= seat.result.minor_units();
                            }
                            house += settlement.dealer.result.minor_units();
                        }
                    }
                }
                // Fees taken in chips go to the tray too.
                tray += fees;
                let documents = Documents {
                    opener: Some(Money::from_minor_units(opener)),
                    closer: Some(Money::from_minor_units(tray)),
                    fills: Money::from_minor_units(fills),
                    credits: Money::from_minor_units(credits),
                    drop: Drop::Counted(Money::from_minor_units(drop)),
                };
                let found = reconcile(&documents, Money::from_minor_units(house), Money::from_minor_units(fees), TOLERANCE).expect("fits");
                prop_assert_eq!(found.variance, Some(Money::ZERO));
                prop_assert!(!found.flagged);
                prop_assert!(found.is_final);
            }
        }
    }

    #[test]
    fn a_shift_counted_at_its_start_and_end_has_its_own_win() {
        use ChipEvent::{Closer, Credit, Fill, Opener};
        let shift = |on: i64, off: Option<i64>, drop: i64| ShiftSpan {
            on,
            off,
            drop: php(drop),
        };
        // 18,000 at the start; the first dealer's players buy 3,000 of chips, the house wins 275,
        // a fill of 1,000 comes: 16,275 at the change. The second's buy 1,000, the house wins 275
        // and 500 goes back to the cage: 15,050.
        let events = [
            (10, Opener(php(18_000))),
            (25, Fill(php(1_000))),
            (40, Closer(php(16_275))),
            (45, Opener(php(16_275))),
            (60, Credit(php(500))),
            (80, Closer(php(15_050))),
            // After the last closer: in no span.
            (90, Fill(php(5_000))),
        ];
        let shifts = [shift(12, Some(38), 3_000), shift(44, Some(78), 1_000)];
        assert_eq!(
            shift_inventory_wins(&events, &shifts),
            [Some(php(275)), Some(php(275))]
        );
        // The order they come in does not matter.
        let mut backwards = events;
        backwards.reverse();
        assert_eq!(
            shift_inventory_wins(&backwards, &shifts),
            [Some(php(275)), Some(php(275))]
        );
        // Counted once a day: the day's span has two shifts, neither has a win of its own.
        let daily = [(10, Opener(php(18_000))), (80, Closer(php(15_050)))];
        assert_eq!(shift_inventory_wins(&daily, &shifts), [None, None]);
        // A shift across a count (the dealer stayed on through it) shares two spans.
        let through = [shift(12, None, 4_000)];
        assert_eq!(shift_inventory_wins(&events, &through), [None]);
        // An opener with no closer yet is no span.
        assert_eq!(
            shift_inventory_wins(&events[..4], &shifts),
            [Some(php(275)), None]
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Shifts one after another, the chips counted at each change: whatever each shift's
        /// buy-ins, fills, credits and house result, its win by inventory is its house result.
        #[test]
        fn each_shift_counted_alone_wins_what_its_rounds_won(
            opener in 1_000_000i64..5_000_000,
            shifts in proptest::collection::vec(
                (
                    proptest::collection::vec(1i64..500_000, 0..4),
                    proptest::collection::vec(1i64..500_000, 0..3),
                    proptest::collection::vec(1i64..200_000, 0..3),
                    -300_000i64..300_000,
                ),
                1..5,
            ),
        ) {
            let (mut tray, mut at) = (opener, 0i64);
            let (mut events, mut spans, mut house) = (Vec::new(), Vec::new(), Vec::new());
            for (buy_ins, fills, credits, result) in &shifts {
                at += 1;
                events.push((at, ChipEvent::Opener(Money::from_minor_units(tray))));
                at += 1;
                let on = at;
                for amount in buy_ins {
                    tray -= amount;
                }
                for amount in fills {
                    at += 1;
                    tray += amount;
                    events.push((at, ChipEvent::Fill(Money::from_minor_units(*amount))));
                }
                for amount in credits {
                    at += 1;
                    tray -= amount;
                    events.push((at, ChipEvent::Credit(Money::from_minor_units(*amount))));
                }
                tray += result;
                at += 1;
                spans.push(ShiftSpan { on, off: Some(at), drop: Money::from_minor_units(buy_ins.iter().sum()) });
                at += 1;
                events.push((at, ChipEvent::Closer(Money::from_minor_units(tray))));
                house.push(Some(Money::from_minor_units(*result)));
            }
            proptest::prop_assert_eq!(shift_inventory_wins(&events, &spans), house);
        }
    }

    #[test]
    fn amounts_that_do_not_fit_are_none_not_a_wrong_figure() {
        let documents = day(0, 0, 0, 0, Drop::Counted(Money::from_minor_units(i64::MAX)));
        let documents = Documents {
            credits: Money::from_minor_units(1),
            ..documents
        };
        assert_eq!(inventory_win(&documents), None);
        assert_eq!(
            reconcile(&documents, Money::ZERO, Money::ZERO, TOLERANCE),
            None
        );
    }
}
