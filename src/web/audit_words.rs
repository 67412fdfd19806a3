//! An audit event's details in words, for the auditor's search: a round's places and results, a
//! profile's options before and after, a table's settings, a shift, a day seal; with links to
//! what the event concerns. Details are read as stored (any format version): a field that is
//! missing or of another shape is left out, never an error.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::AuditEvent;
use crate::db::ids::TableId;
use crate::rules::money::Money;
use crate::web::format;

/// The tables as audit pages name them: a table's chain (`table:4`) by its code beside it
/// (`table:4 (PUSOY-04)`), and an amount in its events in its currency.
#[derive(Debug, Default)]
pub struct TableNames(HashMap<String, (String, String)>);

impl TableNames {
    /// From every table's id, code and currency.
    pub fn new(tables: Vec<(TableId, String, String)>) -> TableNames {
        TableNames(
            tables
                .into_iter()
                .map(|(id, code, currency)| {
                    (crate::db::audit_log::table_chain(id), (code, currency))
                })
                .collect(),
        )
    }

    /// `chain` with its table's code beside it, if it is a table's.
    pub fn chain(&self, chain: &str) -> String {
        match self.0.get(chain) {
            Some((code, _)) => format!("{chain} ({code})"),
            None => chain.to_owned(),
        }
    }

    /// The currency of the table whose chain is `chain`.
    pub fn currency(&self, chain: &str) -> Option<&str> {
        self.0.get(chain).map(|(_, currency)| currency.as_str())
    }
}

/// Details that are amounts in minor units, wherever an event carries them.
const AMOUNTS: [&str; 6] = [
    "dealer_result",
    "result",
    "bet",
    "total",
    "before_total",
    "denomination",
];

/// A link from an event to the page of what it concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub label: String,
    pub href: String,
}

/// An event's details as lines of text, and its links.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Described {
    pub lines: Vec<String>,
    pub links: Vec<Link>,
}

fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

fn money(value: &Value, key: &str) -> Option<Money> {
    value
        .get(key)
        .and_then(Value::as_i64)
        .map(Money::from_minor_units)
}

fn link(label: impl Into<String>, href: impl Into<String>) -> Link {
    Link {
        label: label.into(),
        href: href.into(),
    }
}

