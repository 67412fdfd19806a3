//! The rows of an export as a table: columns, fields, the digests of rows and columns, and the
//! writer of CSV or JSON Lines with its manifest trailer.

use std::io::Write;

use sha2::{Digest, Sha256};

use crate::db::canonical_json::write_json_string;

use super::{ExportError, Manifest};

/// The file format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Jsonl,
}

impl Format {
    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Format::Csv => "text/csv; charset=utf-8",
            Format::Jsonl => "application/jsonl; charset=utf-8",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(text: &str) -> Result<Format, String> {
        match text {
            "csv" => Ok(Format::Csv),
            "jsonl" => Ok(Format::Jsonl),
            other => Err(format!("format {other:?}: expected csv or jsonl")),
        }
    }
}

/// What a column's values are in JSON Lines (CSV holds text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    Int,
    Text,
    Bool,
    /// A JSON value written as itself (an event's details).
    Json,
}

/// The first and last columns of every export.
pub const ROW: &str = "row";
pub const ROW_SHA256: &str = "row_sha256";

/// One value of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    Null,
    Int(i64),
    Text(String),
    Bool(bool),
    /// JSON text in canonical form (`db::canonical_json`), written as it is.
    Json(String),
}

impl Field {
    pub fn text(value: impl Into<String>) -> Field {
        Field::Text(value.into())
    }

    pub fn opt_text(value: Option<impl Into<String>>) -> Field {
        value.map_or(Field::Null, |v| Field::Text(v.into()))
    }

    pub fn opt_int(value: Option<i64>) -> Field {
        value.map_or(Field::Null, Field::Int)
    }

    pub fn opt_bool(value: Option<bool>) -> Field {
        value.map_or(Field::Null, Field::Bool)
    }

    /// The field as CSV holds it, which is also the text its digests cover: NULL is empty.
    pub fn write_text(&self, out: &mut String) {
        use std::fmt::Write as _;
        match self {
            Field::Null => {}
            Field::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Field::Text(text) => out.push_str(text),
            Field::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Field::Json(text) => out.push_str(text),
        }
    }
}

/// The digests of a table as its rows go by: each row's, each column's, and the row count.
pub struct Digests {
    columns: Vec<Sha256>,
    pub rows: u64,
}

/// A row's digest: the first 16 bytes of the SHA-256 of its fields but the last, each followed
/// by the unit separator, in hex.
pub fn row_digest<'a>(fields: impl Iterator<Item = &'a str>) -> String {
    let mut hash = Sha256::new();
    for field in fields {
        hash.update(field.as_bytes());
        hash.update([0x1f]);
    }
    hex::encode(&hash.finalize()[..16])
}

impl Digests {
    pub fn new(columns: usize) -> Digests {
        Digests {
            columns: (0..columns).map(|_| Sha256::new()).collect(),
            rows: 0,
        }
    }

    /// Adds a row's texts (every column, `row_sha256` included) to the column digests.
    pub fn add<'a>(&mut self, fields: impl Iterator<Item = &'a str>) {
        self.rows += 1;
        for (hash, field) in self.columns.iter_mut().zip(fields) {
            hash.update(field.as_bytes());
            hash.update([0x1e]);
        }
    }

    pub fn finish(self) -> Vec<String> {
        self.columns
            .into_iter()
            .map(|hash| hex::encode(hash.finalize()))
            .collect()
    }
}

