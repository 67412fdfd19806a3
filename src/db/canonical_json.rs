//! The canonical form of a JSON text, written straight from the text: object keys sorted at
//! every depth, no white space, strings escaped and numbers printed exactly as serde_json
//! writes them. The same bytes as parsing the text into a `serde_json::Value` and writing that
//! canonically (the property test below holds the two together), without building the value:
//! verifying a long audit chain spent most of its time building, walking and freeing the
//! values of the events' details (BENCHMARKS.md, "Audit verification").
//!
//! Stricter than the parser in one way: an object that names a key twice keeps both (serde_json
//! keeps the last), so a repeated key added to a stored event's details changes its hash.

use std::str::FromStr;

use serde_json::Value;

/// The text is not JSON; `at` is the byte where reading stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not JSON at byte {at}")]
pub struct NotJson {
    pub at: usize,
}

/// Whether stored details `text` have the shape this module writes rather than the one
/// PostgreSQL prints `jsonb` in (how details were stored before they were kept as hashed): an
/// object whose first key is followed by its colon and the value with no space between
/// (PostgreSQL writes `"key": value`), or the empty object; nothing after its closing brace
/// and no line break (an export's JSON Lines holds the text as it is). It looks at no more
/// than the first key, so it tells the two writers apart and proves nothing of text written
/// otherwise (a changed event's details): a check of the event's hash does that, over the text
/// as the export holds it.
pub fn shaped_as_written(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.last() != Some(&b'}') || memchr::memchr2(b'\n', b'\r', bytes).is_some() {
        return false;
    }
    if bytes == b"{}" {
        return true;
    }
    let Some(key) = bytes.strip_prefix(b"{\"") else {
        return false;
    };
    let mut at = 0;
    while let Some(&b) = key.get(at) {
        match b {
            b'\\' => at += 2,
            b'"' => return key.get(at + 1) == Some(&b':') && key.get(at + 2) != Some(&b' '),
            _ => at += 1,
        }
    }
    false
}

/// Appends the canonical form of the JSON `text` to `out`.
pub fn write_text(text: &str, out: &mut String) -> Result<(), NotJson> {
    Buffers::default().write_text(text, out)
}

/// What [`write_text`] keeps between objects and strings, reusable from one text to the next
/// so that writing many texts (a chain's events) allocates nothing per text once warm.
#[derive(Debug, Default)]
pub struct Buffers {
    /// The members of the objects being read, innermost last.
    members: Vec<Member>,
    /// Keys with escapes, decoded (a member's key points here or into the text).
    keys: String,
    /// An object's members while they are put in key order.
    reorder: String,
    /// A string value with escapes, decoded.
    decoded: String,
}

/// One member of an object: where its key is, and where `"key":value` was written in `out`.
#[derive(Debug, Clone, Copy)]
struct Member {
    /// The key's first eight bytes, big-endian, zero-padded: ordering keys mostly by this
    /// alone (two keys whose prefixes differ are in the same order as the prefixes).
    prefix: u64,
    key: (usize, usize),
    key_decoded: bool,
    from: usize,
    to: usize,
}

impl Buffers {
    /// Appends the canonical form of the JSON `text` to `out`.
    pub fn write_text(&mut self, text: &str, out: &mut String) -> Result<(), NotJson> {
        self.members.clear();
        self.keys.clear();
        let mut reader = Reader {
            text,
            at: 0,
            buffers: self,
        };
        reader.value(out, 0)?;
        reader.skip_space();
        if reader.at == text.len() {
            Ok(())
        } else {
            Err(reader.error())
        }
    }
}

/// The canonical form of a value: object keys sorted at every depth, no white space.
pub fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, inner)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(key, out);
                out.push(':');
                write_canonical(inner, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::String(text) => write_json_string(text, out),
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => out.push_str(&number.to_string()),
    }
}

