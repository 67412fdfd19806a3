//! Buy-ins and the points game's table fees (docs/accounting.md, "Buy-ins and table fees"): the
//! kinds of a buy-in, an amount as typed, the seats a game has, and a table's day of buy-ins
//! and fees added up. Pure: no I/O.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use crate::rules::game::Game;
use crate::rules::money::{Money, Total};
use crate::rules::place::{PlayerSeat, SeatNo};

/// What a player bought chips with: cash, or a non-cash item (a marker, a chip voucher).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BuyInKind {
    Cash,
    Marker,
    ChipVoucher,
}

impl BuyInKind {
    pub const ALL: [BuyInKind; 3] = [BuyInKind::Cash, BuyInKind::Marker, BuyInKind::ChipVoucher];

    /// The stored, form and wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            BuyInKind::Cash => "cash",
            BuyInKind::Marker => "marker",
            BuyInKind::ChipVoucher => "chip_voucher",
        }
    }

    /// As pages name it.
    pub fn title(self) -> &'static str {
        match self {
            BuyInKind::Cash => "Cash",
            BuyInKind::Marker => "Marker",
            BuyInKind::ChipVoucher => "Chip voucher",
        }
    }

    /// Cash goes into the drop box as banknotes; the others are the non-cash drop.
    pub fn is_cash(self) -> bool {
        self == BuyInKind::Cash
    }
}

impl fmt::Display for BuyInKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a kind of buy-in: cash, marker or chip_voucher")]
pub struct UnknownBuyInKind(pub String);

impl FromStr for BuyInKind {
    type Err = UnknownBuyInKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BuyInKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownBuyInKind(s.to_owned()))
    }
}

impl TryFrom<String> for BuyInKind {
    type Error = UnknownBuyInKind;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

/// The largest buy-in or fee taken, in major units: anything above is a typing slip (a few
/// zeros too many), refused in words rather than stored.
pub const LARGEST_MAJOR: i64 = 10_000_000;

/// [`LARGEST_MAJOR`] as money.
pub const LARGEST: Money = Money::from_minor_units(LARGEST_MAJOR * 100);

/// Why an amount as typed is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AmountError {
    #[error("Enter the amount.")]
    Empty,
    #[error("{0:?} is not an amount: type it in major units, such as 500 or 1,250.50.")]
    NotAnAmount(String),
    #[error("The amount must be above zero.")]
    NotAboveZero,
    #[error("{} is more than the largest amount taken, {}.", .0, LARGEST.major_text())]
    TooLarge(String),
}

/// An amount a person typed in major units (`500`, `1,250.50`): above zero and at most
/// [`LARGEST`].
pub fn amount(typed: &str) -> Result<Money, AmountError> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Err(AmountError::Empty);
    }
    if let Some(rest) = typed.strip_prefix('-') {
        return match Money::parse_major(rest) {
            Some(_) => Err(AmountError::NotAboveZero),
            None => Err(AmountError::NotAnAmount(typed.to_owned())),
        };
    }
    match Money::parse_major(typed) {
        None if typed.replace(',', "").bytes().all(|b| b.is_ascii_digit()) => {
            // Only digits, yet too many for any amount.
            Err(AmountError::TooLarge(typed.to_owned()))
        }
        None => Err(AmountError::NotAnAmount(typed.to_owned())),
        Some(money) if !money.is_positive() => Err(AmountError::NotAboveZero),
        Some(money) if money > LARGEST => Err(AmountError::TooLarge(money.major_text())),
        Some(money) => Ok(money),
    }
}

/// Why a seat is refused: the game does not have it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeatError {
    #[error("Choose the seat.")]
    Empty,
    #[error("{0:?} is not a seat number.")]
    NotANumber(String),
    #[error("{0}")]
    NoSuchSeat(String),
}

