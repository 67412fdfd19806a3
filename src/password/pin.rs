//! Signing PINs: what a second person types to sign a document on someone else's tablet, as
//! an alternative to their password (docs/security.md, "Signing PINs").
//!
//! A PIN is short, so no hash stored in the database could protect it: whoever reads the
//! table could try every PIN against an Argon2 hash in hours. It is stored instead as an
//! HMAC-SHA256 under a key that lives outside the database (a file on the app's machine,
//! [`PinKey::load_or_create`]), over the account's id and the PIN. Someone with the database's
//! credentials alone can neither test a guess offline nor copy one account's PIN to another;
//! guesses at the tablet count towards the sign-in lock-out like wrong passwords. Checking
//! one takes microseconds, where a password takes an Argon2id verification (about 27 ms).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Fewest and most digits of a PIN.
pub const MIN_DIGITS: usize = 6;
pub const MAX_DIGITS: usize = 12;

/// Bytes of a new key; a key read from a file must have at least this many.
pub const KEY_BYTES: usize = 32;

/// Bytes of a stored PIN (an HMAC-SHA256).
pub const MAC_BYTES: usize = 32;

/// Keeps the MAC of a PIN from ever equalling a MAC made with the same key for another use.
const DOMAIN: &[u8] = b"pusoy-pit signing PIN v1\0";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PinPolicyError {
    #[error("A PIN is {MIN_DIGITS} to {MAX_DIGITS} digits, and digits only.")]
    NotDigits,
    #[error("One digit repeated is too easy to guess: choose another PIN.")]
    Repeated,
    #[error("Consecutive digits (123456, 987654) are too easy to guess: choose another PIN.")]
    Sequence,
}

/// Whether `typed` has the shape of a PIN (6 to 12 ASCII digits). What a second signer types
/// is checked as their PIN when it has this shape and they have one, else as their password.
pub fn looks_like_pin(typed: &str) -> bool {
    (MIN_DIGITS..=MAX_DIGITS).contains(&typed.len()) && typed.bytes().all(|b| b.is_ascii_digit())
}

/// Checks a new PIN: 6 to 12 digits, not one digit repeated, not a run up or down.
pub fn check_policy(pin: &str) -> Result<(), PinPolicyError> {
    if !looks_like_pin(pin) {
        return Err(PinPolicyError::NotDigits);
    }
    let digits = pin.as_bytes();
    if digits.iter().all(|&d| d == digits[0]) {
        return Err(PinPolicyError::Repeated);
    }
    // Each step up or down by one, going round from 9 to 0 (7890123) or back.
    let steps: Vec<u8> = digits
        .windows(2)
        .map(|w| (10 + w[1] - b'0' - (w[0] - b'0')) % 10)
        .collect();
    if steps.iter().all(|&s| s == 1) || steps.iter().all(|&s| s == 9) {
        return Err(PinPolicyError::Sequence);
    }
    Ok(())
}

#[derive(Debug, thiserror::Error)]
pub enum PinKeyError {
    #[error("cannot read the signing-PIN key {}: {source}", .path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error("cannot write a new signing-PIN key to {}: {source}", .path.display())]
    Write { path: PathBuf, source: io::Error },
    #[error(
        "the signing-PIN key {} is not {KEY_BYTES} or more bytes as hex on one line",
        .path.display()
    )]
    Malformed { path: PathBuf },
}

/// The key signing PINs are kept under. Never in the database.
#[derive(Clone)]
pub struct PinKey(Vec<u8>);

impl std::fmt::Debug for PinKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PinKey(..)")
    }
}

impl PinKey {
    /// A key from its bytes (at least [`KEY_BYTES`]); `None` if shorter.
    pub fn from_bytes(bytes: Vec<u8>) -> Option<PinKey> {
        (bytes.len() >= KEY_BYTES).then_some(PinKey(bytes))
    }

    /// A key of fresh random bytes, held only in memory (tests, benchmarks).
    pub fn random() -> PinKey {
        let mut bytes = vec![0u8; KEY_BYTES];
        rand::fill(&mut bytes[..]);
        PinKey(bytes)
    }

