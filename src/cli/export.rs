//! `export rounds|events`: writes an export of a range of gaming days to a file or standard
//! output, read from the read database (`PUSOY_READ_DATABASE_URL`, else the primary).

use std::fs::File;
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
            // Written beside the target, on disk, and renamed when complete: a failed export
            // leaves no file that looks whole, and a whole one is whole after a crash.
            let part = path.with_extension(format!("{}.part", args.format.extension()));
            let file =
                File::create(&part).with_context(|| format!("creating {}", part.display()))?;
            match export::export(&mut conn, &query, clock, source, args.format, &file)
                .map_err(anyhow::Error::from)
                .and_then(|written| {
                    file.sync_all()
                        .with_context(|| format!("writing {} to disk", part.display()))?;
                    Ok(written)
                }) {
                Ok(written) => {
                    std::fs::rename(&part, path).with_context(|| {
                        format!("renaming {} to {}", part.display(), path.display())
                    })?;
                    written
                }
                Err(error) => {
                    let _ = std::fs::remove_file(&part);
                    return Err(error);
                }
            }
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
