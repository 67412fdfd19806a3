//! Settings of a table's screen, kept beside the table's other columns but read and changed on
//! their own: whether the dealer's screen asks once before a round is confirmed.

use diesel::prelude::*;
use serde_json::json;

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::ids::TableId;
use crate::db::schema::gaming_tables;

/// Whether the table's screen asks "Confirm 3 seats, house +800.00?" before confirming.
pub fn confirm_prompt(conn: &mut PgConnection, table: TableId) -> QueryResult<bool> {
    gaming_tables::table
        .find(table)
        .select(gaming_tables::confirm_prompt)
        .first(conn)
}

/// Every table's code and whether it asks before confirming, by code.
pub fn confirm_prompts(conn: &mut PgConnection) -> QueryResult<Vec<(TableId, String, bool)>> {
    gaming_tables::table
        .order(gaming_tables::code.asc())
        .select((
            gaming_tables::id,
            gaming_tables::code,
            gaming_tables::confirm_prompt,
        ))
        .load(conn)
}

/// Turns the confirm prompt on or off; records `table.confirm_prompt` (with the value before
/// and after) when it changes. `false` when there is no such table.
pub fn set_confirm_prompt(
    conn: &mut PgConnection,
    table: TableId,
    on: bool,
    actor: &Actor,
) -> QueryResult<bool> {
    conn.transaction(|conn| {
        let Some((code, before)) = gaming_tables::table
            .find(table)
            .select((gaming_tables::code, gaming_tables::confirm_prompt))
            .for_no_key_update()
            .first::<(String, bool)>(conn)
            .optional()?
        else {
            return Ok(false);
        };
        if before == on {
            return Ok(true);
        }
        diesel::update(gaming_tables::table.find(table))
            .set((
                gaming_tables::confirm_prompt.eq(on),
                gaming_tables::updated_at.eq(diesel::dsl::now),
            ))
            .execute(conn)?;
        audit_log::append(
            conn,
            &NewAuditEvent {
                chain: &audit_log::table_chain(table),
                actor,
                action: AuditAction::TableConfirmPrompt,
                target: format!("table:{code}"),
                details: json!({ "before": before, "after": on }),
                gaming_day: None,
                table_id: Some(table),
            },
        )?;
        Ok(true)
    })
}
