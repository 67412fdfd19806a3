//! How pages write times and messages.

use chrono::{DateTime, NaiveDateTime, Utc};

use crate::config::Zone;
use crate::rules::money::{Money, Total};

/// A time as pages show it: in the casino's local time (`PUSOY_UTC_OFFSET`) with the zone
/// named, `2026-03-01 22:05 (PHT, UTC+08:00)`.
pub fn when(at: DateTime<Utc>, zone: Zone) -> String {
    zone.time(at)
}

/// An amount with its currency beside it, in the one format of every page: `PHP 50,000.00`.
pub fn money(amount: Money, currency: &str) -> String {
    format!("{currency} {}", amount.major_text())
}

/// A result with its currency, signed so that a loss reads as one without colour:
/// `PHP +800.00`, `PHP -1,250.00`, `PHP 0.00`.
pub fn result(amount: Money, currency: &str) -> String {
    total(amount.into(), currency)
}

/// A sum of results (which no sum of rounds can overflow), written as [`result`] writes one.
pub fn total(amount: Total, currency: &str) -> String {
    format!("{currency} {}", amount.signed_text())
}

/// A sum of amounts that are not results (a drop), written as [`money`] writes one: no sign
/// before a positive sum.
pub fn sum(amount: Total, currency: &str) -> String {
    format!("{currency} {}", amount.major_text())
}

/// A time typed in the casino's local time `zone` as a `datetime-local` field sends it
/// (`2026-03-01T18:00`, or with a space), in UTC; `None` if it is not such a time.
pub fn typed_local_time(typed: &str, zone: Zone) -> Option<DateTime<Utc>> {
    let typed = typed.trim();
    NaiveDateTime::parse_from_str(typed, "%Y-%m-%dT%H:%M")
        .or_else(|_| NaiveDateTime::parse_from_str(typed, "%Y-%m-%d %H:%M"))
        .ok()?
        .and_local_timezone(zone.offset)
        .single()
        .map(|at| at.with_timezone(&Utc))
}

/// A message as a sentence: its first letter capitalised and a full stop at the end (once).
pub fn capitalised(text: &str) -> String {
    let text = text.trim_end_matches('.');
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

/// "round" for one, "rounds" otherwise: the word after a count of rounds.
pub fn rounds_word(count: i64) -> &'static str {
    if count == 1 {
        "round"
    } else {
        "rounds"
    }
}

#[cfg(test)]
mod tests {
    use chrono::{FixedOffset, Offset};

    use super::*;

    #[test]
    fn a_time_is_shown_in_local_time_with_its_zone_named() {
        let at = DateTime::parse_from_rfc3339("2026-03-01T10:15:00Z")
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_default();
        let manila = FixedOffset::east_opt(8 * 3600).unwrap_or(Utc.fix());
        let manila = Zone {
            offset: manila,
            name: Zone::known_name(manila),
        };
        assert_eq!(when(at, manila), "2026-03-01 18:15 (PHT, UTC+08:00)");
        let new_york = FixedOffset::west_opt(5 * 3600).unwrap_or(Utc.fix());
        let unnamed = Zone {
            offset: new_york,
            name: None,
        };
        assert_eq!(when(at, unnamed), "2026-03-01 05:15 (UTC-05:00)");
        let named = Zone {
            offset: new_york,
            name: Some("EST"),
        };
        assert_eq!(when(at, named), "2026-03-01 05:15 (EST, UTC-05:00)");
    }

    #[test]
    fn amounts_carry_their_currency_and_losses_their_sign() {
        assert_eq!(
            money(Money::from_minor_units(5_000_000), "PHP"),
            "PHP 50,000.00"
        );
        assert_eq!(
            result(Money::from_minor_units(80_000), "PHP"),
            "PHP +800.00"
        );
        assert_eq!(
            result(Money::from_minor_units(-125_000), "USD"),
            "USD -1,250.00"
        );
        assert_eq!(result(Money::from_minor_units(0), "PHP"), "PHP 0.00");
    }

    #[test]
    fn a_typed_local_time_is_read_in_the_casinos_zone() {
        let manila = Zone {
            offset: FixedOffset::east_opt(8 * 3600).unwrap_or(Utc.fix()),
            name: None,
        };
        let at = typed_local_time("2026-03-01T18:15", manila).map(|t| t.to_rfc3339());
        assert_eq!(at.as_deref(), Some("2026-03-01T10:15:00+00:00"));
        assert_eq!(
            typed_local_time(" 2026-03-01 18:15 ", manila),
            typed_local_time("2026-03-01T18:15", manila)
        );
        assert_eq!(typed_local_time("31/12/2099", manila), None);
    }

    #[test]
    fn a_message_becomes_one_sentence_with_one_full_stop() {
        assert_eq!(capitalised("enter a name"), "Enter a name.");
        assert_eq!(capitalised("enter a name."), "Enter a name.");
        assert_eq!(capitalised(""), "");
    }
}