/// A seat as typed, checked against the seats of `game`: the banking game seats players 1 to 3
/// (the dealer is the house), the points game 1 to 4.
pub fn seat(game: Game, typed: &str) -> Result<u8, SeatError> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Err(SeatError::Empty);
    }
    let number: i64 = typed
        .parse()
        .map_err(|_| SeatError::NotANumber(typed.to_owned()))?;
    match game {
        Game::Banking => SeatNo::new(number)
            .map(SeatNo::number)
            .map_err(|e| SeatError::NoSuchSeat(format!("At a banking table {e}."))),
        Game::Points => PlayerSeat::new(number)
            .map(PlayerSeat::number)
            .map_err(|e| SeatError::NoSuchSeat(format!("At a points table {e}."))),
    }
}

/// The seats of `game`, in order.
pub fn seats_of(game: Game) -> Vec<u8> {
    match game {
        Game::Banking => SeatNo::ALL.iter().map(|s| s.number()).collect(),
        Game::Points => PlayerSeat::ALL.iter().map(|s| s.number()).collect(),
    }
}

/// One buy-in as the totals read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuyInLine {
    pub seat: u8,
    pub kind: BuyInKind,
    pub amount: Money,
    pub void: bool,
}

/// A table's day of buy-ins and fees added up, the void ones left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DropTotals {
    /// Every buy-in: the drop as recorded at the table.
    pub drop: Total,
    pub cash: Total,
    /// Markers and chip vouchers.
    pub non_cash: Total,
    pub by_kind: BTreeMap<BuyInKind, Total>,
    /// Per seat with a buy-in.
    pub by_seat: BTreeMap<u8, Total>,
    /// The points game's table fees: the house's income at that table.
    pub fees: Total,
    /// How many buy-ins and fees count (not void).
    pub buy_ins: usize,
    pub fee_count: usize,
}

/// The totals of a day's `buy_ins` and `fees` (amount, void); void ones count for nothing.
pub fn totals(buy_ins: &[BuyInLine], fees: &[(Money, bool)]) -> DropTotals {
    let mut totals = DropTotals::default();
    for line in buy_ins.iter().filter(|l| !l.void) {
        let amount = Total::from(line.amount);
        totals.drop = add(totals.drop, amount);
        if line.kind.is_cash() {
            totals.cash = add(totals.cash, amount);
        } else {
            totals.non_cash = add(totals.non_cash, amount);
        }
        let kind = totals.by_kind.entry(line.kind).or_default();
        *kind = add(*kind, amount);
        let seat = totals.by_seat.entry(line.seat).or_default();
        *seat = add(*seat, amount);
        totals.buy_ins += 1;
    }
    for (amount, _) in fees.iter().filter(|(_, void)| !void) {
        totals.fees = add(totals.fees, Total::from(*amount));
        totals.fee_count += 1;
    }
    totals
}

