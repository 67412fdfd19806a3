//! Money: integer minor units of the table's currency, with checked arithmetic. No floats anywhere.

use std::fmt;

use serde::{Deserialize, Serialize};

/// An amount in minor units (e.g. centavos). Serializes as a plain integer.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Money(pub i64);

impl Money {
    pub const ZERO: Money = Money(0);

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

    /// [`Money::major_text`] with `+` before a positive amount, for results: `+1,234.50`.
    pub fn signed_text(self) -> String {
        if self.0 > 0 {
            format!("+{}", self.major_text())
        } else {
            self.major_text()
        }
    }

    pub const fn checked_mul(self, factor: i64) -> Option<Money> {
        match self.0.checked_mul(factor) {
            Some(product) => Some(Money(product)),
            None => None,
        }
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