/// A JSON value as a short phrase (`true` → `yes`, strings bare, objects as `key: value`).
fn phrase(value: &Value) -> String {
    match value {
        Value::Null => "none".to_owned(),
        Value::Bool(true) => "yes".to_owned(),
        Value::Bool(false) => "no".to_owned(),
        Value::String(s) => s.replace('_', " "),
        Value::Number(n) => n.to_string(),
        Value::Array(items) => items.iter().map(phrase).collect::<Vec<_>>().join(", "),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{}: {}", k.replace('_', " "), phrase(v)))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// The three hands of a place (`back 2c 2d 2h 5s 6s, middle …, front …`), with their names
/// when the settlement gives them.
fn hands(cards: &Value, names: Option<&Value>) -> Option<String> {
    let parts: Vec<String> = ["back", "middle", "front"]
        .into_iter()
        .filter_map(|hand| {
            let set = text(cards, hand)?;
            Some(match names.and_then(|n| text(n, hand)) {
                Some(name) => format!("{hand} {set} ({name})"),
                None => format!("{hand} {set}"),
            })
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// What a place did, in words: its action (and royalty), its hands, a foul and its result.
fn place_line(label: &str, entered: &Value, settled: Option<&Value>) -> String {
    let mut parts = vec![label.to_owned()];
    if let Some(bet) = money(entered, "bet") {
        parts.push(format!("bet {}", bet.major_text()));
    }
    let action = text(entered, "action").unwrap_or("play");
    let outcome = settled.and_then(|s| text(s, "outcome"));
    match (action, outcome) {
        ("play", Some(outcome)) => parts.push(outcome.replace('_', " ")),
        ("play", None) => {}
        (other, _) => parts.push(other.replace('_', " ")),
    }
    if let Some(royalty) = entered
        .get("royalty")
        .or_else(|| settled.and_then(|s| s.get("royalty")))
    {
        parts.push(format!("royalty {}", phrase(royalty)));
    }
    if let Some(set) = hands(entered, settled.and_then(|s| s.get("hands"))) {
        parts.push(set);
    }
    if let Some(foul) = settled.and_then(|s| text(s, "foul")) {
        parts.push(format!("FOUL: {foul}"));
    }
    if let Some(won) = settled
        .and_then(|s| s.get("hands_won"))
        .and_then(Value::as_u64)
    {
        parts.push(format!("won {won} of 3 hands"));
    }
    if let Some(result) = settled.and_then(|s| money(s, "result")) {
        parts.push(format!("result {}", result.signed_text()));
    }
    parts.join(" · ")
}

fn round_settled(event: &AuditEvent, out: &mut Described) {
    let d = &event.details;
    let table = text(d, "table").unwrap_or("?");
    let no = d.get("round_no").and_then(Value::as_i64).unwrap_or(0);
    out.lines.push(format!("Round {no} at {table}"));
    let round = d.get("round").unwrap_or(&Value::Null);
    let settlement = d.get("settlement").unwrap_or(&Value::Null);
    if let Some(dealer) = round.get("dealer") {
        out.lines
            .push(place_line("Dealer", dealer, settlement.get("dealer")));
    }
    let settled_seats = settlement.get("seats").and_then(Value::as_array);
    for seat in round
        .get("seats")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let no = seat.get("seat").and_then(Value::as_u64).unwrap_or(0);
        let settled = settled_seats.and_then(|all| {
            all.iter()
                .find(|s| s.get("seat").and_then(Value::as_u64) == Some(no))
        });
        out.lines
            .push(place_line(&format!("Seat {no}"), seat, settled));
    }
    if let Some(id) = event.target.strip_prefix("round:") {
        out.links.push(link(
            format!("round {no}"),
            format!("/tables/{table}/rounds/{id}"),
        ));
    }
    out.links.push(link(table, "/tables"));
    if let Some(dealer) = d.get("dealer_id").and_then(Value::as_i64) {
        out.links.push(link(
            format!("dealer (user {dealer})"),
            format!("/admin/users#user-{dealer}"),
        ));
    }
}

/// Lines naming each option that differs between `before` and `after` (all of `after` if there
/// was no before).
fn changes(before: Option<&Map<String, Value>>, after: &Map<String, Value>) -> Vec<String> {
    let mut lines = Vec::new();
    for (key, new) in after {
        let name = key.replace('_', " ");
        match before.map(|b| b.get(key)) {
            None => lines.push(format!("{name}: {}", phrase(new))),
            Some(Some(old)) if old == new => {}
            Some(Some(old)) => lines.push(format!("{name}: {} → {}", phrase(old), phrase(new))),
            Some(None) => lines.push(format!("{name}: (none) → {}", phrase(new))),
        }
    }
    if let Some(before) = before {
        for (key, old) in before.iter().filter(|(k, _)| !after.contains_key(*k)) {
            lines.push(format!(
                "{}: {} → (none)",
                key.replace('_', " "),
                phrase(old)
            ));
        }
    }
    lines
}

fn profile(event: &AuditEvent, out: &mut Described) {
    let d = &event.details;
    let name = text(d, "name").unwrap_or("?");
    let version = d.get("version").and_then(Value::as_i64).unwrap_or(0);
    out.lines
        .push(format!("Rule profile {name}, version {version}"));
    let after = d
        .get("after")
        .or_else(|| d.get("options"))
        .and_then(Value::as_object);
    if let Some(after) = after {
        let before = d.get("before").and_then(Value::as_object);
        let changed = changes(before, after);
        if before.is_some() && changed.is_empty() {
            out.lines.push("No option changed.".to_owned());
        }
        out.lines.extend(changed);
    }
    out.links
        .push(link(format!("profile {name}"), "/admin/profiles"));
}

fn table_settings(event: &AuditEvent, out: &mut Described) {
    let d = &event.details;
    let (before, after) = match (d.get("before"), d.get("after")) {
        (Some(b), Some(a)) => (b.as_object(), a.as_object()),
        _ => (None, d.as_object()),
    };
    if let Some(after) = after {
        let money_text = |map: &Map<String, Value>| -> Map<String, Value> {
            map.iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v.as_i64()) {
                        // Amounts in the table's minor units, as the setup page shows them.
                        ("min_bet" | "max_bet" | "approval_threshold" | "unit", Some(n)) => {
                            Value::from(Money::from_minor_units(n).major_text())
                        }
                        _ => v.clone(),
                    };
                    (k.clone(), v)
                })
                .collect()
        };
        let after = money_text(after);
        let before = before.map(money_text);
        out.lines.extend(changes(before.as_ref(), &after));
    }
    out.links.push(link("table setup", "/admin/tables"));
}

fn day_closed(event: &AuditEvent, out: &mut Described) {
    let d = &event.details;
    let day = text(d, "gaming_day").unwrap_or("?");
    let heads = d.get("heads").and_then(Value::as_object);
    out.lines.push(format!(
        "Gaming day {day} closed; the seal fixes the heads of {} chain(s):",
        heads.map_or(0, Map::len)
    ));
    for (chain, head) in heads.into_iter().flatten() {
        out.lines.push(format!(
            "{chain} at seq {} ({})",
            phrase(head.get("seq").unwrap_or(&Value::Null)),
            text(head, "hash").unwrap_or("?")
        ));
    }
    out.lines
        .push(format!("Seal hash {}", hex::encode(&event.hash)));
    out.links
        .push(link(format!("day {day}"), format!("/days/{day}")));
}

fn verified(event: &AuditEvent, out: &mut Described) {
    let d = &event.details;
    let intact = d.get("intact").and_then(Value::as_bool).unwrap_or(false);
    out.lines.push(format!(
        "{}: {} event(s) on {} chain(s), {} day seal(s) and {} checkpoint(s) checked",
        if intact { "Intact" } else { "BROKEN" },
        phrase(d.get("events").unwrap_or(&Value::Null)),
        d.get("chains")
            .and_then(Value::as_array)
            .map_or(0, Vec::len),
        phrase(d.get("seals_checked").unwrap_or(&Value::Null)),
        phrase(d.get("checkpoints_checked").unwrap_or(&Value::from(0))),
    ));
    for chain in d
        .get("chains")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(bad) = chain.get("bad").filter(|b| !b.is_null()) {
            out.lines.push(format!(
                "{} broken at seq {}: {}",
                text(chain, "chain").unwrap_or("?"),
                phrase(bad.get("seq").unwrap_or(&Value::Null)),
                text(bad, "what").unwrap_or("?")
            ));
        }
    }
    out.links.push(link("audit trail", "/audit"));
}

