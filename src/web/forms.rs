//! Form bodies and addresses checked at the edge, before any handler sees them: a field, a
//! path or a query parameter holding a control character (NUL, escape, the C1 range...; tab
//! and line breaks are text in a form) is refused with 400 naming where it is, so that nothing
//! half-saves and PostgreSQL never sees a NUL it cannot store; and the one reading of a gaming
//! day typed in a query.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use actix_web::Error;
use chrono::NaiveDate;

use crate::web::error::AppError;

/// A gaming day typed in a query's field `name`, as `YYYY-MM-DD`; anything else is refused in
/// words that name the field and show what was typed.
pub fn parse_day(name: &str, text: &str) -> Result<NaiveDate, AppError> {
    NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").map_err(|_| {
        AppError::InvalidInput(format!(
            "{name} `{}` is not a date: write it as YYYY-MM-DD, e.g. 2026-03-01",
            text.chars().take(40).collect::<String>()
        ))
    })
}

/// The first field of an `application/x-www-form-urlencoded` body whose name or value holds a
/// control character, with that character. A body that does not decode has none (the
/// handler's form extractor refuses it with 400).
pub fn first_control_character(body: &[u8]) -> Option<(String, char)> {
    let fields = serde_urlencoded::from_bytes::<Vec<(String, String)>>(body).ok()?;
    fields.into_iter().find_map(|(name, value)| {
        let bad = |c: &char| c.is_control() && !matches!(c, '\t' | '\n' | '\r');
        let found = name.chars().find(bad).or_else(|| value.chars().find(bad))?;
        Some((name, found))
    })
}

fn is_control(c: char) -> bool {
    c.is_control()
}

/// Where the request's address holds a control character once percent-decoded, with the
/// character: its path, or a query parameter by name.
pub fn control_character_in_address(path: &str, query: &str) -> Option<(String, char)> {
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
    if let Some(found) = decoded.chars().find(|c| is_control(*c)) {
        return Some(("address's path".to_owned(), found));
    }
    let fields = match serde_urlencoded::from_str::<Vec<(String, String)>>(query) {
        Ok(fields) => fields,
        // A query that does not decode: its raw bytes, decoded as far as they go.
        Err(_) => {
            let raw = percent_encoding::percent_decode_str(query).decode_utf8_lossy();
            let found = raw.chars().find(|c| is_control(*c))?;
            return Some(("address's query".to_owned(), found));
        }
    };
    fields.into_iter().find_map(|(name, value)| {
        let found = name.chars().chain(value.chars()).find(|c| is_control(*c))?;
        let name: String = name.chars().filter(|c| !is_control(*c)).take(64).collect();
        Some((format!("parameter {name:?}"), found))
    })
}

/// Refuses a request whose path or query holds a control character (400; JSON under `/api/`).
pub async fn reject_control_characters_in_address(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let found = control_character_in_address(req.uri().path(), req.query_string());
    if let Some((place, found)) = found {
        tracing::debug!(%place, "refused an address with a control character");
        let code = u32::from(found);
        return Ok(req.error_response(AppError::ControlCharacterInAddress { place, code }));
    }
    Ok(next.call(req).await?.map_into_boxed_body())
}

pub async fn reject_control_characters(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let is_form = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/x-www-form-urlencoded"));
    if !is_form {
        return Ok(next.call(req).await?.map_into_boxed_body());
    }
    let body = match req.extract::<Bytes>().await {
        Ok(body) => body,
        Err(_) => return Ok(req.error_response(AppError::BadRequest)),
    };
    if let Some((field, found)) = first_control_character(&body) {
        tracing::debug!(%field, "refused a form with a control character");
        let field: String = field.chars().filter(|c| !c.is_control()).take(64).collect();
        let code = u32::from(found);
        return Ok(req.error_response(AppError::ControlCharacter { field, code }));
    }
    req.set_payload(Payload::from(body));
    Ok(next.call(req).await?.map_into_boxed_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_control_character_in_the_path_or_a_parameter_is_found_and_text_is_not() {
        assert_eq!(
            control_character_in_address("/api/v1/rounds/%00", ""),
            Some(("address's path".to_owned(), '\0'))
        );
        assert_eq!(
            control_character_in_address("/audit/events", "from=2026-01-01&actor=%1B"),
            Some(("parameter \"actor\"".to_owned(), '\u{1b}'))
        );
        assert_eq!(
            control_character_in_address("/review", "dealer=%C2%85"),
            Some(("parameter \"dealer\"".to_owned(), '\u{85}'))
        );
        assert_eq!(
            control_character_in_address("/tables/PUSOY%2D01/rounds/7", "q=caf%C3%A9+au+lait"),
            None
        );
    }

    #[test]
    fn a_control_character_is_found_with_its_field_and_text_is_not() {
        let found = first_control_character(b"seat1_bet=500&dealer_back=2c%00&x=1");
        assert_eq!(found, Some(("dealer_back".to_owned(), '\0')));
        assert_eq!(
            first_control_character(b"a=%1B%5B31m"),
            Some(("a".to_owned(), '\u{1b}'))
        );
        assert_eq!(
            first_control_character("n=%C2%85".as_bytes()),
            Some(("n".to_owned(), '\u{85}'))
        );
        assert_eq!(first_control_character(b"note=line%0D%0Aline%09tab"), None);
        assert_eq!(first_control_character("name=Ma%C3%B1ana".as_bytes()), None);
    }
}
