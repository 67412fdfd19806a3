//! The figures of a report line (one day, table, dealer or shift, in one currency) as the
//! database sums them, and the shares and rates worked out from them in integers.

use diesel::sql_types::BigInt;
use diesel::QueryableByName;
use serde::Serialize;

use crate::rules::money::Money;

/// What a set of settled rounds adds up to. Voided rounds count only in `voids`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, QueryableByName, Serialize)]
pub struct Figures {
    /// Rounds that count (not voided).
    #[diesel(sql_type = BigInt)]
    pub rounds: i64,
    /// Seats that took part in those rounds (played, surrendered or declared a royalty).
    #[diesel(sql_type = BigInt)]
    pub seats: i64,
    /// The total bet (handle).
    #[diesel(sql_type = BigInt, deserialize_as = i64)]
    pub handle: Money,
    /// The house result: the sum of the dealer's results (positive: the house won).
    #[diesel(sql_type = BigInt, deserialize_as = i64)]
    pub house: Money,
    /// Seats that set three hands (the base of the players' foul rate), and how many fouled.
    #[diesel(sql_type = BigInt)]
    pub player_sets: i64,
    #[diesel(sql_type = BigInt)]
    pub player_fouls: i64,
    /// Rounds where the dealer set three hands, and how many of those fouled.
    #[diesel(sql_type = BigInt)]
    pub dealer_sets: i64,
    #[diesel(sql_type = BigInt)]
    pub dealer_fouls: i64,
    /// Places (seats and the dealer) that surrendered.
    #[diesel(sql_type = BigInt)]
    pub surrenders: i64,
    /// Places (seats and the dealer) that declared a royalty.
    #[diesel(sql_type = BigInt)]
    pub royalties: i64,
    /// Seats that won all three hands against the dealer, and seats that lost all three.
    #[diesel(sql_type = BigInt)]
    pub player_sweeps: i64,
    #[diesel(sql_type = BigInt)]
    pub dealer_sweeps: i64,
    /// Rounds of the points game (docs/rules.md §8), counted in `rounds` too: their players
    /// play each other, so they add nothing to `house` (the house's income at a points table
    /// is its fee, which is table accounting). Their naturals shown, pusoys made, and what the
    /// players who came out ahead won from the others; their mis-sets are in `player_fouls`.
    #[diesel(sql_type = BigInt)]
    pub points_rounds: i64,
    #[diesel(sql_type = BigInt)]
    pub naturals: i64,
    #[diesel(sql_type = BigInt)]
    pub pusoys: i64,
    #[diesel(sql_type = BigInt, deserialize_as = i64)]
    pub players_won: Money,
    /// Voided rounds (out of every other figure).
    #[diesel(sql_type = BigInt)]
    pub voids: i64,
    /// Rounds waiting for a supervisor's approval (not approved, not voided).
    #[diesel(sql_type = BigInt)]
    pub pending: i64,
}

impl Figures {
    /// The house result as a share of the handle, `"12.34 %"`; a dash without handle.
    pub fn result_share(&self) -> String {
        percent(self.house.minor_units(), self.handle.minor_units())
    }

    pub fn player_foul_rate(&self) -> String {
        percent(self.player_fouls, self.player_sets)
    }

    pub fn dealer_foul_rate(&self) -> String {
        percent(self.dealer_fouls, self.dealer_sets)
    }

    /// Both sides' sweeps.
    pub fn sweeps(&self) -> i64 {
        self.player_sweeps + self.dealer_sweeps
    }
}

/// `part` of `whole` in percent with two decimals, rounded half away from zero (`"-3.33 %"`);
/// `"–"` when `whole` is zero. Integer arithmetic only, in `i128` so no sum can overflow.
pub fn percent(part: i64, whole: i64) -> String {
    if whole == 0 {
        return "–".to_owned();
    }
    let scaled = i128::from(part) * 10_000;
    let whole = i128::from(whole);
    let half = whole.abs() / 2;
    let rounded = if (scaled < 0) == (whole < 0) {
        (scaled.abs() + half) / whole.abs()
    } else {
        -((scaled.abs() + half) / whole.abs())
    };
    let sign = if rounded < 0 { "-" } else { "" };
    let abs = rounded.abs();
    format!("{sign}{}.{:02} %", abs / 100, abs % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_round_half_away_from_zero_and_keep_their_sign() {
        let cases = [
            (1, 3, "33.33 %"),
            (2, 3, "66.67 %"),
            (-1, 3, "-33.33 %"),
            (1, 8, "12.50 %"),
            (1, 80_000, "0.00 %"),
            (1, 20_000, "0.01 %"),
            (-1, 20_000, "-0.01 %"),
            (5, 5, "100.00 %"),
            (0, 7, "0.00 %"),
            (3, 0, "–"),
            (i64::MAX, 1, "922337203685477580700.00 %"),
        ];
        for (part, whole, expected) in cases {
            assert_eq!(percent(part, whole), expected, "{part}/{whole}");
        }
    }

    #[test]
    fn the_shares_of_a_line_come_from_its_own_figures() {
        let figures = Figures {
            handle: Money::from_minor_units(10_000),
            house: Money::from_minor_units(-250),
            player_sets: 8,
            player_fouls: 1,
            dealer_sets: 4,
            dealer_fouls: 3,
            player_sweeps: 2,
            dealer_sweeps: 5,
            ..Figures::default()
        };
        assert_eq!(figures.result_share(), "-2.50 %");
        assert_eq!(figures.player_foul_rate(), "12.50 %");
        assert_eq!(figures.dealer_foul_rate(), "75.00 %");
        assert_eq!(figures.sweeps(), 7);
    }
}
