//! The accounting report (`/reports/accounting`): each table's gaming day, its win by inventory
//! against its win by rounds, the variance with its likely causes, hold against the table's 30
//! days before, month and year to date, the investigations; as a page that prints, as CSV, and
//! as an SVG chart of hold by table with the band. Closing an investigation is a POST here.

use actix_session::Session;
use actix_web::http::header::{self, ContentType};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{NaiveDate, Utc};
use serde::Deserialize;

use crate::accounting::reconcile::{
    self, Closer, DealerTotals, Investigation, Report, ShiftLine, TableDay, Totals,
};
use crate::accounting::AccountingError;
use crate::config::{Config, Zone};
use crate::db::ids::InvestigationId;
use crate::db::users::Role;
use crate::rules::money::{Money, Total};
use crate::web::charts::HoldChart;
use crate::web::error::AppError;
use crate::web::format::{self, when};
use crate::web::forms::parse_day;
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::{client_addr, CurrentUser};

/// The property's tolerance and hold band, as the reconciliation reads them.
pub fn settings(config: &Config) -> reconcile::Settings {
    reconcile::Settings {
        tolerance: config.variance_tolerance,
        hold_band: config.hold_band,
    }
}

/// `day`, or `from` and `to`; `table` a table's code. None: today's gaming day.
#[derive(Debug, Default, Deserialize)]
pub struct Query {
    #[serde(default)]
    day: String,
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
    #[serde(default)]
    table: String,
}

struct Asked {
    from: NaiveDate,
    to: NaiveDate,
    table: Option<String>,
}

impl Query {
    fn asked(&self, today: NaiveDate) -> Result<Asked, AppError> {
        let given = |t: &str| !t.trim().is_empty();
        let (from, to) = match (given(&self.day), given(&self.from), given(&self.to)) {
            (true, false, false) => {
                let day = parse_day("day", &self.day)?;
                (day, day)
            }
            (true, _, _) => {
                return Err(AppError::InvalidInput(
                    "ask for either day, or from and to, not both".to_owned(),
                ))
            }
            (false, false, false) => (today, today),
            (false, _, _) => {
                let from = given(&self.from)
                    .then(|| parse_day("from", &self.from))
                    .transpose()?;
                let to = given(&self.to)
                    .then(|| parse_day("to", &self.to))
                    .transpose()?;
                let from = from.or(to).unwrap_or(today);
                (from, to.unwrap_or(from))
            }
        };
        let table = Some(self.table.trim().to_ascii_uppercase()).filter(|t| !t.is_empty());
        Ok(Asked { from, to, table })
    }

    fn query_string(asked: &Asked) -> String {
        let mut query = if asked.from == asked.to {
            format!("day={}", asked.from)
        } else {
            format!("from={}&to={}", asked.from, asked.to)
        };
        if let Some(table) = &asked.table {
            query.push_str(&format!("&table={table}"));
        }
        query
    }
}

fn percent(basis_points: Option<i64>) -> String {
    match basis_points {
        Some(bp) => {
            let sign = if bp < 0 { "-" } else { "" };
            let bp = bp.unsigned_abs();
            format!("{sign}{}.{:02} %", bp / 100, bp % 100)
        }
        None => "–".to_owned(),
    }
}

/// A difference of two percentages, in basis points, as percentage points: `4.00 points`.
fn points(basis_points: i64) -> String {
    let bp = basis_points.unsigned_abs();
    format!("{}.{:02} percentage points", bp / 100, bp % 100)
}

fn amount(amount: Option<Money>, currency: &str) -> String {
    amount.map_or_else(|| "–".to_owned(), |a| format::money(a, currency))
}

/// One table-day as the page shows it.
pub struct DayView {
    pub day: String,
    pub code: String,
    pub opener: String,
    pub closer: String,
    pub fills: String,
    pub credits: String,
    pub drop: String,
    pub counted: bool,
    pub inventory_win: String,
    pub hold: String,
    pub rolling_hold: String,
    pub hold_flagged: bool,
    pub rounds_win: String,
    pub fees: Option<String>,
    pub variance: String,
    pub flagged: bool,
    pub is_final: bool,
    pub causes: Vec<(String, String)>,
}

