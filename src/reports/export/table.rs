//! The rows of an export as a table: columns, fields, the sums of rows and columns, and the
//! writer of CSV or JSON Lines with its manifest trailer.

use std::fmt::Write as _;
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

/// The first column of every export; the last is the row's sum ([`Sums::row_column`]).
pub const ROW: &str = "row";

/// One value of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    Null,
    Int(i64),
    Text(String),
    Bool(bool),
    /// A JSON value, as its text.
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

    /// Adds the field to `row`.
    pub fn push_to(&self, row: &mut RowText) {
        match self {
            Field::Null => row.null(),
            Field::Int(n) => row.int(*n),
            Field::Text(text) => row.text(text),
            Field::Bool(b) => row.raw(if *b { "true" } else { "false" }),
            Field::Json(text) => row.raw(text),
        }
    }
}

/// How JSON Lines writes a field (CSV writes each as its text, NULL as nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Null,
    /// A number, a boolean or a JSON value: written as its text is.
    Raw,
    /// A string.
    Text,
}

/// One row as the file holds it: each field's text (which its sums cover: NULL is empty)
/// and shape, in one buffer that is reused from row to row.
#[derive(Debug, Default, Clone)]
pub struct RowText {
    text: String,
    /// Where each field's text ends in `text`, and its shape.
    ends: Vec<(usize, Shape)>,
}

impl RowText {
    pub fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
    }

    fn end(&mut self, shape: Shape) {
        self.ends.push((self.text.len(), shape));
    }

    pub fn null(&mut self) {
        self.end(Shape::Null);
    }

    pub fn int(&mut self, n: i64) {
        self.text.push_str(itoa::Buffer::new().format(n));
        self.end(Shape::Raw);
    }

    pub fn opt_int(&mut self, n: Option<i64>) {
        match n {
            Some(n) => self.int(n),
            None => self.null(),
        }
    }

    /// A number, boolean or JSON value, as its text.
    pub fn raw(&mut self, text: &str) {
        self.text.push_str(text);
        self.end(Shape::Raw);
    }

    pub fn text(&mut self, text: &str) {
        self.text.push_str(text);
        self.end(Shape::Text);
    }

    pub fn opt_text(&mut self, text: Option<&str>) {
        match text {
            Some(text) => self.text(text),
            None => self.null(),
        }
    }

    /// A field written by `write` into the row's buffer; what `write` returns.
    pub fn push_with<R>(&mut self, shape: Shape, write: impl FnOnce(&mut String) -> R) -> R {
        let written = write(&mut self.text);
        self.end(shape);
        written
    }

    /// Bytes as lowercase hex.
    pub fn hex(&mut self, bytes: &[u8]) {
        let mut digits = [0_u8; 64];
        for chunk in bytes.chunks(32) {
            let digits = &mut digits[..chunk.len() * 2];
            // The slice holds exactly two digits a byte, which are ASCII.
            if hex::encode_to_slice(chunk, digits).is_ok() {
                self.text
                    .push_str(std::str::from_utf8(digits).unwrap_or_default());
            }
        }
        self.end(Shape::Text);
    }

    /// The fields' texts and shapes, in order.
    pub fn fields(&self) -> impl Iterator<Item = (&str, Shape)> + Clone {
        let starts = std::iter::once(0).chain(self.ends.iter().map(|e| e.0));
        starts
            .zip(&self.ends)
            .map(|(start, &(end, shape))| (&self.text[start..end], shape))
    }

    fn texts(&self) -> impl Iterator<Item = &str> + Clone {
        self.fields().map(|(text, _)| text)
    }
}

