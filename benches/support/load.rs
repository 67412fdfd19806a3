//! What the load run (`confirm_load`) and the fault-injection test (`tests/fault_injection.rs`)
//! share: a seeded database of tables with dealers on shift and their API tokens, the round
//! they record, and the check that what was written is whole. Included by `#[path]`.

use anyhow::{anyhow, Result};
use chrono::NaiveDate;
use diesel::prelude::*;
use pusoy_pit::db::audit_log::Actor;
use pusoy_pit::db::embedded::{self, quote_ident, Cluster};
use pusoy_pit::db::users::{self, NewUser, Role};
use pusoy_pit::db::{api_tokens, profiles, tables};
use pusoy_pit::password::{self, HashParams};
use pusoy_pit::rules::profile::RuleProfile;
use serde_json::{json, Value};

pub const PASSWORD: &str = "felt-table-7-shuffle";

/// A round with a fouled seat, a surrender and a seat that wins two hands of three.
pub fn the_round() -> Value {
    json!({
        "dealer": {"back": "2c 2d 2h 5s 6s", "middle": "7c 7d 8h 9s Tc", "front": "Jc Qd Kh"},
        "seats": [
            {"seat": 1, "bet": 500, "back": "8c 8d 9h Ts Jd", "middle": "Ac Ad Ah 3s 4s", "front": "Qc Kd As"},
            {"seat": 2, "bet": 200, "action": "surrender"},
            {"seat": 3, "bet": 300, "back": "3d 3h 3c 4d 5d", "middle": "9c 9d Qh Js Td", "front": "Qs Jh 6h"}
        ]
    })
}

pub struct Seeded {
    pub url: String,
    /// Per table: its code, the dealer's user name and an API token acting as that dealer.
    pub tables: Vec<(String, String, String)>,
}

/// A fresh database `database` on `cluster` that commits with `synchronous_commit` (`on` or
/// `off`), with one rule profile, and per client a table, a dealer signed on at it for gaming
/// day `day` and an API token for that dealer.
pub fn seed(
    cluster: &Cluster,
    database: &str,
    synchronous_commit: &str,
    clients: usize,
    day: NaiveDate,
) -> Result<Seeded> {
    let mut admin = cluster.connect("postgres")?;
    embedded::drop_finished_test_databases(&mut admin)?;
    let db = quote_ident(database);
    diesel::sql_query(format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)")).execute(&mut admin)?;
    diesel::sql_query(format!("CREATE DATABASE {db}")).execute(&mut admin)?;
    diesel::sql_query(format!(
        "ALTER DATABASE {db} SET synchronous_commit = {}",
        quote_ident(synchronous_commit)
    ))
    .execute(&mut admin)?;
    let url = cluster.url(database);
    let mut conn = PgConnection::establish(&url)?;
    pusoy_pit::db::migrate(&mut conn).map_err(|e| anyhow!("{e}"))?;
    let system = Actor::system("bench");
    // PUSOY_BENCH_HOUSE_WAY=1: the tables require the house way, so every confirmation also
    // measures the dealer's set against it (and flags it: the bench's dealer set is not it).
    let rules = RuleProfile {
        house_way: std::env::var_os("PUSOY_BENCH_HOUSE_WAY").is_some(),
        ..RuleProfile::default()
    };
    let (profile, _) = profiles::create_profile(&mut conn, "Bench rules", &rules, &system)?;
    let hash = password::hash(PASSWORD, HashParams::FLOOR)?;
    let boss = users::create(
        &mut conn,
        &NewUser {
            username: "bench-admin".to_owned(),
            display_name: "Bench Admin".to_owned(),
            role: Role::Admin,
            password_hash: hash.clone(),
            must_change_password: false,
        },
        &system,
    )?;
    let boss = Actor::user(boss.id, &boss.username, None);
    let mut seeded = Vec::with_capacity(clients);
    for n in 1..=clients {
        let code = format!("LOAD-{n:02}");
        let table = pusoy_pit::pit::tables::create_table(
            &mut conn,
            &tables::TableInput {
                code: code.clone(),
                name: format!("Load table {n}"),
                currency: "PHP".to_owned(),
                min_bet: 100,
                max_bet: 100_000,
                rule_profile_id: profile.id,
                // Every round waits for approval: the confirm path's most work.
                approval_threshold: Some(100),
                unit: None,
            },
            &system,
        )?;
        let dealer = users::create(
            &mut conn,
            &NewUser {
                username: format!("load-dealer-{n}"),
                display_name: format!("Load Dealer {n}"),
                role: Role::Dealer,
                password_hash: hash.clone(),
                must_change_password: false,
            },
            &system,
        )?;
        let dealer_actor = Actor::user(dealer.id, &dealer.username, None);
        pusoy_pit::pit::shifts::sign_on_at(&mut conn, table.id, &dealer_actor, day)?;
        let (_, token) =
            api_tokens::issue(&mut conn, &format!("Load {n}"), dealer.id, None, &boss)?;
        seeded.push((code, dealer.username, token));
    }
    Ok(Seeded {
        url,
        tables: seeded,
    })
}

/// After the runs: every table's rounds are numbered without gaps and every table's audit chain
/// verifies, so that the figures are those of rounds written right.
pub fn check_written(url: &str) -> Result<String> {
    use diesel::sql_types::BigInt;
    use pusoy_pit::db::audit_log::{self, ChainCheck};

    #[derive(QueryableByName)]
    struct Tally {
        #[diesel(sql_type = BigInt)]
        tables: i64,
        #[diesel(sql_type = BigInt)]
        rounds: i64,
        #[diesel(sql_type = BigInt)]
        gapped: i64,
    }
    let mut conn = PgConnection::establish(url)?;
    let tally: Tally = diesel::sql_query(
        "SELECT count(*) AS tables, coalesce(sum(n), 0)::int8 AS rounds, \
                count(*) FILTER (WHERE n <> last OR first <> 1) AS gapped \
         FROM (SELECT count(*) AS n, max(round_no) AS last, min(round_no) AS first \
               FROM rounds GROUP BY table_id, gaming_day) per_day",
    )
    .get_result(&mut conn)?;
    if tally.gapped > 0 {
        return Err(anyhow!(
            "{} tables have gaps in their round numbers",
            tally.gapped
        ));
    }
    let chains: Vec<String> = audit_log_chains(&mut conn)?;
    let mut events = 0;
    for chain in &chains {
        match audit_log::verify_chain(&mut conn, chain)? {
            ChainCheck::Intact { events: n } => events += n,
            broken => return Err(anyhow!("audit chain {chain} is broken: {broken:?}")),
        }
    }
    Ok(format!(
        "checked                {} rounds on {} tables numbered without gaps; {} audit chains \
         intact ({events} events)",
        tally.rounds,
        tally.tables,
        chains.len()
    ))
}

fn audit_log_chains(conn: &mut PgConnection) -> Result<Vec<String>> {
    use pusoy_pit::db::schema::audit_chain_heads;
    Ok(audit_chain_heads::table
        .select(audit_chain_heads::chain)
        .load(conn)?)
}