fn day_view(d: &TableDay) -> DayView {
    let c = d.currency.as_str();
    let r = &d.reconciliation;
    DayView {
        day: d.day.to_string(),
        code: d.code.clone(),
        opener: amount(d.documents.opener, c),
        closer: amount(d.documents.closer, c),
        fills: format::money(d.documents.fills, c),
        credits: format::money(d.documents.credits, c),
        drop: format::money(d.drop(), c),
        counted: d.documents.drop.is_counted(),
        inventory_win: r
            .inventory_win
            .map_or_else(|| "–".to_owned(), |w| format::result(w, c)),
        hold: percent(r.hold),
        rolling_hold: percent(d.rolling_hold),
        hold_flagged: d.hold_flagged,
        rounds_win: format::result(r.rounds_win, c),
        fees: d.points_game.then(|| format::money(d.fees, c)),
        variance: r
            .variance
            .map_or_else(|| "–".to_owned(), |v| format::result(v, c)),
        flagged: r.flagged,
        is_final: r.is_final,
        causes: d
            .causes
            .iter()
            .map(|c| (c.words.clone(), c.link.clone()))
            .collect(),
    }
}

/// A line of totals: the range, month to date or year to date, of one currency.
pub struct TotalsView {
    pub label: String,
    pub currency: String,
    pub table_days: usize,
    pub reconciled: usize,
    pub drop: String,
    pub inventory_win: String,
    pub hold: String,
    pub rounds_win: String,
    pub variance: String,
    pub flagged: usize,
    pub pending_counts: usize,
}

fn totals_view(label: &str, currency: &str, t: &Totals) -> TotalsView {
    TotalsView {
        label: label.to_owned(),
        currency: currency.to_owned(),
        table_days: t.table_days,
        reconciled: t.reconciled,
        drop: format::sum(Total(t.drop), currency),
        inventory_win: format::total(Total(t.inventory_win), currency),
        hold: percent(t.hold()),
        rounds_win: format::total(Total(t.rounds_win), currency),
        variance: format::total(Total(t.variance), currency),
        flagged: t.flagged,
        pending_counts: t.pending_counts,
    }
}

/// A dealer shift as the page shows it.
pub struct ShiftView {
    pub day: String,
    pub code: String,
    pub dealer: String,
    pub times: String,
    pub rounds: i64,
    pub drop: String,
    pub rounds_win: String,
    pub hold: String,
    pub inventory_win: String,
}

fn shift_view(s: &ShiftLine, zone: Zone) -> ShiftView {
    let c = s.currency.as_str();
    let clock =
        |at: chrono::DateTime<Utc>| at.with_timezone(&zone.offset).format("%H:%M").to_string();
    ShiftView {
        day: s.day.to_string(),
        code: s.code.clone(),
        dealer: s.dealer_name.clone(),
        times: match s.signed_off_at {
            Some(off) => format!("{}\u{2013}{}", clock(s.signed_on_at), clock(off)),
            None => format!("{}, on now", clock(s.signed_on_at)),
        },
        rounds: s.rounds,
        drop: format::money(s.drop, c),
        rounds_win: format::result(s.rounds_win, c),
        hold: percent(s.hold),
        inventory_win: s
            .inventory_win
            .map_or_else(|| "\u{2013}".to_owned(), |w| format::result(w, c)),
    }
}

/// A dealer's shifts over the range, of one currency.
pub struct DealerView {
    pub dealer: String,
    pub currency: String,
    pub shifts: usize,
    pub rounds: i64,
    pub drop: String,
    pub rounds_win: String,
    pub hold: String,
}

