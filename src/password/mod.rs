//! Staff passwords: the policy a new password must meet, and Argon2id hashing.
//! Hashing is slow on purpose: callers on the async executor run it in `web::block`.
//! Signing PINs, the quick alternative for a second signature: [`pin`].

pub mod pin;

use std::collections::HashSet;
use std::sync::OnceLock;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

pub const MIN_LENGTH: usize = 8;
pub const MAX_LENGTH: usize = 128;

/// Frequently used passwords, one per line, lower-case; refused whatever their case.
const COMMON_PASSWORDS: &str = include_str!("common-passwords.txt");

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    #[error("use at least {MIN_LENGTH} characters")]
    TooShort,
    #[error("use at most {MAX_LENGTH} characters")]
    TooLong,
    #[error("this password is on the list of commonly used passwords; choose another")]
    Common,
    #[error("the password must not be the user name")]
    SameAsUsername,
}

/// Checks a new password against the policy.
pub fn check_policy(password: &str, username: &str) -> Result<(), PolicyError> {
    let length = password.chars().count();
    if length < MIN_LENGTH {
        return Err(PolicyError::TooShort);
    }
    if length > MAX_LENGTH {
        return Err(PolicyError::TooLong);
    }
    let lower = password.to_lowercase();
    if lower == username.to_lowercase() {
        return Err(PolicyError::SameAsUsername);
    }
    if common_passwords().contains(lower.as_str()) {
        return Err(PolicyError::Common);
    }
    Ok(())
}

fn common_passwords() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| {
        COMMON_PASSWORDS
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect()
    })
}

/// Argon2id cost parameters. The floor is OWASP's minimum for Argon2id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashParams {
    pub memory_kib: u32,
    pub iterations: u32,
    pub parallelism: u32,
}

impl HashParams {
    pub const FLOOR: HashParams = HashParams {
        memory_kib: 19_456,
        iterations: 2,
        parallelism: 1,
    };

    /// Whether every parameter is at or above the floor.
    pub fn meets_floor(&self) -> bool {
        self.memory_kib >= Self::FLOOR.memory_kib
            && self.iterations >= Self::FLOOR.iterations
            && self.parallelism >= Self::FLOOR.parallelism
    }
}

impl Default for HashParams {
    fn default() -> Self {
        HashParams::FLOOR
    }
}

/// What checks a person's secret: the hash parameters of passwords and the key of signing PINs.
#[derive(Debug, Clone)]
pub struct Secrets {
    pub params: HashParams,
    pub pin_key: std::sync::Arc<pin::PinKey>,
}

#[derive(Debug, thiserror::Error)]
pub enum HashError {
    #[error("Argon2 parameters below the floor m=19456 KiB, t=2, p=1")]
    WeakParams,
    #[error("password hashing failed: {0}")]
    Argon2(String),
}

/// Hashes `password` with Argon2id and a fresh salt, in PHC string form.
pub fn hash(password: &str, params: HashParams) -> Result<String, HashError> {
    if !params.meets_floor() {
        return Err(HashError::WeakParams);
    }
    let params = Params::new(
        params.memory_kib,
        params.iterations,
        params.parallelism,
        None,
    )
    .map_err(|e| HashError::Argon2(e.to_string()))?;
    let salt = SaltString::generate(&mut OsRng);
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| HashError::Argon2(e.to_string()))
}

/// Whether `password` matches the stored PHC `hash` (its own parameters are used).
pub fn verify(password: &str, hash: &str) -> Result<bool, HashError> {
    let parsed = PasswordHash::new(hash).map_err(|e| HashError::Argon2(e.to_string()))?;
    match Argon2::default().verify_password(password.as_bytes(), &parsed) {
        Ok(()) => Ok(true),
        Err(argon2::password_hash::Error::Password) => Ok(false),
        Err(e) => Err(HashError::Argon2(e.to_string())),
    }
}

/// Spends the time of one verification, so that an unknown user name answers as slowly as a
/// known one with a wrong password.
pub fn verify_dummy(password: &str, params: HashParams) {
    static DUMMY: OnceLock<Option<String>> = OnceLock::new();
    let dummy = DUMMY.get_or_init(|| hash("not a real password", params).ok());
    if let Some(dummy) = dummy {
        let _ = verify(password, dummy);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn policy_refuses_short_long_common_and_username_passwords() {
        assert_eq!(check_policy("short", "ann"), Err(PolicyError::TooShort));
        assert_eq!(
            check_policy(&"x".repeat(129), "ann"),
            Err(PolicyError::TooLong)
        );
        assert_eq!(check_policy("Password1", "ann"), Err(PolicyError::Common));
        assert_eq!(check_policy("QWERTY123", "ann"), Err(PolicyError::Common));
        assert_eq!(
            check_policy("annabelle", "Annabelle"),
            Err(PolicyError::SameAsUsername)
        );
        assert_eq!(check_policy(&"horse battery ".repeat(4), "ann"), Ok(()));
        assert_eq!(check_policy(&"y".repeat(128), "ann"), Ok(()));
    }

    #[test]
    fn a_hash_verifies_its_password_only() {
        let h = hash("correct horse battery", HashParams::FLOOR).unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(verify("correct horse battery", &h).unwrap());
        assert!(!verify("correct horse batterx", &h).unwrap());
    }

    #[test]
    fn parameters_below_the_floor_are_refused() {
        let weak = HashParams {
            memory_kib: 4096,
            ..HashParams::FLOOR
        };
        assert!(matches!(
            hash("whatever1", weak),
            Err(HashError::WeakParams)
        ));
    }
}
