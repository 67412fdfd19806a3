//! Static assets, compiled into the binary so the app needs no files and no CDN.

use actix_web::http::header::{self, ContentType};
use actix_web::{web, HttpResponse};

use crate::web::error::AppError;

const APP_CSS: &str = include_str!("../../templates/static/app.css");
const TABLE_CSS: &str = include_str!("../../templates/static/table.css");
const REVIEW_CSS: &str = include_str!("../../templates/static/review.css");
const TABLE_JS: &str = include_str!("../../templates/static/table.js");
const CARDS_JS: &str = include_str!("../../templates/static/cards.js");
const DUPLICATES_JS: &str = include_str!("../../templates/static/duplicates.js");
const CARD_FACES_JS: &str = include_str!("../../templates/static/card-faces.js");
const ROVING_JS: &str = include_str!("../../templates/static/roving.js");
const PIT_JS: &str = include_str!("../../templates/static/pit.js");
const REPORTS_CSS: &str = include_str!("../../templates/static/reports.css");
const FAVICON: &str = include_str!("../../templates/static/favicon.svg");

pub async fn serve(file: web::Path<String>) -> Result<HttpResponse, AppError> {
    let (body, content_type) = match file.as_str() {
        "app.css" => (APP_CSS, "text/css; charset=utf-8"),
        "table.css" => (TABLE_CSS, "text/css; charset=utf-8"),
        "review.css" => (REVIEW_CSS, "text/css; charset=utf-8"),
        "table.js" => (TABLE_JS, "text/javascript; charset=utf-8"),
        "cards.js" => (CARDS_JS, "text/javascript; charset=utf-8"),
        "duplicates.js" => (DUPLICATES_JS, "text/javascript; charset=utf-8"),
        "card-faces.js" => (CARD_FACES_JS, "text/javascript; charset=utf-8"),
        "roving.js" => (ROVING_JS, "text/javascript; charset=utf-8"),
        "pit.js" => (PIT_JS, "text/javascript; charset=utf-8"),
        "reports.css" => (REPORTS_CSS, "text/css; charset=utf-8"),
        "favicon.svg" => (FAVICON, "image/svg+xml"),
        _ => return Err(AppError::NotFound),
    };
    Ok(HttpResponse::Ok()
        .insert_header(ContentType(
            content_type.parse().map_err(|_| AppError::NotFound)?,
        ))
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .body(body))
}