/// How an export sums each row (its last column) and each column (in the manifest): a row's
/// sum is over its fields but the last, each followed by 0x1F; a column's over its values,
/// each followed by 0x1E. The sums only point at what changed (which row, which field): the
/// data's SHA-256 in the manifest proves the file, the events' hashes their chains, and the
/// engine the rounds' results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sums {
    /// Formats 1 and 2: a row's `row_sha256` (the first 16 bytes of the SHA-256) and each
    /// column's `column_sha256`.
    Sha256,
    /// Format 3: `row_crc32` and `column_crc32`, the CRC-32 that zlib and gzip compute
    /// (ISO-HDLC), 8 hex digits. It finds every change of up to 32 bits (any one byte), where
    /// SHA-256s of the rows and columns cost the export two more passes over every byte.
    Crc32,
}

impl Sums {
    /// The name of the last column, the row's sum.
    pub fn row_column(self) -> &'static str {
        match self {
            Sums::Sha256 => "row_sha256",
            Sums::Crc32 => "row_crc32",
        }
    }

    /// The name of the manifest's member with the columns' sums.
    pub fn columns_member(self) -> &'static str {
        match self {
            Sums::Sha256 => "column_sha256",
            Sums::Crc32 => "column_crc32",
        }
    }

    fn hash(self) -> SumHash {
        match self {
            Sums::Sha256 => SumHash::Sha256(Sha256::new()),
            Sums::Crc32 => SumHash::Crc32(crc32fast::Hasher::new()),
        }
    }

    /// The hash of a row's fields (the last, its sum, not among them).
    fn row_hash<'a>(self, fields: impl Iterator<Item = &'a str>) -> SumHash {
        let mut hash = self.hash();
        for field in fields {
            hash.update(field.as_bytes());
            hash.update(&[0x1f]);
        }
        hash
    }

    /// A row's sum, in hex, of its fields (the last, its sum, not among them).
    pub fn row<'a>(self, fields: impl Iterator<Item = &'a str>) -> String {
        let mut text = String::new();
        self.row_hash(fields).write_hex(ROW_SHA256_BYTES, &mut text);
        text
    }
}

/// A row's SHA-256 sum (formats 1 and 2) is its hash's first 16 bytes.
const ROW_SHA256_BYTES: usize = 16;

/// The sums written now (format 3).
pub const SUMS: Sums = Sums::Crc32;

enum SumHash {
    Sha256(Sha256),
    Crc32(crc32fast::Hasher),
}

impl SumHash {
    fn update(&mut self, bytes: &[u8]) {
        match self {
            SumHash::Sha256(hash) => hash.update(bytes),
            SumHash::Crc32(hash) => hash.update(bytes),
        }
    }

    /// Appends the sum in hex to `out`; a SHA-256 cut to its first `sha_bytes` bytes.
    fn write_hex(self, sha_bytes: usize, out: &mut String) {
        match self {
            SumHash::Sha256(hash) => out.push_str(&hex::encode(&hash.finalize()[..sha_bytes])),
            SumHash::Crc32(hash) => {
                let _ = write!(out, "{:08x}", hash.finalize());
            }
        }
    }
}

/// The sums of a table's columns as its rows go by, and the row count.
pub struct ColumnSums {
    columns: Vec<SumHash>,
    pub rows: u64,
}

impl ColumnSums {
    pub fn new(columns: usize, sums: Sums) -> ColumnSums {
        ColumnSums {
            columns: (0..columns).map(|_| sums.hash()).collect(),
            rows: 0,
        }
    }

    /// Adds a row's texts (every column, the row's sum included) to the column sums.
    pub fn add<'a>(&mut self, fields: impl Iterator<Item = &'a str>) {
        self.rows += 1;
        for (hash, field) in self.columns.iter_mut().zip(fields) {
            hash.update(field.as_bytes());
            hash.update(&[0x1e]);
        }
    }

    /// Each column's sum, in hex.
    pub fn finish(self) -> Vec<String> {
        self.columns
            .into_iter()
            .map(|hash| {
                let mut text = String::new();
                hash.write_hex(32, &mut text);
                text
            })
            .collect()
    }
}

