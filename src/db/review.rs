//! The pit manager's records beside settled rounds: approvals, voids and re-entries (each a new
//! row, never edited), the reads of a round's review state and audit events, and the review
//! queue (settled rounds filtered and paged by keyset, never by offset). What may be approved
//! or voided, and by whom, is decided above, in [`crate::recording::review`].

use chrono::{DateTime, NaiveDate, Utc};
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Text, Timestamptz};
use serde::Serialize;

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::AuditEvent;
use crate::db::ids::{RoundId, TableId, UserId};
use crate::db::rounds::rows::RoundRow;
use crate::db::schema::{
    audit_events, gaming_tables, round_approvals, round_drafts, round_reentries, round_voids,
    rounds, users,
};
use crate::rules::money::Money;

/// Why a round is voided (`round_voids.reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VoidReason {
    Misdeal,
    WrongCards,
    WrongBet,
    Dispute,
    Other,
}

impl VoidReason {
    pub const ALL: [VoidReason; 5] = [
        VoidReason::Misdeal,
        VoidReason::WrongCards,
        VoidReason::WrongBet,
        VoidReason::Dispute,
        VoidReason::Other,
    ];

    /// The stored text.
    pub fn as_str(self) -> &'static str {
        match self {
            VoidReason::Misdeal => "misdeal",
            VoidReason::WrongCards => "wrong_cards",
            VoidReason::WrongBet => "wrong_bet",
            VoidReason::Dispute => "dispute",
            VoidReason::Other => "other",
        }
    }

    /// The reason in words.
    pub fn words(self) -> &'static str {
        match self {
            VoidReason::Misdeal => "Misdeal",
            VoidReason::WrongCards => "Wrong cards entered",
            VoidReason::WrongBet => "Wrong bet",
            VoidReason::Dispute => "Dispute",
            VoidReason::Other => "Other",
        }
    }

    pub fn parse(text: &str) -> Option<VoidReason> {
        VoidReason::ALL.into_iter().find(|r| r.as_str() == text)
    }
}

/// A round's approval, with the approver's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approval {
    pub approved_by: UserId,
    pub approver: String,
    pub approved_at: DateTime<Utc>,
}

/// A round's void, with the name of who voided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Void {
    pub reason: VoidReason,
    pub note: String,
    pub voided_by: UserId,
    pub voider: String,
    pub voided_at: DateTime<Utc>,
}

/// Where a round stands in review: approved, voided, replaced by a re-entry, or itself the
/// re-entry of a voided round.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReviewState {
    pub approval: Option<Approval>,
    pub void: Option<Void>,
    /// The round entered again in place of this (voided) one.
    pub replaced_by: Option<RoundId>,
    /// The voided round this one was entered in place of.
    pub replaces: Option<RoundId>,
}

/// The review state of round `id`.
pub fn state(conn: &mut PgConnection, id: RoundId) -> QueryResult<ReviewState> {
    let approval = round_approvals::table
        .inner_join(users::table)
        .filter(round_approvals::round_id.eq(id))
        .select((
            round_approvals::approved_by,
            users::username,
            round_approvals::approved_at,
        ))
        .first::<(UserId, String, DateTime<Utc>)>(conn)
        .optional()?
        .map(|(approved_by, approver, approved_at)| Approval {
            approved_by,
            approver,
            approved_at,
        });
    let void = round_voids::table
        .inner_join(users::table)
        .filter(round_voids::round_id.eq(id))
        .select((
            round_voids::reason,
            round_voids::note,
            round_voids::voided_by,
            users::username,
            round_voids::voided_at,
        ))
        .first::<(String, String, UserId, String, DateTime<Utc>)>(conn)
        .optional()?
        .map(|(reason, note, voided_by, voider, voided_at)| Void {
            // The column's CHECK allows only the known reasons.
            reason: VoidReason::parse(&reason).unwrap_or(VoidReason::Other),
            note,
            voided_by,
            voider,
            voided_at,
        });
    let replaced_by = round_reentries::table
        .filter(round_reentries::replaces_round_id.eq(id))
        .select(round_reentries::round_id)
        .first(conn)
        .optional()?;
    let replaces = round_reentries::table
        .find(id)
        .select(round_reentries::replaces_round_id)
        .first(conn)
        .optional()?;
    Ok(ReviewState {
        approval,
        void,
        replaced_by,
        replaces,
    })
}

