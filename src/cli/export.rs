//! `export rounds|events|report|accounting|compliance|ratings`: writes an export of a range of gaming days to a file or standard
//! output, read from the read database (`PUSOY_READ_DATABASE_URL`, else the primary).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use chrono::NaiveDate;

use crate::cli::service;
use crate::config::Config;
use crate::reports::export::{self, Clock, Format, Kind, Query};

/// The longest range one export takes, in gaming days.
pub const MOST_DAYS: i64 = 3660;

/// How long an export from a replica waits for it to replay the primary's position.
const REPLAY_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// What to export.
pub struct ExportArgs {
    pub kind: Kind,
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub table: Option<String>,
    pub format: Format,
    pub out: Option<PathBuf>,
}

/// Refuses an export onto the seal file, into the data directory (the private cluster, the
/// seal file and the passwords live there) or onto a directory.
fn refuse_protected(config: &Config, path: &std::path::Path) -> anyhow::Result<()> {
    if path.is_dir() {
        anyhow::bail!(
            "{} is a directory: give the export a file name",
            path.display()
        );
    }
    // Where the file would be: its directory resolved (links followed), and its name.
    let resolve = |p: &std::path::Path| -> Option<PathBuf> {
        let name = p.file_name()?;
        let dir = match p.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => std::path::Path::new("."),
        };
        Some(std::fs::canonicalize(dir).ok()?.join(name))
    };
    let target = resolve(path)
        .with_context(|| format!("{} is not a file in an existing directory", path.display()))?;
    let target = std::fs::canonicalize(&target).unwrap_or(target);
    let seal = resolve(&config.seal_file).map(|s| std::fs::canonicalize(&s).unwrap_or(s));
    if seal.as_ref() == Some(&target) {
        anyhow::bail!(
            "{} is the seal file: an export never overwrites it",
            path.display()
        );
    }
    if let Ok(data) = std::fs::canonicalize(&config.data_dir) {
        if target.starts_with(&data) {
            anyhow::bail!(
                "{} is in the data directory {} (the private database, the seal file and its \
                 passwords): write the export elsewhere",
                path.display(),
                data.display()
            );
        }
    }
    Ok(())
}

/// `export`: writes the export and says how many rows it holds (on standard error).
pub fn run(config: &Config, args: ExportArgs) -> anyhow::Result<()> {
    let query = Query {
        kind: args.kind,
        from: args.from,
        to: args.to,
        table: args.table,
    }
    .checked(MOST_DAYS)?;
    let primary = service::connect_sized(config, service::ONE_TASK_POOL)?;
    let read = service::read_pool(config, &primary, service::ONE_TASK_POOL)?;
    let mut conn = read.get().context("connecting to the read database")?;
    let source = if config.read_database_url.is_some() {
        let mut primary_conn = primary.get().ok();
        export::replay_check(&mut conn, primary_conn.as_deref_mut(), &query, REPLAY_WAIT)?
    } else {
        export::Source::primary()
    };
    let clock = Clock {
        utc_offset: config.utc_offset,
        gaming_day_start: config.gaming_day_start,
    };
    let written = match &args.out {
        // A device or a pipe (`/dev/null`, `/dev/stdout`, a FIFO) is written as it is: renamed
        // over, it would be replaced by a file.
        Some(path) if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) => {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .with_context(|| format!("opening {}", path.display()))?;
            let written = export::export(&mut conn, &query, clock, source, args.format, &mut file)?;
            file.flush()?;
            written
        }
        Some(path) => {
            refuse_protected(config, path)?;
            // Written beside the target under a new name of its own (created exclusively: no
            // file or link planted there is followed), on disk, and renamed when complete: a
            // failed export leaves no file that looks whole (the temporary file is removed on
            // every failure), and a whole one is whole after a crash.
            let dir = match path.parent() {
                Some(dir) if !dir.as_os_str().is_empty() => dir,
                _ => std::path::Path::new("."),
            };
            let mut part = tempfile::Builder::new()
                .prefix(".pusoy-export-")
                .suffix(".part")
                .tempfile_in(dir)
                .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
            let written = export::export(
                &mut conn,
                &query,
                clock,
                source,
                args.format,
                part.as_file_mut(),
            )?;
            part.as_file()
                .sync_all()
                .with_context(|| format!("writing {} to disk", part.path().display()))?;
            part.persist(path)
                .map_err(|err| err.error)
                .with_context(|| format!("renaming the export to {}", path.display()))?;
            written
        }
        None => {
            let stdout = std::io::stdout().lock();
            let written = export::export(&mut conn, &query, clock, source, args.format, stdout)?;
            std::io::stdout().flush()?;
            written
        }
    };
    eprintln!(
        "exported {} {} row(s) of gaming days {} to {}{}; the manifest is the last line",
        written.rows,
        query.kind.name(),
        query.from,
        query.to,
        args.out
            .as_ref()
            .map(|p| format!(" to {}", p.display()))
            .unwrap_or_default()
    );
    Ok(())
}
