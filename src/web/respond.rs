//! Answers every handler gives: a rendered page, a redirect; and under `/api/`, a request's
//! JSON fields read as a form's text, and a refusal naming the field.

use actix_web::http::header::ContentType;
use actix_web::http::StatusCode;
use actix_web::HttpResponse;
use askama::Template;
use serde_json::{json, Map, Value};

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

/// A refusal under `/api/`: 422 with the reason and the field it is about (`null`: none).
pub fn api_refused(reason: &str, field: Option<&str>) -> HttpResponse {
    HttpResponse::UnprocessableEntity().json(json!({ "error": reason, "field": field }))
}

/// The fields in words: "seat, amount and kind".
fn listed(fields: &[&str]) -> String {
    match fields.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => "nothing".to_owned(),
    }
}

/// A request body under `/api/` as a JSON object of the fields `known` (empty: no field), for a
/// `what` ("buy-in"): 400 when it is not JSON or not an object; a 422 answer naming the first
/// field not known.
pub fn api_fields(
    body: &[u8],
    what: &str,
    known: &[&str],
) -> Result<Result<Map<String, Value>, HttpResponse>, AppError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Ok(Map::new()));
    }
    let value: Value = serde_json::from_slice(body).map_err(|err| {
        AppError::InvalidInput(format!("the {what} could not be read as JSON: {err}"))
    })?;
    let Value::Object(fields) = value else {
        return Err(AppError::InvalidInput(format!(
            "the {what} could not be read: send a JSON object with {}",
            listed(known)
        )));
    };
    if let Some(unknown) = fields.keys().find(|k| !known.contains(&k.as_str())) {
        return Ok(Err(api_refused(
            &format!(
                "{unknown:?} is not a field of a {what}: send {}.",
                listed(known)
            ),
            Some(unknown),
        )));
    }
    Ok(Ok(fields))
}

/// A field of an API request as a form's text: a number's digits (if `numbers`), a string as
/// sent, nothing for none; `Err` says what is wrong with any other JSON, and the field.
/// Amounts (`amount`, `walked_with`) are decimal strings.
pub fn text_of(
    body: &Map<String, Value>,
    field: &'static str,
    numbers: bool,
) -> Result<String, (String, &'static str)> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(text)) => Ok(text.clone()),
        Some(Value::Number(n)) if numbers => Ok(n.to_string()),
        Some(_) if matches!(field, "amount" | "walked_with") => Err((
            format!(
                "Send the {} as a decimal string in major units, such as \"500\" or \"1250.50\".",
                field.replace('_', " ")
            ),
            field,
        )),
        Some(other) => Err((format!("{other} is not a {field}."), field)),
    }
}
