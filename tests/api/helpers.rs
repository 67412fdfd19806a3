//! `spawn_app`: the real server on a random port against a fresh database made from a
//! template migrated once per test run, plus request helpers and direct database access.

use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use diesel::prelude::*;
use diesel::sql_types::BigInt;
use pusoy_pit::config::Config;
use pusoy_pit::db::audit_log::{self, Actor};
use pusoy_pit::db::embedded::{self, quote_ident, Cluster, Layout};
use pusoy_pit::db::ids::UserId;
use pusoy_pit::db::profiles;
use pusoy_pit::db::tables::TableInput;
use pusoy_pit::db::users::{self, NewUser, Role, User};
use pusoy_pit::password::{self, HashParams};
use pusoy_pit::pit::clock::Clock;
use pusoy_pit::recording::memory::TableMemos;
use pusoy_pit::rules::game::GameRules;
use pusoy_pit::rules::profile::RuleProfile;
use pusoy_pit::web::state::AppState;
use rand::distr::{Alphanumeric, SampleString};
use reqwest::header::{HeaderMap, LOCATION, SET_COOKIE};
use reqwest::Method;
use reqwest::{Response, StatusCode};
use serde_json::{json, Value};

/// The advisory lock serialising template migration and database creation across processes.
const TEMPLATE_LOCK: i64 = 0x7075_736f_7900;

pub fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(|| {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("var");
        let layout = Layout::resolve(&base).expect("private cluster directory");
        let cluster = embedded::ensure_running(&layout).expect("private PostgreSQL cluster");
        let mut admin = cluster.connect("postgres").unwrap();
        with_lock(&mut admin, |admin| {
            cluster.ensure_database(template()).unwrap();
            {
                let mut template = cluster.connect(template()).unwrap();
                pusoy_pit::db::migrate(&mut template).unwrap();
            }
            // The app under test runs as the least-privilege role, as `serve` does; the
            // databases made from the template inherit its grants.
            cluster.grant_app_role(template()).unwrap();
            embedded::drop_finished_test_databases(admin).unwrap();
        });
        cluster
    })
}

/// The template database's name, which names the migrations it was made from: a template made
/// from other migrations (another branch, or before a migration was squashed) is never reused.
fn template() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| {
        use sha2::{Digest, Sha256};
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flat_map(|migration| {
                std::fs::read_dir(migration.unwrap().path())
                    .into_iter()
                    .flatten()
            })
            .map(|file| file.unwrap().path())
            .collect();
        files.sort();
        let mut hash = Sha256::new();
        for file in files {
            hash.update(
                file.strip_prefix(&dir)
                    .unwrap()
                    .to_string_lossy()
                    .as_bytes(),
            );
            hash.update(std::fs::read(&file).unwrap());
        }
        format!("pusoy_template_{}", &hex::encode(hash.finalize())[..12])
    })
}

fn with_lock(conn: &mut PgConnection, f: impl FnOnce(&mut PgConnection)) {
    diesel::sql_query(format!("SELECT pg_advisory_lock({TEMPLATE_LOCK})"))
        .execute(conn)
        .unwrap();
    f(conn);
    diesel::sql_query(format!("SELECT pg_advisory_unlock({TEMPLATE_LOCK})"))
        .execute(conn)
        .unwrap();
}

/// A fresh database: its owner's URL (the tests' own connections, which may tamper) and the
/// app's ([`embedded::APP_ROLE`]).
fn fresh_database() -> (String, String) {
    let cluster = cluster();
    let name = format!(
        "test_{}_{}",
        std::process::id(),
        Alphanumeric
            .sample_string(&mut rand::rng(), 10)
            .to_lowercase()
    );
    let mut admin = cluster.connect("postgres").unwrap();
    with_lock(&mut admin, |admin| {
        diesel::sql_query(format!(
            "CREATE DATABASE {} TEMPLATE {}",
            quote_ident(&name),
            quote_ident(template())
        ))
        .execute(admin)
        .unwrap();
    });
    (
        relaxed(&cluster.url(&name)),
        relaxed(&cluster.app_url(&name)),
    )
}

/// The test suite, and only it, trades durability for speed: its connections commit without
/// waiting for the WAL to reach the disk (`synchronous_commit=off` for the session; the cluster
/// itself stays durable). A crash would lose the last tests' rows, which nobody needs.
fn relaxed(url: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}options=-c%20synchronous_commit%3Doff")
}

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub db_url: String,
    pub config: Config,
    /// What the server remembers of its tables, and how many rounds it wrote from that memory.
    pub memos: Arc<TableMemos>,
    /// The app's clock: a test moves it ahead (a gaming day's end) without waiting for it.
    pub clock: Clock,
    /// The app's seal file, removed when the last handle on the app (browsers, instances) is.
    seal_file: Arc<SealFile>,
}