/// Round `id`, locked against a concurrent approval or void of it until the transaction ends
/// (`FOR NO KEY UPDATE`: the row itself is never changed).
pub fn lock_round(conn: &mut PgConnection, id: RoundId) -> QueryResult<Option<RoundRow>> {
    rounds::table
        .find(id)
        .select(RoundRow::as_select())
        .for_no_key_update()
        .first(conn)
        .optional()
}

/// The target of a round's audit events.
pub fn round_target(id: RoundId) -> String {
    format!("round:{id}")
}

/// Whether `user` confirmed any round of `round`'s shift (at its table, on its gaming day) or
/// saved any draft of that shift.
pub fn worked_shift_of(
    conn: &mut PgConnection,
    round: &RoundRow,
    user: UserId,
) -> QueryResult<bool> {
    let shift_rounds = rounds::table
        .filter(rounds::table_id.eq(round.table_id))
        .filter(rounds::gaming_day.eq(round.gaming_day))
        .filter(rounds::shift_id.eq(round.shift_id))
        .select(sql::<diesel::sql_types::Text>("'round:' || rounds.id"));
    let confirmed = diesel::dsl::exists(
        audit_events::table
            .filter(audit_events::target.eq_any(shift_rounds))
            // Matches the partial index `audit_events_round_target_idx`.
            .filter(audit_events::target.like("round:%"))
            .filter(audit_events::action.eq(AuditAction::RoundSettled.as_str()))
            .filter(audit_events::actor_user_id.eq(user)),
    );
    let edited = diesel::dsl::exists(
        round_drafts::table
            .filter(round_drafts::shift_id.eq(round.shift_id))
            .filter(
                sql::<Bool>("")
                    .bind::<BigInt, _>(user)
                    .sql(" = ANY(edited_by)"),
            ),
    );
    diesel::select(confirmed.or(edited)).get_result(conn)
}

/// The `round.settled` events of rounds `ids` (one each, unless the trail was tampered with).
pub fn settled_events_of(conn: &mut PgConnection, ids: &[RoundId]) -> QueryResult<Vec<AuditEvent>> {
    let targets: Vec<String> = ids.iter().map(|id| round_target(*id)).collect();
    audit_events::table
        .filter(audit_events::target.eq_any(targets))
        // Matches the partial index `audit_events_round_target_idx`.
        .filter(audit_events::target.like("round:%"))
        .filter(audit_events::action.eq(AuditAction::RoundSettled.as_str()))
        .order(audit_events::id.asc())
        .select(AuditEvent::as_select())
        .load(conn)
}

/// A decision on a round (a void or an approval) whose row and audit event disagree: the row
/// without its event, the event without its row, or the two saying different things.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct DecisionMismatch {
    /// `void` or `approval`.
    #[diesel(sql_type = diesel::sql_types::Text)]
    pub kind: String,
    #[diesel(sql_type = BigInt)]
    pub round_id: RoundId,
    #[diesel(sql_type = Bool)]
    pub has_row: bool,
    #[diesel(sql_type = Bool)]
    pub has_event: bool,
}