/// `i128` holds the sum of more `i64` amounts than a day has rows: no overflow to guard.
fn add(a: Total, b: Total) -> Total {
    Total(a.0 + b.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_read_in_major_units_above_zero_and_at_most_the_largest() {
        let cases: [(&str, Result<Money, AmountError>); 11] = [
            ("500", Ok(Money::from_minor_units(50_000))),
            (" 1,250.50 ", Ok(Money::from_minor_units(125_050))),
            ("0.01", Ok(Money::from_minor_units(1))),
            ("10,000,000", Ok(LARGEST)),
            ("", Err(AmountError::Empty)),
            ("0", Err(AmountError::NotAboveZero)),
            ("0.00", Err(AmountError::NotAboveZero)),
            ("-5", Err(AmountError::NotAboveZero)),
            ("five", Err(AmountError::NotAnAmount("five".to_owned()))),
            (
                "10,000,000.01",
                Err(AmountError::TooLarge("10,000,000.01".to_owned())),
            ),
            (
                "99999999999999999999",
                Err(AmountError::TooLarge("99999999999999999999".to_owned())),
            ),
        ];
        for (typed, expected) in cases {
            assert_eq!(amount(typed), expected, "{typed:?}");
        }
        assert_eq!(
            amount("1.234"),
            Err(AmountError::NotAnAmount("1.234".to_owned()))
        );
        assert_eq!(amount("-x"), Err(AmountError::NotAnAmount("-x".to_owned())));
    }

    #[test]
    fn a_banking_table_seats_three_players_and_a_points_table_four() {
        assert_eq!(seats_of(Game::Banking), vec![1, 2, 3]);
        assert_eq!(seats_of(Game::Points), vec![1, 2, 3, 4]);
        assert_eq!(seat(Game::Banking, "3"), Ok(3));
        assert_eq!(seat(Game::Points, " 4 "), Ok(4));
        assert!(matches!(
            seat(Game::Banking, "4"),
            Err(SeatError::NoSuchSeat(words)) if words.contains("no seat 4")
        ));
        assert!(matches!(
            seat(Game::Points, "0"),
            Err(SeatError::NoSuchSeat(_))
        ));
        assert!(matches!(
            seat(Game::Points, "5"),
            Err(SeatError::NoSuchSeat(_))
        ));
        assert_eq!(seat(Game::Points, ""), Err(SeatError::Empty));
        assert_eq!(
            seat(Game::Banking, "two"),
            Err(SeatError::NotANumber("two".to_owned()))
        );
    }

    fn line(seat: u8, kind: BuyInKind, major: i64, void: bool) -> BuyInLine {
        BuyInLine {
            seat,
            kind,
            amount: Money::from_minor_units(major * 100),
            void,
        }
    }

    #[test]
    fn totals_split_cash_from_non_cash_by_seat_and_leave_voids_out() {
        use BuyInKind::{Cash, ChipVoucher, Marker};
        let buy_ins = [
            line(1, Cash, 5_000, false),
            line(1, Marker, 20_000, false),
            line(2, Cash, 1_000, false),
            line(2, Cash, 9_000, true),
            line(3, ChipVoucher, 500, false),
        ];
        let fees = [
            (Money::from_minor_units(10_000), false),
            (Money::from_minor_units(99_900), true),
        ];
        let t = totals(&buy_ins, &fees);
        assert_eq!(t.drop, Total(2_650_000));
        assert_eq!(t.cash, Total(600_000));
        assert_eq!(t.non_cash, Total(2_050_000));
        assert_eq!(t.cash.0 + t.non_cash.0, t.drop.0);
        assert_eq!(t.by_kind.get(&Marker), Some(&Total(2_000_000)));
        assert_eq!(t.by_kind.get(&ChipVoucher), Some(&Total(50_000)));
        assert_eq!(
            t.by_seat.into_iter().collect::<Vec<_>>(),
            vec![
                (1, Total(2_500_000)),
                (2, Total(100_000)),
                (3, Total(50_000))
            ]
        );
        assert_eq!(t.fees, Total(10_000));
        assert_eq!((t.buy_ins, t.fee_count), (4, 1));
    }

    #[test]
    fn a_day_with_nothing_or_only_voids_adds_up_to_zero() {
        assert_eq!(totals(&[], &[]), DropTotals::default());
        let t = totals(
            &[line(1, BuyInKind::Cash, 100, true)],
            &[(Money::from_minor_units(100), true)],
        );
        assert_eq!(t, DropTotals::default());
    }

    #[test]
    fn totals_of_the_largest_amounts_do_not_overflow() {
        let many = vec![
            BuyInLine {
                seat: 1,
                kind: BuyInKind::Cash,
                amount: Money::from_minor_units(i64::MAX),
                void: false,
            };
            4
        ];
        let t = totals(&many, &[]);
        assert_eq!(t.drop, Total(i128::from(i64::MAX) * 4));
    }

    #[test]
    fn kinds_read_back_as_written() {
        for kind in BuyInKind::ALL {
            assert_eq!(kind.as_str().parse::<BuyInKind>(), Ok(kind));
        }
        assert!("cheque".parse::<BuyInKind>().is_err());
    }
}
