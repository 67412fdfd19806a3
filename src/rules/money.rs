//! Money: integer minor units of the table's currency, with checked arithmetic. No floats anywhere.

use std::fmt;

use serde::{Deserialize, Serialize};

/// An amount in minor units (e.g. centavos). Serializes as a plain integer.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Money(i64);

impl Money {
    pub const ZERO: Money = Money(0);

    /// The amount of `minor_units` (centavos, cents) of the table's currency.
    pub const fn from_minor_units(minor_units: i64) -> Money {
        Money(minor_units)
    }

    pub const fn minor_units(self) -> i64 {
        self.0
    }

    pub const fn is_positive(self) -> bool {
        self.0 > 0
    }

    pub const fn checked_sub(self, other: Money) -> Option<Money> {
        match self.0.checked_sub(other.0) {
            Some(difference) => Some(Money(difference)),
            None => None,
        }
    }

    /// In major units, as people read amounts: thousands separated, two decimals (the
    /// currencies of our tables, PHP and USD, have 100 minor units): `-1,234.50`.
    pub fn major_text(self) -> String {
        Total::from(self).major_text()
    }

    /// [`Money::major_text`] with `+` before a positive amount, for results: `+1,234.50`.
    pub fn signed_text(self) -> String {
        Total::from(self).signed_text()
    }

    /// Major units as a form field holds them, without separators: `1234.50`.
    pub fn plain_text(self) -> String {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        format!("{sign}{}.{:02}", abs / 100, abs % 100)
    }

    /// [`Money::plain_text`] as a person types a bet: `500`, or `500.50` with minor units.
    pub fn typed_text(self) -> String {
        if self.0 % 100 == 0 {
            (self.0 / 100).to_string()
        } else {
            self.plain_text()
        }
    }

    /// An amount a person typed in major units (`100`, `100.5`, `50,000.00`); `None` unless it
    /// is a non-negative amount with at most two decimals.
    pub fn parse_major(text: &str) -> Option<Money> {
        let text = text.trim().replace(',', "");
        let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
        if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || frac.len() > 2 {
            return None;
        }
        if !frac.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let cents: i64 = format!("{frac:0<2}").parse().ok()?;
        whole
            .parse::<i64>()
            .ok()?
            .checked_mul(100)?
            .checked_add(cents)
            .map(Money)
    }

    pub const fn checked_mul(self, factor: i64) -> Option<Money> {
        match self.0.checked_mul(factor) {
            Some(product) => Some(Money(product)),
            None => None,
        }
    }
}

/// A sum of amounts over any number of rounds (a day's or a shift's house result), in minor
/// units: `i128` holds the sum of more `i64` amounts than a database can store, so it cannot
/// overflow. Printed as [`Money`] is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Total(pub i128);

impl From<Money> for Total {
    fn from(money: Money) -> Self {
        Total(i128::from(money.0))
    }
}

impl Total {
    /// As [`Money::major_text`]: `-1,234.50`.
    pub fn major_text(self) -> String {
        let abs = self.0.unsigned_abs();
        let whole = (abs / 100).to_string();
        let mut text = String::with_capacity(whole.len() + whole.len() / 3 + 4);
        if self.0 < 0 {
            text.push('-');
        }
        for (i, digit) in whole.chars().enumerate() {
            if i > 0 && (whole.len() - i).is_multiple_of(3) {
                text.push(',');
            }
            text.push(digit);
        }
        text.push_str(&format!(".{:02}", abs % 100));
        text
    }

    /// As [`Money::plain_text`]: `1234.50`, without separators (the API's decimal strings).
    pub fn plain_text(self) -> String {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        format!("{sign}{}.{:02}", abs / 100, abs % 100)
    }

    /// As [`Money::signed_text`]: `+1,234.50`.
    pub fn signed_text(self) -> String {
        if self.0 > 0 {
            format!("+{}", self.major_text())
        } else {
            self.major_text()
        }
    }
}

impl From<i64> for Money {
    fn from(minor_units: i64) -> Self {
        Money(minor_units)
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_total_beyond_i64_is_printed_whole() {
        let two = Total(2 * i128::from(i64::MAX));
        assert_eq!(two.major_text(), "184,467,440,737,095,516.14");
        assert_eq!(Total(-two.0).signed_text(), "-184,467,440,737,095,516.14");
        assert_eq!(Total(123_456).signed_text(), "+1,234.56");
        assert_eq!(Total::from(Money(-5)).major_text(), "-0.05");
    }

    #[test]
    fn amounts_are_read_in_major_units() {
        assert_eq!(Money::parse_major("100"), Some(Money(10_000)));
        assert_eq!(Money::parse_major("100.5"), Some(Money(10_050)));
        assert_eq!(Money::parse_major(" 50,000.00 "), Some(Money(5_000_000)));
        for bad in ["", "-1", "1.234", "abc", "1.x", ".5"] {
            assert_eq!(Money::parse_major(bad), None, "{bad}");
        }
    }

    /// The database reads amounts as minor units (`deserialize_as = i64`) through `From<i64>`.
    #[test]
    fn an_amount_read_from_the_database_is_its_minor_units() {
        for minor in [0, 1, -150, 5_000_000, i64::MIN, i64::MAX] {
            assert_eq!(Money::from(minor), Money(minor));
        }
    }

    #[test]
    fn amounts_are_written_as_typed_in_form_fields() {
        // (minor units, plain, typed)
        let cases = [
            (10_000, "100.00", "100"),
            (50_050, "500.50", "500.50"),
            (5, "0.05", "0.05"),
            (-150, "-1.50", "-1.50"),
            // Zero has no sign.
            (0, "0.00", "0"),
        ];
        for (minor, plain, typed) in cases {
            assert_eq!(Money(minor).plain_text(), plain, "{minor}");
            assert_eq!(Money(minor).typed_text(), typed, "{minor}");
            assert_eq!(
                Money::parse_major(typed).filter(|_| minor >= 0),
                (minor >= 0).then_some(Money(minor))
            );
        }
    }

    #[test]
    fn amounts_read_in_major_units_with_separators_and_sign() {
        let cases = [
            (0, "0.00", "0.00"),
            (5, "0.05", "+0.05"),
            (-50, "-0.50", "-0.50"),
            (10_000, "100.00", "+100.00"),
            (123_456_789, "1,234,567.89", "+1,234,567.89"),
            (-100_000_000, "-1,000,000.00", "-1,000,000.00"),
            (
                i64::MIN,
                "-92,233,720,368,547,758.08",
                "-92,233,720,368,547,758.08",
            ),
        ];
        for (minor, major, signed) in cases {
            assert_eq!(Money(minor).major_text(), major, "{minor}");
            assert_eq!(Money(minor).signed_text(), signed, "{minor}");
        }
    }

    #[test]
    fn arithmetic_is_checked() {
        assert_eq!(Money(100).checked_mul(-2), Some(Money(-200)));
        assert_eq!(Money(i64::MAX).checked_mul(2), None);
        assert_eq!(Money(5).checked_sub(Money(7)), Some(Money(-2)));
    }

    #[test]
    fn money_is_a_plain_integer_on_the_wire_and_on_screen() {
        assert_eq!(
            serde_json::to_string(&Money(-150)).expect("serialize"),
            "-150"
        );
        assert_eq!(
            serde_json::from_str::<Money>("42").expect("deserialize"),
            Money(42)
        );
        assert_eq!(Money(-7).to_string(), "-7");
    }
}
