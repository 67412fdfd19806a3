//! Gaming-day reports for pit managers, administrators and auditors: one day (`/reports?day=D`)
//! or a range (`/reports?from=D&to=D`), as a page that prints as a signed report, as CSV
//! (`/reports/csv`), and their charts as SVG: the house result by hour of the gaming day and by
//! table, and a shift's running total; and the house-way report (`/reports/house-way`, with its
//! CSV): dealers and player seats by how often and how far their sets departed from the house way.

use actix_session::Session;
use actix_web::http::header::{self, ContentType};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};
use askama::Template;
use chrono::{NaiveDate, TimeDelta, Utc};
use serde::Deserialize;

use crate::config::Zone;
use crate::db::audit_log::AuditEvent;
use crate::db::ids::ShiftId;
use crate::db::users::Role;
use crate::pit::reports as pit_reports;
use crate::pit::PitError;
use crate::reports::figures::Figures;
use crate::reports::gaming_day::{self, Line, Report, Subject};
use crate::reports::house_way::{Departures, HouseWayReport, Setter};
use crate::reports::recheck::RecheckRecord;
use crate::rules::houseway;
use crate::rules::money::Money;
use crate::web::charts::{BarChart, LineChart};
use crate::web::error::AppError;
use crate::web::format::{self, when};
use crate::web::forms::parse_day;
use crate::web::layout::{Flash, Nav};
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

/// The days asked for: `day`, or `from` and `to` (either alone is a one-day range); none is
/// the latest gaming day with rounds (today's once it has any). `currency` picks a chart's currency.
#[derive(Debug, Default, Deserialize)]
struct RangeQuery {
    day: Option<String>,
    from: Option<String>,
    to: Option<String>,
    currency: Option<String>,
}

/// The range a request asks for, checked: a clear 400 naming the parameter otherwise.
struct Range {
    from: NaiveDate,
    to: NaiveDate,
    currency: Option<String>,
}

async fn range(req: &HttpRequest, state: &AppState) -> Result<Range, AppError> {
    let query: RangeQuery = serde_urlencoded::from_str(req.query_string())
        .map_err(|err| AppError::InvalidInput(format!("the query cannot be read: {err}")))?;
    let nonempty = |v: &Option<String>| v.clone().filter(|t| !t.trim().is_empty());
    let today = state.config.gaming_day(Utc::now());
    let (from, to) = match (
        nonempty(&query.day),
        nonempty(&query.from),
        nonempty(&query.to),
    ) {
        (Some(day), None, None) => {
            let day = parse_day("day", &day)?;
            (day, day)
        }
        (Some(_), _, _) => {
            return Err(AppError::InvalidInput(
                "ask for either day, or from and to, not both".to_owned(),
            ))
        }
        (None, None, None) => {
            // The latest gaming day with rounds, up to today's: today's once it has any.
            let latest = pit_reports::latest_day(&state.db, today).await?;
            let day = latest.unwrap_or(today);
            (day, day)
        }
        (None, from, to) => {
            let from = from.map(|f| parse_day("from", &f)).transpose()?;
            let to = to.map(|t| parse_day("to", &t)).transpose()?;
            let from = from.or(to).unwrap_or(today);
            (from, to.unwrap_or(from))
        }
    };
    gaming_day::check_range(from, to).map_err(PitError::from)?;
    Ok(Range {
        from,
        to,
        currency: nonempty(&query.currency).map(|c| c.trim().to_ascii_uppercase()),
    })
}

/// A report line as the page shows it.
pub struct LineView {
    pub label: String,
    pub detail: String,
    pub link: Option<String>,
    pub f: Figures,
    pub handle: String,
    pub house: String,
    pub loss: bool,
    /// What the points game's winning players won, in the line's currency.
    pub players_won: String,
}