/// Every void and approval whose row and `round.voided` / `round.approved` event disagree (who
/// decided, and a void's reason and note).
pub fn decisions_unlike_their_events(
    conn: &mut PgConnection,
) -> QueryResult<Vec<DecisionMismatch>> {
    diesel::sql_query(
        "SELECT 'void' AS kind, \
                COALESCE(v.round_id, substr(e.target, 7)::bigint) AS round_id, \
                v.round_id IS NOT NULL AS has_row, e.id IS NOT NULL AS has_event \
         FROM round_voids v \
         FULL JOIN (SELECT id, target, actor_user_id, details FROM audit_events \
                    WHERE action = $1 AND target LIKE 'round:%') e \
           ON e.target = 'round:' || v.round_id \
         WHERE v.round_id IS NULL OR e.id IS NULL \
            OR v.voided_by IS DISTINCT FROM e.actor_user_id \
            OR v.reason IS DISTINCT FROM e.details->>'reason' \
            OR v.note IS DISTINCT FROM e.details->>'note' \
         UNION ALL \
         SELECT 'approval', \
                COALESCE(a.round_id, substr(e.target, 7)::bigint), \
                a.round_id IS NOT NULL, e.id IS NOT NULL \
         FROM round_approvals a \
         FULL JOIN (SELECT id, target, actor_user_id FROM audit_events \
                    WHERE action = $2 AND target LIKE 'round:%') e \
           ON e.target = 'round:' || a.round_id \
         WHERE a.round_id IS NULL OR e.id IS NULL \
            OR a.approved_by IS DISTINCT FROM e.actor_user_id \
         ORDER BY 2, 1",
    )
    .bind::<Text, _>(AuditAction::RoundVoided.as_str())
    .bind::<Text, _>(AuditAction::RoundApproved.as_str())
    .load(conn)
}

/// The rounds that a `round.settled` event names but that are not stored (deleted rows).
pub fn settled_rounds_missing(conn: &mut PgConnection) -> QueryResult<Vec<RoundId>> {
    #[derive(QueryableByName)]
    struct Missing {
        #[diesel(sql_type = BigInt)]
        round_id: RoundId,
    }
    let rows: Vec<Missing> = diesel::sql_query(
        "SELECT substr(e.target, 7)::bigint AS round_id FROM audit_events e \
         WHERE e.action = $1 AND e.target LIKE 'round:%' \
           AND NOT EXISTS (SELECT 1 FROM rounds r WHERE r.id = substr(e.target, 7)::bigint) \
         ORDER BY 1",
    )
    .bind::<Text, _>(AuditAction::RoundSettled.as_str())
    .load(conn)?;
    Ok(rows.into_iter().map(|m| m.round_id).collect())
}

/// Every audit event about round `id` (settled, approved, voided, re-entered, refusals), in
/// order.
pub fn round_events(conn: &mut PgConnection, id: RoundId) -> QueryResult<Vec<AuditEvent>> {
    audit_events::table
        .filter(audit_events::target.eq(round_target(id)))
        // Matches the partial index `audit_events_round_target_idx`.
        .filter(audit_events::target.like("round:%"))
        .order(audit_events::id.asc())
        .select(AuditEvent::as_select())
        .load(conn)
}

/// Records `by`'s approval of `round` (in the caller's transaction, with its audit event).
pub fn insert_approval(conn: &mut PgConnection, round: &RoundRow, by: UserId) -> QueryResult<()> {
    diesel::insert_into(round_approvals::table)
        .values((
            round_approvals::round_id.eq(round.id),
            round_approvals::table_id.eq(round.table_id),
            round_approvals::gaming_day.eq(round.gaming_day),
            round_approvals::approved_by.eq(by),
        ))
        .execute(conn)?;
    Ok(())
}

/// Records `by`'s void of `round` (in the caller's transaction, with its audit event).
pub fn insert_void(
    conn: &mut PgConnection,
    round: &RoundRow,
    reason: VoidReason,
    note: &str,
    by: UserId,
) -> QueryResult<()> {
    diesel::insert_into(round_voids::table)
        .values((
            round_voids::round_id.eq(round.id),
            round_voids::table_id.eq(round.table_id),
            round_voids::gaming_day.eq(round.gaming_day),
            round_voids::reason.eq(reason.as_str()),
            round_voids::note.eq(note),
            round_voids::voided_by.eq(by),
        ))
        .execute(conn)?;
    Ok(())
}