    /// Reads the key from `path` (hex), or, when there is no such file, makes one: fresh random
    /// bytes written to a temporary file in the same directory (mode 0600), flushed to disk and
    /// moved into place only if no other process made the file meanwhile (then that one's key
    /// is read), so every process of one installation keeps PINs under the same key.
    pub fn load_or_create(path: &Path) -> Result<PinKey, PinKeyError> {
        match std::fs::read_to_string(path) {
            Ok(text) => return Self::parse(path, &text),
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(PinKeyError::Read {
                    path: path.to_owned(),
                    source,
                })
            }
        }
        let write_error = |source| PinKeyError::Write {
            path: path.to_owned(),
            source,
        };
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir).map_err(write_error)?;
        let key = PinKey::random();
        let mut file = tempfile::NamedTempFile::new_in(&dir).map_err(write_error)?;
        writeln!(file, "{}", hex::encode(&key.0)).map_err(write_error)?;
        file.as_file().sync_all().map_err(write_error)?;
        match file.persist_noclobber(path) {
            Ok(_) => {
                // The new name is durable only once the directory is.
                std::fs::File::open(&dir)
                    .and_then(|d| d.sync_all())
                    .map_err(write_error)?;
                Ok(key)
            }
            Err(err) if err.error.kind() == io::ErrorKind::AlreadyExists => {
                let text = std::fs::read_to_string(path).map_err(|source| PinKeyError::Read {
                    path: path.to_owned(),
                    source,
                })?;
                Self::parse(path, &text)
            }
            Err(err) => Err(write_error(err.error)),
        }
    }

    fn parse(path: &Path, text: &str) -> Result<PinKey, PinKeyError> {
        hex::decode(text.trim())
            .ok()
            .and_then(PinKey::from_bytes)
            .ok_or_else(|| PinKeyError::Malformed {
                path: path.to_owned(),
            })
    }

    fn mac(&self, account: i64, pin: &str) -> Hmac<Sha256> {
        // A key of any length is accepted by HMAC: this cannot fail.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(DOMAIN);
        mac.update(&account.to_be_bytes());
        mac.update(pin.as_bytes());
        mac
    }

    /// What is stored for `account`'s PIN `pin`.
    pub fn seal(&self, account: i64, pin: &str) -> Vec<u8> {
        self.mac(account, pin).finalize().into_bytes().to_vec()
    }

    /// Whether `pin` is `account`'s PIN, given what is stored (compared in constant time).
    pub fn verify(&self, account: i64, pin: &str, stored: &[u8]) -> bool {
        self.mac(account, pin).verify_slice(stored).is_ok()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_pin_is_six_to_twelve_digits_and_not_too_easy() {
        assert_eq!(check_policy("402917"), Ok(()));
        assert_eq!(check_policy("402917835561"), Ok(()));
        assert_eq!(check_policy("40291"), Err(PinPolicyError::NotDigits));
        assert_eq!(
            check_policy("4029178355610"),
            Err(PinPolicyError::NotDigits)
        );
        assert_eq!(check_policy("40291a"), Err(PinPolicyError::NotDigits));
        assert_eq!(check_policy("４０２９１７"), Err(PinPolicyError::NotDigits));
        assert_eq!(check_policy("777777"), Err(PinPolicyError::Repeated));
        assert_eq!(check_policy("123456"), Err(PinPolicyError::Sequence));
        assert_eq!(check_policy("987654"), Err(PinPolicyError::Sequence));
        assert_eq!(check_policy("7890123"), Err(PinPolicyError::Sequence));
        assert_eq!(check_policy("3210987"), Err(PinPolicyError::Sequence));
        assert_eq!(check_policy("123457"), Ok(()));
        assert!(looks_like_pin("000000") && !looks_like_pin("horse battery"));
    }

    #[test]
    fn a_stored_pin_verifies_that_pin_of_that_account_under_that_key_only() {
        let key = PinKey::random();
        let stored = key.seal(7, "402917");
        assert_eq!(stored.len(), MAC_BYTES);
        assert!(key.verify(7, "402917", &stored));
        assert!(!key.verify(7, "402918", &stored));
        assert!(
            !key.verify(8, "402917", &stored),
            "copied to another account"
        );
        assert!(
            !PinKey::random().verify(7, "402917", &stored),
            "another key"
        );
        assert!(!key.verify(7, "402917", &stored[..31]));
    }

    #[test]
    fn the_key_file_is_made_once_private_and_read_back() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys/signing-pin.key");
        let made = PinKey::load_or_create(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "readable by others: {mode:o}");
        let read = PinKey::load_or_create(&path).unwrap();
        assert_eq!(made.0, read.0);
        std::fs::write(&path, "abcd\n").unwrap();
        assert!(matches!(
            PinKey::load_or_create(&path),
            Err(PinKeyError::Malformed { .. })
        ));
    }
}
