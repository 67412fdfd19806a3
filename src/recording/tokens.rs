//! API tokens this process found good, with the account each was found good for, so that a
//! whole round sent with one can be written without checking the token first: the write itself
//! checks that the token is still good and still its account's, with the same role
//! ([`TokenToCheck`]), and writes nothing otherwise. Only ever a guess; the database decides.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::db::api_tokens;
use crate::db::rounds::confirm::TokenToCheck;
use crate::db::users::Role;

/// Tokens remembered at most (there is one per integration); beyond, the memory starts afresh.
const MOST_TOKENS: usize = 1024;

/// Remembered tokens, by their hash, with the account (`A`) each was found good for.
#[derive(Debug)]
pub struct RememberedTokens<A> {
    accounts: Mutex<HashMap<Vec<u8>, A>>,
}

impl<A> Default for RememberedTokens<A> {
    fn default() -> Self {
        RememberedTokens {
            accounts: Mutex::default(),
        }
    }
}

impl<A: Clone> RememberedTokens<A> {
    pub fn remember(&self, token: &str, account: &A) {
        if let Ok(mut accounts) = self.accounts.lock() {
            if accounts.len() >= MOST_TOKENS {
                accounts.clear();
            }
            accounts.insert(api_tokens::hash(token), account.clone());
        }
    }

    /// The account `token` was last found good for, with what the write must check (that the
    /// token is still good and its account still has `role_of(account)`).
    pub fn recall(&self, token: &str, role_of: impl Fn(&A) -> Role) -> Option<(A, TokenToCheck)> {
        let hash = api_tokens::hash(token);
        let account = self.accounts.lock().ok()?.get(&hash)?.clone();
        let role = role_of(&account);
        Some((account, TokenToCheck { hash, role }))
    }

    pub fn forget(&self, token: &str) {
        if let Ok(mut accounts) = self.accounts.lock() {
            accounts.remove(&api_tokens::hash(token));
        }
    }
}
