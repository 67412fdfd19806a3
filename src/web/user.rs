//! The user a request acts for, as the handlers see them, and who to name in its audit events.

use std::future::{ready, Ready};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use chrono::{DateTime, Utc};

use crate::accounting::slips::Me;
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

    /// Who acts in a use-case of accounting or rated play: this account, for this request.
    pub fn me(&self, req: &HttpRequest) -> Me {
        Me {
            id: self.id,
            username: self.username.clone(),
            role: self.role,
            actor: self.actor(req),
        }
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

/// The client's address: the peer's, or, when the peer is a trusted proxy
/// (`PUSOY_TRUSTED_PROXIES`), the address it forwarded for.
pub fn client_addr(req: &HttpRequest) -> Option<String> {
    let trusted = req
        .app_data::<actix_web::web::Data<TrustedProxies>>()
        .map(|t| t.0.as_slice())
        .unwrap_or_default();
    let forwarded = req
        .headers()
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok());
    client_ip(req.peer_addr().map(|a| a.ip()), forwarded, trusted).map(|ip| ip.to_string())
}

/// Who sent a request that came from `peer` with `X-Forwarded-For: forwarded`: `peer` itself
/// unless it is one of `trusted`; else the right-most address of the header that is not a
/// trusted proxy (each proxy appends the address it heard from, so whatever lies left of that is
/// the client's to write and not believed). A header that does not read gives the peer.
pub fn client_ip(
    peer: Option<std::net::IpAddr>,
    forwarded: Option<&str>,
    trusted: &[std::net::IpAddr],
) -> Option<std::net::IpAddr> {
    let peer = peer?;
    if !trusted.contains(&peer) {
        return Some(peer);
    }
    let Some(forwarded) = forwarded else {
        return Some(peer);
    };
    let mut last = peer;
    for hop in forwarded.rsplit(',') {
        let Ok(ip) = hop.trim().parse::<std::net::IpAddr>() else {
            return Some(last);
        };
        if !trusted.contains(&ip) {
            return Some(ip);
        }
        last = ip;
    }
    Some(last)
}

/// The proxies whose `X-Forwarded-For` is believed (`PUSOY_TRUSTED_PROXIES`), as the app's data.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(pub Vec<std::net::IpAddr>);

/// The sign-in rate limit's key: the client's address as [`client_addr`] finds it.
#[derive(Debug, Clone)]
pub struct ClientIpKey {
    pub trusted: std::sync::Arc<Vec<std::net::IpAddr>>,
}

impl actix_governor::KeyExtractor for ClientIpKey {
    type Key = std::net::IpAddr;
    type KeyExtractionError = actix_governor::SimpleKeyExtractionError<&'static str>;

    fn extract(
        &self,
        req: &actix_web::dev::ServiceRequest,
    ) -> Result<Self::Key, Self::KeyExtractionError> {
        let forwarded = req
            .headers()
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok());
        client_ip(req.peer_addr().map(|a| a.ip()), forwarded, &self.trusted).ok_or_else(|| {
            actix_governor::SimpleKeyExtractionError::new("the client's address is unknown")
        })
    }
}

/// The actor for an audit event about this request.
pub fn actor_of(user: Option<&CurrentUser>, req: &HttpRequest) -> Actor {
    match user {
        Some(user) => user.actor(req),
        None => Actor::anonymous(client_addr(req)),
    }
}

#[cfg(test)]
mod client_tests {
    use super::client_ip;
    use std::net::IpAddr;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    #[test]
    fn only_a_trusted_proxy_is_believed_and_only_for_the_hop_it_heard() {
        let proxy = ip("10.0.0.2");
        let trusted = [proxy, ip("10.0.0.3")];
        // An untrusted peer's header is ignored.
        assert_eq!(
            client_ip(Some(ip("203.0.113.9")), Some("1.2.3.4"), &trusted),
            Some(ip("203.0.113.9"))
        );
        // Through the trusted proxy: the address it heard from.
        assert_eq!(
            client_ip(Some(proxy), Some("198.51.100.7"), &trusted),
            Some(ip("198.51.100.7"))
        );
        // A client that writes its own header cannot choose its address.
        assert_eq!(
            client_ip(Some(proxy), Some("1.1.1.1, 198.51.100.7"), &trusted),
            Some(ip("198.51.100.7"))
        );
        // Two trusted proxies in a row.
        assert_eq!(
            client_ip(Some(proxy), Some("198.51.100.7, 10.0.0.3"), &trusted),
            Some(ip("198.51.100.7"))
        );
        // No header, or one that does not read: the proxy itself.
        assert_eq!(client_ip(Some(proxy), None, &trusted), Some(proxy));
        assert_eq!(client_ip(Some(proxy), Some("junk"), &trusted), Some(proxy));
        assert_eq!(client_ip(None, None, &trusted), None);
    }
}
