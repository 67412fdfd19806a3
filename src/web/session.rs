//! Sessions: actix-session's middleware (cookie handling, renewal at sign-in) over a
//! PostgreSQL-backed [`SessionStore`]. The store, not the cookie, decides whether a session is
//! alive: `db::sessions::load_live` (through `pit::sessions`) applies the idle and absolute time-outs and drops sessions
//! of disabled users, so deleting a row ends a session at once.

use actix_session::config::{BrowserSession, CookieContentSecurity};
use actix_session::storage::{LoadError, SaveError, SessionKey, SessionStore, UpdateError};
use actix_session::{Session, SessionMiddleware};
use actix_web::cookie::time::Duration;
use actix_web::cookie::{Key, SameSite};
use chrono::{DateTime, Utc};
use rand::distr::{Alphanumeric, SampleString};

use crate::config::Timeouts;
use crate::db::handle::Db;
use crate::db::ids::UserId;
use crate::db::sessions::{State, USER_ID_KEY};
use crate::pit::sessions;
use crate::web::error::AppError;
use crate::web::layout::{Flash, Nav};
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

const CSRF_KEY: &str = "csrf";
const FLASH_KEY: &str = "flash";
const SIGNED_IN_AT_KEY: &str = "signed_in_at";

/// The session middleware for one worker.
pub fn middleware(state: &AppState) -> SessionMiddleware<PgSessionStore> {
    let config = &state.config;
    let store = PgSessionStore {
        db: state.db.clone(),
        timeouts: config.timeouts,
    };
    SessionMiddleware::builder(store, Key::from(&config.session_key))
        .cookie_name(config.session_cookie_name().to_owned())
        .cookie_secure(config.secure_cookies)
        .cookie_http_only(true)
        .cookie_same_site(SameSite::Strict)
        .cookie_path("/".to_owned())
        .cookie_domain(None)
        // Signed, not encrypted: the cookie holds only a random key, nothing secret about us.
        .cookie_content_security(CookieContentSecurity::Signed)
        // A browser-session cookie; the real lifetime is enforced server-side.
        .session_lifecycle(BrowserSession::default())
        .build()
}

/// Stores sessions in the `sessions` table. The trait's error types carry `anyhow` errors,
/// which is why this module converts into them.
#[derive(Clone)]
pub struct PgSessionStore {
    db: Db,
    timeouts: Timeouts,
}

fn new_key() -> String {
    Alphanumeric.sample_string(&mut rand::rng(), 64)
}

/// The start of the key of a session with nobody signed in: such a session (the sign-in form's
/// CSRF token) lives in its cookie only, `anon-<expiry as Unix seconds>-<state as hex JSON>`,
/// so that a visit to the sign-in page stores nothing. The cookie is signed with the session
/// key, so its holder cannot change it; and it never carries a user (a signed-in session is a
/// row).
const ANONYMOUS: &str = "anon-";

fn anonymous_key(state: &State, timeouts: &Timeouts) -> Option<SessionKey> {
    if state.contains_key(USER_ID_KEY) {
        return None;
    }
    let expires = (Utc::now() + timeouts.anonymous).timestamp();
    let json = serde_json::to_vec(state).ok()?;
    // Too long for a cookie (SessionKey refuses it): stored as a row instead.
    SessionKey::try_from(format!("{ANONYMOUS}{expires}-{}", hex::encode(json))).ok()
}

/// The state of an anonymous session's key, if the key is one and has not expired.
fn anonymous_state(key: &str) -> Option<Option<State>> {
    let rest = key.strip_prefix(ANONYMOUS)?;
    let state = (|| {
        let (expires, data) = rest.split_once('-')?;
        if expires.parse::<i64>().ok()? <= Utc::now().timestamp() {
            return None;
        }
        let mut state: State = serde_json::from_slice(&hex::decode(data).ok()?).ok()?;
        state.remove(USER_ID_KEY);
        Some(state)
    })();
    Some(state)
}

impl SessionStore for PgSessionStore {
    async fn load(&self, session_key: &SessionKey) -> Result<Option<State>, LoadError> {
        if let Some(state) = anonymous_state(session_key.as_ref()) {
            return Ok(state);
        }
        let key = session_key.as_ref().to_owned();
        sessions::load(&self.db, key, self.timeouts)
            .await
            .map_err(|e| LoadError::Other(e.into()))
    }

    async fn save(&self, state: State, _ttl: &Duration) -> Result<SessionKey, SaveError> {
        if let Some(key) = anonymous_key(&state, &self.timeouts) {
            return Ok(key);
        }
        let key = new_key();
        sessions::insert(&self.db, key.clone(), state, self.timeouts)
            .await
            .map_err(|e| SaveError::Other(e.into()))?;
        SessionKey::try_from(key).map_err(|e| SaveError::Other(e.into()))
    }

