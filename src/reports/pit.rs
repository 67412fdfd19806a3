//! The live pit board: every table at once, with its dealer on shift, the rounds and house
//! result of the shift and of the gaming day, the open draft, the rounds waiting for approval,
//! and flags on what a pit manager should look at (a table gone quiet while a dealer is on it,
//! a dealer fouling far more often than the pit).
//!
//! One statement reads it all ([`BOARD`]); the flags are decided here from its figures and the
//! time, by pure functions.

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Date, Nullable, Text, Timestamptz};

use crate::db::ids::{ShiftId, TableId};
use crate::db::prepared::Sql;
use crate::rules::money::Money;

/// Every table by code, with (`$1`: today's gaming day): its open shift and dealer, its open
/// draft's start, the count and house result of the shift's and of the day's rounds that are
/// not voided, how many of those the dealer fouled, the day's voided rounds, the time of the
/// shift's latest round (voided or not: it was dealt), the table's rounds pending approval (any
/// day, and today's), and whether the table plays the points game (its rule profile version's
/// `game`, which the banking game's options leave out).
///
/// Written to be read from indexes, not from the rounds' rows (each round's row is wide: its
/// places): counts and sums come from the key on table, day and number (which carries each
/// round's shift and dealer result), less those of the voided rounds (few, found through
/// `round_voids`); the dealer's fouls from the partial index of rounds whose dealer fouled; the
/// pending rounds from the partial index of rounds needing approval. A shift's rounds are on
/// its gaming day or later. Only the shift's latest round is read, for its time: found through
/// the key first (newest first, the first of the shift), then read by it.
const BOARD: &str = "\
    SELECT t.id AS table_id, t.code, t.name, t.currency, \
           s.id AS shift_id, s.signed_on_at, u.display_name AS dealer_name, \
           d.created_at AS draft_opened_at, \
           COALESCE(sr.rounds - sv.rounds, 0) AS shift_rounds, \
           COALESCE(sr.house - sv.house, 0)::bigint AS shift_house, \
           COALESCE(sf.fouls, 0) AS shift_dealer_fouls, \
           dr.rounds - dv.rounds AS day_rounds, (dr.house - dv.house)::bigint AS day_house, \
           df.fouls AS day_dealer_fouls, dv.rounds AS day_void_rounds, \
           (SELECT r.settled_at FROM rounds r \
            WHERE r.table_id = t.id AND r.gaming_day = lr.gaming_day \
              AND r.round_no = lr.round_no) AS last_round_at, \
           p.pending, p.day_pending, \
           COALESCE(pv.options ->> 'game' = 'points', false) AS points_game \
    FROM gaming_tables t \
    JOIN rule_profile_versions pv ON pv.id = t.profile_version_id \
    LEFT JOIN dealer_shifts s ON s.table_id = t.id AND s.signed_off_at IS NULL \
    LEFT JOIN users u ON u.id = s.dealer_id \
    LEFT JOIN round_drafts d ON d.table_id = t.id \
        AND d.settled_round_id IS NULL AND d.abandoned_at IS NULL \
    LEFT JOIN LATERAL ( \
        SELECT count(*) AS rounds, COALESCE(sum(r.dealer_result), 0) AS house FROM rounds r \
        WHERE r.table_id = t.id AND r.gaming_day >= s.gaming_day AND r.shift_id = s.id \
    ) sr ON s.id IS NOT NULL \
    LEFT JOIN LATERAL ( \
        SELECT count(*) AS rounds, COALESCE(sum(r.dealer_result), 0) AS house \
        FROM round_voids v JOIN rounds r ON r.id = v.round_id \
        WHERE v.table_id = t.id AND v.gaming_day >= s.gaming_day AND r.shift_id = s.id \
    ) sv ON s.id IS NOT NULL \
    LEFT JOIN LATERAL ( \
        SELECT count(*) AS fouls FROM rounds r \
        WHERE r.table_id = t.id AND r.gaming_day >= s.gaming_day AND r.shift_id = s.id \
          AND (r.places -> 0 ->> 'fouled')::boolean \
          AND NOT EXISTS (SELECT 1 FROM round_voids v WHERE v.round_id = r.id) \
    ) sf ON s.id IS NOT NULL \
    LEFT JOIN LATERAL ( \
        SELECT r.gaming_day, r.round_no FROM rounds r \
        WHERE r.table_id = t.id AND r.gaming_day >= s.gaming_day AND r.shift_id = s.id \
        ORDER BY r.gaming_day DESC, r.round_no DESC LIMIT 1 \
    ) lr ON s.id IS NOT NULL \
    CROSS JOIN LATERAL ( \
        SELECT count(*) AS rounds, COALESCE(sum(r.dealer_result), 0) AS house FROM rounds r \
        WHERE r.table_id = t.id AND r.gaming_day = $1 \
    ) dr \
    CROSS JOIN LATERAL ( \
        SELECT count(*) AS rounds, COALESCE(sum(r.dealer_result), 0) AS house \
        FROM round_voids v JOIN rounds r ON r.id = v.round_id \
        WHERE v.table_id = t.id AND v.gaming_day = $1 \
    ) dv \
    CROSS JOIN LATERAL ( \
        SELECT count(*) AS fouls FROM rounds r \
        WHERE r.table_id = t.id AND r.gaming_day = $1 \
          AND (r.places -> 0 ->> 'fouled')::boolean \
          AND NOT EXISTS (SELECT 1 FROM round_voids v WHERE v.round_id = r.id) \
    ) df \
    CROSS JOIN LATERAL ( \
        SELECT count(*) AS pending, count(*) FILTER (WHERE r.gaming_day = $1) AS day_pending \
        FROM rounds r \
        WHERE r.table_id = t.id AND r.needs_approval \
          AND NOT EXISTS (SELECT 1 FROM round_approvals a WHERE a.round_id = r.id) \
          AND NOT EXISTS (SELECT 1 FROM round_voids v WHERE v.round_id = r.id) \
    ) p \
    ORDER BY t.code";