fn line_view(line: &Line, zone: Zone) -> LineView {
    let (label, detail, link) = match &line.subject {
        Subject::Total => ("All tables".to_owned(), String::new(), None),
        Subject::Day(day) => (
            day.to_string(),
            String::new(),
            Some(format!("/reports?day={day}")),
        ),
        Subject::Table(t) => (t.code.clone(), t.name.clone(), None),
        Subject::Dealer(d) => (d.display_name.clone(), d.username.clone(), None),
        Subject::Shift {
            table,
            dealer,
            shift,
        } => (
            format!("{} · {}", table.code, dealer.display_name),
            format!(
                "{} to {}",
                when(shift.signed_on_at, zone),
                shift
                    .signed_off_at
                    .map_or_else(|| "now (on shift)".to_owned(), |at| when(at, zone))
            ),
            Some(format!("/reports/shifts/{}/chart.svg", shift.id)),
        ),
    };
    let f = line.figures;
    LineView {
        label,
        detail,
        link,
        handle: format::money(f.handle, &line.currency),
        house: format::result(f.house, &line.currency),
        loss: f.house.minor_units() < 0,
        players_won: format::money(f.players_won, &line.currency),
        f,
    }
}

/// A chart on the report page: its address and what it shows.
pub struct ChartLink {
    pub src: String,
    pub alt: String,
}

#[derive(Template)]
#[template(path = "report.html")]
struct ReportPage {
    nav: Nav,
    title: String,
    one_day: bool,
    from: String,
    to: String,
    prev: String,
    next: String,
    query: String,
    zone: String,
    generated: String,
    totals: Vec<LineView>,
    days: Vec<LineView>,
    tables: Vec<LineView>,
    dealers: Vec<LineView>,
    shifts: Vec<LineView>,
    charts: Vec<ChartLink>,
    seal: Option<SealView>,
    /// Whether points-game rounds are among those reported (the page then says how they count).
    has_points: bool,
    recheck: RecheckView,
    /// No date is in question on a report shown (the form's shared part asks).
    focus: &'static str,
}

/// The recompute check of a one-day report: running now, its latest verdict, and whether the
/// reader may start one.
#[derive(Default)]
pub struct RecheckView {
    /// "started at, by, rounds so far" while a check of this day runs.
    pub running: Option<String>,
    pub last: Option<LastRecheck>,
    /// The latest check's event does not read.
    pub unreadable: bool,
    pub may_start: bool,
}

pub struct LastRecheck {
    pub at: String,
    pub by: String,
    pub rounds: usize,
    pub seconds: String,
    pub differing: Vec<DifferingView>,
}

pub struct DifferingView {
    pub link: String,
    pub label: String,
    pub differences: String,
}

fn recheck_view(
    state: &AppState,
    user: &CurrentUser,
    day: NaiveDate,
    latest: Option<(AuditEvent, Option<RecheckRecord>)>,
) -> RecheckView {
    let zone = state.config.zone();
    let running = state
        .day_rechecks
        .running()
        .filter(|job| job.subject == day)
        .map(|job| {
            format!(
                "started {} by {}: {} rounds settled again so far",
                when(job.started_at, zone),
                job.started_by,
                job.progress
            )
        });
    let unreadable = matches!(latest, Some((_, None)));
    let last = latest.and_then(|(event, record)| {
        let record = record?;
        Some(LastRecheck {
            at: when(event.at, zone),
            by: event.actor_name,
            rounds: record.rounds,
            seconds: format!("{:.1}", record.seconds),
            differing: record
                .differing
                .into_iter()
                .map(|round| DifferingView {
                    link: format!("/tables/{}/rounds/{}", round.table, round.round_id),
                    label: format!("Round {} at {}", round.round_no, round.table),
                    differences: round.differences.join("; "),
                })
                .collect(),
        })
    });
    RecheckView {
        running,
        last,
        unreadable,
        may_start: matches!(user.role, Role::Supervisor | Role::Admin),
    }
}

pub struct SealView {
    pub closed_at: String,
    pub seal_seq: i64,
    pub seal_hash: String,
}

fn query_of(range: &Range) -> String {
    if range.from == range.to {
        format!("day={}", range.from)
    } else {
        format!("from={}&to={}", range.from, range.to)
    }
}

