//! The web application: builds the actix-web `App` (routes, middleware) and starts the server.
//!
//! Middleware, outermost first: security headers → server-side session → JSON errors under
//! `/api/`, refusal pages with the navigation bar ([`error_answers::error_answers`]) → authorisation (every route's roles are declared in
//! [`access::RULES`]; anything undeclared is refused) → CSRF check on every state-changing
//! request → the handler. Handlers hold no SQL and no rules: they read the request, call
//! `recording` or `db` inside `web::block` ([`state::AppState::db`]) and render.

pub mod access;
mod account;
mod accounting;
mod admin;
mod admin_profiles;
mod admin_tables;
mod admin_tokens;
mod api;
mod assets;
mod audit;
mod audit_exports;
mod audit_words;
mod auth;
mod cage;
mod charts;
mod compliance;
mod counts;
mod csrf;
mod days;
mod drop;
pub mod error;
mod error_answers;
mod format;
pub mod forms;
mod headers;
mod home;
mod layout;
mod observations;
mod outage;
mod pit;
mod players;
mod reconciliation;
pub mod refusals;
mod reports;
mod respond;
mod review;
pub mod session;
pub mod state;
mod table_screen;
mod tables;
pub mod user;

use std::net::TcpListener;

use actix_governor::{Governor, GovernorConfigBuilder};
use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpResponse, HttpServer};
use serde_json::json;

use crate::config::Config;
use crate::db::{DbError, PgPool};
use crate::web::error::AppError;
use crate::web::state::AppState;

/// Starts serving on `listener`; the returned server runs until stopped.
pub fn run(listener: TcpListener, pool: PgPool, config: Config) -> std::io::Result<Server> {
    let state = AppState::new(pool, config).map_err(std::io::Error::other)?;
    serve(listener, state)
}