/// A JSON string literal exactly as serde_json writes it (tested against it).
pub fn write_json_string(text: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    // Every byte that needs an escape is ASCII, so the text between two is whole characters.
    let mut plain_from = 0;
    for (at, &byte) in text.as_bytes().iter().enumerate() {
        let escaped = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "\\u00",
            _ => continue,
        };
        out.push_str(&text[plain_from..at]);
        out.push_str(escaped);
        if escaped == "\\u00" {
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
        plain_from = at + 1;
    }
    out.push_str(&text[plain_from..]);
    out.push('"');
}

/// The bytes of `word` (read little-endian: its first byte lowest) that are a quote, a
/// backslash or a control character (the bytes a string's scan must stop at), each marked by
/// its high bit. Exact for the first marked byte: the borrows of the subtractions only reach
/// above a byte that matches, so bytes after a match may be marked wrongly, never before.
fn stops_in(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_in = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS;
    let quote = zero_in(word ^ (ONES * u64::from(b'"')));
    let backslash = zero_in(word ^ (ONES * u64::from(b'\\')));
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    quote | backslash | control
}

/// The first eight bytes of `key`, big-endian, zero-padded; `after` is what follows the key in
/// its text (read, when there is enough of it, to load eight bytes at once).
fn prefix_of(key: &[u8], after: &[u8]) -> u64 {
    let len = key.len();
    if len >= 8 {
        if let Some(head) = key.first_chunk::<8>() {
            return u64::from_be_bytes(*head);
        }
    } else if after.len() >= 8 - len {
        // The key and the bytes after it, the latter masked off.
        let mut word = [0_u8; 8];
        word[..len].copy_from_slice(key);
        word[len..].copy_from_slice(&after[..8 - len]);
        let kept = u64::MAX.checked_shl(64 - 8 * len as u32).unwrap_or(0);
        return u64::from_be_bytes(word) & kept;
    }
    (0..8).fold(0, |prefix, i| {
        prefix << 8 | key.get(i).copied().map_or(0, u64::from)
    })
}

/// Deeper than this is refused rather than risking the stack (serde_json stops at 128 too).
const MOST_DEPTH: usize = 128;

struct Reader<'a, 'b> {
    text: &'a str,
    at: usize,
    buffers: &'b mut Buffers,
}