fn dealer_view(name: &str, currency: &str, t: &DealerTotals) -> DealerView {
    DealerView {
        dealer: name.to_owned(),
        currency: currency.to_owned(),
        shifts: t.shifts,
        rounds: t.rounds,
        drop: format::sum(Total(t.drop), currency),
        rounds_win: format::total(Total(t.rounds_win), currency),
        hold: percent(t.hold()),
    }
}

pub struct InvestigationView {
    pub id: InvestigationId,
    pub day: String,
    pub code: String,
    pub variance: String,
    pub inventory_win: String,
    pub rounds_win: String,
    pub tolerance: String,
    pub opened_at: String,
    pub closing: Option<(String, String, String)>,
}

fn investigation_view(i: &Investigation, zone: Zone) -> InvestigationView {
    let c = i.row.currency.as_str();
    InvestigationView {
        id: i.row.id,
        day: i.row.gaming_day.to_string(),
        code: i.code.clone(),
        variance: format::result(Money::from_minor_units(i.row.variance), c),
        inventory_win: format::result(Money::from_minor_units(i.row.inventory_win), c),
        rounds_win: format::result(Money::from_minor_units(i.row.rounds_win), c),
        tolerance: format::money(Money::from_minor_units(i.row.tolerance), c),
        opened_at: when(i.row.opened_at, zone),
        closing: i
            .closing
            .as_ref()
            .map(|(findings, by, at)| (findings.clone(), by.clone(), when(*at, zone))),
    }
}

#[derive(Template)]
#[template(path = "report_accounting.html")]
struct AccountingPage {
    nav: Nav,
    title: String,
    from: String,
    to: String,
    table: String,
    query: String,
    zone: String,
    generated: String,
    tolerance: String,
    band: String,
    days: Vec<DayView>,
    /// Over several days and every table, only the table-days that need attention are listed:
    /// how many of how many.
    days_note: Option<String>,
    totals: Vec<TotalsView>,
    tables: Vec<TotalsView>,
    shifts: Vec<ShiftView>,
    /// Over several days and every table, the shifts are each table's report's: how many.
    shifts_note: Option<String>,
    dealers: Vec<DealerView>,
    investigations: Vec<InvestigationView>,
    currencies: Vec<String>,
    may_close: bool,
    refusal: Option<String>,
    findings: String,
}

fn page(
    nav: Nav,
    asked: &Asked,
    report: &Report,
    user: &CurrentUser,
    zone: Zone,
    refusal: Option<(String, String)>,
) -> AccountingPage {
    let mut totals = Vec::new();
    for (currency, t) in &report.range {
        totals.push(totals_view("Range", currency, t));
        if let Some(m) = report.month.get(currency) {
            totals.push(totals_view("Month to date", currency, m));
        }
        if let Some(y) = report.year.get(currency) {
            totals.push(totals_view("Year to date", currency, y));
        }
    }
    // A range of days over every table would list thousands of lines (a month of 40 tables:
    // 1,200 table-days, 3,600 shifts): the page lists the table-days that need attention and
    // links each table's report for the rest; the CSV has every table-day.
    let summary = asked.from != asked.to && asked.table.is_none();
    let days: Vec<DayView> = report
        .days
        .iter()
        .filter(|d| !summary || d.needs_attention())
        .map(day_view)
        .collect();
    let days_note = summary.then(|| {
        format!(
            "{} of {} table-days listed: those whose wins differ or are not final, or that are \
             flagged. Every table-day of a table: its report (by table, below); of all tables: \
             the CSV.",
            days.len(),
            report.days.len()
        )
    });
    let shifts_note = (summary && !report.shifts.is_empty()).then(|| {
        let n = report.shifts.len();
        let plural = if n == 1 { "" } else { "s" };
        format!("{n} dealer shift{plural}: each table's report (by table, below) lists its own.")
    });
    let tolerance = report.settings.tolerance;
    let (refusal, findings) = match refusal {
        Some((reason, findings)) => (Some(reason), findings),
        None => (None, String::new()),
    };
    AccountingPage {
        nav,
        title: if asked.from == asked.to {
            format!("Table accounting, gaming day {}", asked.from)
        } else {
            format!(
                "Table accounting, gaming days {} to {}",
                asked.from, asked.to
            )
        },
        from: asked.from.to_string(),
        to: asked.to.to_string(),
        table: asked.table.clone().unwrap_or_default(),
        query: Query::query_string(asked),
        zone: zone.label(),
        generated: when(Utc::now(), zone),
        tolerance: format!(
            "{} or {} of the drop, whichever is greater",
            tolerance.amount.major_text(),
            percent(Some(tolerance.share_of_drop))
        ),
        band: points(report.settings.hold_band),
        days,
        days_note,
        totals,
        tables: report
            .tables
            .iter()
            .map(|((code, currency), t)| totals_view(code, currency, t))
            .collect(),
        shifts: if summary {
            Vec::new()
        } else {
            report.shifts.iter().map(|s| shift_view(s, zone)).collect()
        },
        shifts_note,
        dealers: report
            .dealers
            .iter()
            .map(|((name, _, currency), t)| dealer_view(name, currency, t))
            .collect(),
        investigations: report
            .investigations
            .iter()
            .map(|i| investigation_view(i, zone))
            .collect(),
        currencies: report.range.keys().cloned().collect(),
        may_close: matches!(user.role, Role::Supervisor | Role::Admin),
        refusal,
        findings,
    }
}

