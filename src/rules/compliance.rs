//! Cash-transaction compliance (docs/rules.md §15): what one more cash transaction of a player
//! raises, given the player's other cash of the gaming day and of the days before it. Pure: the
//! transactions and the cases raised already come from the caller.
//!
//! A player's cash in (buy-ins in cash at the tables, chips bought at the cage) and cash out
//! (chips cashed at the cage) are added up separately per gaming day and currency:
//! - a day's total **above** the threshold is a covered transaction;
//! - that total made of two or more transactions, none above the threshold on its own, is also a
//!   structuring candidate of the day;
//! - days each at or under the threshold whose sum over the window (the day and the
//!   `window_days - 1` gaming days before it) is above it, two days or more with cash, are a
//!   structuring candidate across days;
//! - a day's total reaching `warn_percent` of the threshold, not above it, warns the pit.
//!
//! Each is raised once: a player's day, direction and currency has at most one case of each kind,
//! and a structuring candidate across days is not raised again while an earlier one's window
//! covers the day.

use crate::rules::money::Money;

/// Which way the cash went, from the casino's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Cash the casino took from the player.
    In,
    /// Cash the casino paid the player.
    Out,
}

impl Direction {
    pub const ALL: [Direction; 2] = [Direction::In, Direction::Out];

    /// The stored value.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::In => "in",
            Direction::Out => "out",
        }
    }

    pub fn parse(text: &str) -> Option<Direction> {
        Direction::ALL.into_iter().find(|d| d.as_str() == text)
    }

    pub fn title(self) -> &'static str {
        match self {
            Direction::In => "Cash in",
            Direction::Out => "Cash out",
        }
    }
}

/// What a case is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CaseKind {
    /// A day's total above the threshold (or one transaction above it, no player known).
    Covered,
    /// Transactions each under the threshold whose day's sum is above it.
    StructuringDay,
    /// Days each under the threshold whose sum over the window is above it.
    StructuringDays,
}

impl CaseKind {
    pub const ALL: [CaseKind; 3] = [
        CaseKind::Covered,
        CaseKind::StructuringDay,
        CaseKind::StructuringDays,
    ];

    /// The stored value.
    pub fn as_str(self) -> &'static str {
        match self {
            CaseKind::Covered => "covered",
            CaseKind::StructuringDay => "structuring_day",
            CaseKind::StructuringDays => "structuring_days",
        }
    }

    pub fn parse(text: &str) -> Option<CaseKind> {
        CaseKind::ALL.into_iter().find(|k| k.as_str() == text)
    }

    pub fn title(self) -> &'static str {
        match self {
            CaseKind::Covered => "Covered transaction",
            CaseKind::StructuringDay => "Structuring candidate (one day)",
            CaseKind::StructuringDays => "Structuring candidate (across days)",
        }
    }
}

/// A currency's thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    /// A day's total above this is a covered transaction.
    pub threshold: Money,
    /// The pit is warned when a day's total reaches this percentage of the threshold.
    pub warn_percent: u8,
    /// The gaming days a structuring candidate across days is looked for over (0 or 1: none).
    pub window_days: u16,
}

impl Thresholds {
    /// The total at which the pit is warned: `warn_percent` of the threshold, rounded up.
    pub fn warn_at(&self) -> Money {
        let units = i128::from(self.threshold.minor_units()) * i128::from(self.warn_percent);
        let at = (units + 99) / 100;
        Money::from_minor_units(i64::try_from(at).unwrap_or(i64::MAX))
    }

    /// Whether a day's total is above the threshold.
    pub fn covered(&self, total: Money) -> bool {
        total.minor_units() > self.threshold.minor_units()
    }

    /// Whether a day's total warns the pit: at or above the warning, not above the threshold.
    pub fn approaching(&self, total: Money) -> bool {
        total >= self.warn_at() && !self.covered(total)
    }

    /// A day's total as a whole percentage of the threshold, rounded down.
    pub fn percent_of(&self, total: Money) -> i64 {
        let percent =
            i128::from(total.minor_units()) * 100 / i128::from(self.threshold.minor_units().max(1));
        i64::try_from(percent).unwrap_or(i64::MAX)
    }
}

/// The cases already raised that bear on a new transaction of the player's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Raised {
    /// A covered transaction of the day.
    pub covered: bool,
    /// A structuring candidate of the day.
    pub structuring_day: bool,
    /// A structuring candidate across days whose window covers the day.
    pub structuring_days: bool,
}

/// A player's cash in one direction and currency when a transaction is added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerCash<'a> {
    /// The day's transactions not void, the new one among them.
    pub day: &'a [Money],
    /// The new transaction's amount.
    pub new: Money,
    /// The totals of the window's earlier gaming days that had cash (not the day itself).
    pub earlier_days: &'a [Money],
    pub raised: Raised,
}

/// What a transaction raises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Findings {
    pub covered: bool,
    pub structuring_day: bool,
    pub structuring_days: bool,
    /// This transaction brought the day's total to the warning.
    pub warned: bool,
    /// The day's total, the new transaction included.
    pub day_total: Money,
    /// The window's total (the day's and the earlier days').
    pub window_total: Money,
}

impl Findings {
    /// The kinds of case raised, in order.
    pub fn kinds(&self) -> Vec<CaseKind> {
        [
            (self.covered, CaseKind::Covered),
            (self.structuring_day, CaseKind::StructuringDay),
            (self.structuring_days, CaseKind::StructuringDays),
        ]
        .into_iter()
        .filter_map(|(raised, kind)| raised.then_some(kind))
        .collect()
    }
}

fn sum(amounts: &[Money]) -> Money {
    Money::from_minor_units(amounts.iter().map(|m| m.minor_units()).sum())
}