/// A CSV answer to download, named `{stem}-{day}.csv` or `{stem}-{from}-to-{to}.csv`.
fn csv_download(range: &Range, stem: &str, body: Vec<u8>) -> HttpResponse {
    let name = if range.from == range.to {
        format!("{stem}-{}.csv", range.from)
    } else {
        format!("{stem}-{}-to-{}.csv", range.from, range.to)
    };
    HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{name}\""),
        ))
        .body(body)
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn show(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let range = match range(&req, &state).await {
        Ok(range) => range,
        Err(err) if err.status_code().is_client_error() => {
            return refused_range(&req, &session, &user, &err, ("/reports", "Reports"))
        }
        Err(err) => return Err(err),
    };
    let report = pit_reports::gaming_day(&state.db, range.from, range.to).await?;
    let zone = state.config.zone();
    let views = |lines: &[Line]| lines.iter().map(|l| line_view(l, zone)).collect();
    let one_day = range.from == range.to;
    let recheck = if one_day {
        let day = range.from;
        let latest = pit_reports::latest_recheck(&state.db, day).await?;
        recheck_view(&state, &user, day, latest)
    } else {
        RecheckView::default()
    };
    let span = (range.to - range.from).num_days() + 1;
    let query = query_of(&range);
    let charts = report
        .totals
        .iter()
        .flat_map(|t| {
            let c = &t.currency;
            [
                ChartLink {
                    src: format!("/reports/charts/hours.svg?{query}&currency={c}"),
                    alt: format!("House result by hour of the gaming day, {c}"),
                },
                ChartLink {
                    src: format!("/reports/charts/tables.svg?{query}&currency={c}"),
                    alt: format!("House result by table, {c}"),
                },
            ]
        })
        .collect();
    let moved = |days: i64| {
        let by = |d: NaiveDate| d.checked_add_signed(TimeDelta::days(days)).unwrap_or(d);
        if one_day {
            format!("day={}", by(range.from))
        } else {
            format!("from={}&to={}", by(range.from), by(range.to))
        }
    };
    let page = ReportPage {
        nav: session::nav(&session, Some(&user))?,
        title: if one_day {
            format!("Gaming day {}", range.from)
        } else {
            format!("Gaming days {} to {}", range.from, range.to)
        },
        one_day,
        from: range.from.to_string(),
        to: range.to.to_string(),
        prev: moved(-span),
        next: moved(span),
        query,
        zone: zone.label(),
        generated: when(Utc::now(), zone),
        has_points: report.totals.iter().any(|t| t.figures.points_rounds > 0),
        totals: views(&report.totals),
        days: views(&report.days),
        tables: views(&report.tables),
        dealers: views(&report.dealers),
        shifts: if one_day {
            views(&report.shifts)
        } else {
            Vec::new()
        },
        charts,
        seal: report.close.as_ref().map(|close| SealView {
            closed_at: when(close.closed_at, zone),
            seal_seq: close.seal_seq,
            seal_hash: hex::encode(&close.seal_hash),
        }),
        recheck,
        focus: "",
    };
    render(StatusCode::OK, &page)
}

#[derive(Template)]
#[template(path = "report_refused.html")]
struct RangeRefusedPage {
    nav: Nav,
    /// The report the form asks for again: `/reports` or `/reports/house-way`.
    action: &'static str,
    title: &'static str,
    from: String,
    to: String,
    /// The date a refusal was about, to put the cursor in.
    focus: &'static str,
}

/// The report's form again with the days as they were asked for, and why they were refused
/// at the page's top.
fn refused_range(
    req: &HttpRequest,
    session: &Session,
    user: &CurrentUser,
    err: &AppError,
    (action, title): (&'static str, &'static str),
) -> Result<HttpResponse, AppError> {
    let query: RangeQuery = serde_urlencoded::from_str(req.query_string()).unwrap_or_default();
    let day = query.day.unwrap_or_default();
    let from = query
        .from
        .filter(|f| !f.trim().is_empty())
        .unwrap_or(day.clone());
    let to = query.to.filter(|t| !t.trim().is_empty()).unwrap_or(day);
    let mut nav = session::nav(session, Some(user))?;
    nav.flash = Some(Flash::refused(&err.to_string()));
    let focus = if parse_day("from", &from).is_err() {
        "from"
    } else {
        "to"
    };
    let page = RangeRefusedPage {
        nav,
        action,
        title,
        from,
        to,
        focus,
    };
    render(err.status_code(), &page)
}

