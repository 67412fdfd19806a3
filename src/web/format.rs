//! How pages write times and messages.

use chrono::{DateTime, Utc};

/// A time as pages show it: `2026-03-01 14:05 UTC`.
pub fn when(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// A message as a sentence: its first letter capitalised and a full stop at the end (once).
pub fn capitalised(text: &str) -> String {
    let text = text.trim_end_matches('.');
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_becomes_one_sentence_with_one_full_stop() {
        assert_eq!(capitalised("enter a name"), "Enter a name.");
        assert_eq!(capitalised("enter a name."), "Enter a name.");
        assert_eq!(capitalised(""), "");
    }
}
