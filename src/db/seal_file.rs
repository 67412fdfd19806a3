//! The copy of every day seal kept outside the database, and the checkpoints of the chain heads
//! between closes: one JSON line per closed gaming day or checkpoint, appended (and fsynced) to
//! the seal file and to its copy (`PUSOY_SEAL_COPY`) if there is one, read back by
//! `audit verify` and by the close. Someone able to rewrite the database (edit a row and re-hash
//! everything after it, the day chain and its seal included) still cannot make the chains agree
//! with these lines, which live elsewhere (another disk or a write-once store in production).

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::config::Zone;

/// A chain's head as sealed: its last event's number and hash (hex).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SealedHead {
    pub seq: i64,
    pub hash: String,
}

/// The heads a day seal fixes, by chain.
pub type SealedHeads = BTreeMap<String, SealedHead>;

/// One line of the seal file: a closed gaming day, the `day.closed` event that seals it (its
/// number on the `day` chain and hash), and the heads of every chain at the close.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SealCopy {
    pub gaming_day: NaiveDate,
    pub seal_seq: i64,
    pub seal_hash: String,
    pub closed_at: DateTime<Utc>,
    pub closed_by: String,
    pub heads: SealedHeads,
}

/// A line of the seal file that fixes every chain's head between closes: written at each shift
/// sign-off and by `serve` every few minutes while events are written. On file
/// `{"kind":"checkpoint","at":…,"heads":{…}}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    kind: CheckpointKind,
    /// When the heads were read.
    pub at: DateTime<Utc>,
    pub heads: SealedHeads,
}

/// The tag of a checkpoint line (a seal line, older, has none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum CheckpointKind {
    Checkpoint,
}

impl Checkpoint {
    pub fn new(at: DateTime<Utc>, heads: SealedHeads) -> Self {
        Checkpoint {
            kind: CheckpointKind::Checkpoint,
            at,
            heads,
        }
    }

    /// How verification and the close name it, in the casino's local time: "the checkpoint of
    /// 2026-11-27 11:40:12 (PHT, UTC+08:00)".
    pub fn name(&self, zone: Zone) -> String {
        format!(
            "the checkpoint of {} ({zone})",
            self.at
                .with_timezone(&zone.offset)
                .format("%Y-%m-%d %H:%M:%S")
        )
    }
}

/// One line of the seal file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Line {
    Seal(SealCopy),
    Checkpoint(Checkpoint),
}

impl Line {
    /// The heads the line fixes: a seal's (every chain but the day chain) or a checkpoint's.
    pub fn heads(&self) -> &SealedHeads {
        match self {
            Line::Seal(seal) => &seal.heads,
            Line::Checkpoint(checkpoint) => &checkpoint.heads,
        }
    }

    /// The line in words: "the seal of 2026-11-20" or "the checkpoint of …" (local time).
    pub fn name(&self, zone: Zone) -> String {
        match self {
            Line::Seal(seal) => format!("the seal of {}", seal.gaming_day),
            Line::Checkpoint(checkpoint) => checkpoint.name(zone),
        }
    }

    /// The day a problem with the line is listed under: a seal's gaming day, a checkpoint's date.
    pub fn day(&self) -> NaiveDate {
        match self {
            Line::Seal(seal) => seal.gaming_day,
            Line::Checkpoint(checkpoint) => checkpoint.at.date_naive(),
        }
    }
}

/// Where seal and checkpoint lines go: the seal file (`PUSOY_SEAL_FILE`) and, if set, a copy
/// the database's superuser cannot write (`PUSOY_SEAL_COPY`, another disk or host). Every line is
/// appended to both; verification reads both and names any line only one of them has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealFiles {
    pub file: PathBuf,
    pub copy: Option<PathBuf>,
    /// The casino's local time, in which their lines are named to people.
    pub zone: Zone,
}

impl SealFiles {
    pub fn of(config: &crate::config::Config) -> Self {
        SealFiles {
            file: config.seal_file.clone(),
            copy: config.seal_copy.clone(),
            zone: config.zone(),
        }
    }

    /// The paths, the seal file first, each with the words that name it.
    pub fn paths(&self) -> impl Iterator<Item = (&Path, &'static str)> {
        std::iter::once((self.file.as_path(), "the seal file"))
            .chain(self.copy.as_deref().map(|copy| (copy, "the seal copy")))
    }