/// A test app's seal file in the temporary directory, removed once no test uses it: the suite
/// would otherwise leave hundreds behind.
struct SealFile(std::path::PathBuf);

impl Drop for SealFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The settings every test app starts from: development defaults, a small pool.
pub fn test_config() -> Config {
    let mut config = Config::from_lookup(|_| None).unwrap();
    config.workers = 1;
    config.db_pool_size = 4;
    config
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

pub async fn spawn_app_with(adjust: impl FnOnce(&mut Config)) -> TestApp {
    let (db_url, app_db_url) = tokio::task::spawn_blocking(fresh_database).await.unwrap();
    let mut config = test_config();
    config.database_url = Some(app_db_url.clone());
    // Each app its own seal file, beside its own database.
    config.seal_file = std::env::temp_dir().join(format!(
        "pusoy-test-seals-{}.jsonl",
        &hex::encode(<sha2::Sha256 as sha2::Digest>::digest(db_url.as_bytes()))[..16]
    ));
    adjust(&mut config);
    // `adjust` may send the app's connections another way to the same database (a proxy).
    if config.database_url.is_none() {
        config.database_url = Some(app_db_url);
    }
    let seal_file = Arc::new(SealFile(config.seal_file.clone()));
    serve(db_url, config, new_client(), seal_file)
}

/// The server of `config` (its `database_url` set) on a random port, reached by `client`.
fn serve(
    db_url: String,
    config: Config,
    client: reqwest::Client,
    seal_file: Arc<SealFile>,
) -> TestApp {
    let app_url = config.database_url.clone().unwrap();
    let pool = pusoy_pit::db::pool(&app_url, config.db_pool_size).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let state = AppState::new(pool, config.clone()).unwrap();
    let memos = state.table_memos.clone();
    let clock = state.clock.clone();
    let server = pusoy_pit::web::serve(listener, state).unwrap();
    tokio::spawn(server);
    TestApp {
        address: format!("http://127.0.0.1:{port}"),
        client,
        db_url,
        config,
        memos,
        clock,
        seal_file,
    }
}

/// A browser: its own cookie jar, redirects not followed so tests see them.
pub fn new_client() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        // The server closes a connection idle for 5 s (actix-web's keep-alive); a client that
        // kept it longer could send on it as it closes and read an incomplete answer.
        .pool_idle_timeout(std::time::Duration::from_secs(2))
        .build()
        .unwrap()
}

impl TestApp {
    pub fn conn(&self) -> PgConnection {
        PgConnection::establish(&self.db_url).unwrap()
    }

    /// A second instance of the app on the same database, with the same settings (session key,
    /// seal file), reached by this browser (its cookies go to both, as behind a proxy) and
    /// remembering nothing of its own yet.
    pub fn another_instance(&self) -> TestApp {
        serve(
            self.db_url.clone(),
            self.config.clone(),
            self.client.clone(),
            self.seal_file.clone(),
        )
    }

    /// A second browser on the same app.
    pub fn another_browser(&self) -> TestApp {
        TestApp {
            address: self.address.clone(),
            client: new_client(),
            db_url: self.db_url.clone(),
            config: self.config.clone(),
            memos: self.memos.clone(),
            clock: self.clock.clone(),
            seal_file: self.seal_file.clone(),
        }
    }

