//! The comp rule (docs/players.md, "Comp"): the share of a player's theoretical win they earn
//! as comp, from a gaming day on, set by an administrator. A rating earns by the rule of its
//! gaming day, so a new rule never re-rates days already played.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::{Connection, PgConnection};
use serde_json::json;

use crate::accounting::record::{names, person};
use crate::accounting::slips::{Me, Person};
use crate::accounting::AccountingError;
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, NewAuditEvent};
use crate::db::handle::Db;
use crate::db::players as rows;
use crate::db::users::Role;
use crate::players::{refusal, FormRefusal, PLAYERS_CHAIN};
use crate::rules::rating::CompRule;

/// A comp rule as the rules page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleLine {
    pub rule: CompRule,
    /// None: installed with the software.
    pub set_by: Option<Person>,
    pub set_at: DateTime<Utc>,
}

fn rule(row: &rows::CompRuleRow) -> CompRule {
    CompRule {
        from_day: row.from_day,
        basis_points: row.basis_points,
    }
}

/// Every comp rule, oldest first, in the caller's turn of the database.
pub(crate) fn rules_of(conn: &mut PgConnection) -> Result<Vec<CompRule>, AccountingError> {
    Ok(rows::comp_rules(conn)?.iter().map(rule).collect())
}

/// Every comp rule, oldest first (administrators, auditors, pit managers).
pub async fn list(db: &Db) -> Result<Vec<RuleLine>, AccountingError> {
    db.run(lines).await
}

fn lines(conn: &mut PgConnection) -> Result<Vec<RuleLine>, AccountingError> {
    let found = rows::comp_rules(conn)?;
    let names = names(conn, found.iter().filter_map(|r| r.set_by))?;
    Ok(found
        .into_iter()
        .map(|r| RuleLine {
            rule: rule(&r),
            set_by: r.set_by.map(|id| person(&names, id)),
            set_at: r.set_at,
        })
        .collect())
}

/// A comp rule as typed: a percentage with at most two decimals, and the gaming day it
/// applies from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleForm {
    pub percent: String,
    pub from_day: String,
}

/// `12.5` as 1,250 hundredths of a percent: 0 to 100 with at most two decimals.
fn basis_points(text: &str) -> Option<i32> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() || whole.len() > 3 || fraction.len() > 2 {
        return None;
    }
    if !whole
        .bytes()
        .chain(fraction.bytes())
        .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: i32 = whole.parse().ok()?;
    let fraction: i32 = format!("{fraction:0<2}").parse().ok()?;
    Some(whole * 100 + fraction).filter(|bp| (0..=10_000).contains(bp))
}

/// Puts a comp rule in force from a gaming day on, today (`today`) or later: by an
/// administrator. `comp.rule_set` on the `players` chain, with the rule it replaces on that day.
pub async fn set(
    db: &Db,
    form: RuleForm,
    today: NaiveDate,
    me: Me,
) -> Result<Result<String, (FormRefusal, Vec<RuleLine>)>, AccountingError> {
    if me.role != Role::Admin {
        return Err(AccountingError::Refused(
            "The comp rule is set by an administrator.".to_owned(),
        ));
    }
    let checked = (|| {
        let bp = basis_points(form.percent.trim()).ok_or_else(|| {
            refusal(
                "percent",
                "Enter the comp as a percentage of theoretical win, 0 to 100 with at most two \
                 decimals (12.5).",
            )
        })?;
        let from: NaiveDate = form.from_day.trim().parse().map_err(|_| {
            refusal(
                "from_day",
                "Enter the first gaming day of the rule as YYYY-MM-DD.",
            )
        })?;
        if from < today {
            return Err(refusal(
                "from_day",
                format!(
                    "A rule starts today ({today}) or later: comp already earned is not \
                     re-rated."
                ),
            ));
        }
        Ok((bp, from))
    })();
    db.run(move |conn| {
        let (bp, from) = match checked {
            Ok(values) => values,
            Err(refused) => return Ok(Err((refused, lines(conn)?))),
        };
        conn.transaction(|conn| {
            let before = CompRule::on(&rules_of(conn)?, from);
            let row = rows::insert_comp_rule(conn, bp, from, me.id)?;
            audit_log::append(
                conn,
                &NewAuditEvent {
                    chain: PLAYERS_CHAIN,
                    actor: &me.actor,
                    action: AuditAction::CompRuleSet,
                    target: format!("comp_rule:{}", row.id),
                    details: json!({
                        "basis_points": bp,
                        "from_day": from,
                        "replaced_basis_points": before.map(|r| r.basis_points),
                    }),
                    gaming_day: Some(today),
                    table_id: None,
                },
            )?;
            Ok(Ok(format!(
                "From gaming day {from}, players earn {} of their theoretical win as comp.",
                CompRule {
                    from_day: from,
                    basis_points: bp
                }
                .percent_text()
            )))
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_percentage_reads_with_up_to_two_decimals_from_0_to_100() {
        assert_eq!(basis_points("10"), Some(1_000));
        assert_eq!(basis_points("12.5"), Some(1_250));
        assert_eq!(basis_points("0.05"), Some(5));
        assert_eq!(basis_points("100"), Some(10_000));
        assert_eq!(basis_points("0"), Some(0));
        for bad in ["100.01", "101", "-1", "1.234", ".5", "", "ten", "1e2"] {
            assert_eq!(basis_points(bad), None, "{bad}");
        }
    }
}
