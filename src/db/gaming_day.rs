//! The gaming day: the casino's business date, which starts at a configured local hour
//! (`PUSOY_GAMING_DAY_START`, default 06:00) in the casino's UTC offset (`PUSOY_UTC_OFFSET`,
//! default +08:00). A round played at 02:00 local belongs to the previous gaming day.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime, Offset, Utc};

/// Default UTC offset of the casino, in seconds (+08:00).
const DEFAULT_OFFSET_SECS: i32 = 8 * 3600;
/// Default local start of a gaming day, in hours.
const DEFAULT_START_HOUR: u32 = 6;

/// The gaming day at `now`.
pub fn gaming_day(now: DateTime<Utc>, offset: FixedOffset, day_start: NaiveTime) -> NaiveDate {
    let local = now.with_timezone(&offset).naive_local();
    (local - day_start.signed_duration_since(NaiveTime::MIN)).date()
}

/// The current gaming day, with the offset and start from the environment (or the defaults).
pub fn current() -> NaiveDate {
    let offset = std::env::var("PUSOY_UTC_OFFSET")
        .ok()
        .and_then(|text| text.trim().parse::<FixedOffset>().ok())
        .or_else(|| FixedOffset::east_opt(DEFAULT_OFFSET_SECS))
        .unwrap_or_else(|| Utc.fix());
    let start = std::env::var("PUSOY_GAMING_DAY_START")
        .ok()
        .and_then(|text| NaiveTime::parse_from_str(text.trim(), "%H:%M").ok())
        .or_else(|| NaiveTime::from_hms_opt(DEFAULT_START_HOUR, 0, 0))
        .unwrap_or(NaiveTime::MIN);
    gaming_day(Utc::now(), offset, start)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn day(utc: &str, offset: &str, start: &str) -> String {
        let now: DateTime<Utc> = utc.parse().unwrap();
        let offset: FixedOffset = offset.parse().unwrap();
        let start = NaiveTime::parse_from_str(start, "%H:%M").unwrap();
        gaming_day(now, offset, start).to_string()
    }

    #[test]
    fn the_gaming_day_turns_at_the_local_start_hour() {
        for (utc, offset, start, expected) in [
            // 05:59 and 06:00 in Manila (+08:00).
            ("2025-03-10T21:59:00Z", "+08:00", "06:00", "2025-03-10"),
            ("2025-03-10T22:00:00Z", "+08:00", "06:00", "2025-03-11"),
            // Local midnight still belongs to the day before.
            ("2025-03-10T16:00:00Z", "+08:00", "06:00", "2025-03-10"),
            // A west-of-UTC casino with a midnight start.
            ("2025-03-10T04:00:00Z", "-05:00", "00:00", "2025-03-09"),
            ("2025-03-10T05:00:00Z", "-05:00", "00:00", "2025-03-10"),
        ] {
            assert_eq!(day(utc, offset, start), expected, "{utc} {offset} {start}");
        }
    }
}