/// A SHA-256 worked out on a thread of its own: the bytes are copied into chunks and handed
/// over, so hashing a file costs the thread that writes (or reads) it a copy, not a hash.
pub struct HashThread {
    chunk: Vec<u8>,
    chunks: std::sync::mpsc::SyncSender<Vec<u8>>,
    /// Chunks the hashing is done with, to fill again.
    spare: std::sync::mpsc::Receiver<Vec<u8>>,
    hashing: std::thread::JoinHandle<Sha256>,
}

/// Bytes to a chunk, and chunks the hashing may be behind.
const HASH_CHUNK: usize = 64 << 10;
const HASH_QUEUE: usize = 8;

impl Default for HashThread {
    fn default() -> HashThread {
        let (chunks, received) = std::sync::mpsc::sync_channel::<Vec<u8>>(HASH_QUEUE);
        let (give_back, spare) = std::sync::mpsc::channel();
        let hashing = std::thread::spawn(move || {
            let mut hash = Sha256::new();
            for chunk in received {
                hash.update(&chunk);
                let _ = give_back.send(chunk);
            }
            hash
        });
        HashThread {
            chunk: Vec::with_capacity(HASH_CHUNK * 2),
            chunks,
            spare,
            hashing,
        }
    }
}

impl HashThread {
    pub fn update(&mut self, bytes: &[u8]) {
        self.chunk.extend_from_slice(bytes);
        if self.chunk.len() >= HASH_CHUNK {
            self.hand_over();
        }
    }