    async fn update(
        &self,
        session_key: SessionKey,
        state: State,
        ttl: &Duration,
    ) -> Result<SessionKey, UpdateError> {
        // An anonymous session's key is its state: a new state, a new key.
        if !session_key.as_ref().starts_with(ANONYMOUS) {
            let key = session_key.as_ref().to_owned();
            let moved = state.clone();
            let existed = sessions::update(&self.db, key, moved)
                .await
                .map_err(|e| UpdateError::Other(e.into()))?;
            if existed {
                return Ok(session_key);
            }
        }
        // Anonymous, or ended while this request ran (a sign-out elsewhere): start afresh.
        self.save(state, ttl).await.map_err(|e| match e {
            SaveError::Serialization(e) => UpdateError::Serialization(e),
            SaveError::Other(e) => UpdateError::Other(e),
        })
    }

    async fn update_ttl(&self, _session_key: &SessionKey, _ttl: &Duration) -> anyhow::Result<()> {
        // `load_live` already moved last_seen_at; the lifetime is not the cookie's to extend.
        Ok(())
    }

    async fn delete(&self, session_key: &SessionKey) -> anyhow::Result<()> {
        if session_key.as_ref().starts_with(ANONYMOUS) {
            return Ok(());
        }
        let key = session_key.as_ref().to_owned();
        Ok(sessions::delete(&self.db, key).await?)
    }
}

/// The signed-in user's id, if any.
pub fn user_id(session: &Session) -> Option<UserId> {
    session.get::<i64>(USER_ID_KEY).ok().flatten().map(UserId)
}

/// Turns the session into a signed-in one for `user`, under a new session key, with a fresh
/// CSRF token.
pub fn sign_in(session: &Session, user: UserId) -> Result<(), AppError> {
    session.renew();
    session.insert(USER_ID_KEY, user.0)?;
    session.insert(CSRF_KEY, new_key())?;
    session.insert(SIGNED_IN_AT_KEY, Utc::now())?;
    Ok(())
}

/// When the current session signed in.
pub fn signed_in_at(session: &Session) -> Option<DateTime<Utc>> {
    session.get(SIGNED_IN_AT_KEY).ok().flatten()
}

/// The session's CSRF token, created on first use.
pub fn csrf_token(session: &Session) -> Result<String, AppError> {
    if let Some(token) = session.get::<String>(CSRF_KEY)? {
        return Ok(token);
    }
    let token = new_key();
    session.insert(CSRF_KEY, &token)?;
    Ok(token)
}

/// The session's CSRF token if it has one (never creates one).
pub fn existing_csrf_token(session: &Session) -> Option<String> {
    session.get::<String>(CSRF_KEY).ok().flatten()
}

/// A one-time message for the next page shown: something done.
pub fn set_flash(session: &Session, message: &str) -> Result<(), AppError> {
    session.insert(FLASH_KEY, Flash::done(message))?;
    Ok(())
}

/// A one-time message for the next page shown: something refused, shown as an error.
pub fn set_error_flash(session: &Session, message: &str) -> Result<(), AppError> {
    session.insert(FLASH_KEY, Flash::refused(message))?;
    Ok(())
}

/// `Ok` as a message of something done, `Err` as a refusal.
pub fn set_flash_of(session: &Session, outcome: &Result<String, String>) -> Result<(), AppError> {
    match outcome {
        Ok(message) => set_flash(session, message),
        Err(message) => set_error_flash(session, message),
    }
}

pub fn take_flash(session: &Session) -> Option<Flash> {
    take(session, FLASH_KEY)
}

/// The value under `key`, taken out of the session. Only a session that holds one is changed:
/// `Session::remove` marks it changed even when there is nothing to take, and a changed session
/// is written back, so every page that looks would otherwise write its row.
pub fn take<T: serde::de::DeserializeOwned>(session: &Session, key: &str) -> Option<T> {
    session.get::<serde_json::Value>(key).ok().flatten()?;
    session.remove_as::<T>(key).and_then(Result::ok)
}

/// The base layout's data for a page of `user` (or of nobody signed in): the session's CSRF
/// token and its flash message, taken.
pub fn nav(session: &Session, user: Option<&CurrentUser>) -> Result<Nav, AppError> {
    Ok(Nav::new(
        user.map(|u| (u.display_name.as_str(), u.role)),
        csrf_token(session)?,
        take_flash(session),
    ))
}