/// The form that starts a recompute check.
#[derive(Debug, Deserialize)]
pub struct RecheckForm {
    #[serde(default)]
    day: String,
}

/// `POST /reports/recheck`: settles every round of the gaming day again in the background; its
/// verdict is recorded as a `review.rechecked` event by the one who asked, and the day's report
/// shows it.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn start_recheck(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    form: web::Form<RecheckForm>,
) -> Result<HttpResponse, AppError> {
    let day = parse_day("day", &form.day)?;
    let by = &user.username;
    if pit_reports::start_recheck(&state.db, &state.day_rechecks, day, by, user.actor(&req)) {
        session::set_flash(
            &session,
            &format!(
                "Recompute check of gaming day {day} started: every round is being settled again."
            ),
        )?;
    } else {
        session::set_error_flash(
            &session,
            "A recompute check is already running; its progress is shown on its day's report.",
        )?;
    }
    Ok(redirect(&format!("/reports?day={day}#recompute-check")))
}

/// The CSV's columns, after the line's own (`section`, `gaming_day`, `table`, `dealer`,
/// `shift`, `currency`). Amounts are in major units without separators (`-1234.50`).
const FIGURE_COLUMNS: [&str; 22] = [
    "rounds",
    "seats",
    "handle",
    "house_result",
    "result_share",
    "player_sets",
    "player_fouls",
    "player_foul_rate",
    "dealer_sets",
    "dealer_fouls",
    "dealer_foul_rate",
    "surrenders",
    "royalties",
    "player_sweeps",
    "dealer_sweeps",
    "sweeps",
    "voids",
    "pending",
    "points_rounds",
    "naturals",
    "pusoys",
    "players_won",
];

fn csv_record(section: &str, line: &Line, zone: Zone) -> Vec<String> {
    let (day, table, dealer, shift) = match &line.subject {
        Subject::Total => (String::new(), String::new(), String::new(), String::new()),
        Subject::Day(d) => (d.to_string(), String::new(), String::new(), String::new()),
        Subject::Table(t) => (String::new(), t.code.clone(), String::new(), String::new()),
        Subject::Dealer(d) => (
            String::new(),
            String::new(),
            d.username.clone(),
            String::new(),
        ),
        Subject::Shift {
            table,
            dealer,
            shift,
        } => (
            shift.gaming_day.to_string(),
            table.code.clone(),
            dealer.username.clone(),
            when(shift.signed_on_at, zone),
        ),
    };
    let f = &line.figures;
    let mut record = vec![
        section.to_owned(),
        day,
        table,
        dealer,
        shift,
        line.currency.clone(),
    ];
    record.extend([
        f.rounds.to_string(),
        f.seats.to_string(),
        f.handle.plain_text(),
        f.house.plain_text(),
        f.result_share(),
        f.player_sets.to_string(),
        f.player_fouls.to_string(),
        f.player_foul_rate(),
        f.dealer_sets.to_string(),
        f.dealer_fouls.to_string(),
        f.dealer_foul_rate(),
        f.surrenders.to_string(),
        f.royalties.to_string(),
        f.player_sweeps.to_string(),
        f.dealer_sweeps.to_string(),
        f.sweeps().to_string(),
        f.voids.to_string(),
        f.pending.to_string(),
        f.points_rounds.to_string(),
        f.naturals.to_string(),
        f.pusoys.to_string(),
        f.players_won.plain_text(),
    ]);
    record
}

