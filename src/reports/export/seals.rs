//! What `verify-export --seals FILE` checks an export against: the day seals kept outside the
//! database (the app's seal file, or an independently kept copy of it). Each seal fixes the
//! `day.closed` event (its seq and hash on the `day` chain) and the head of every chain at the
//! close; an export's chains, walked event by event, must pass through those positions with
//! those hashes, and its manifest's seals must be the file's.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};

use crate::db::days::DAY_CHAIN;
use crate::db::seal_file::SealCopy;

use super::check::Problems;
use super::Manifest;

/// A position a seal fixes on a chain: its hash and which seal says so.
#[derive(Debug, Clone)]
pub(super) struct Fixed {
    pub hash: String,
    pub by: String,
    /// The gaming day sealed, and when.
    pub day: NaiveDate,
    pub closed_at: DateTime<Utc>,
}

/// The positions the seals fix, by chain and seq.
#[derive(Debug, Default)]
pub(super) struct Sealed {
    by_chain: BTreeMap<String, BTreeMap<i64, Fixed>>,
}

impl Sealed {
    pub(super) fn of(copies: &[SealCopy]) -> Sealed {
        let mut sealed = Sealed::default();
        for copy in copies {
            let by = format!("the seal of {} in the seal file", copy.gaming_day);
            let mut fix = |chain: &str, seq: i64, hash: &str| {
                sealed.by_chain.entry(chain.to_owned()).or_default().insert(
                    seq,
                    Fixed {
                        hash: hash.to_owned(),
                        by: by.clone(),
                        day: copy.gaming_day,
                        closed_at: copy.closed_at,
                    },
                );
            };
            fix(DAY_CHAIN, copy.seal_seq, &copy.seal_hash);
            for (chain, head) in &copy.heads {
                fix(chain, head.seq, &head.hash);
            }
        }
        sealed
    }

    /// What a seal fixes at `seq` of `chain`.
    pub(super) fn at(&self, chain: &str, seq: i64) -> Option<&Fixed> {
        self.by_chain.get(chain)?.get(&seq)
    }
}

/// The export's range of gaming days, and when it was read.
pub(super) struct Range {
    from: NaiveDate,
    to: NaiveDate,
    exported_at: Option<DateTime<Utc>>,
}

impl Range {
    pub(super) fn of(manifest: &Manifest) -> Range {
        Range {
            from: manifest.query.from,
            to: manifest.query.to,
            exported_at: DateTime::parse_from_rfc3339(&manifest.exported_at)
                .ok()
                .map(|at| at.with_timezone(&Utc)),
        }
    }

    /// Whether the export should reach what `fixed` fixes: the seal of a day of its range,
    /// made before it was read.
    fn should_reach(&self, fixed: &Fixed) -> bool {
        (self.from..=self.to).contains(&fixed.day)
            && self.exported_at.is_some_and(|at| fixed.closed_at <= at)
    }
}

/// What is known of the seals while an export is checked: none given, or the seal file's.
pub(super) enum Seals {
    NotGiven,
    Given(Sealed),
}

impl Seals {
    pub(super) fn at(&self, chain: &str, seq: i64) -> Option<&Fixed> {
        match self {
            Seals::NotGiven => None,
            Seals::Given(sealed) => sealed.at(chain, seq),
        }
    }

    /// Says how far the export's part of `chain`, which ends at `end` (seq), was checked
    /// against the seals: a seal of a day of the range, made before the export was read, that
    /// fixes a later position means events are missing at the end (a problem); events after
    /// the last position a seal fixes were not checked against one (a note), nor was anything
    /// without seals.
    pub(super) fn coverage(&self, chain: &str, end: i64, range: &Range, problems: &mut Problems) {
        let Seals::Given(sealed) = self else {
            return;
        };
        let positions = sealed.by_chain.get(chain);
        let beyond = positions.and_then(|p| {
            p.range(end + 1..)
                .find(|(_, fixed)| range.should_reach(fixed))
        });
        if let Some((seq, fixed)) = beyond {
            problems.file(format!(
                "chain {chain}: {} (made before the export was read) fixes seq {seq}, the \
                 export ends at seq {end}: events missing at the end",
                fixed.by
            ));
            return;
        }
        match positions.and_then(|p| p.range(..=end).next_back()) {
            Some((seq, _)) if *seq == end => {}
            Some((seq, _)) => problems.note(format!(
                "chain {chain}: seq {} to {end} are after the last position a seal fixes \
                 (seq {seq}): not checked against a seal",
                seq + 1
            )),
            None => problems.note(format!(
                "chain {chain}: no seal in the seal file fixes a position up to seq {end}: not \
                 checked against a seal"
            )),
        }
    }
}

/// Compares the manifest's day seals with the seal file's: each must be there, the same.
pub(super) fn check_manifest(manifest: &Manifest, copies: &[SealCopy], problems: &mut Problems) {
    for seal in &manifest.day_seals {
        let day = seal.gaming_day;
        let Some(copy) = copies.iter().find(|c| c.gaming_day == day) else {
            problems.file(format!(
                "the manifest's seal of {day} is not in the seal file"
            ));
            continue;
        };
        if copy.seal_seq != seal.seal_seq || copy.seal_hash != seal.seal_hash {
            problems.file(format!(
                "the manifest's seal of {day} (day seq {} hash {}) is not the seal file's \
                 (day seq {} hash {})",
                seal.seal_seq, seal.seal_hash, copy.seal_seq, copy.seal_hash
            ));
        }
        for (chain, head) in &seal.heads {
            match copy.heads.get(chain) {
                Some(sealed) if sealed.seq == head.seq && sealed.hash == head.hash => {}
                Some(sealed) => problems.file(format!(
                    "the manifest's seal of {day} fixes chain {chain} at seq {} hash {}, the \
                     seal file's at seq {} hash {}",
                    head.seq, head.hash, sealed.seq, sealed.hash
                )),
                None => problems.file(format!(
                    "the manifest's seal of {day} fixes chain {chain}, the seal file's does not"
                )),
            }
        }
    }
}
