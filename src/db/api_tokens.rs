//! API tokens: per-integration bearer credentials that an administrator issues for a staff
//! account and revokes. A token acts as its account (same role, same access rules). Only the
//! SHA-256 of a token is stored; the token itself is shown once, when it is issued. Tokens are
//! 256 random bits, so a fast hash is enough: there is nothing to guess by brute force.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use rand::RngCore;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::ids::{TokenId, UserId};
use crate::db::schema::{api_tokens, users};
use crate::db::users::User;

/// Every token starts with this, so a leaked one is recognisable in logs and scanners.
pub const PREFIX: &str = "ppt_";

/// How much of a token is kept to tell tokens apart: [`PREFIX`] and 8 hex digits (32 of its
/// 256 random bits; the other 224 keep it unguessable).
pub const SHOWN_LEN: usize = PREFIX.len() + 8;

/// An issued token as listed (never the token itself).
#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct TokenRow {
    pub id: TokenId,
    pub name: String,
    pub username: String,
    pub role: String,
    pub created_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
    /// The token's first [`SHOWN_LEN`] characters ('' for tokens issued before they were kept).
    pub prefix: String,
}

/// Why a token was not issued, as the database found it (the use-case says it in words).
#[derive(Debug, thiserror::Error)]
pub enum IssueError {
    /// The account it would act as, or the one issuing it, is not an active staff account.
    #[error("no such active account")]
    NoSuchUser,
    #[error(transparent)]
    Query(#[from] diesel::result::Error),
}

/// What is stored of a token: its SHA-256.
pub fn hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("{PREFIX}{}", hex::encode(bytes))
}

fn target(id: TokenId) -> String {
    format!("api_token:{id}")
}

/// Issues a token named `name` (as the caller checked it) for `user`, refused from
/// `expires_at` on if given, and records `api_token.issued`. Returns the token's id and the
/// token, which is not stored (only its hash and its first [`SHOWN_LEN`] characters) and cannot
/// be shown again.
pub fn issue(
    conn: &mut PgConnection,
    name: &str,
    user: UserId,
    expires_at: Option<DateTime<Utc>>,
    actor: &Actor,
) -> Result<(TokenId, String), IssueError> {
    let created_by = actor.user_id.ok_or(IssueError::NoSuchUser)?;
    conn.transaction(|conn| {
        let holder: Option<(String, Option<DateTime<Utc>>)> = users::table
            .find(user.0)
            .select((users::username, users::disabled_at))
            .first(conn)
            .optional()?;
        let Some((username, None)) = holder else {
            return Err(IssueError::NoSuchUser);
        };
        let token = new_token();
        let id: TokenId = diesel::insert_into(api_tokens::table)
            .values((
                api_tokens::name.eq(name),
                api_tokens::user_id.eq(user.0),
                api_tokens::token_hash.eq(hash(&token)),
                api_tokens::created_by.eq(created_by.0),
                api_tokens::expires_at.eq(expires_at),
                api_tokens::prefix.eq(&token[..SHOWN_LEN]),
            ))
            .returning(api_tokens::id)
            .get_result(conn)?;
        audit_log::append(
            conn,
            &NewAuditEvent::system(actor, AuditAction::ApiTokenIssued, target(id)).details(json!({
                "name": name,
                "user": username,
                "prefix": &token[..SHOWN_LEN],
                "expires_at": expires_at,
            })),
        )?;
        Ok((id, token))
    })
}

/// What revoking a token did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revoked {
    Now,
    Already,
    NoSuchToken,
}

/// Revokes a token at once and records `api_token.revoked`.
pub fn revoke(conn: &mut PgConnection, id: TokenId, actor: &Actor) -> QueryResult<Revoked> {
    conn.transaction(|conn| {
        let name: Option<String> = diesel::update(
            api_tokens::table
                .find(id)
                .filter(api_tokens::revoked_at.is_null()),
        )
        .set(api_tokens::revoked_at.eq(diesel::dsl::now))
        .returning(api_tokens::name)
        .get_result(conn)
        .optional()?;
        let Some(name) = name else {
            let exists =
                diesel::select(diesel::dsl::exists(api_tokens::table.find(id))).get_result(conn)?;
            return Ok(if exists {
                Revoked::Already
            } else {
                Revoked::NoSuchToken
            });
        };
        audit_log::append(
            conn,
            &NewAuditEvent::system(actor, AuditAction::ApiTokenRevoked, target(id))
                .details(json!({ "name": name })),
        )?;
        Ok(Revoked::Now)
    })
}

/// The columns of a [`TokenRow`], in its order.
macro_rules! token_columns {
    () => {
        (
            api_tokens::id,
            api_tokens::name,
            users::username,
            users::role,
            api_tokens::created_at,
            api_tokens::revoked_at,
            api_tokens::expires_at,
            api_tokens::prefix,
        )
    };
}

/// One token as listed, if it exists.
pub fn find(conn: &mut PgConnection, id: TokenId) -> QueryResult<Option<TokenRow>> {
    api_tokens::table
        .inner_join(users::table.on(users::id.eq(api_tokens::user_id)))
        .filter(api_tokens::id.eq(id))
        .select(token_columns!())
        .first(conn)
        .optional()
}

/// Every token ever issued, live ones first, newest first.
pub fn list(conn: &mut PgConnection) -> QueryResult<Vec<TokenRow>> {
    api_tokens::table
        .inner_join(users::table.on(users::id.eq(api_tokens::user_id)))
        .order((api_tokens::revoked_at.is_not_null(), api_tokens::id.desc()))
        .select(token_columns!())
        .load(conn)
}

/// The account a presented token acts for: `None` if the token is unknown, revoked or expired,
/// or its account is disabled. One indexed query, so it can run on every API request.
pub fn authenticate(conn: &mut PgConnection, token: &str) -> QueryResult<Option<(i64, User)>> {
    if !token.starts_with(PREFIX) {
        return Ok(None);
    }
    api_tokens::table
        .inner_join(users::table.on(users::id.eq(api_tokens::user_id)))
        .filter(api_tokens::token_hash.eq(hash(token)))
        .filter(api_tokens::revoked_at.is_null())
        .filter(
            api_tokens::expires_at
                .is_null()
                .or(api_tokens::expires_at.gt(diesel::dsl::now)),
        )
        .filter(users::disabled_at.is_null())
        .select((api_tokens::id, User::as_select()))
        .first(conn)
        .optional()
}