impl Reader<'_, '_> {
    fn error(&self) -> NotJson {
        NotJson { at: self.at }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), NotJson> {
        self.skip_space();
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error())
        }
    }

    fn literal(&mut self, word: &str, out: &mut String) -> Result<(), NotJson> {
        if self.text[self.at..].starts_with(word) {
            self.at += word.len();
            out.push_str(word);
            Ok(())
        } else {
            Err(self.error())
        }
    }

    fn value(&mut self, out: &mut String, depth: usize) -> Result<(), NotJson> {
        self.skip_space();
        match self.peek() {
            Some(b'{') if depth < MOST_DEPTH => self.object(out, depth + 1),
            Some(b'[') if depth < MOST_DEPTH => self.array(out, depth + 1),
            Some(b'"') => {
                self.string_into(out)?;
                Ok(())
            }
            Some(b't') => self.literal("true", out),
            Some(b'f') => self.literal("false", out),
            Some(b'n') => self.literal("null", out),
            Some(b'-' | b'0'..=b'9') => self.number(out),
            _ => Err(self.error()),
        }
    }

    fn array(&mut self, out: &mut String, depth: usize) -> Result<(), NotJson> {
        self.at += 1;
        out.push('[');
        self.skip_space();
        if self.peek() == Some(b']') {
            self.at += 1;
            out.push(']');
            return Ok(());
        }
        loop {
            self.value(out, depth)?;
            self.skip_space();
            match self.peek() {
                Some(b',') => {
                    self.at += 1;
                    out.push(',');
                }
                Some(b']') => {
                    self.at += 1;
                    out.push(']');
                    return Ok(());
                }
                _ => return Err(self.error()),
            }
        }
    }

    /// Reads a string and writes it to `out` as a JSON string literal; returns where its text
    /// is when it had no escapes (`None`: decoded into `buffers.decoded`).
    fn string_into(&mut self, out: &mut String) -> Result<Option<(usize, usize)>, NotJson> {
        let plain = self.string()?;
        match plain {
            // No escapes: nothing in it to escape either (a quote, a backslash or a control
            // character would have ended or refused it), so it is copied as it is.
            Some((from, to)) => {
                out.push('"');
                out.push_str(&self.text[from..to]);
                out.push('"');
            }
            None => write_json_string(&self.buffers.decoded, out),
        }
        Ok(plain)
    }

    /// The members are written in the order they come, `"key":value`, and put in key order
    /// afterwards if they were not in it (PostgreSQL's `jsonb` orders keys by length first).
    fn object(&mut self, out: &mut String, depth: usize) -> Result<(), NotJson> {
        self.at += 1;
        out.push('{');
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            out.push('}');
            return Ok(());
        }
        let start = out.len();
        let base = self.buffers.members.len();
        let keys_base = self.buffers.keys.len();
        loop {
            self.skip_space();
            if self.peek() != Some(b'"') {
                return Err(self.error());
            }
            let from = out.len();
            let (key, key_decoded) = match self.string_into(out)? {
                Some(range) => (range, false),
                None => {
                    let keys = &mut self.buffers.keys;
                    let begin = keys.len();
                    keys.push_str(&self.buffers.decoded);
                    ((begin, keys.len()), true)
                }
            };
            self.expect(b':')?;
            out.push(':');
            self.value(out, depth)?;
            let source = if key_decoded {
                self.buffers.keys.as_str()
            } else {
                self.text
            };
            let after: &[u8] = if key_decoded {
                &[]
            } else {
                &source.as_bytes()[key.1..]
            };
            self.buffers.members.push(Member {
                prefix: prefix_of(&source.as_bytes()[key.0..key.1], after),
                key,
                key_decoded,
                from,
                to: out.len(),
            });
            self.skip_space();
            match self.peek() {
                Some(b',') => {
                    self.at += 1;
                    out.push(',');
                }
                Some(b'}') => {
                    self.at += 1;
                    break;
                }
                _ => return Err(self.error()),
            }
        }
        let Buffers {
            members,
            keys,
            reorder,
            ..
        } = &mut *self.buffers;
        let text = self.text;
        let key_of = |m: &Member| {
            let source = if m.key_decoded { keys.as_str() } else { text };
            &source[m.key.0..m.key.1]
        };
        let order = |a: &Member, b: &Member| {
            a.prefix
                .cmp(&b.prefix)
                .then_with(|| key_of(a).cmp(key_of(b)))
        };
        let these = &mut members[base..];
        if !these.is_sorted_by(|a, b| order(a, b).is_le()) {
            // Stable, as the order of a repeated key's members is kept.
            these.sort_by(order);
            reorder.clear();
            reorder.push_str(&out[start..]);
            out.truncate(start);
            for (i, member) in these.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&reorder[member.from - start..member.to - start]);
            }
        }
        members.truncate(base);
        keys.truncate(keys_base);
        out.push('}');
        Ok(())
    }

    /// Reads a string: where its text is when it has no escapes, or `None` when it has, with
    /// its text decoded into `buffers.decoded`.
    fn string(&mut self) -> Result<Option<(usize, usize)>, NotJson> {
        self.at += 1;
        let bytes = self.text.as_bytes();
        let begin = self.at;
        loop {
            // Eight bytes at a time to the first that ends the string, starts an escape or is
            // refused; the last few one at a time.
            match bytes.get(self.at..).and_then(<[u8]>::first_chunk::<8>) {
                Some(chunk) => {
                    let stops = stops_in(u64::from_le_bytes(*chunk));
                    if stops == 0 {
                        self.at += 8;
                        continue;
                    }
                    self.at += stops.trailing_zeros() as usize / 8;
                }
                None => {
                    while let Some(&b) = bytes.get(self.at) {
                        if b == b'"' || b == b'\\' || b < 0x20 {
                            break;
                        }
                        self.at += 1;
                    }
                }
            }
            return match bytes.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    Ok(Some((begin, self.at - 1)))
                }
                Some(b'\\') => {
                    self.escaped(begin)?;
                    Ok(None)
                }
                _ => Err(self.error()),
            };
        }
    }

    /// Decodes the rest of a string that has an escape at `self.at` into `buffers.decoded`.
    fn escaped(&mut self, begin: usize) -> Result<(), NotJson> {
        let text = self.text;
        let bytes = text.as_bytes();
        self.buffers.decoded.clear();
        self.buffers.decoded.push_str(&text[begin..self.at]);
        loop {
            let Some(&b) = bytes.get(self.at) else {
                return Err(self.error());
            };
            match b {
                b'"' => {
                    self.at += 1;
                    return Ok(());
                }
                b'\\' => {
                    self.at += 1;
                    let Some(&kind) = bytes.get(self.at) else {
                        return Err(self.error());
                    };
                    self.at += 1;
                    let c = match kind {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return Err(self.error()),
                    };
                    self.buffers.decoded.push(c);
                }
                0..=0x1f => return Err(self.error()),
                _ => {
                    // Copy up to the next quote or backslash in one piece.
                    let from = self.at;
                    while let Some(&b) = bytes.get(self.at) {
                        if b == b'"' || b == b'\\' || b < 0x20 {
                            break;
                        }
                        self.at += 1;
                    }
                    self.buffers.decoded.push_str(&text[from..self.at]);
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, NotJson> {
        let digits = self.text.get(self.at..self.at + 4).ok_or(self.error())?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.error());
        }
        let value = u32::from_str_radix(digits, 16).map_err(|_| self.error())?;
        self.at += 4;
        Ok(value)
    }

    /// The character of a `\u` escape (after the `u`), a surrogate pair taken together.
    fn unicode_escape(&mut self) -> Result<char, NotJson> {
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                if !self.text[self.at..].starts_with("\\u") {
                    return Err(self.error());
                }
                self.at += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(self.error());
                }
                0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(self.error()),
            _ => first,
        };
        char::from_u32(code).ok_or(self.error())
    }

    /// A number: a plain integer (`0`, `-12`, `345`) that fits 64 bits is written as it
    /// stands, which is how serde_json prints it; anything else goes through serde_json's own
    /// number, so that a fraction or an exponent is printed exactly as it would print it.
    fn number(&mut self, out: &mut String) -> Result<(), NotJson> {
        let bytes = self.text.as_bytes();
        let begin = self.at;
        let negative = bytes.get(self.at) == Some(&b'-');
        let digits_from = self.at + usize::from(negative);
        let mut end = digits_from;
        while let Some(b'0'..=b'9') = bytes.get(end) {
            end += 1;
        }
        let digits = &bytes[digits_from..end];
        let plain = match bytes.get(end) {
            Some(b'.' | b'e' | b'E' | b'+' | b'-') => false,
            _ => match digits {
                [] => false,
                [b'0'] => !negative,
                [b'0', ..] => false,
                _ => digits.len() <= 18,
            },
        };
        if plain {
            self.at = end;
            out.push_str(&self.text[begin..end]);
            return Ok(());
        }
        // Longer integers, fractions, exponents and what is not a number at all.
        self.at = digits_from;
        while let Some(b'0'..=b'9' | b'-' | b'.' | b'e' | b'E' | b'+') = bytes.get(self.at) {
            self.at += 1;
        }
        let token = &self.text[begin..self.at];
        let digits = token.strip_prefix('-').unwrap_or(token);
        let canonical_integer = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !digits.starts_with('0')
            && (token.parse::<i64>().is_ok() || token.parse::<u64>().is_ok());
        if canonical_integer {
            out.push_str(token);
            return Ok(());
        }
        let number = serde_json::Number::from_str(token).map_err(|_| NotJson { at: begin })?;
        out.push_str(&number.to_string());
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// What this module writes is told from what PostgreSQL prints `jsonb` as, by the first
    /// key; anything else is not taken as written here.
    #[test]
    fn details_shaped_as_written_here_are_told_from_jsonb_text() {
        for (text, shaped) in [
            ("{}", true),
            (r#"{"a":1}"#, true),
            (r#"{"a":{"b": 2}}"#, true),
            (r#"{"a\"b":1}"#, true),
            (r#"{"a\\":"x\ny"}"#, true),
            (r#"{"a": 1}"#, false),
            (r#"{"a\"b": 1}"#, false),
            ("{\"a\":1,\n\"b\":2}", false),
            ("{\"a\":1}\r", false),
            (r#"{"a":1} "#, false),
            ("[1,2]", false),
            ("1", false),
            (r#"{"a""#, false),
            (r#"{"a"}"#, false),
        ] {
            assert_eq!(shaped_as_written(text), shaped, "{text}");
        }
        let value = serde_json::json!({"seats": [{"bet": 5, "name": "a b"}], "x": null});
        let mut canonical = String::new();
        write_text(&value.to_string(), &mut canonical).unwrap();
        assert!(shaped_as_written(&canonical));
    }

    fn by_value(text: &str) -> Option<String> {
        let value: Value = serde_json::from_str(text).ok()?;
        let mut out = String::new();
        write_canonical(&value, &mut out);
        Some(out)
    }

    fn by_text(text: &str) -> Option<String> {
        let mut out = String::new();
        write_text(text, &mut out).ok()?;
        Some(out)
    }

    #[test]
    fn keys_are_sorted_at_every_depth_and_space_goes() {
        assert_eq!(
            by_text(r#" {"b": [true, null, {"z": 1, "a": -2}], "a": "x\"y", "": {}} "#).unwrap(),
            r#"{"":{},"a":"x\"y","b":[true,null,{"a":-2,"z":1}]}"#
        );
    }

    /// PostgreSQL's `jsonb` text: keys by length, then bytes; `", "` and `": "` between.
    #[test]
    fn postgresql_jsonb_text_gives_the_canonical_form() {
        let stored = r#"{"n": 1, "seats": [{"bet": 10000, "seat": 1, "result": -20000}], "action": "round.settled", "rate": 0.25, "big": 18446744073709551615, "note": "a\u0001\ttab é"}"#;
        assert_eq!(by_text(stored), by_value(stored));
        assert_eq!(
            by_text(stored).unwrap(),
            r#"{"action":"round.settled","big":18446744073709551615,"n":1,"note":"a\u0001\ttab é","rate":0.25,"seats":[{"bet":10000,"result":-20000,"seat":1}]}"#
        );
    }

    #[test]
    fn numbers_print_as_serde_json_prints_them() {
        for text in [
            "0",
            "-0",
            "-1",
            "12",
            "1.0",
            "1.50",
            "1e3",
            "1E+3",
            "-2.5e-3",
            "0.1",
            "1e400",
            "123456789012345678",
            "-123456789012345678",
            "1234567890123456789",
            "9223372036854775807",
            "-9223372036854775808",
            "-9223372036854775809",
            "18446744073709551616",
            "123456789012345678901234567890",
        ] {
            assert_eq!(by_text(text), by_value(text), "{text}");
        }
    }

    #[test]
    fn escapes_are_decoded_and_written_again_as_serde_json_writes_them() {
        for text in [
            r#""\u00e9\/\b\f\n\r\t\"\\""#,
            r#""\ud83c\udca1 ace""#,
            r#""\u001f\u007f""#,
            r#""plain""#,
        ] {
            assert_eq!(by_text(text), by_value(text), "{text}");
        }
    }

    /// The string scan reads eight bytes at a time: a quote, a backslash, a control character
    /// or a non-ASCII character at every place in and around a chunk is seen where it is.
    #[test]
    fn every_byte_of_a_string_is_seen_wherever_it_falls_in_a_chunk() {
        for len in 0..20 {
            for at in 0..=len {
                for special in ['"', '\\', '\n', '\t', '\u{1}', '\u{7f}', 'é', '🂡', '/'] {
                    let mut text: String = "abcdefghijklmnopqrstu"[..len].to_owned();
                    text.insert(at, special);
                    let json = serde_json::to_string(&text).unwrap();
                    assert_eq!(by_text(&json), by_value(&json), "{json}");
                    // The same character unescaped: a control character is refused.
                    let raw = format!("\"{text}\"");
                    assert_eq!(by_text(&raw).is_some(), by_value(&raw).is_some(), "{raw:?}");
                }
            }
        }
    }

    #[test]
    fn keys_alike_in_their_first_eight_bytes_are_ordered_by_the_rest() {
        let text = r#"{"abcdefghZ": 1, "abcdefgh": 2, "abcdefghA": 3, "a\u0000": 4, "a": 5, "a\u0000b": 6, "": 7, "é": 8, "\u00e9a": 9}"#;
        assert_eq!(by_text(text), by_value(text));
        assert_eq!(
            by_text(text).unwrap(),
            r#"{"":7,"a":5,"a\u0000":4,"a\u0000b":6,"abcdefgh":2,"abcdefghA":3,"abcdefghZ":1,"é":8,"éa":9}"#
        );
    }

    /// A short key's prefix is read eight bytes at a time from the text, the key's closing
    /// quote and what follows included: only the key's own bytes may order it.
    #[test]
    fn short_keys_are_ordered_by_their_own_bytes_not_the_text_after_them() {
        let text = r#"{"a ": 1, "a": 2, "a!": 3, "!": 4, " ": 5, "ab": 6, "a\"": 7}"#;
        assert_eq!(by_text(text), by_value(text));
        assert_eq!(
            by_text(text).unwrap(),
            r#"{" ":5,"!":4,"a":2,"a ":1,"a!":3,"a\"":7,"ab":6}"#
        );
    }

    #[test]
    fn what_is_not_json_is_refused() {
        for text in [
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "tru",
            "nul",
            "\"open",
            "\"\\x\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\u12\"",
            "01",
            "-01",
            "00",
            "1-2",
            "1+2",
            "0x1",
            "1.",
            "-",
            "+1",
            "1 2",
            "{1:2}",
            "\"tab\there\"",
        ] {
            assert!(by_text(text).is_none(), "{text:?} taken");
            assert!(by_value(text).is_none(), "serde_json takes {text:?}");
        }
    }

    #[test]
    fn a_repeated_key_is_kept_twice_so_the_hash_changes() {
        let text = r#"{"a": 1, "a": 2}"#;
        assert_eq!(by_text(text).unwrap(), r#"{"a":1,"a":2}"#);
        assert_eq!(by_value(text).unwrap(), r#"{"a":2}"#);
    }

    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            "\\PC{0,12}".prop_map(Value::from),
            "[\\x00-\\x20\"\\\\/a-z\u{e9}\u{1F0A1}]{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
                prop::collection::btree_map("(abcdefgh)?[a-z_\u{e9}]{0,5}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// The value's JSON with every object's keys in reverse order (as PostgreSQL, which orders
    /// them by length first, may send them).
    fn reversed_keys(value: &Value) -> String {
        match value {
            Value::Object(map) => {
                let members: Vec<String> = map
                    .iter()
                    .rev()
                    .map(|(k, v)| format!("{} : {}", Value::from(k.as_str()), reversed_keys(v)))
                    .collect();
                format!("{{ {} }}", members.join(" , "))
            }
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(reversed_keys).collect();
                format!("[{}]", items.join(","))
            }
            other => other.to_string(),
        }
    }

    proptest! {
        /// The same bytes as parsing the text into a value and writing that, for the text
        /// written compactly or with space (serde_json's pretty printer stands in for
        /// PostgreSQL's spaced `jsonb` text). (Parsed, not the value itself: serde_json reads
        /// some floats back a bit apart from the ones it wrote; both ways read the same.)
        #[test]
        fn the_text_gives_the_same_canonical_form_as_its_value(value in json()) {
            let compact = serde_json::to_string(&value).unwrap();
            let spaced = serde_json::to_string_pretty(&value).unwrap();
            prop_assert!(by_value(&compact).is_some());
            prop_assert_eq!(by_text(&compact), by_value(&compact));
            prop_assert_eq!(by_text(&spaced), by_value(&spaced));
            let reversed = reversed_keys(&value);
            prop_assert_eq!(by_text(&reversed), by_value(&compact));
        }
    }
}