/// A table as the board reads it.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct BoardRow {
    #[diesel(sql_type = BigInt)]
    pub table_id: TableId,
    #[diesel(sql_type = Text)]
    pub code: String,
    #[diesel(sql_type = Text)]
    pub name: String,
    #[diesel(sql_type = Text)]
    pub currency: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    pub shift_id: Option<ShiftId>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub signed_on_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Text>)]
    pub dealer_name: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub draft_opened_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = BigInt)]
    pub shift_rounds: i64,
    #[diesel(sql_type = BigInt, deserialize_as = i64)]
    pub shift_house: Money,
    #[diesel(sql_type = BigInt)]
    pub shift_dealer_fouls: i64,
    #[diesel(sql_type = BigInt)]
    pub day_rounds: i64,
    #[diesel(sql_type = BigInt, deserialize_as = i64)]
    pub day_house: Money,
    #[diesel(sql_type = BigInt)]
    pub day_dealer_fouls: i64,
    #[diesel(sql_type = BigInt)]
    pub day_void_rounds: i64,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub last_round_at: Option<DateTime<Utc>>,
    /// Rounds waiting for approval, of any day and of today.
    #[diesel(sql_type = BigInt)]
    pub pending: i64,
    #[diesel(sql_type = BigInt)]
    pub day_pending: i64,
    #[diesel(sql_type = Bool)]
    pub points_game: bool,
}

/// What a pit manager should look at on a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flag {
    /// A dealer is on and no round has been settled for this long (since the last round of the
    /// shift, or since sign-on).
    Quiet { minutes: i64 },
    /// A round has been open this long.
    LongDraft { minutes: i64 },
    /// The dealer's foul rate this shift is far above the pit's today.
    Fouls { shift_fouls: i64, shift_rounds: i64 },
    /// Rounds wait for a supervisor's approval.
    Pending { rounds: i64 },
}