/// What a player's new transaction raises under `limits`.
pub fn check(limits: &Thresholds, cash: &PlayerCash<'_>) -> Findings {
    let day_total = sum(cash.day);
    let before = Money::from_minor_units(day_total.minor_units() - cash.new.minor_units());
    let window_total =
        Money::from_minor_units(day_total.minor_units() + sum(cash.earlier_days).minor_units());
    let covered = limits.covered(day_total);
    let none_alone = cash.day.iter().all(|&m| !limits.covered(m));
    let days_with_cash = 1 + cash.earlier_days.len();
    Findings {
        covered: covered && !cash.raised.covered,
        structuring_day: covered
            && cash.day.len() >= 2
            && none_alone
            && !cash.raised.structuring_day,
        structuring_days: limits.window_days >= 2
            && !covered
            && cash.earlier_days.iter().all(|&m| !limits.covered(m))
            && days_with_cash >= 2
            && limits.covered(window_total)
            && !cash.raised.structuring_days,
        warned: limits.approaching(day_total) && before < limits.warn_at(),
        day_total,
        window_total,
    }
}

/// What one transaction raises when no player is known: a covered transaction if it is above
/// the threshold on its own (nothing can be added up).
pub fn check_unknown(limits: &Thresholds, amount: Money) -> Findings {
    Findings {
        covered: limits.covered(amount),
        day_total: amount,
        window_total: amount,
        ..Findings::default()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const PHP: Thresholds = Thresholds {
        threshold: Money::from_minor_units(500_000_000),
        warn_percent: 80,
        window_days: 7,
    };

    fn m(major: i64) -> Money {
        Money::from_minor_units(major * 100)
    }

    fn day(amounts: &[Money]) -> PlayerCash<'_> {
        PlayerCash {
            day: amounts,
            new: *amounts.last().unwrap(),
            earlier_days: &[],
            raised: Raised::default(),
        }
    }

    #[test]
    fn one_transaction_above_the_threshold_is_covered_and_not_structuring() {
        let f = check(&PHP, &day(&[m(5_000_001)]));
        assert_eq!(f.kinds(), vec![CaseKind::Covered]);
        assert!(!f.warned, "above the threshold is past the warning");
    }

    #[test]
    fn the_threshold_itself_is_not_above_it_but_warns() {
        let f = check(&PHP, &day(&[m(5_000_000)]));
        assert_eq!(f.kinds(), vec![]);
        assert!(f.warned);
    }

    #[test]
    fn transactions_each_under_whose_sum_crosses_are_covered_and_structuring() {
        let f = check(&PHP, &day(&[m(2_000_000), m(2_000_000), m(1_500_000)]));
        assert_eq!(f.kinds(), vec![CaseKind::Covered, CaseKind::StructuringDay]);
        assert_eq!(f.day_total, m(5_500_000));
    }

    #[test]
    fn a_sum_with_one_transaction_above_is_covered_only() {
        let f = check(&PHP, &day(&[m(1_000), m(5_500_000)]));
        assert_eq!(f.kinds(), vec![CaseKind::Covered]);
    }

    #[test]
    fn what_was_raised_is_not_raised_again() {
        let amounts = [m(3_000_000), m(3_000_000), m(10)];
        let mut cash = day(&amounts);
        cash.raised = Raised {
            covered: true,
            structuring_day: true,
            structuring_days: false,
        };
        assert_eq!(check(&PHP, &cash).kinds(), vec![]);
    }

    #[test]
    fn the_warning_is_given_by_the_transaction_that_reaches_it_only() {
        assert!(check(&PHP, &day(&[m(3_000_000), m(1_000_000)])).warned);
        assert!(!check(&PHP, &day(&[m(4_000_000), m(10)])).warned);
        assert!(!check(&PHP, &day(&[m(3_999_999)])).warned);
        assert_eq!(PHP.warn_at(), m(4_000_000));
    }

    #[test]
    fn days_each_under_whose_window_crosses_are_structuring_across_days() {
        let earlier = [m(2_000_000), m(2_000_000)];
        let today = [m(1_500_000)];
        let cash = PlayerCash {
            day: &today,
            new: today[0],
            earlier_days: &earlier,
            raised: Raised::default(),
        };
        let f = check(&PHP, &cash);
        assert_eq!(f.kinds(), vec![CaseKind::StructuringDays]);
        assert_eq!(f.window_total, m(5_500_000));
        let raised = PlayerCash {
            raised: Raised {
                structuring_days: true,
                ..Raised::default()
            },
            ..cash.clone()
        };
        assert_eq!(check(&PHP, &raised).kinds(), vec![]);
        let no_window = Thresholds {
            window_days: 1,
            ..PHP
        };
        assert_eq!(check(&no_window, &cash).kinds(), vec![]);
    }

    #[test]
    fn a_covered_day_in_the_window_is_its_own_case_not_structuring() {
        let earlier = [m(6_000_000)];
        let today = [m(100_000)];
        let cash = PlayerCash {
            day: &today,
            new: today[0],
            earlier_days: &earlier,
            raised: Raised::default(),
        };
        assert_eq!(check(&PHP, &cash).kinds(), vec![]);
    }

    #[test]
    fn an_unknown_players_transaction_is_covered_only_above_the_threshold() {
        assert!(check_unknown(&PHP, m(5_000_001)).covered);
        assert!(!check_unknown(&PHP, m(5_000_000)).covered);
    }

    #[test]
    fn percent_and_names_read_back() {
        assert_eq!(PHP.percent_of(m(4_100_000)), 82);
        for kind in CaseKind::ALL {
            assert_eq!(CaseKind::parse(kind.as_str()), Some(kind));
        }
        for d in Direction::ALL {
            assert_eq!(Direction::parse(d.as_str()), Some(d));
        }
    }
}