fn csv_of(report: &Report, zone: Zone) -> Result<Vec<u8>, csv::Error> {
    let mut out = csv::Writer::from_writer(Vec::new());
    let mut header = vec![
        "section",
        "gaming_day",
        "table",
        "dealer",
        "shift",
        "currency",
    ];
    header.extend(FIGURE_COLUMNS);
    out.write_record(&header)?;
    let sections: [(&str, &[Line]); 5] = [
        ("total", &report.totals),
        ("day", &report.days),
        ("table", &report.tables),
        ("dealer", &report.dealers),
        ("shift", &report.shifts),
    ];
    for (section, lines) in sections {
        for line in lines {
            out.write_record(csv_record(section, line, zone))?;
        }
    }
    out.into_inner().map_err(|err| err.into_error().into())
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn csv(
    req: HttpRequest,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let range = range(&req, &state).await?;
    let report = pit_reports::gaming_day(&state.db, range.from, range.to).await?;
    let body = csv_of(&report, state.config.zone())?;
    Ok(csv_download(&range, "pusoy-report", body))
}

fn svg(chart: &impl Template) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok()
        .insert_header(ContentType(
            "image/svg+xml".parse().map_err(|_| AppError::BadRequest)?,
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(chart.render()?))
}

/// The currency a chart shows: the one asked for, else the first of the report.
fn chart_currency(range: &Range, report_currencies: &[String]) -> String {
    range
        .currency
        .clone()
        .or_else(|| report_currencies.first().cloned())
        .unwrap_or_else(|| "PHP".to_owned())
}

fn range_words(range: &Range) -> String {
    if range.from == range.to {
        format!("gaming day {}", range.from)
    } else {
        format!("gaming days {} to {}", range.from, range.to)
    }
}

/// The house result by hour of the gaming day (local hours, from the day's start).
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn hours_chart(
    req: HttpRequest,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let range = range(&req, &state).await?;
    let (from, to) = (range.from, range.to);
    let (zone, start) = (state.config.zone(), state.config.gaming_day_start);
    let hours = pit_reports::by_hour(&state.db, from, to, zone.offset, start).await?;
    let currencies: Vec<String> = hours.iter().map(|h| h.currency.clone()).collect();
    let currency = chart_currency(&range, &currencies);
    let bars: Vec<(String, Money)> = (0..24)
        .map(|hour| {
            let label = (start + TimeDelta::hours(hour)).format("%H").to_string();
            let house = hours
                .iter()
                .find(|h| i64::from(h.hour) == hour && h.currency == currency)
                .map_or(Money::ZERO, |h| h.house);
            (label, house)
        })
        .collect();
    svg(&BarChart::new(
        format!(
            "House result by hour, {} (local hours, {zone})",
            range_words(&range)
        ),
        &currency,
        &bars,
    ))
}

/// The house result of each table.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn tables_chart(
    req: HttpRequest,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let range = range(&req, &state).await?;
    let report = pit_reports::gaming_day(&state.db, range.from, range.to).await?;
    let currencies: Vec<String> = report.totals.iter().map(|t| t.currency.clone()).collect();
    let currency = chart_currency(&range, &currencies);
    let bars: Vec<(String, Money)> = report
        .tables
        .iter()
        .filter(|line| line.currency == currency)
        .filter_map(|line| match &line.subject {
            Subject::Table(t) => Some((t.code.clone(), line.figures.house)),
            _ => None,
        })
        .collect();
    svg(&BarChart::new(
        format!("House result by table, {}", range_words(&range)),
        &currency,
        &bars,
    ))
}

/// A shift's running house result, round by round (voided rounds left out).
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn shift_chart(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let id = ShiftId(id.into_inner());
    let shift = pit_reports::shift_rounds(&state.db, id)
        .await?
        .ok_or(AppError::NotFound)?;
    let zone = state.config.zone();
    let steps: Vec<(String, Money)> = shift
        .rounds
        .iter()
        .filter(|r| !r.voided)
        .map(|r| {
            (
                format!(
                    "#{} {}",
                    r.round_no,
                    r.settled_at.with_timezone(&zone.offset).format("%H:%M")
                ),
                r.dealer_result,
            )
        })
        .collect();
    let currency = shift
        .rounds
        .first()
        .map_or_else(|| "PHP".to_owned(), |r| r.currency.clone());
    svg(&LineChart::running_total(
        format!(
            "Running house result, {} · {} from {}",
            shift.table.code,
            shift.dealer.display_name,
            when(shift.shift.signed_on_at, zone)
        ),
        &currency,
        &steps,
    ))
}