/// Starts serving `state` on `listener` (tests keep the state to look at what it remembers).
pub fn serve(listener: TcpListener, state: AppState) -> std::io::Result<Server> {
    let workers = state.config.workers;
    let limit = &state.config.login_rate_limit;
    // One limiter shared by all workers; per client address.
    let trusted = std::sync::Arc::new(state.config.trusted_proxies.clone());
    let login_limiter = GovernorConfigBuilder::default()
        .key_extractor(crate::web::user::ClientIpKey { trusted })
        .period(std::time::Duration::from_millis(
            60_000 / u64::from(limit.per_minute.max(1)),
        ))
        .burst_size(limit.burst)
        .finish()
        .ok_or_else(|| std::io::Error::other("login rate limit must be above zero"))?;
    let server = HttpServer::new(move || {
        let session = session::middleware(&state);
        App::new()
            .app_data(web::Data::new(state.clone()))
            .app_data(web::Data::new(crate::web::user::TrustedProxies(
                state.config.trusted_proxies.clone(),
            )))
            .app_data(web::FormConfig::default().error_handler(|err, _| {
                tracing::debug!(error = %err, "unreadable form");
                AppError::BadRequest.into()
            }))
            .app_data(web::PathConfig::default().error_handler(|_, _| AppError::NotFound.into()))
            .wrap(from_fn(forms::reject_control_characters))
            .wrap(from_fn(csrf::verify))
            .wrap(from_fn(access::authorize))
            .wrap(from_fn(forms::reject_control_characters_in_address))
            .wrap(from_fn(error_answers::error_answers))
            .wrap(session)
            .wrap(from_fn(outage::answer))
            .wrap(from_fn(headers::security_headers))
            // Routes are matched in this order, each pattern with parameters by a regex (twice
            // per request: routing, and the pattern `access::authorize` looks up): the busiest
            // first.
            .service(web::resource("/api/v1/tables/{code}/rounds/{key}").put(api::record_round))
            .service(web::resource("/api/v1/rounds/{key}/confirm").post(api::confirm_round))
            .service(
                web::resource("/api/v1/rounds/{key}")
                    .get(api::show_round)
                    .put(api::save_round),
            )
            .service(web::resource("/api/v1/tables/{code}/rounds").post(api::open_round))
            .service(web::resource("/api/v1/rounds/{key}/preview").post(api::preview_round))
            .service(web::resource("/").get(home::show))
            .service(
                web::resource("/login")
                    .route(web::get().to(auth::login_form))
                    .route(
                        web::post()
                            .to(auth::login)
                            .wrap(Governor::new(&login_limiter)),
                    ),
            )
            .service(web::resource("/logout").post(auth::logout))
            .service(
                web::resource("/account/password")
                    .get(account::password_form)
                    .post(account::change_password),
            )
            .service(
                web::resource("/account/pin")
                    .get(account::pin_form)
                    .post(account::set_pin),
            )
            .service(web::resource("/account/pin/remove").post(account::remove_pin))
            .service(
                web::resource("/admin/users")
                    .get(admin::list_users)
                    .post(admin::create_user),
            )
            .service(web::resource("/admin/users/{id}/disable").post(admin::disable_user))
            .service(web::resource("/admin/users/{id}/enable").post(admin::enable_user))
            .service(web::resource("/admin/users/{id}/unlock").post(admin::unlock_user))
            .service(web::resource("/admin/users/{id}/reset-password").post(admin::reset_password))
            .service(web::resource("/admin/users/{id}/clear-pin").post(admin::clear_pin))
            .service(
                web::resource("/admin/tables")
                    .get(admin_tables::list)
                    .post(admin_tables::create),
            )
            .service(web::resource("/admin/tables/{id}").post(admin_tables::update))
            .service(
                web::resource("/admin/tables/{id}/confirm-prompt")
                    .post(admin_tables::set_confirm_prompt),
            )
            .service(
                web::resource("/admin/profiles")
                    .get(admin_profiles::list)
                    .post(admin_profiles::create),
            )
            .service(web::resource("/admin/profiles/{id}").post(admin_profiles::update))
            .service(
                web::resource("/admin/chips")
                    .get(accounting::chip_sets)
                    .post(accounting::create_chip_set),
            )
            .service(web::resource("/admin/chips/{id}").post(accounting::new_chip_set_version))
            .service(
                web::resource("/admin/comp")
                    .get(players::comp_rules)
                    .post(players::set_comp_rule),
            )
            .service(
                web::resource("/admin/tables/{id}/par")
                    .get(accounting::table_par)
                    .post(accounting::set_table_par),
            )
            .service(
                web::resource("/admin/tokens")
                    .get(admin_tokens::list)
                    .post(admin_tokens::issue),
            )
            .service(web::resource("/admin/tokens/{id}/revoke").post(admin_tokens::revoke))
            .service(web::resource("/cage").get(cage::desk))
            .service(web::resource("/cage/slips/{id}").get(cage::slip))
            .service(web::resource("/cage/slips/{id}/issue").post(cage::issue))
            .service(web::resource("/cage/slips/{id}/receive").post(cage::receive))
            .service(web::resource("/cage/slips/{id}/void").post(cage::void))
            .service(web::resource("/cage/slips/{id}/print").post(cage::print))
            .service(web::resource("/cage/prints/{id}").get(cage::printed))
            .service(web::resource("/cage/slips").get(cage::day))
            .service(
                web::resource("/cage/cash")
                    .get(compliance::cage_cash)
                    .post(compliance::record_cage_cash),
            )
            .service(web::resource("/cage/cash/{id}/void").post(compliance::void_cage_cash))
            .service(web::resource("/compliance").get(compliance::cases))
            .service(web::resource("/compliance/cases/{id}").get(compliance::case))
            .service(web::resource("/compliance/cases/{id}/decision").post(compliance::decide))
            .service(
                web::resource("/compliance/thresholds")
                    .get(compliance::thresholds)
                    .post(compliance::set_thresholds),
            )
            .service(web::resource("/count").get(counts::day))
            .service(
                web::resource("/count/{day}/{code}")
                    .get(counts::table)
                    .post(counts::sign),
            )
            .service(web::resource("/count/{day}/{code}/{id}/void").post(counts::void))
            .service(
                web::resource("/tables/{code}/cage")
                    .get(cage::table)
                    .post(cage::request),
            )
            .service(
                web::resource("/tables/{code}/buy-ins")
                    .get(drop::list)
                    .post(drop::record),
            )
            .service(web::resource("/tables/{code}/buy-ins/{id}/void").post(drop::void_buy_in))
            .service(web::resource("/tables/{code}/fees").post(drop::record_fee))
            .service(web::resource("/tables/{code}/fees/{id}/void").post(drop::void_fee))
            .service(
                web::resource("/api/v1/tables/{code}/buy-ins")
                    .get(drop::api_list)
                    .post(drop::api_record),
            )
            .service(
                web::resource("/players")
                    .get(players::list)
                    .post(players::register),
            )
            .service(
                // A regulator's list runs to thousands of lines: 256 KiB (what the CSRF check
                // reads of a body), not the default 16 KiB.
                web::resource("/players/exclusions")
                    .app_data(web::FormConfig::default().limit(256 << 10).error_handler(
                        |err, _| {
                            tracing::debug!(error = %err, "unreadable form");
                            AppError::BadRequest.into()
                        },
                    ))
                    .post(players::import),
            )
            .service(
                web::resource("/players/{id}")
                    .get(players::show)
                    .post(players::correct),
            )
            .service(web::resource("/players/{id}/status").post(players::set_status))
            .service(web::resource("/reports/players").get(players::day_report))
            .service(web::resource("/tables/{code}/ratings").post(players::seat))
            .service(web::resource("/tables/{code}/ratings/{seat}/{step}").post(players::step))
            .service(web::resource("/api/v1/tables/{code}/ratings").post(players::api_seat))
            .service(
                web::resource("/api/v1/tables/{code}/ratings/{seat}/{step}")
                    .post(players::api_step),
            )
            .service(
                web::resource("/tables/{code}/observations")
                    .get(observations::list)
                    .post(observations::record),
            )
            .service(
                web::resource("/tables/{code}/observations/{id}/{step}").post(observations::step),
            )
            .service(web::resource("/tables").get(tables::list))
            .service(web::resource("/tables/{code}/sign-on").post(tables::sign_on))
            .service(
                web::resource("/tables/{code}/sign-off")
                    .get(tables::sign_off_page)
                    .post(tables::sign_off),
            )
            .service(web::resource("/tables/{code}").get(table_screen::show))
            .service(
                web::resource("/tables/{code}/slips")
                    .get(accounting::table_slips)
                    .post(accounting::sign_slip),
            )
            .service(web::resource("/tables/{code}/slips/{id}/void").post(accounting::void_slip))
            .service(
                web::resource("/tables/{code}/slips/{id}/explanation")
                    .post(accounting::explain_slip),
            )
            .service(
                web::resource("/tables/{code}/round")
                    .get(table_screen::back_to_screen)
                    .post(table_screen::submit),
            )
            .service(web::resource("/tables/{code}/round/check").post(table_screen::check))
            .service(web::resource("/api/v1/tables/{code}/house-way").get(table_screen::house_way))
            .service(web::resource("/tables/{code}/rounds/{round_id}").get(review::show_round))
            .service(web::resource("/review").get(review::queue))
            .service(web::resource("/review/rounds/{id}/approve").post(review::approve))
            .service(web::resource("/review/rounds/{id}/void").post(review::void))
            .service(
                web::resource("/review/rounds/{id}/reenter")
                    .get(review::reenter_form)
                    .post(review::reenter),
            )
            .service(web::resource("/audit").get(audit::page))
            .service(web::resource("/audit/verify").post(audit::start_check))
            .service(web::resource("/audit/events").get(audit::search))
            .service(web::resource("/days").get(days::list))
            .service(web::resource("/days/{day}").get(days::show))
            .service(web::resource("/days/{day}/close").post(days::close))
            .service(web::resource("/pit").get(pit::show))
            .service(web::resource("/api/v1/pit").get(pit::json))
            .service(web::resource("/reports").get(reports::show))
            .service(web::resource("/reports/csv").get(reports::csv))
            .service(web::resource("/reports/accounting").get(reconciliation::show))
            .service(web::resource("/reports/accounting/csv").get(reconciliation::csv))
            .service(web::resource("/reports/accounting/hold.svg").get(reconciliation::hold_chart))
            .service(
                web::resource("/reports/accounting/investigations/{id}/close")
                    .post(reconciliation::close_investigation),
            )
            .service(web::resource("/reports/house-way").get(reports::house_way_page))
            .service(web::resource("/reports/house-way/csv").get(reports::house_way_csv))
            .service(web::resource("/reports/recheck").post(reports::start_recheck))
            .service(web::resource("/reports/charts/hours.svg").get(reports::hours_chart))
            .service(web::resource("/reports/charts/tables.svg").get(reports::tables_chart))
            .service(web::resource("/reports/shifts/{id}/chart.svg").get(reports::shift_chart))
            .service(web::resource("/audit/exports").get(audit_exports::form))
            .service(web::resource("/audit/exports/download").get(audit_exports::download))
            .service(web::resource("/static/{file}").get(assets::serve))
            .service(web::resource("/health").get(health))
            .service(web::resource("/healthz").get(health))
            .default_service(web::to(not_found))
    })
    .workers(workers)
    .listen(listener)?
    .run();
    Ok(server)
}

/// For load balancers, compose and operators: whether the database answers, and how fast, as
/// JSON (`{"database": "up", "latency_ms": 0.4}`); 503 when it does not. It takes a connection
/// straight from the pool, not its turn behind other requests, so a busy app still says it is
/// up, and a database that is away is reported within the pool's checkout time-out. (`/healthz`
/// is the same, for what used it before.)
async fn health(state: web::Data<AppState>) -> HttpResponse {
    let started = std::time::Instant::now();
    let answer = state.db.ping().await;
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    match answer {
        Ok(()) => HttpResponse::Ok().json(json!({ "database": "up", "latency_ms": latency_ms })),
        Err(DbError::Task) => {
            HttpResponse::InternalServerError().json(json!({ "database": "unknown" }))
        }
        Err(err) => {
            tracing::warn!(error = %err, cause = ?err, "health check: database down");
            HttpResponse::ServiceUnavailable()
                .insert_header((actix_web::http::header::RETRY_AFTER, "5"))
                .json(json!({ "database": "down", "latency_ms": latency_ms }))
        }
    }
}

async fn not_found() -> Result<HttpResponse, AppError> {
    Err(AppError::NotFound)
}
