//! `audit verify-export FILE`: checks an export with no database and says what is wrong, row
//! and field.

use std::path::Path;

use crate::reports::export;

/// How many problems are printed (all are counted).
const MOST_SHOWN: usize = 50;

/// Checks the export in `path`; prints the verdict. Returns whether it is intact.
pub fn verify_export(path: &Path) -> anyhow::Result<bool> {
    let verified = export::verify(path)?;
    let m = &verified.manifest;
    let table = m.query.table.as_deref().unwrap_or("all tables");
    if verified.problems.is_empty() {
        println!(
            "{}: intact: {} {} row(s), gaming days {} to {} ({table}), data SHA-256 {}",
            path.display(),
            verified.rows,
            m.kind.name(),
            m.query.from,
            m.query.to,
            m.data_sha256
        );
        for chain in &m.chains {
            if let Some(last) = &chain.last {
                println!(
                    "  chain {}: to seq {} hash {}",
                    chain.chain, last.seq, last.hash
                );
            }
        }
        for seal in &m.day_seals {
            println!(
                "  gaming day {} sealed: day seq {} hash {}",
                seal.gaming_day, seal.seal_seq, seal.seal_hash
            );
        }
        return Ok(true);
    }
    println!(
        "{}: NOT intact: {} problem(s) in {} row(s)",
        path.display(),
        verified.problems.len(),
        verified.rows
    );
    for problem in verified.problems.iter().take(MOST_SHOWN) {
        println!("  {problem}");
    }
    if verified.problems.len() > MOST_SHOWN {
        println!("  ... and {} more", verified.problems.len() - MOST_SHOWN);
    }
    Ok(false)
}
