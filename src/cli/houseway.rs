//! `pusoy-pit houseway`: the house way of one deal, of many (`--batch`, JSON Lines in and out,
//! spread over the cores with the answers kept in input order), and `houseway build`, which
//! makes the win table from seeded simulated deals.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};

use crate::cli::settle_json::ErrorOut;
use crate::rules::card::{parse_cards, Card};
use crate::rules::houseway::simulate::{self, BuildSettings, Deal, Strategy};
use crate::rules::houseway::tables::Counts;
use crate::rules::houseway::{
    self, house_way, house_way_line, rounded_ev, Choice, HouseWayOut, Side,
};
use crate::rules::profile::RuleProfile;
use crate::rules::set_hand::Slot;

/// `pusoy-pit houseway`.
#[derive(Debug, clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_long_help = houseway::description()
)]
pub struct HousewayArgs {
    #[command(subcommand)]
    pub action: Option<HousewayAction>,
    /// Read one JSON hand per line on stdin (`{"cards": "13 cards", "rules": {...}}`) and write
    /// one JSON line per input line, in order: `{"back", "middle", "front", "ev"}` or
    /// `{"error"}`. Exits with status 1 if any line failed.
    #[arg(long, conflicts_with = "cards")]
    pub batch: bool,
    /// The table's rules as in `settle`, e.g. `{"wheel": "second"}` (default: the defaults).
    #[arg(long)]
    pub rules: Option<String>,
    /// Threads for `--batch` (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// The dealer's 13 cards, separated by spaces or commas.
    #[arg(required_unless_present_any = ["batch"])]
    pub cards: Vec<String>,
}

#[derive(Debug, clap::Subcommand)]
pub enum HousewayAction {
    /// Make the win table: deal seeded rounds, let every place set by the house way of the
    /// previous table until it stops changing, and write the table file. The same seed and
    /// rounds give the same file, byte for byte.
    Build {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Deals to simulate (four hands each).
        #[arg(long, default_value_t = 50_000)]
        rounds: u64,
        /// Most refinement rounds after the first.
        #[arg(long, default_value_t = 12)]
        max_iterations: u32,
        /// Stop when no position's distribution moves more than this many parts per million
        /// from one round to the next.
        #[arg(long, default_value_t = 5_000)]
        tolerance_ppm: u64,
        /// Where to write the table (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Threads (default: one per core). The table does not depend on it.
        #[arg(long)]
        threads: Option<usize>,
    },
}