async fn report_of(state: &AppState, asked: &Asked) -> Result<Report, AppError> {
    let today = state.config.gaming_day(Utc::now());
    reconcile::report(
        &state.db,
        asked.from,
        asked.to,
        asked.table.clone(),
        settings(&state.config),
        today,
    )
    .await
    .map_err(|err| match err {
        AccountingError::Refused(reason) => AppError::InvalidInput(reason),
        other => AppError::from(other),
    })
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn show(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<Query>,
) -> Result<HttpResponse, AppError> {
    let asked = query.asked(state.config.gaming_day(Utc::now()))?;
    let report = report_of(&state, &asked).await?;
    let nav = session::nav(&session, Some(&user))?;
    render(
        StatusCode::OK,
        &page(nav, &asked, &report, &user, state.config.zone(), None),
    )
}

fn csv_of(report: &Report) -> Result<Vec<u8>, csv::Error> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record([
        "gaming_day",
        "table",
        "currency",
        "opener",
        "closer",
        "fills",
        "credits",
        "drop",
        "drop_counted",
        "inventory_win",
        "hold_percent",
        "rolling_hold_percent",
        "hold_flagged",
        "house_result",
        "fees",
        "rounds_win",
        "variance",
        "tolerance",
        "flagged",
        "final",
        "causes",
    ])?;
    let text = |m: Option<Money>| m.map(|m| m.plain_text()).unwrap_or_default();
    let pct = |bp: Option<i64>| {
        bp.map(|bp| format!("{:.2}", bp as f64 / 100.0))
            .unwrap_or_default()
    };
    for d in &report.days {
        let r = &d.reconciliation;
        let causes: Vec<&str> = d.causes.iter().map(|c| c.words.as_str()).collect();
        out.write_record([
            d.day.to_string(),
            d.code.clone(),
            d.currency.clone(),
            text(d.documents.opener),
            text(d.documents.closer),
            d.documents.fills.plain_text(),
            d.documents.credits.plain_text(),
            d.drop().plain_text(),
            d.documents.drop.is_counted().to_string(),
            text(r.inventory_win),
            pct(r.hold),
            pct(d.rolling_hold),
            d.hold_flagged.to_string(),
            d.house.plain_text(),
            d.fees.plain_text(),
            r.rounds_win.plain_text(),
            text(r.variance),
            r.tolerance.plain_text(),
            r.flagged.to_string(),
            r.is_final.to_string(),
            causes.join("; "),
        ])?;
    }
    out.into_inner().map_err(|err| err.into_error().into())
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn csv(
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<Query>,
) -> Result<HttpResponse, AppError> {
    let asked = query.asked(state.config.gaming_day(Utc::now()))?;
    let report = report_of(&state, &asked).await?;
    let name = if asked.from == asked.to {
        format!("pusoy-accounting-{}.csv", asked.from)
    } else {
        format!("pusoy-accounting-{}-to-{}.csv", asked.from, asked.to)
    };
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{name}\""),
        ))
        .body(csv_of(&report)?))
}