/// Passes bytes on to `inner` and hashes them.
pub struct Hashing<W> {
    pub inner: W,
    pub hash: Sha256,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

enum Sink<W: Write> {
    Csv(Box<csv::Writer<Hashing<W>>>),
    Jsonl(std::io::BufWriter<Hashing<W>>),
}

/// Writes rows (numbering them and adding their digests) and then the manifest.
pub struct TableWriter<W: Write> {
    columns: Vec<(&'static str, ColumnKind)>,
    sink: Sink<W>,
    texts: Vec<String>,
    /// A JSON Lines row being written.
    line: String,
    digests: Digests,
}

impl<W: Write> TableWriter<W> {
    /// `columns`: the kind's own columns (without `row` and `row_sha256`).
    pub fn new(
        format: Format,
        own: &[(&'static str, ColumnKind)],
        out: W,
    ) -> Result<Self, ExportError> {
        let mut columns = vec![(ROW, ColumnKind::Int)];
        columns.extend_from_slice(own);
        columns.push((ROW_SHA256, ColumnKind::Text));
        let out = Hashing {
            inner: out,
            hash: Sha256::new(),
        };
        let sink = match format {
            Format::Csv => {
                let mut writer = csv::WriterBuilder::new()
                    .buffer_capacity(1 << 16)
                    .from_writer(out);
                writer.write_record(columns.iter().map(|c| c.0))?;
                Sink::Csv(Box::new(writer))
            }
            Format::Jsonl => Sink::Jsonl(std::io::BufWriter::with_capacity(1 << 16, out)),
        };
        Ok(TableWriter {
            texts: vec![String::new(); columns.len()],
            line: String::new(),
            digests: Digests::new(columns.len()),
            columns,
            sink,
        })
    }

    pub fn column_names(&self) -> Vec<String> {
        self.columns.iter().map(|c| c.0.to_owned()).collect()
    }

    /// Writes one row of the kind's own columns.
    pub fn write(&mut self, fields: &[Field]) -> Result<(), ExportError> {
        let number = self.digests.rows + 1;
        let last = self.texts.len() - 1;
        for text in &mut self.texts {
            text.clear();
        }
        self.texts[0].push_str(&number.to_string());
        for (text, field) in self.texts[1..last].iter_mut().zip(fields) {
            field.write_text(text);
        }
        let digest = row_digest(self.texts[..last].iter().map(String::as_str));
        self.texts[last] = digest;
        self.digests.add(self.texts.iter().map(String::as_str));
        match &mut self.sink {
            Sink::Csv(writer) => writer.write_record(&self.texts)?,
            Sink::Jsonl(out) => {
                // Written as serde_json writes a map, compactly (a JSON value is already
                // canonical text, which is how serde_json writes its value).
                let line = &mut self.line;
                line.clear();
                line.push('{');
                let number = Field::Int(i64::try_from(number).unwrap_or(i64::MAX));
                let digest = Field::Text(std::mem::take(&mut self.texts[last]));
                let all = std::iter::once(&number)
                    .chain(fields)
                    .chain(std::iter::once(&digest));
                for (i, ((name, _), field)) in self.columns.iter().zip(all).enumerate() {
                    if i > 0 {
                        line.push(',');
                    }
                    write_json_string(name, line);
                    line.push(':');
                    match field {
                        Field::Null => line.push_str("null"),
                        Field::Text(text) => write_json_string(text, line),
                        other => other.write_text(line),
                    }
                }
                line.push_str("}\n");
                out.write_all(line.as_bytes())?;
            }
        }
        Ok(())
    }

    /// Completes `manifest` with the table's columns, count and digests, and writes it last.
    pub fn finish(self, mut manifest: Manifest) -> Result<u64, ExportError> {
        let rows = self.digests.rows;
        manifest.columns = self.column_names();
        manifest.rows = rows;
        manifest.column_sha256 = self.digests.finish();
        let (mut out, csv) = match self.sink {
            Sink::Csv(writer) => (
                (*writer)
                    .into_inner()
                    .map_err(|e| ExportError::Io(e.into_error()))?,
                true,
            ),
            Sink::Jsonl(writer) => (
                writer
                    .into_inner()
                    .map_err(|e| ExportError::Io(e.into_error()))?,
                false,
            ),
        };
        manifest.data_sha256 = hex::encode(out.hash.finalize_reset());
        let json = serde_json::to_string(&manifest).map_err(std::io::Error::from)?;
        let out = &mut out.inner;
        if csv {
            let mut writer = csv::Writer::from_writer(&mut *out);
            writer.write_record([MANIFEST_MARK, json.as_str()])?;
            writer.flush()?;
        } else {
            writeln!(out, "{{\"manifest\":{json}}}")?;
        }
        out.flush()?;
        Ok(rows)
    }
}

/// The first field of a CSV export's trailer record.
pub const MANIFEST_MARK: &str = "#manifest";

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A JSON Lines row is written by hand: the same bytes as serde_json writes the row as a
    /// map (which is what `verify-export` reads back and what older exports hold).
    #[test]
    fn a_json_lines_row_is_what_serde_json_writes() {
        let own = [
            ("n", ColumnKind::Int),
            ("name", ColumnKind::Text),
            ("flag", ColumnKind::Bool),
            ("gone", ColumnKind::Text),
            ("details", ColumnKind::Json),
        ];
        let details = serde_json::json!({"a": [1, -2.5, null], "b": "x\"\u{1}é\n"});
        let fields = [
            Field::Int(-42),
            Field::text("tab\there \"quoted\" \\ é 🂡 \u{7f}\u{1f}"),
            Field::Bool(true),
            Field::Null,
            Field::Json(details.to_string()),
        ];
        let mut out = Vec::new();
        {
            let mut writer = TableWriter::new(Format::Jsonl, &own, &mut out).unwrap();
            writer.write(&fields).unwrap();
            let Sink::Jsonl(mut sink) = writer.sink else {
                unreachable!("a JSON Lines writer")
            };
            sink.flush().unwrap();
        }
        let line = String::from_utf8(out).unwrap();
        let digest = {
            let texts: Vec<String> = std::iter::once("1".to_owned())
                .chain(fields.iter().map(|f| {
                    let mut text = String::new();
                    f.write_text(&mut text);
                    text
                }))
                .collect();
            row_digest(texts.iter().map(String::as_str))
        };
        let mut expected = serde_json::Map::new();
        expected.insert("row".into(), 1.into());
        expected.insert("n".into(), (-42).into());
        expected.insert(
            "name".into(),
            "tab\there \"quoted\" \\ é 🂡 \u{7f}\u{1f}".into(),
        );
        expected.insert("flag".into(), true.into());
        expected.insert("gone".into(), serde_json::Value::Null);
        expected.insert("details".into(), details);
        expected.insert("row_sha256".into(), digest.into());
        // The columns' order, not the map's (which sorts its keys).
        let ordered: Vec<String> = ["row", "n", "name", "flag", "gone", "details", "row_sha256"]
            .iter()
            .map(|k| format!("{}:{}", serde_json::to_string(k).unwrap(), expected[*k]))
            .collect();
        assert_eq!(line, format!("{{{}}}\n", ordered.join(",")));
    }
}