    fn hand_over(&mut self) {
        let mut next = self
            .spare
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(HASH_CHUNK * 2));
        next.clear();
        let full = std::mem::replace(&mut self.chunk, next);
        // A hashing thread that is gone has panicked, which `finish` passes on.
        let _ = self.chunks.send(full);
    }

    /// The SHA-256 of every byte given.
    pub fn finish(mut self) -> [u8; 32] {
        if !self.chunk.is_empty() {
            self.hand_over();
        }
        drop(self.chunks);
        match self.hashing.join() {
            Ok(hash) => hash.finalize().into(),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// Passes bytes on to `inner` and hashes them ([`HashThread`]).
pub struct Hashing<W> {
    inner: W,
    hash: HashThread,
}

impl<W: Write> Hashing<W> {
    pub fn new(inner: W) -> Hashing<W> {
        Hashing {
            inner,
            hash: HashThread::default(),
        }
    }

    /// The SHA-256 of every byte written, and the writer they went to.
    pub fn finish(self) -> ([u8; 32], W) {
        (self.hash.finish(), self.inner)
    }
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

/// Numbers rows and ends each with its digest: the half of writing a table that needs only
/// the rows, which the events export runs beside its reading.
#[derive(Debug, Default)]
pub struct Numbering {
    rows: u64,
}

impl Numbering {
    /// Starts `row` as the next one: clears it and adds its number.
    pub fn begin(&mut self, row: &mut RowText) {
        self.rows += 1;
        row.clear();
        row.int(i64::try_from(self.rows).unwrap_or(i64::MAX));
    }

    /// Ends `row` (its own fields added) with its sum ([`SUMS`]).
    pub fn end(&mut self, row: &mut RowText) {
        let hash = SUMS.row_hash(row.texts());
        row.push_with(Shape::Text, |text| {
            hash.write_hex(ROW_SHA256_BYTES, text);
        });
    }
}

impl ColumnSums {
    /// Adds a whole row (numbered and ended) to the column sums.
    pub fn add_row(&mut self, row: &RowText) {
        self.add(row.texts());
    }
}

enum Out<W: Write> {
    Csv(Box<csv::Writer<Hashing<W>>>),
    Jsonl(std::io::BufWriter<Hashing<W>>),
}

/// Writes rows made by [`Numbering`] to the file, and then the manifest.
pub struct Sink<W: Write> {
    columns: Vec<(&'static str, ColumnKind)>,
    out: Out<W>,
    /// A JSON Lines row being written.
    line: String,
}

impl<W: Write> Sink<W> {
    /// `own`: the kind's own columns (without `row` and the row's sum). Writes CSV's header.
    pub fn new(
        format: Format,
        own: &[(&'static str, ColumnKind)],
        out: W,
    ) -> Result<Self, ExportError> {
        let mut columns = vec![(ROW, ColumnKind::Int)];
        columns.extend_from_slice(own);
        columns.push((SUMS.row_column(), ColumnKind::Text));
        let out = Hashing::new(out);
        let file = match format {
            Format::Csv => {
                let mut writer = csv::WriterBuilder::new()
                    .buffer_capacity(1 << 16)
                    .from_writer(out);
                writer.write_record(columns.iter().map(|c| c.0))?;
                Out::Csv(Box::new(writer))
            }
            Format::Jsonl => Out::Jsonl(std::io::BufWriter::with_capacity(1 << 16, out)),
        };
        Ok(Sink {
            line: String::new(),
            columns,
            out: file,
        })
    }

    pub fn column_names(&self) -> Vec<String> {
        self.columns.iter().map(|c| c.0.to_owned()).collect()
    }

    /// Writes one whole row (numbered and digested).
    pub fn write(&mut self, row: &RowText) -> Result<(), ExportError> {
        match &mut self.out {
            Out::Csv(writer) => writer.write_record(row.texts())?,
            Out::Jsonl(out) => {
                // Written as serde_json writes a map, compactly (a JSON value is already
                // canonical text, which is how serde_json writes its value).
                let line = &mut self.line;
                line.clear();
                line.push('{');
                for (i, ((name, _), (text, shape))) in
                    self.columns.iter().zip(row.fields()).enumerate()
                {
                    if i > 0 {
                        line.push(',');
                    }
                    write_json_string(name, line);
                    line.push(':');
                    match shape {
                        Shape::Null => line.push_str("null"),
                        Shape::Text => write_json_string(text, line),
                        Shape::Raw => line.push_str(text),
                    }
                }
                line.push_str("}\n");
                out.write_all(line.as_bytes())?;
            }
        }
        Ok(())
    }

    /// Completes `manifest` with the table's columns, count and sums (`column_sums`, of the rows
    /// written, as [`SUMS`]), and writes it last.
    pub fn finish(
        self,
        column_sums: ColumnSums,
        mut manifest: Manifest,
    ) -> Result<u64, ExportError> {
        let rows = column_sums.rows;
        manifest.columns = self.column_names();
        manifest.rows = rows;
        manifest.column_crc32 = column_sums.finish();
        let (out, csv) = match self.out {
            Out::Csv(writer) => (
                (*writer)
                    .into_inner()
                    .map_err(|e| ExportError::Io(e.into_error()))?,
                true,
            ),
            Out::Jsonl(writer) => (
                writer
                    .into_inner()
                    .map_err(|e| ExportError::Io(e.into_error()))?,
                false,
            ),
        };
        let (data_sha256, mut out) = out.finish();
        manifest.data_sha256 = hex::encode(data_sha256);
        let json = serde_json::to_string(&manifest).map_err(std::io::Error::from)?;
        let out = &mut out;
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

/// Writes rows (numbering them and adding their sums) and then the manifest, on one thread.
pub struct TableWriter<W: Write> {
    numbering: Numbering,
    column_sums: ColumnSums,
    row: RowText,
    sink: Sink<W>,
}

impl<W: Write> TableWriter<W> {
    /// `own`: the kind's own columns (without `row` and the row's sum).
    pub fn new(
        format: Format,
        own: &[(&'static str, ColumnKind)],
        out: W,
    ) -> Result<Self, ExportError> {
        Ok(TableWriter {
            numbering: Numbering::default(),
            column_sums: ColumnSums::new(own.len() + 2, SUMS),
            row: RowText::default(),
            sink: Sink::new(format, own, out)?,
        })
    }

    /// Writes one row of the kind's own columns.
    pub fn write(&mut self, fields: &[Field]) -> Result<(), ExportError> {
        self.numbering.begin(&mut self.row);
        for field in fields {
            field.push_to(&mut self.row);
        }
        self.numbering.end(&mut self.row);
        self.column_sums.add_row(&self.row);
        self.sink.write(&self.row)
    }

    /// Completes `manifest` with the table's columns, count and sums, and writes it last.
    pub fn finish(self, manifest: Manifest) -> Result<u64, ExportError> {
        self.sink.finish(self.column_sums, manifest)
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
        let name = "tab\there \"quoted\" \\ é 🂡 \u{7f}\u{1f}";
        let details = serde_json::json!({"a": [1, -2.5, null], "b": "x\"\u{1}é\n"});
        let mut out = Vec::new();
        {
            let mut sink = Sink::new(Format::Jsonl, &own, &mut out).unwrap();
            let mut numbering = Numbering::default();
            let mut row = RowText::default();
            numbering.begin(&mut row);
            Field::Int(-42).push_to(&mut row);
            Field::text(name).push_to(&mut row);
            Field::Bool(true).push_to(&mut row);
            Field::Null.push_to(&mut row);
            row.raw(&details.to_string());
            numbering.end(&mut row);
            sink.write(&row).unwrap();
            let Out::Jsonl(mut file) = sink.out else {
                unreachable!("a JSON Lines writer")
            };
            file.flush().unwrap();
        }
        let line = String::from_utf8(out).unwrap();
        let details_text = details.to_string();
        let sum = SUMS.row(["1", "-42", name, "true", "", details_text.as_str()].into_iter());
        let mut expected = serde_json::Map::new();
        expected.insert("row".into(), 1.into());
        expected.insert("n".into(), (-42).into());
        expected.insert("name".into(), name.into());
        expected.insert("flag".into(), true.into());
        expected.insert("gone".into(), serde_json::Value::Null);
        expected.insert("details".into(), details);
        expected.insert("row_crc32".into(), sum.into());
        // The columns' order, not the map's (which sorts its keys).
        let ordered: Vec<String> = ["row", "n", "name", "flag", "gone", "details", "row_crc32"]
            .iter()
            .map(|k| format!("{}:{}", serde_json::to_string(k).unwrap(), expected[*k]))
            .collect();
        assert_eq!(line, format!("{{{}}}\n", ordered.join(",")));
    }

    /// The CRC-32 sums are the one zlib, gzip and Python's `zlib.crc32` compute, so an auditor
    /// can check one with no program of ours: a column of the values `123456789` and the empty
    /// one is `zlib.crc32(b"123456789\x1e\x1e")`, `f34cd09b`; a row of the fields `1` and
    /// `abc` (then its sum) is `zlib.crc32(b"1\x1fabc\x1f")`, `9745cf41`. Formats 1 and 2
    /// took the first 16 bytes of a row's SHA-256.
    #[test]
    fn sums_are_zlibs_crc32_over_each_value_and_its_separator() {
        let mut column = ColumnSums::new(1, SUMS);
        column.add(["123456789"].into_iter());
        column.add([""].into_iter());
        assert_eq!(column.rows, 2);
        assert_eq!(column.finish(), ["f34cd09b"]);
        assert_eq!(SUMS.row(["1", "abc"].into_iter()), "9745cf41");
        let mut numbering = Numbering::default();
        let mut row = RowText::default();
        numbering.begin(&mut row);
        row.text("abc");
        numbering.end(&mut row);
        assert_eq!(row.texts().collect::<Vec<_>>(), ["1", "abc", "9745cf41"]);
        assert_eq!(
            Sums::Sha256.row(["1", "abc"].into_iter()),
            hex::encode(&Sha256::digest(b"1\x1fabc\x1f")[..16])
        );
    }

    /// Hex written by the row is what the `hex` crate writes, for hashes and any other length.
    #[test]
    fn hex_fields_are_lowercase_pairs() {
        for len in [0, 1, 16, 31, 32, 33, 64, 65] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let mut row = RowText::default();
            row.hex(&bytes);
            assert_eq!(row.texts().collect::<Vec<_>>(), [hex::encode(&bytes)]);
        }
    }
}