/// Runs `pusoy-pit houseway ...`.
pub fn run(args: HousewayArgs) -> anyhow::Result<ExitCode> {
    let threads = |given: Option<usize>| {
        given
            .or_else(|| std::thread::available_parallelism().ok().map(usize::from))
            .unwrap_or(1)
            .max(1)
    };
    match args.action {
        Some(HousewayAction::Build {
            seed,
            rounds,
            max_iterations,
            tolerance_ppm,
            out,
            threads: count,
        }) => {
            let settings = BuildSettings {
                seed,
                max_iterations,
                tolerance_ppm,
            };
            let text = build_table(&settings, rounds, threads(count))?;
            match out {
                Some(path) => std::fs::write(&path, text)
                    .with_context(|| format!("writing {}", path.display()))?,
                None => std::io::stdout().write_all(text.as_bytes())?,
            }
            Ok(ExitCode::SUCCESS)
        }
        None if args.batch => {
            let any_failed = batch(
                std::io::stdin().lock(),
                std::io::stdout().lock(),
                threads(args.threads),
            )?;
            Ok(if any_failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        None => {
            let profile: RuleProfile = match &args.rules {
                Some(json) => serde_json::from_str(json).context("reading --rules")?,
                None => RuleProfile::default(),
            };
            print!("{}", one_hand(&args.cards, &profile)?);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The house way of one deal in words: each hand with its name, then the expected result.
pub fn one_hand(cards: &[String], profile: &RuleProfile) -> anyhow::Result<String> {
    let cards: Vec<Card> = parse_cards(&cards.join(" ")).context("cannot read the cards")?;
    let choice = house_way(&cards, profile, Side::Dealer)?;
    let out = HouseWayOut::new(&choice);
    let mut text = String::new();
    for (slot, hand) in Slot::ALL
        .into_iter()
        .zip([&out.back, &out.middle, &out.front])
    {
        let name = choice.set.value(slot, profile.wheel).name_str();
        text.push_str(&format!("{:<7}{hand:<16} {name}\n", slot.word()));
    }
    text.push_str(&format!(
        "ev     {:+.4} per unit bet (the dealer's expected result against one player)\n",
        out.ev
    ));
    Ok(text)
}

/// Lines read and answered together; each block is split over the threads.
const BLOCK_LINES: usize = 32 * 1024;

/// `houseway --batch`: answers every line, the block's lines spread over `threads` threads,
/// the answers written in input order. Returns whether any line failed.
pub fn batch(input: impl BufRead, output: impl Write, threads: usize) -> anyhow::Result<bool> {
    batch_in_blocks(input, output, threads, BLOCK_LINES)
}

/// [`batch`] with `block_lines` lines read per block.
fn batch_in_blocks(
    mut input: impl BufRead,
    mut output: impl Write,
    threads: usize,
    block_lines: usize,
) -> anyhow::Result<bool> {
    let block_lines = block_lines.max(1);
    let mut text = Vec::with_capacity(block_lines * 64);
    let mut ends: Vec<usize> = Vec::with_capacity(block_lines);
    let mut first_number = 1usize;
    let mut any_failed = false;
    loop {
        text.clear();
        ends.clear();
        while ends.len() < block_lines {
            if input.read_until(b'\n', &mut text)? == 0 {
                break;
            }
            ends.push(text.len());
        }
        if ends.is_empty() {
            break;
        }
        let lines: Vec<&[u8]> = ends
            .iter()
            .scan(0, |start, &end| {
                let line = &text[*start..end];
                *start = end;
                Some(line)
            })
            .collect();
        let per_thread = lines.len().div_ceil(threads.max(1));
        let answers: Vec<(Vec<u8>, bool)> = std::thread::scope(|scope| {
            let workers: Vec<_> = lines
                .chunks(per_thread)
                .enumerate()
                .map(|(i, chunk)| {
                    let number = first_number + i * per_thread;
                    scope.spawn(move || answer_lines(chunk, number))
                })
                .collect();
            workers
                .into_iter()
                .map(|worker| {
                    worker
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        });
        for (bytes, failed) in answers {
            output.write_all(&bytes)?;
            any_failed |= failed;
        }
        first_number += lines.len();
    }
    output.flush()?;
    Ok(any_failed)
}

/// One thread's share of a block: the answer lines, and whether any line failed. A good line's
/// answer is written straight into the block's buffer: nothing is allocated for it.
fn answer_lines(lines: &[&[u8]], first_number: usize) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(lines.len() * 80);
    let mut failed = false;
    for (i, bytes) in lines.iter().enumerate() {
        let number = first_number + i;
        let answer = match std::str::from_utf8(bytes) {
            Ok(line) => {
                house_way_line(line.trim_end_matches(['\n', '\r'])).map_err(|e| e.to_string())
            }
            Err(_) => Err("not UTF-8 text".to_string()),
        };
        match answer {
            Ok(choice) => write_answer(&mut out, &choice),
            Err(error) => {
                failed = true;
                let error = ErrorOut {
                    error: format!("line {number}: {error}"),
                };
                // Writing to a Vec cannot fail, and the error serializes.
                let written = serde_json::to_writer(&mut out, &error);
                debug_assert!(written.is_ok());
            }
        }
        out.push(b'\n');
    }
    (out, failed)
}

/// Appends the JSON of `HouseWayOut::new(choice)` to `out`, byte for byte what serde_json
/// writes for it (tested), without its three strings: card symbols never need escaping.
fn write_answer(out: &mut Vec<u8>, choice: &Choice) {
    out.extend_from_slice(b"{\"back\":\"");
    write_hand(out, *choice.set.back());
    out.extend_from_slice(b"\",\"middle\":\"");
    write_hand(out, *choice.set.middle());
    out.extend_from_slice(b"\",\"front\":\"");
    write_hand(out, *choice.set.front());
    out.extend_from_slice(b"\",\"ev\":");
    // serde_json's own number writer, so the figure reads as it always has. Writing to a Vec
    // cannot fail.
    let written = serde_json::to_writer(&mut *out, &rounded_ev(choice.ev));
    debug_assert!(written.is_ok());
    out.push(b'}');
}

/// A hand's cards high to low, as [`houseway::hand_text`] writes them.
fn write_hand<const N: usize>(out: &mut Vec<u8>, mut cards: [Card; N]) {
    cards.sort_unstable_by(|a, b| b.cmp(a));
    for (i, card) in cards.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        let mut symbol = [0u8; 4];
        out.extend_from_slice(card.rank().symbol().encode_utf8(&mut symbol).as_bytes());
        out.extend_from_slice(card.suit().symbol().encode_utf8(&mut symbol).as_bytes());
    }
}

/// Deals `rounds` seeded rounds and builds the table, tallying on `threads` threads. Progress
/// goes to standard error.
pub fn build_table(
    settings: &BuildSettings,
    rounds: u64,
    threads: usize,
) -> anyhow::Result<String> {
    if rounds == 0 {
        bail!("--rounds must be at least 1");
    }
    let deals = seeded_deals(settings.seed, rounds);
    let tally = |deals: &[Deal], strategy: Strategy<'_>| -> Counts {
        let per_thread = deals.len().div_ceil(threads.max(1)).max(1);
        std::thread::scope(|scope| {
            let workers: Vec<_> = deals
                .chunks(per_thread)
                .map(|chunk| scope.spawn(move || simulate::tally(chunk, strategy)))
                .collect();
            let mut total = Counts::zero();
            for worker in workers {
                let counts = worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                total.merge(&counts);
            }
            total
        })
    };
    eprintln!("houseway build: {rounds} deals, seed {}", settings.seed);
    let table = simulate::build(&deals, settings, &tally, &mut |iteration, change| {
        eprintln!(
            "  round {iteration}: the sets moved {:.3}% at most",
            change as f64 / 10_000.0
        );
    });
    Ok(table.to_text())
}

pub use crate::players::edges::seeded_deals;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::houseway::house_way_json;

    /// Lines of every kind: good hands (some with rules), bad JSON, bad cards, a blank line.
    fn mixed_lines(count: usize) -> String {
        let deals = seeded_deals(5, count as u64);
        let mut text = String::new();
        for (i, deal) in deals.iter().enumerate() {
            let cards: Vec<String> = deal[0].iter().map(Card::to_string).collect();
            let line = match i % 7 {
                3 => "{\"cards\": \"As Ks\"}".to_string(),
                5 => String::new(),
                6 => format!(
                    "{{\"cards\": \"{}\", \"rules\": {{\"wheel\": \"second\"}}}}",
                    cards.join(" ")
                ),
                _ => format!("{{\"cards\": \"{}\"}}", cards.join(" ")),
            };
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    #[test]
    fn batch_answers_every_line_in_order_whatever_the_threads_and_blocks() {
        let input = mixed_lines(40);
        let expected: Vec<String> = input
            .lines()
            .enumerate()
            .map(|(i, line)| match house_way_json(line) {
                Ok(out) => serde_json::to_string(&out).expect("json"),
                Err(error) => serde_json::to_string(&ErrorOut {
                    error: format!("line {}: {error}", i + 1),
                })
                .expect("json"),
            })
            .collect();
        for (threads, block) in [(1, 1000), (2, 7), (3, 5), (8, 40)] {
            let mut out = Vec::new();
            let failed =
                batch_in_blocks(input.as_bytes(), &mut out, threads, block).expect("a batch");
            assert!(failed, "lines 4, 6, ... are errors");
            let text = String::from_utf8(out).expect("utf-8");
            assert_eq!(
                text.lines().collect::<Vec<_>>(),
                expected,
                "{threads} threads"
            );
        }
        assert!(expected[3].contains("line 4: cards: a deal is 13 cards, not 2"));
        assert!(expected[5].starts_with("{\"error\":\"line 6: not a hand"));
    }

    #[test]
    fn an_answer_is_written_as_serde_json_writes_it() {
        let profiles = [
            RuleProfile::default(),
            serde_json::from_str(r#"{"wheel": "second"}"#).expect("rules"),
        ];
        for (i, deal) in seeded_deals(11, 200).iter().enumerate() {
            let profile = &profiles[i % 2];
            let choice = house_way(&deal[i % 4], profile, Side::Dealer).expect("a deal");
            let mut out = Vec::new();
            write_answer(&mut out, &choice);
            let expected = serde_json::to_string(&HouseWayOut::new(&choice)).expect("json");
            assert_eq!(String::from_utf8(out).expect("utf-8"), expected);
        }
    }

    #[test]
    fn a_batch_of_good_lines_succeeds() {
        let deals = seeded_deals(8, 3);
        let input: String = deals
            .iter()
            .map(|deal| {
                let cards: Vec<String> = deal[1].iter().map(Card::to_string).collect();
                format!("{{\"cards\": \"{}\"}}\r\n", cards.join(","))
            })
            .collect();
        let mut out = Vec::new();
        assert!(!batch(input.as_bytes(), &mut out, 2).expect("a batch"));
        assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 3);
    }

    #[test]
    fn seeded_deals_are_the_same_for_a_seed_and_each_a_whole_deck() {
        assert_eq!(seeded_deals(1, 5), seeded_deals(1, 5));
        assert_ne!(seeded_deals(1, 5), seeded_deals(2, 5));
        for deal in seeded_deals(3, 5) {
            let mut cards: Vec<Card> = deal.iter().flatten().copied().collect();
            cards.sort_unstable();
            assert_eq!(cards, Card::all().collect::<Vec<_>>());
        }
    }

    #[test]
    fn the_build_command_writes_the_same_table_for_the_same_seed() {
        let settings = BuildSettings {
            seed: 4,
            max_iterations: 1,
            tolerance_ppm: 0,
        };
        let first = build_table(&settings, 20, 2).expect("a table");
        assert_eq!(first, build_table(&settings, 20, 1).expect("a table"));
        assert!(first.contains("--seed 4 --rounds 20 --max-iterations 1 --tolerance-ppm 0"));
        assert!(build_table(&settings, 0, 1).is_err());
    }

    #[test]
    fn one_hand_names_each_hand_and_the_ev() {
        let cards: Vec<String> = "Kc Kd Kh Ks 5h 6h 7h 8h 9h Ac Ad Qs 3d"
            .split(' ')
            .map(str::to_string)
            .collect();
        let text = one_hand(&cards, &RuleProfile::default()).expect("a set");
        assert!(text.contains("back   9h 8h 7h 6h 5h"), "{text}");
        assert!(text.contains("straight flush, nine high"));
        assert!(text.contains("ev     +"));
        assert!(one_hand(&cards[..12], &RuleProfile::default()).is_err());
    }
}
