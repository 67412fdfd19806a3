//! Answers every handler gives: a rendered page, a redirect.

use actix_web::http::header::ContentType;
use actix_web::http::StatusCode;
use actix_web::HttpResponse;
use askama::Template;

use crate::web::error::AppError;

pub fn render(status: StatusCode, page: &impl Template) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::build(status)
        .content_type(ContentType::html())
        .body(page.render()?))
}

pub fn redirect(to: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((actix_web::http::header::LOCATION, to))
        .finish()
}