    /// Moves the app's clock a day ahead: today's gaming day has ended (and may be closed).
    pub fn end_today(&self) {
        self.clock.set_ahead(chrono::Duration::days(1));
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    pub async fn get(&self, path: &str) -> Response {
        self.client.get(self.url(path)).send().await.unwrap()
    }

    /// The CSRF token of this browser's session, read from a page's form.
    pub async fn csrf_token(&self) -> String {
        let mut res = self.get("/account/password").await;
        if res.status() == StatusCode::SEE_OTHER {
            res = self.get("/login").await;
        }
        let html = res.text().await.unwrap();
        extract_csrf_token(&html).expect("a page with a CSRF token")
    }

    /// POSTs a form with this session's CSRF token added.
    pub async fn post_form(&self, path: &str, fields: &[(&str, &str)]) -> Response {
        let token = self.csrf_token().await;
        let mut all: Vec<(&str, &str)> = fields.to_vec();
        all.push(("csrf_token", &token));
        self.post_form_raw(path, &all).await
    }

    /// POSTs exactly these fields (no token added).
    pub async fn post_form_raw(&self, path: &str, fields: &[(&str, &str)]) -> Response {
        self.client
            .post(self.url(path))
            .form(fields)
            .send()
            .await
            .unwrap()
    }

    /// This signed-in browser (password [`PASSWORD`]) sets its own signing PIN.
    pub async fn set_own_pin(&self, pin: &str) -> Response {
        let fields = [
            ("current_password", PASSWORD),
            ("pin", pin),
            ("confirm_pin", pin),
        ];
        self.post_form("/account/pin", &fields).await
    }

    pub async fn sign_in(&self, username: &str, password: &str) -> Response {
        self.post_form("/login", &[("username", username), ("password", password)])
            .await
    }

    /// Creates an account straight in the database (no must-change flag) and returns it.
    pub fn create_user(&self, username: &str, role: Role, password: &str) -> User {
        let hash = password::hash(password, HashParams::FLOOR).unwrap();
        let new = NewUser {
            username: username.to_owned(),
            display_name: format!("{username} Test"),
            role,
            password_hash: hash,
            must_change_password: false,
        };
        users::create(&mut self.conn(), &new, &Actor::system("test")).unwrap()
    }

    /// Creates a user of `role` named after it, and signs this browser in as them.
    pub async fn signed_in_as(&self, role: Role) -> User {
        let user = self.create_user(&format!("the-{role}"), role, PASSWORD);
        let res = self.sign_in(&user.username, PASSWORD).await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER, "sign-in of {role}");
        user
    }

    /// Signs this browser's dealer on at table `code` from the tables page.
    pub async fn sign_on_at(&self, code: &str) {
        let res = self
            .post_form(&format!("/tables/{code}/sign-on"), &[])
            .await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER, "sign-on at {code}");
        assert_eq!(
            location(&res),
            format!("/tables/{code}"),
            "sign-on at {code}"
        );
        let flash = self.get("/tables").await.text().await.unwrap();
        assert!(
            flash.contains(&format!("You are signed on at {code}")),
            "sign-on at {code} refused"
        );
    }

    /// Signs this browser's dealer off at table `code`.
    pub async fn sign_off_at(&self, code: &str) {
        let res = self
            .post_form(&format!("/tables/{code}/sign-off"), &[])
            .await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER, "sign-off at {code}");
    }

    /// The id of the open shift at table `code`.
    pub fn open_shift(&self, code: &str) -> Option<i64> {
        use pusoy_pit::db::schema::{dealer_shifts, gaming_tables};
        dealer_shifts::table
            .inner_join(gaming_tables::table)
            .filter(gaming_tables::code.eq(code))
            .filter(dealer_shifts::signed_off_at.is_null())
            .select(dealer_shifts::id)
            .first(&mut self.conn())
            .optional()
            .unwrap()
    }

    pub fn user(&self, id: UserId) -> User {
        users::find(&mut self.conn(), id).unwrap().unwrap()
    }

    /// Audit events with this action, oldest first.
    pub fn audit(&self, action: impl AsRef<str>) -> Vec<audit_log::AuditEvent> {
        let action = action.as_ref();
        let mut events = audit_log::recent(&mut self.conn(), 10_000).unwrap();
        events.reverse();
        events.retain(|e| e.action == action);
        events
    }

    pub fn session_count(&self, user: UserId) -> i64 {
        #[derive(QueryableByName)]
        struct Count {
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let count: Count =
            diesel::sql_query("SELECT count(*) AS n FROM sessions WHERE user_id = $1")
                .bind::<BigInt, _>(user.0)
                .get_result(&mut self.conn())
                .unwrap();
        count.n
    }
}

/// A password that meets the policy.
pub const PASSWORD: &str = "felt-table-7-shuffle";

pub fn extract_csrf_token(html: &str) -> Option<String> {
    let marker = "name=\"csrf_token\" value=\"";
    let start = html.find(marker)? + marker.len();
    let end = html[start..].find('"')? + start;
    Some(html[start..end].to_owned())
}

pub fn location(res: &Response) -> &str {
    res.headers()
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

pub fn set_cookies(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok().map(str::to_owned))
        .collect()
}

/// Table `code` made as an administrator makes it, with its audit events: a profile of the
/// default rules (`House {code}`) and the table, PHP 1.00 to 100.00. Returns the table's id.
pub fn create_table(app: &TestApp, code: &str) -> i64 {
    create_table_with(app, code, &RuleProfile::default())
}