/// Records that `round` was entered in place of the voided round `replaces` (in the transaction
/// that wrote `round`).
pub fn insert_reentry(
    conn: &mut PgConnection,
    round: &RoundRow,
    replaces: RoundId,
) -> QueryResult<()> {
    diesel::insert_into(round_reentries::table)
        .values((
            round_reentries::round_id.eq(round.id),
            round_reentries::replaces_round_id.eq(replaces),
            round_reentries::table_id.eq(round.table_id),
            round_reentries::gaming_day.eq(round.gaming_day),
        ))
        .execute(conn)?;
    Ok(())
}

/// Whether round `id` is voided.
pub fn is_voided(conn: &mut PgConnection, id: RoundId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(round_voids::table.find(id))).get_result(conn)
}

/// The voided rounds among `ids`.
pub fn voided_among(conn: &mut PgConnection, ids: &[RoundId]) -> QueryResult<Vec<RoundId>> {
    round_voids::table
        .filter(round_voids::round_id.eq_any(ids))
        .select(round_voids::round_id)
        .load(conn)
}

/// What the queue can pick rounds by: the bits of `rounds.outcome_flags`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutcomeFilter {
    PlayerFoul,
    DealerFoul,
    Sweep,
    Royalty,
    Surrender,
}

impl OutcomeFilter {
    pub const ALL: [OutcomeFilter; 5] = [
        OutcomeFilter::PlayerFoul,
        OutcomeFilter::DealerFoul,
        OutcomeFilter::Sweep,
        OutcomeFilter::Royalty,
        OutcomeFilter::Surrender,
    ];

    /// Its bit in `rounds.outcome_flags` (see the migration `2026-11-25-000002_review_queue`).
    pub fn bit(self) -> i32 {
        match self {
            OutcomeFilter::PlayerFoul => 1,
            OutcomeFilter::DealerFoul => 2,
            OutcomeFilter::Sweep => 4,
            OutcomeFilter::Royalty => 8,
            OutcomeFilter::Surrender => 16,
        }
    }

    /// Its name in URLs.
    pub fn as_str(self) -> &'static str {
        match self {
            OutcomeFilter::PlayerFoul => "player_foul",
            OutcomeFilter::DealerFoul => "dealer_foul",
            OutcomeFilter::Sweep => "sweep",
            OutcomeFilter::Royalty => "royalty",
            OutcomeFilter::Surrender => "surrender",
        }
    }

    /// Its name on the page. The points game's counterparts share a bit with the banking
    /// game's outcome (a mis-set is a player's foul, a pusoy a sweep, a natural a declared
    /// hand), and the name says so.
    pub fn words(self) -> &'static str {
        match self {
            OutcomeFilter::PlayerFoul => "Player foul / mis-set",
            OutcomeFilter::DealerFoul => "Dealer foul",
            OutcomeFilter::Sweep => "Sweep / pusoy",
            OutcomeFilter::Royalty => "Royalty / natural",
            OutcomeFilter::Surrender => "Surrender",
        }
    }

    pub fn parse(text: &str) -> Option<OutcomeFilter> {
        OutcomeFilter::ALL.into_iter().find(|o| o.as_str() == text)
    }

    /// The filter as SQL. Written exactly as the partial indexes' predicates are, so that the
    /// planner uses them; the bit is a constant of ours, never input.
    fn condition(self) -> &'static str {
        match self {
            OutcomeFilter::PlayerFoul => "(rounds.outcome_flags & 1) <> 0",
            OutcomeFilter::DealerFoul => "(rounds.outcome_flags & 2) <> 0",
            OutcomeFilter::Sweep => "(rounds.outcome_flags & 4) <> 0",
            OutcomeFilter::Royalty => "(rounds.outcome_flags & 8) <> 0",
            OutcomeFilter::Surrender => "(rounds.outcome_flags & 16) <> 0",
        }
    }
}

/// A round's approval state, for the queue's filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalFilter {
    /// Needs approval, not approved, not voided.
    Pending,
    Approved,
    /// Needed none.
    NotNeeded,
}