#[derive(Debug, Default, Deserialize)]
pub struct ChartQuery {
    #[serde(flatten)]
    range: Query,
    #[serde(default)]
    currency: String,
}

/// Hold by table over the range, each with the band around its 30 days before.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn hold_chart(
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<ChartQuery>,
) -> Result<HttpResponse, AppError> {
    let asked = query.range.asked(state.config.gaming_day(Utc::now()))?;
    let report = report_of(&state, &asked).await?;
    let currency = Some(query.currency.trim().to_ascii_uppercase())
        .filter(|c| !c.is_empty())
        .or_else(|| report.range.keys().next().cloned())
        .unwrap_or_else(|| "PHP".to_owned());
    // Each table's hold over the range, with the band around the mean of its rolling holds.
    let mut bars: Vec<(String, i64, Option<i64>)> = Vec::new();
    for ((code, c), totals) in &report.tables {
        if *c != currency {
            continue;
        }
        let Some(hold) = totals.hold() else { continue };
        let rolling: Vec<i64> = report
            .days
            .iter()
            .filter(|d| d.code == *code)
            .filter_map(|d| d.rolling_hold)
            .collect();
        let centre =
            (!rolling.is_empty()).then(|| rolling.iter().sum::<i64>() / rolling.len() as i64);
        bars.push((code.clone(), hold, centre));
    }
    let title = if asked.from == asked.to {
        format!("Hold by table, gaming day {} ({currency})", asked.from)
    } else {
        format!(
            "Hold by table, gaming days {} to {} ({currency})",
            asked.from, asked.to
        )
    };
    let chart = HoldChart::new(title, &bars, report.settings.hold_band);
    Ok(HttpResponse::Ok()
        .insert_header(ContentType(
            "image/svg+xml".parse().map_err(|_| AppError::BadRequest)?,
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(chart.render()?))
}

#[derive(Debug, Default, Deserialize)]
pub struct CloseForm {
    #[serde(default)]
    findings: String,
    #[serde(default)]
    back: String,
}

/// Closes an investigation with what was found; a refusal shows the report again with the
/// reason and the words typed.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn close_investigation(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<i64>,
    form: web::Form<CloseForm>,
) -> Result<HttpResponse, AppError> {
    let form = form.into_inner();
    let by = Closer {
        id: user.id,
        role: user.role,
        actor: crate::db::audit_log::Actor::user(user.id, &user.username, client_addr(&req)),
    };
    // Back to the report the form was on (a query of ours only).
    let back: Query = serde_urlencoded::from_str(&form.back).unwrap_or_default();
    match reconcile::close(&state.db, InvestigationId(*id), form.findings.clone(), by).await {
        Ok(closed) => {
            session::set_flash(
                &session,
                &format!(
                    "Closed the investigation of {} on {}",
                    closed.code, closed.row.gaming_day
                ),
            )?;
            let asked = back.asked(closed.row.gaming_day)?;
            Ok(redirect(&format!(
                "/reports/accounting?{}#investigations",
                Query::query_string(&asked)
            )))
        }
        Err(AccountingError::Refused(reason)) => {
            let asked = back.asked(state.config.gaming_day(Utc::now()))?;
            let report = report_of(&state, &asked).await?;
            let nav = session::nav(&session, Some(&user))?;
            render(
                StatusCode::UNPROCESSABLE_ENTITY,
                &page(
                    nav,
                    &asked,
                    &report,
                    &user,
                    state.config.zone(),
                    Some((reason, form.findings)),
                ),
            )
        }
        Err(other) => Err(other.into()),
    }
}
