//! `audit verify-export FILE [--seals SEALS]`: checks an export with no database and says what
//! is wrong, row and field; given the seal file (or an independently kept copy of it), checks
//! the export's chains and manifest against the day seals, and says what it could not check.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use crate::db::seal_file;
use crate::reports::export;

/// How many problems are printed (all are counted).
const MOST_SHOWN: usize = 50;

/// Checks the export in `path`, against the seals in the seal file `seals` when one is given;
/// prints the verdict. Returns whether it is intact.
pub fn verify_export(path: &Path, seals: Option<&Path>) -> anyhow::Result<bool> {
    let mut verdict = String::new();
    let intact = write_verdict(path, seals, &mut verdict)?;
    // A reader that stops early (`| head`) has what it wanted: the verdict still decides the
    // exit status.
    match std::io::stdout().lock().write_all(verdict.as_bytes()) {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => {}
        written => written?,
    }
    Ok(intact)
}

fn write_verdict(path: &Path, seals: Option<&Path>, out: &mut String) -> anyhow::Result<bool> {
    let copies = match seals {
        Some(seals) => {
            let copies = seal_file::read(seals)?;
            if copies.is_empty() {
                anyhow::bail!("the seal file {} holds no seal", seals.display());
            }
            Some(copies)
        }
        None => None,
    };
    let verified = export::verify_against(path, copies.as_deref())?;
    let notes = |out: &mut String| -> std::fmt::Result {
        for note in &verified.notes {
            writeln!(out, "  note: {note}")?;
        }
        Ok(())
    };
    let m = &verified.manifest;
    let table = m.query.table.as_deref().unwrap_or("all tables");
    if verified.problems.is_empty() {
        writeln!(
            out,
            "{}: intact: {} {} row(s), gaming days {} to {} ({table}), data SHA-256 {}",
            path.display(),
            verified.rows,
            m.kind.name(),
            m.query.from,
            m.query.to,
            m.data_sha256
        )?;
        for chain in &m.chains {
            if let Some(last) = &chain.last {
                writeln!(
                    out,
                    "  chain {}: to seq {} hash {}",
                    chain.chain, last.seq, last.hash
                )?;
            }
        }
        for seal in &m.day_seals {
            writeln!(
                out,
                "  gaming day {} sealed: day seq {} hash {}",
                seal.gaming_day, seal.seal_seq, seal.seal_hash
            )?;
        }
        if let Some(seals) = seals {
            writeln!(out, "  checked against the seals in {}", seals.display())?;
        }
        notes(out)?;
        return Ok(true);
    }
    writeln!(
        out,
        "{}: NOT intact: {} problem(s) in {} row(s)",
        path.display(),
        verified.problems.len(),
        verified.rows
    )?;
    for problem in verified.problems.iter().take(MOST_SHOWN) {
        writeln!(out, "  {problem}")?;
    }
    if verified.problems.len() > MOST_SHOWN {
        writeln!(
            out,
            "  ... and {} more",
            verified.problems.len() - MOST_SHOWN
        )?;
    }
    notes(out)?;
    Ok(false)
}