/// A round's void state, for the queue's filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoidFilter {
    Voided,
    NotVoided,
}

/// The queue's orders: by when rounds were settled (newest or oldest first) or by largest seat
/// result; ties by id.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum QueueOrder {
    #[default]
    Newest,
    Oldest,
    Largest,
    Smallest,
}

/// Where a page of the queue starts: after the round with this id, settled at `at` with this
/// largest seat result (the order says which of the two counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueCursor {
    pub amount: i64,
    pub at: DateTime<Utc>,
    pub id: RoundId,
}

/// What the queue shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueFilter {
    pub day: Option<NaiveDate>,
    pub table: Option<TableId>,
    pub dealer: Option<UserId>,
    pub outcome: Option<OutcomeFilter>,
    /// Largest seat result at least this (minor units).
    pub min_amount: Option<i64>,
    pub approval: Option<ApprovalFilter>,
    pub void: Option<VoidFilter>,
    /// Only rounds flagged because the dealer's set differed from the house way.
    pub house_way_departed: bool,
    pub order: QueueOrder,
    pub after: Option<QueueCursor>,
}

/// One round in the queue.
#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct QueueRow {
    pub id: RoundId,
    pub table_code: String,
    pub gaming_day: NaiveDate,
    pub round_no: i32,
    pub dealer: String,
    pub settled_at: DateTime<Utc>,
    pub currency: String,
    #[diesel(deserialize_as = i64)]
    pub dealer_result: Money,
    #[diesel(deserialize_as = i64)]
    pub largest_result: Money,
    pub outcome_flags: i32,
    pub needs_approval: bool,
    pub approved: bool,
    pub voided: bool,
    pub house_way_departure: bool,
}

impl QueueRow {
    /// Where the next page starts after this row.
    pub fn cursor(&self) -> QueueCursor {
        QueueCursor {
            amount: self.largest_result.minor_units(),
            at: self.settled_at,
            id: self.id,
        }
    }

    pub fn has(&self, outcome: OutcomeFilter) -> bool {
        self.outcome_flags & outcome.bit() != 0
    }
}