    /// Appends `seal` to every path.
    pub fn append_seal(&self, seal: &SealCopy) -> Result<(), SealFileError> {
        self.paths().try_for_each(|(path, _)| append(path, seal))
    }

    /// Appends `checkpoint` to every path.
    pub fn append_checkpoint(&self, checkpoint: &Checkpoint) -> Result<(), SealFileError> {
        self.paths()
            .try_for_each(|(path, _)| append(path, checkpoint))
    }
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

/// Appends `line` (a [`SealCopy`] or a [`Checkpoint`]) to the file at `path` (creating it and its
/// directory) and waits until it is on disk.
pub fn append(path: &Path, seal: &impl Serialize) -> Result<(), SealFileError> {
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

/// Every seal in the file at `path`, in file order (checkpoints left out); none if the file
/// does not exist.
pub fn read(path: &Path) -> Result<Vec<SealCopy>, SealFileError> {
    Ok(read_lines(path)?
        .into_iter()
        .filter_map(|line| match line {
            Line::Seal(seal) => Some(seal),
            Line::Checkpoint(_) => None,
        })
        .collect())
}

/// Every line in the file at `path`, seals and checkpoints, in file order; none if the file
/// does not exist.
pub fn read_lines(path: &Path) -> Result<Vec<Line>, SealFileError> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(io_error(path)(err)),
    };
    let mut lines = Vec::new();
    for (index, text) in BufReader::new(file).lines().enumerate() {
        let text = text.map_err(io_error(path))?;
        if text.trim().is_empty() {
            continue;
        }
        let bad_line = |source| SealFileError::Line {
            path: path.display().to_string(),
            line: index + 1,
            source,
        };
        // A checkpoint names its kind; a seal (the only kind before checkpoints) does not. A
        // kind this build does not know (a later build's) is skipped.
        let mut value: serde_json::Value = serde_json::from_str(&text).map_err(bad_line)?;
        let kind = value
            .get("kind")
            .map(|kind| kind.as_str().map(str::to_owned));
        let line = match kind {
            None => Line::Seal(serde_json::from_value(value).map_err(bad_line)?),
            Some(Some(kind)) if kind == "seal" => {
                if let Some(object) = value.as_object_mut() {
                    object.remove("kind");
                }
                Line::Seal(serde_json::from_value(value).map_err(bad_line)?)
            }
            Some(Some(kind)) if kind != "checkpoint" => continue,
            Some(_) => Line::Checkpoint(serde_json::from_value(value).map_err(bad_line)?),
        };
        lines.push(line);
    }
    Ok(lines)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_is_named_in_the_casinos_local_time() {
        let at = DateTime::parse_from_rfc3339("2026-11-27T03:40:12Z")
            .unwrap()
            .with_timezone(&Utc);
        let zone = Zone {
            offset: chrono::FixedOffset::east_opt(8 * 3600).unwrap(),
            name: Some("PHT"),
        };
        let line = Line::Checkpoint(Checkpoint::new(at, SealedHeads::new()));
        assert_eq!(
            line.name(zone),
            "the checkpoint of 2026-11-27 11:40:12 (PHT, UTC+08:00)"
        );
    }

    #[test]
    fn seals_and_checkpoints_read_back_as_appended() {
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
        writeln!(file, "{{\"kind\":\"later\",\"heads\":{{}}}}").unwrap();
        append(&path, &seal(21)).unwrap();
        assert_eq!(read(&path).unwrap(), vec![seal(20), seal(21)]);
        let checkpoint = Checkpoint::new(at, seal(22).heads);
        append(&path, &checkpoint).unwrap();
        assert_eq!(read(&path).unwrap(), vec![seal(20), seal(21)], "seals only");
        assert_eq!(
            read_lines(&path).unwrap(),
            vec![
                Line::Seal(seal(20)),
                Line::Seal(seal(21)),
                Line::Checkpoint(checkpoint)
            ]
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.lines()
                .nth(3)
                .unwrap()
                .starts_with("{\"kind\":\"checkpoint\",\"at\":"),
            "{text}"
        );
        std::fs::write(&path, "{\"gaming_day\": 3}\n").unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(err.contains("line 1"), "{err}");
        std::fs::write(&path, "{\"kind\": \"checkpoint\", \"at\": 3}\n").unwrap();
        let err = read_lines(&path).unwrap_err().to_string();
        assert!(err.contains("line 1"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