/// How the flags are decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlagRules {
    /// A table with a dealer on and no round for this long is flagged; so is a draft open this
    /// long (`PUSOY_PIT_QUIET_MINUTES`).
    pub quiet_after: TimeDelta,
}

/// A dealer's foul rate is "far above" the pit's once the shift has this many rounds...
pub const FOUL_FLAG_MIN_ROUNDS: i64 = 10;

/// The whole board: each table with its flags, and the pit's figures for the day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    pub gaming_day: NaiveDate,
    pub at: DateTime<Utc>,
    pub tables: Vec<(BoardRow, Vec<Flag>)>,
    /// Rounds today over all tables (not voided), and how many of them the dealer fouled.
    pub pit_rounds: i64,
    pub pit_dealer_fouls: i64,
}

/// The board at `now` for gaming day `day`.
pub fn board(
    conn: &mut PgConnection,
    day: NaiveDate,
    now: DateTime<Utc>,
    rules: FlagRules,
) -> QueryResult<Board> {
    let rows: Vec<BoardRow> = Sql::new(BOARD).bind::<Date, _>(day).load(conn)?;
    let pit_rounds = rows.iter().map(|r| r.day_rounds).sum();
    let pit_dealer_fouls = rows.iter().map(|r| r.day_dealer_fouls).sum();
    let tables = rows
        .into_iter()
        .map(|row| {
            let flags = flags(&row, now, rules, pit_rounds, pit_dealer_fouls);
            (row, flags)
        })
        .collect();
    Ok(Board {
        gaming_day: day,
        at: now,
        tables,
        pit_rounds,
        pit_dealer_fouls,
    })
}

/// The flags on one table at `now`, given the pit's rounds and dealer fouls today.
pub fn flags(
    row: &BoardRow,
    now: DateTime<Utc>,
    rules: FlagRules,
    pit_rounds: i64,
    pit_dealer_fouls: i64,
) -> Vec<Flag> {
    let mut flags = Vec::new();
    if let Some(on) = row.signed_on_at {
        let since = row.last_round_at.map_or(on, |last| last.max(on));
        let quiet = now - since;
        if quiet >= rules.quiet_after {
            flags.push(Flag::Quiet {
                minutes: quiet.num_minutes(),
            });
        }
        if fouls_far_above(
            row.shift_dealer_fouls,
            row.shift_rounds,
            pit_dealer_fouls,
            pit_rounds,
        ) {
            flags.push(Flag::Fouls {
                shift_fouls: row.shift_dealer_fouls,
                shift_rounds: row.shift_rounds,
            });
        }
    }
    if let Some(opened) = row.draft_opened_at {
        let open = now - opened;
        if open >= rules.quiet_after {
            flags.push(Flag::LongDraft {
                minutes: open.num_minutes(),
            });
        }
    }
    if row.pending > 0 {
        flags.push(Flag::Pending {
            rounds: row.pending,
        });
    }
    flags
}

