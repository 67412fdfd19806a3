//! The gaming day: the casino's business day, which starts at a fixed local hour, not at
//! midnight. Pure: the caller gives the time.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime, Utc};

/// The gaming day `now` belongs to: the local date (at `utc_offset`), minus one day before
/// `start` (so 02:00 after a busy night still counts toward the day that began at 06:00).
pub fn gaming_day(now: DateTime<Utc>, utc_offset: FixedOffset, start: NaiveTime) -> NaiveDate {
    let local = now.with_timezone(&utc_offset).naive_local();
    (local - (start - NaiveTime::MIN)).date()
}

/// The moment gaming day `day` ends: the next local date at `start`, at `utc_offset`.
pub fn gaming_day_end(day: NaiveDate, utc_offset: FixedOffset, start: NaiveTime) -> DateTime<Utc> {
    let next = day.succ_opt().unwrap_or(day).and_time(start);
    (next - utc_offset).and_utc()
}

/// What a refusal on a closed gaming day says: a closed day records nothing more (the database
/// refuses it too). Here, below every layer that refuses it (rounds, shifts, table accounting,
/// the web's error pages), as those may not import each other.
pub fn closed_day_message(day: NaiveDate) -> String {
    format!("The gaming day {day} is closed: nothing more can be recorded for it.")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn gaming_day_follows_local_time_and_the_start_hour() {
        let manila = FixedOffset::east_opt(8 * 3600).unwrap();
        let six = NaiveTime::from_hms_opt(6, 0, 0).unwrap();
        let cases = [
            // (UTC time, gaming day)
            ((2026, 3, 1, 22, 0), day(2026, 3, 2)), // 06:00 local: a new day starts
            ((2026, 3, 1, 21, 59), day(2026, 3, 1)), // 05:59 local: still the day before
            ((2026, 3, 1, 16, 0), day(2026, 3, 1)), // local midnight belongs to the day before
            ((2026, 3, 2, 3, 0), day(2026, 3, 2)),  // 11:00 local
            ((2026, 12, 31, 21, 0), day(2026, 12, 31)), // 05:00 on 1 January local
        ];
        for ((y, mo, d, h, mi), expected) in cases {
            let now = Utc.with_ymd_and_hms(y, mo, d, h, mi, 0).unwrap();
            assert_eq!(gaming_day(now, manila, six), expected, "{now}");
        }
    }

    #[test]
    fn a_gaming_day_ends_where_the_next_begins() {
        let manila = FixedOffset::east_opt(8 * 3600).unwrap();
        let six = NaiveTime::from_hms_opt(6, 0, 0).unwrap();
        for day in [day(2026, 3, 1), day(2026, 12, 31), day(2028, 2, 28)] {
            let end = gaming_day_end(day, manila, six);
            assert_eq!(
                gaming_day(end, manila, six),
                day.succ_opt().unwrap(),
                "{day}"
            );
            let before = end - chrono::Duration::seconds(1);
            assert_eq!(gaming_day(before, manila, six), day, "{day}");
        }
        // 2026-03-01 runs to 06:00 local on 2 March: 22:00 UTC on 1 March.
        assert_eq!(
            gaming_day_end(day(2026, 3, 1), manila, six),
            Utc.with_ymd_and_hms(2026, 3, 1, 22, 0, 0).unwrap()
        );
    }

    #[test]
    fn a_midnight_start_is_the_local_date() {
        let utc = FixedOffset::east_opt(0).unwrap();
        let now = Utc.with_ymd_and_hms(2026, 5, 5, 0, 0, 0).unwrap();
        assert_eq!(gaming_day(now, utc, NaiveTime::MIN), day(2026, 5, 5));
    }
}
