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
    let primary = service::connect(config)?;
    let read = service::read_pool(config, &primary)?;
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
        Some(path) => {
            // Written beside the target and renamed when complete: a failed export leaves no
            // file that looks whole.
            let part = path.with_extension(format!("{}.part", args.format.extension()));
            let file =
                File::create(&part).with_context(|| format!("creating {}", part.display()))?;
            match export::export(&mut conn, &query, clock, source, args.format, file) {
                Ok(written) => {
                    std::fs::rename(&part, path).with_context(|| {
                        format!("renaming {} to {}", part.display(), path.display())
                    })?;
                    written
                }
                Err(error) => {
                    let _ = std::fs::remove_file(&part);
                    return Err(error.into());
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