/// Whether `fouls` in `rounds` is far above the pit's `pit_fouls` in `pit_rounds`: at least
/// [`FOUL_FLAG_MIN_ROUNDS`] rounds, and a rate both more than twice the pit's and at least five
/// points above it (so that one foul in a clean pit is not an alarm). Integer arithmetic.
pub fn fouls_far_above(fouls: i64, rounds: i64, pit_fouls: i64, pit_rounds: i64) -> bool {
    if rounds < FOUL_FLAG_MIN_ROUNDS || pit_rounds <= 0 {
        return false;
    }
    let (fouls, rounds) = (i128::from(fouls), i128::from(rounds));
    let (pit_fouls, pit_rounds) = (i128::from(pit_fouls), i128::from(pit_rounds));
    // fouls/rounds > 2 * pit_fouls/pit_rounds, and fouls/rounds - pit_fouls/pit_rounds >= 1/20.
    let mine = fouls * pit_rounds;
    let pit = pit_fouls * rounds;
    mine > 2 * pit && (mine - pit) * 20 >= rounds * pit_rounds
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn row() -> BoardRow {
        BoardRow {
            table_id: TableId(1),
            code: "PUSOY-01".to_owned(),
            name: "Pusoy 1".to_owned(),
            currency: "PHP".to_owned(),
            shift_id: None,
            signed_on_at: None,
            dealer_name: None,
            draft_opened_at: None,
            shift_rounds: 0,
            shift_house: Money::ZERO,
            shift_dealer_fouls: 0,
            day_rounds: 0,
            day_house: Money::ZERO,
            day_dealer_fouls: 0,
            day_void_rounds: 0,
            last_round_at: None,
            pending: 0,
            day_pending: 0,
            points_game: false,
        }
    }

    fn at(minute: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + minute * 60, 0).unwrap()
    }

    const RULES: FlagRules = FlagRules {
        quiet_after: TimeDelta::minutes(10),
    };

    #[test]
    fn a_table_is_quiet_after_n_minutes_without_a_round_while_a_dealer_is_on() {
        let on = BoardRow {
            signed_on_at: Some(at(0)),
            shift_id: Some(ShiftId(1)),
            ..row()
        };
        assert_eq!(flags(&on, at(9), RULES, 0, 0), vec![]);
        assert_eq!(
            flags(&on, at(10), RULES, 0, 0),
            vec![Flag::Quiet { minutes: 10 }]
        );
        let dealt = BoardRow {
            last_round_at: Some(at(5)),
            ..on.clone()
        };
        assert_eq!(flags(&dealt, at(14), RULES, 0, 0), vec![]);
        assert_eq!(
            flags(&dealt, at(15), RULES, 0, 0),
            vec![Flag::Quiet { minutes: 10 }]
        );
        // A round of an earlier shift does not count for this one.
        let earlier = BoardRow {
            last_round_at: Some(at(-30)),
            ..on
        };
        assert_eq!(flags(&earlier, at(9), RULES, 0, 0), vec![]);
        // No dealer: nothing is expected of the table.
        assert_eq!(flags(&row(), at(600), RULES, 0, 0), vec![]);
    }

    #[test]
    fn a_long_open_draft_and_pending_rounds_are_flagged() {
        let open = BoardRow {
            draft_opened_at: Some(at(0)),
            pending: 2,
            ..row()
        };
        assert_eq!(
            flags(&open, at(12), RULES, 0, 0),
            vec![Flag::LongDraft { minutes: 12 }, Flag::Pending { rounds: 2 }]
        );
        assert_eq!(
            flags(&open, at(3), RULES, 0, 0),
            vec![Flag::Pending { rounds: 2 }]
        );
    }

    #[test]
    fn a_dealer_fouling_far_more_than_the_pit_is_flagged() {
        // 3 in 20 (15 %) against the pit's 10 in 400 (2.5 %).
        assert!(fouls_far_above(3, 20, 10, 400));
        // Too few rounds to say.
        assert!(!fouls_far_above(3, 9, 10, 400));
        // Twice the pit's rate, but not more than twice.
        assert!(!fouls_far_above(2, 20, 20, 400));
        // More than twice, but less than five points above: 2 in 100 against 0.5 %.
        assert!(!fouls_far_above(2, 100, 2, 400));
        // A clean pit: one foul in 20 (5 %) is exactly five points above.
        assert!(fouls_far_above(1, 20, 0, 400));
        assert!(!fouls_far_above(1, 21, 0, 400));
        // No rounds in the pit.
        assert!(!fouls_far_above(5, 20, 0, 0));
        let on = BoardRow {
            signed_on_at: Some(at(0)),
            last_round_at: Some(at(1)),
            shift_id: Some(ShiftId(1)),
            shift_rounds: 20,
            shift_dealer_fouls: 3,
            ..row()
        };
        assert_eq!(
            flags(&on, at(2), RULES, 400, 10),
            vec![Flag::Fouls {
                shift_fouls: 3,
                shift_rounds: 20
            }]
        );
    }
}
