//! The user a request acts for, as the handlers see them, and who to name in its audit events.

use std::future::{ready, Ready};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use chrono::{DateTime, Utc};

use crate::db::audit_log::Actor;
use crate::db::ids::UserId;
use crate::db::users::{Role, User};
use crate::web::error::AppError;

/// The signed-in user of the current request, put there by [`authorize`](crate::web::access::authorize).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrentUser {
    pub id: UserId,
    pub username: String,
    pub display_name: String,
    pub role: Role,
    pub signed_in_at: Option<DateTime<Utc>>,
}

impl CurrentUser {
    pub(crate) fn of(user: &User, signed_in_at: Option<DateTime<Utc>>) -> CurrentUser {
        CurrentUser {
            id: user.id,
            username: user.username.clone(),
            display_name: user.display_name.clone(),
            role: user.role,
            signed_in_at,
        }
    }

    pub fn actor(&self, req: &HttpRequest) -> Actor {
        self.actor_at(client_addr(req))
    }

    /// The actor for an audit event about a request from `client_addr`.
    pub fn actor_at(&self, client_addr: Option<String>) -> Actor {
        Actor::user(self.id, &self.username, client_addr)
    }
}

impl FromRequest for CurrentUser {
    type Error = AppError;
    type Future = Ready<Result<Self, AppError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            req.extensions()
                .get::<CurrentUser>()
                .cloned()
                .ok_or(AppError::SignInRequired { api: false }),
        )
    }
}

/// The client's address as the server saw it (no proxy headers are trusted).
pub fn client_addr(req: &HttpRequest) -> Option<String> {
    req.peer_addr().map(|addr| addr.ip().to_string())
}

/// The actor for an audit event about this request.
pub fn actor_of(user: Option<&CurrentUser>, req: &HttpRequest) -> Actor {
    match user {
        Some(user) => user.actor(req),
        None => Actor::anonymous(client_addr(req)),
    }
}