/// The event's details in words, with links; amounts in `currency` (the event's own, if it
/// names one).
pub fn describe(event: &AuditEvent, currency: Option<&str>) -> Described {
    let currency = text(&event.details, "currency").or(currency);
    let mut out = Described::default();
    match event.action.parse() {
        Ok(AuditAction::RoundSettled) => round_settled(event, &mut out),
        Ok(AuditAction::ProfileCreate | AuditAction::ProfileNewVersion) => profile(event, &mut out),
        Ok(AuditAction::TableCreate | AuditAction::TableUpdate) => table_settings(event, &mut out),
        Ok(AuditAction::DayClosed) => day_closed(event, &mut out),
        Ok(AuditAction::AuditVerified) => verified(event, &mut out),
        _ => {
            if let Some(map) = event.details.as_object() {
                out.lines.extend(map.iter().map(|(k, v)| {
                    let value = match (v.as_i64(), currency) {
                        (Some(n), Some(currency)) if AMOUNTS.contains(&k.as_str()) => {
                            format::money(Money::from_minor_units(n), currency)
                        }
                        (Some(n), None) if AMOUNTS.contains(&k.as_str()) => {
                            Money::from_minor_units(n).major_text()
                        }
                        _ => phrase(v),
                    };
                    format!("{}: {value}", k.replace('_', " "))
                }));
            }
        }
    }
    if let Some(code) = event.target.strip_prefix("table:") {
        out.links.push(link(format!("table {code}"), "/tables"));
    }
    if let Some(user) = event.target.strip_prefix("user:") {
        out.links.push(link(format!("user {user}"), "/admin/users"));
    }
    if event.actor_user_id.is_some() {
        out.links.push(link(
            format!("{}'s events", event.actor_name),
            format!("/audit/events?actor={}", event.actor_name),
        ));
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use chrono::Utc;
    use serde_json::json;

    use super::*;

    fn event(action: AuditAction, target: &str, details: Value) -> AuditEvent {
        AuditEvent {
            id: 1,
            chain: "table:1".to_owned(),
            seq: 1,
            at: Utc::now(),
            actor_user_id: None,
            actor_name: "ann".to_owned(),
            action: action.as_str().to_owned(),
            target: target.to_owned(),
            details,
            client_addr: None,
            gaming_day: None,
            table_id: None,
            prev_hash: vec![0; 32],
            hash: vec![0; 32],
        }
    }

    #[test]
    fn a_round_reads_as_its_places_and_results() {
        let e = event(
            AuditAction::RoundSettled,
            "round:42",
            json!({
                "table": "PUSOY-01", "round_no": 7, "dealer_id": 3,
                "round": {
                    "dealer": {"action": "play", "back": "2c 2d 2h 5s 6s", "middle": "7c 7d 8h 9s Tc", "front": "Jc Qd Kh"},
                    "seats": [{"seat": 1, "bet": 500, "action": "play", "back": "8c 8d 9h Ts Jd", "middle": "Ac Ad Ah 3s 4s", "front": "Qc Kd As"},
                              {"seat": 2, "bet": 200, "action": "surrender"}]
                },
                "settlement": {
                    "dealer": {"result": 1100, "hands": {"back": "three twos", "middle": "pair of sevens", "front": "king high"}},
                    "seats": [{"seat": 1, "outcome": "played", "fouled": true, "foul": "middle ranks above back", "result": -1000},
                              {"seat": 2, "outcome": "surrendered", "result": -100}]
                }
            }),
        );
        let d = describe(&e, None);
        assert_eq!(d.lines[0], "Round 7 at PUSOY-01");
        assert!(d.lines[1].starts_with("Dealer · back"), "{}", d.lines[1]);
        assert!(
            d.lines[1].contains("back 2c 2d 2h 5s 6s (three twos)"),
            "{}",
            d.lines[1]
        );
        assert!(d.lines[1].ends_with("result +11.00"), "{}", d.lines[1]);
        assert_eq!(
            d.lines[2],
            "Seat 1 · bet 5.00 · played · back 8c 8d 9h Ts Jd, middle Ac Ad Ah 3s 4s, front Qc Kd As · FOUL: middle ranks above back · result -10.00"
        );
        assert_eq!(d.lines[3], "Seat 2 · bet 2.00 · surrender · result -1.00");
        assert_eq!(d.links[0].href, "/tables/PUSOY-01/rounds/42");
    }

    #[test]
    fn a_tables_amounts_read_as_amounts() {
        let e = event(
            AuditAction::TableCreate,
            "table:PUSOY-P1",
            json!({
                "code": "PUSOY-P1", "name": "Pusoy P1", "currency": "PHP",
                "min_bet": 10000, "max_bet": 10000, "rule_profile_id": 4,
                "approval_threshold": 500000, "unit": 10000
            }),
        );
        let d = describe(&e, None);
        for line in [
            "approval threshold: 5,000.00",
            "max bet: 100.00",
            "min bet: 100.00",
            "unit: 100.00",
            "rule profile id: 4",
        ] {
            assert!(d.lines.iter().any(|l| l == line), "{line} in {:?}", d.lines);
        }
    }

    #[test]
    fn an_amount_in_an_event_reads_as_money_in_the_tables_currency() {
        let e = event(
            AuditAction::RoundVoided,
            "round:42",
            json!({"round_no": 7, "reason": "misdeal", "dealer_result": -1140000}),
        );
        let d = describe(&e, Some("PHP"));
        assert!(
            d.lines.iter().any(|l| l == "dealer result: PHP -11,400.00"),
            "{:?}",
            d.lines
        );
        assert!(d.lines.iter().any(|l| l == "round no: 7"), "{:?}", d.lines);
    }

    #[test]
    fn a_table_chain_is_named_by_its_code() {
        let names = TableNames::new(vec![(TableId(4), "PUSOY-04".into(), "PHP".into())]);
        assert_eq!(names.chain("table:4"), "table:4 (PUSOY-04)");
        assert_eq!(names.chain("day"), "day");
        assert_eq!(names.currency("table:4"), Some("PHP"));
    }

    #[test]
    fn a_profile_change_names_each_option_that_changed() {
        let e = event(
            AuditAction::ProfileNewVersion,
            "profile:2",
            json!({"name": "House", "version": 3,
                   "before": {"surrender": true, "ties": "dealer_wins"},
                   "after": {"surrender": false, "ties": "dealer_wins"}}),
        );
        let d = describe(&e, None);
        assert_eq!(
            d.lines,
            ["Rule profile House, version 3", "surrender: yes → no"]
        );
    }
}