/// Up to `limit` rounds of the queue from `filter.after` on, in `filter.order`.
pub fn queue(
    conn: &mut PgConnection,
    filter: &QueueFilter,
    limit: i64,
) -> QueryResult<Vec<QueueRow>> {
    let mut query = rounds::table
        .inner_join(gaming_tables::table.on(gaming_tables::id.eq(rounds::table_id)))
        .inner_join(users::table.on(users::id.eq(rounds::dealer_id)))
        .left_join(round_approvals::table.on(round_approvals::round_id.eq(rounds::id)))
        .left_join(round_voids::table.on(round_voids::round_id.eq(rounds::id)))
        .select((
            rounds::id,
            gaming_tables::code,
            rounds::gaming_day,
            rounds::round_no,
            users::username,
            rounds::settled_at,
            rounds::currency,
            rounds::dealer_result,
            rounds::largest_result,
            rounds::outcome_flags,
            rounds::needs_approval,
            round_approvals::round_id.nullable().is_not_null(),
            round_voids::round_id.nullable().is_not_null(),
            rounds::house_way_departure,
        ))
        .into_boxed();
    if let Some(day) = filter.day {
        query = query.filter(rounds::gaming_day.eq(day));
    }
    if let Some(table) = filter.table {
        query = query.filter(rounds::table_id.eq(table));
    }
    if let Some(dealer) = filter.dealer {
        query = query.filter(rounds::dealer_id.eq(dealer));
    }
    if let Some(outcome) = filter.outcome {
        query = query.filter(sql::<Bool>(outcome.condition()));
    }
    if let Some(amount) = filter.min_amount {
        query = query.filter(rounds::largest_result.ge(amount));
    }
    match filter.approval {
        Some(ApprovalFilter::Pending) => {
            query = query.filter(
                rounds::needs_approval
                    .eq(true)
                    .and(round_approvals::round_id.nullable().is_null())
                    .and(round_voids::round_id.nullable().is_null()),
            );
        }
        Some(ApprovalFilter::Approved) => {
            query = query.filter(round_approvals::round_id.nullable().is_not_null());
        }
        Some(ApprovalFilter::NotNeeded) => {
            query = query.filter(rounds::needs_approval.eq(false));
        }
        None => {}
    }
    if filter.house_way_departed {
        // As the partial index `rounds_review_house_way_idx` says it, so that the planner uses it.
        query = query.filter(rounds::house_way_departure);
    }
    match filter.void {
        Some(VoidFilter::Voided) => {
            query = query.filter(round_voids::round_id.nullable().is_not_null());
        }
        Some(VoidFilter::NotVoided) => {
            query = query.filter(round_voids::round_id.nullable().is_null());
        }
        None => {}
    }
    // Keyset paging: the next page starts after the last row of the one before, read from
    // an index in the page's order (never OFFSET, which reads and drops every row before).
    // Voided rounds are few: their pages are read from the copies of the order's keys each
    // void carries (`round_voids_settled_idx`, `round_voids_amount_idx`), so that the voids
    // are walked in order instead of every round between them.
    let voided = filter.void == Some(VoidFilter::Voided);
    let by_amount = matches!(filter.order, QueueOrder::Largest | QueueOrder::Smallest);
    let descending = matches!(filter.order, QueueOrder::Newest | QueueOrder::Largest);
    let (key, id) = match (by_amount, voided) {
        (false, false) => ("rounds.settled_at", "rounds.id"),
        (true, false) => ("rounds.largest_result", "rounds.id"),
        (false, true) => ("round_voids.settled_at", "round_voids.round_id"),
        (true, true) => ("round_voids.largest_result", "round_voids.round_id"),
    };
    if let Some(after) = filter.after {
        let beyond = format!("({key}, {id}) {} (", if descending { "<" } else { ">" });
        query = if by_amount {
            query.filter(
                sql::<Bool>(&beyond)
                    .bind::<BigInt, _>(after.amount)
                    .sql(", ")
                    .bind::<BigInt, _>(after.id.0)
                    .sql(")"),
            )
        } else {
            query.filter(
                sql::<Bool>(&beyond)
                    .bind::<Timestamptz, _>(after.at)
                    .sql(", ")
                    .bind::<BigInt, _>(after.id.0)
                    .sql(")"),
            )
        };
    }
    let direction = if descending { "DESC" } else { "ASC" };
    let query = query.order(sql::<BigInt>(&format!(
        "{key} {direction}, {id} {direction}"
    )));
    super::with_custom_plans(conn, |conn| query.limit(limit).load(conn))
}

/// Every gaming table's id and code, by code (the queue's table filter).
pub fn table_codes(conn: &mut PgConnection) -> QueryResult<Vec<(TableId, String)>> {
    gaming_tables::table
        .order(gaming_tables::code.asc())
        .select((gaming_tables::id, gaming_tables::code))
        .load(conn)
}

/// Every dealer's id and user name, by name (the queue's dealer filter).
pub fn dealer_names(conn: &mut PgConnection) -> QueryResult<Vec<(UserId, String)>> {
    users::table
        .filter(users::role.eq("dealer"))
        .order(users::username.asc())
        .select((users::id, users::username))
        .load(conn)
}

/// The ids and table codes of the settled rounds of gaming day `day`, in order (for the
/// day's recompute check, read a page at a time from `after`).
pub fn day_round_ids(
    conn: &mut PgConnection,
    day: NaiveDate,
    after: Option<RoundId>,
    limit: i64,
) -> QueryResult<Vec<RoundId>> {
    let mut query = rounds::table
        .filter(rounds::gaming_day.eq(day))
        .select(rounds::id)
        .order(rounds::id.asc())
        .limit(limit)
        .into_boxed();
    if let Some(after) = after {
        query = query.filter(rounds::id.gt(after));
    }
    query.load(conn)
}
