//! Static assets, compiled into the binary so the app needs no files and no CDN.

use actix_web::http::header::{self, ContentType};
use actix_web::{web, HttpResponse};

use crate::web::error::AppError;

const CSS: &str = "text/css; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";

/// Every file under `/static/`: its name, its text and its type. The table screen's ES modules
/// each have a line (a module of one's own adds one here).
const FILES: &[(&str, &str, &str)] = &[
    (
        "app.css",
        include_str!("../../templates/static/app.css"),
        CSS,
    ),
    (
        "table.css",
        include_str!("../../templates/static/table.css"),
        CSS,
    ),
    (
        "review.css",
        include_str!("../../templates/static/review.css"),
        CSS,
    ),
    (
        "cage.css",
        include_str!("../../templates/static/cage.css"),
        CSS,
    ),
    (
        "reports.css",
        include_str!("../../templates/static/reports.css"),
        CSS,
    ),
    ("pit.js", include_str!("../../templates/static/pit.js"), JS),
    (
        "slips.js",
        include_str!("../../templates/static/slips.js"),
        JS,
    ),
    (
        "table.js",
        include_str!("../../templates/static/table.js"),
        JS,
    ),
    ("dom.js", include_str!("../../templates/static/dom.js"), JS),
    (
        "house-way.js",
        include_str!("../../templates/static/house-way.js"),
        JS,
    ),
    (
        "round-model.js",
        include_str!("../../templates/static/round-model.js"),
        JS,
    ),
    (
        "round-view.js",
        include_str!("../../templates/static/round-view.js"),
        JS,
    ),
    (
        "picker.js",
        include_str!("../../templates/static/picker.js"),
        JS,
    ),
    (
        "live-save.js",
        include_str!("../../templates/static/live-save.js"),
        JS,
    ),
    (
        "preview-confirm.js",
        include_str!("../../templates/static/preview-confirm.js"),
        JS,
    ),
    (
        "cards.js",
        include_str!("../../templates/static/cards.js"),
        JS,
    ),
    (
        "duplicates.js",
        include_str!("../../templates/static/duplicates.js"),
        JS,
    ),
    (
        "card-scan.js",
        include_str!("../../templates/static/card-scan.js"),
        JS,
    ),
    (
        "card-faces.js",
        include_str!("../../templates/static/card-faces.js"),
        JS,
    ),
    (
        "roving.js",
        include_str!("../../templates/static/roving.js"),
        JS,
    ),
    (
        "favicon.svg",
        include_str!("../../templates/static/favicon.svg"),
        "image/svg+xml",
    ),
];

pub async fn serve(file: web::Path<String>) -> Result<HttpResponse, AppError> {
    let &(_, body, content_type) = FILES
        .iter()
        .find(|(name, _, _)| *name == file.as_str())
        .ok_or(AppError::NotFound)?;
    Ok(HttpResponse::Ok()
        .insert_header(ContentType(
            content_type.parse().map_err(|_| AppError::NotFound)?,
        ))
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .body(body))
}
