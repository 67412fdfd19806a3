//! The copy of every day seal kept outside the database: one JSON line per closed gaming day,
//! appended (and fsynced) by the close, read back by `audit verify`. Someone able to rewrite the
//! database (edit a row and re-hash everything after it, the day chain and its seal included)
//! still cannot make the chains agree with these copies, which live elsewhere (another disk or
//! a write-once store in production).

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

/// A chain's head as sealed: its last event's number and hash (hex).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SealedHead {
    pub seq: i64,
    pub hash: String,
}

/// The heads a day seal fixes, by chain.
pub type SealedHeads = BTreeMap<String, SealedHead>;

/// One line of the seal file: a closed gaming day, the `day.closed` event that seals it (its
/// number on the `day` chain and hash), and the heads of every chain at the close.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SealCopy {
    pub gaming_day: NaiveDate,
    pub seal_seq: i64,
    pub seal_hash: String,
    pub closed_at: DateTime<Utc>,
    pub closed_by: String,
    pub heads: SealedHeads,
}

#[derive(Debug, thiserror::Error)]
pub enum SealFileError {
    #[error("seal file {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("seal file {path} line {line}: {source}")]
    Line {
        path: String,
        line: usize,
        source: serde_json::Error,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> SealFileError + '_ {
    move |source| SealFileError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Appends `seal` to the file at `path` (creating it and its directory) and waits until it is
/// on disk.
pub fn append(path: &Path, seal: &SealCopy) -> Result<(), SealFileError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io_error(path))?;
    }
    let mut line = serde_json::to_string(seal).map_err(|source| SealFileError::Line {
        path: path.display().to_string(),
        line: 0,
        source,
    })?;
    line.push('\n');
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io_error(path))?;
    file.write_all(line.as_bytes()).map_err(io_error(path))?;
    file.sync_all().map_err(io_error(path))?;
    Ok(())
}

/// The seal on one line of the file, if the line is one: a line of another kind (an object with
/// a `kind` other than `seal`, which later lines may add) is skipped.
fn seal_of_line(line: &str) -> Result<Option<SealCopy>, serde_json::Error> {
    let mut value: serde_json::Value = serde_json::from_str(line)?;
    if let Some(object) = value.as_object_mut() {
        match object.get("kind").and_then(serde_json::Value::as_str) {
            Some("seal") => {
                object.remove("kind");
            }
            Some(_) => return Ok(None),
            None => {}
        }
    }
    serde_json::from_value(value).map(Some)
}

/// Every seal in the file at `path`, in file order (lines of other kinds skipped); none if the
/// file does not exist.
pub fn read(path: &Path) -> Result<Vec<SealCopy>, SealFileError> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(io_error(path)(err)),
    };
    let mut seals = Vec::new();
    for (index, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(io_error(path))?;
        if line.trim().is_empty() {
            continue;
        }
        let seal = seal_of_line(&line).map_err(|source| SealFileError::Line {
            path: path.display().to_string(),
            line: index + 1,
            source,
        })?;
        seals.extend(seal);
    }
    Ok(seals)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn seals_read_back_as_appended() {
        let dir = std::env::temp_dir().join(format!("seal-file-test-{}", std::process::id()));
        let path = dir.join("nested").join("seals.jsonl");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(read(&path).unwrap().is_empty());
        let at = Utc::now();
        let seal = |day: u32| SealCopy {
            gaming_day: NaiveDate::from_ymd_opt(2026, 11, day).unwrap(),
            seal_seq: i64::from(day),
            seal_hash: "ab".repeat(32),
            closed_at: at,
            closed_by: "supervisor".to_owned(),
            heads: [(
                "table:1".to_owned(),
                SealedHead {
                    seq: 7,
                    hash: "cd".repeat(32),
                },
            )]
            .into(),
        };
        append(&path, &seal(20)).unwrap();
        // A line of a kind this build does not know is skipped.
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        writeln!(file, "{{\"kind\":\"checkpoint\",\"heads\":{{}}}}").unwrap();
        append(&path, &seal(21)).unwrap();
        assert_eq!(read(&path).unwrap(), vec![seal(20), seal(21)]);
        std::fs::write(&path, "{\"gaming_day\": 3}\n").unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(err.contains("line 1"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