/// [`create_table`] with a profile of these rules.
pub fn create_table_with(app: &TestApp, code: &str, rules: &RuleProfile) -> i64 {
    let conn = &mut app.conn();
    let admin = Actor::system("test");
    let (profile, _) = profiles::create_profile(
        conn,
        &format!("House {code}"),
        GameRules::Banking(*rules),
        &admin,
    )
    .unwrap();
    let input = TableInput {
        code: code.to_owned(),
        name: "Table".to_owned(),
        currency: "PHP".to_owned(),
        min_bet: 100,
        max_bet: 10_000,
        rule_profile_id: profile.id,
        approval_threshold: None,
        unit: None,
    };
    pusoy_pit::pit::tables::create_table(conn, &input, &admin)
        .unwrap()
        .id
        .0
}

/// A JSON request with this browser's session and CSRF token; the answer's status and JSON
/// (or its text, as a JSON string).
pub async fn call(
    app: &TestApp,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let token = app.csrf_token().await;
    let mut req = app
        .client
        .request(method, app.url(path))
        .header("X-CSRF-Token", token);
    if let Some(body) = body {
        req = req.json(&body);
    }
    let res = req.send().await.unwrap();
    let status = res.status();
    let text = res.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// Seat 1 fouls (middle above back), seat 2 surrenders, seat 3 wins two hands of three.
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

/// Records the whole round `round` at table `code` under the one-time `key` (`PUT
/// /api/v1/tables/{code}/rounds/{key}`).
pub async fn record(app: &TestApp, code: &str, key: &str, round: Value) -> (StatusCode, Value) {
    call(
        app,
        Method::PUT,
        &format!("/api/v1/tables/{code}/rounds/{key}"),
        Some(round),
    )
    .await
}

pub async fn open(app: &TestApp, code: &str) -> String {
    let (status, body) = call(
        app,
        Method::POST,
        &format!("/api/v1/tables/{code}/rounds"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["key"].as_str().unwrap().to_owned()
}

/// Every settled round's number, in order.
pub fn round_numbers(app: &TestApp) -> Vec<i32> {
    #[derive(QueryableByName)]
    struct No {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        round_no: i32,
    }
    diesel::sql_query("SELECT round_no FROM rounds ORDER BY round_no")
        .load::<No>(&mut app.conn())
        .unwrap()
        .into_iter()
        .map(|r| r.round_no)
        .collect()
}

pub fn count(app: &TestApp, sql: &str) -> i64 {
    #[derive(QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    diesel::sql_query(sql)
        .get_result::<N>(&mut app.conn())
        .unwrap()
        .n
}

/// Fails unless every round has exactly one row of figures (written by the trigger on `rounds`,
/// whichever writer wrote the round) carrying the round's own keys.
pub fn assert_every_round_has_its_figures(app: &TestApp) {
    let rounds = count(app, "SELECT count(*) AS n FROM rounds");
    let astray = count(
        app,
        "SELECT count(*) AS n FROM rounds r FULL JOIN round_figures f ON f.round_id = r.id \
         WHERE (r.table_id, r.dealer_id, r.shift_id, r.gaming_day, r.currency, r.dealer_result, \
                r.settled_at, r.needs_approval) \
               IS DISTINCT FROM (f.table_id, f.dealer_id, f.shift_id, f.gaming_day, f.currency, \
                f.dealer_result, f.settled_at, f.needs_approval)",
    );
    assert!(rounds > 0, "no rounds to check");
    assert_eq!(
        astray, 0,
        "rounds and their figures differ ({rounds} rounds)"
    );
}

/// Issues a token through the admin page and returns it.
pub async fn issue_token(admin: &TestApp, name: &str, holder: &User) -> String {
    let res = admin
        .post_form(
            "/admin/tokens",
            &[("name", name), ("user_id", &holder.id.to_string())],
        )
        .await;
    // Post/redirect/get: the token is shown on the page after the redirect, once.
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), "/admin/tokens#issued-token");
    let res = admin.get("/admin/tokens").await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()[reqwest::header::CACHE_CONTROL], "no-store");
    let html = res.text().await.unwrap();
    let marker = "id=\"token-value\">";
    let start = html.find(marker).expect("the token is shown once") + marker.len();
    let end = html[start..].find('<').unwrap() + start;
    html[start..end].to_owned()
}

/// A request from a system with no cookies, authenticated by `token` alone.
pub async fn call_with_token(
    app: &TestApp,
    token: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value, reqwest::header::HeaderMap) {
    let mut req = new_client()
        .request(method, app.url(path))
        .bearer_auth(token);
    if let Some(body) = body {
        req = req.json(&body);
    }
    let res = req.send().await.unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let text = res.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
        headers,
    )
}