/// One line of the house-way report as shown (and as its CSV writes it).
pub struct DepartureView {
    pub who: String,
    pub table: String,
    pub seat: String,
    pub sets: u64,
    pub departures: u64,
    pub rate: String,
    pub given_up: String,
    pub mean_given_up: String,
    pub most_given_up: String,
    pub flagged: u64,
}

fn departure_view((setter, d): &(Setter, Departures)) -> DepartureView {
    let (who, table, seat) = match setter {
        Setter::Dealer(name) => (name.clone(), String::new(), String::new()),
        Setter::Seat { table, seat } => (
            format!("{table} seat {seat}"),
            table.clone(),
            seat.to_string(),
        ),
    };
    DepartureView {
        who,
        table,
        seat,
        sets: d.sets,
        departures: d.departures,
        rate: format!("{:.1}", d.rate()),
        given_up: format!("{:.4}", d.ev_given_up),
        mean_given_up: format!("{:.4}", d.mean_given_up()),
        most_given_up: format!("{:.4}", d.most_given_up),
        flagged: d.flagged,
    }
}

#[derive(Template)]
#[template(path = "report_house_way.html")]
struct HouseWayPage {
    nav: Nav,
    title: String,
    from: String,
    to: String,
    query: String,
    generated: String,
    rounds: u64,
    dealers: Vec<DepartureView>,
    seats: Vec<DepartureView>,
    description: String,
}

/// `GET /reports/house-way`: dealers and player seats by how often and how far their sets
/// departed from the house way, over a gaming day or a range (as `/reports` takes them).
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn house_way_page(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let range = match range(&req, &state).await {
        Ok(range) => range,
        Err(err) if err.status_code().is_client_error() => {
            let form = ("/reports/house-way", "House-way report");
            return refused_range(&req, &session, &user, &err, form);
        }
        Err(err) => return Err(err),
    };
    let report = pit_reports::house_way(&state.db, range.from, range.to).await?;
    let page = HouseWayPage {
        nav: session::nav(&session, Some(&user))?,
        title: format!("House way: {}", range_words(&range)),
        from: range.from.to_string(),
        to: range.to.to_string(),
        query: query_of(&range),
        generated: when(Utc::now(), state.config.zone()),
        rounds: report.rounds,
        dealers: report.dealers.iter().map(departure_view).collect(),
        seats: report.seats.iter().map(departure_view).collect(),
        description: houseway::description(),
    };
    render(StatusCode::OK, &page)
}

/// The house-way report's CSV: one line per dealer and per player seat.
fn house_way_csv_of(report: &HouseWayReport) -> Result<Vec<u8>, csv::Error> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record([
        "section",
        "dealer",
        "table",
        "seat",
        "sets",
        "departures",
        "departure_rate_percent",
        "ev_given_up",
        "ev_given_up_per_set",
        "most_ev_given_up",
        "flagged_rounds",
    ])?;
    let sections = [("dealer", &report.dealers), ("seat", &report.seats)];
    for (section, lines) in sections {
        for line in lines.iter() {
            let v = departure_view(line);
            let dealer = match &line.0 {
                Setter::Dealer(name) => name.clone(),
                Setter::Seat { .. } => String::new(),
            };
            out.write_record([
                section.to_owned(),
                dealer,
                v.table,
                v.seat,
                v.sets.to_string(),
                v.departures.to_string(),
                v.rate,
                v.given_up,
                v.mean_given_up,
                v.most_given_up,
                v.flagged.to_string(),
            ])?;
        }
    }
    out.into_inner().map_err(|err| err.into_error().into())
}

/// `GET /reports/house-way/csv`.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn house_way_csv(
    req: HttpRequest,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let range = range(&req, &state).await?;
    let report = pit_reports::house_way(&state.db, range.from, range.to).await?;
    let body = house_way_csv_of(&report)?;
    Ok(csv_download(&range, "pusoy-house-way", body))
}
