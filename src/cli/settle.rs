//! Command-line entry points: `settle` (JSON Lines in, JSON Lines out) and `eval`.

use std::io::{BufRead, Write};

use anyhow::{bail, Context};

use crate::rules::card::{parse_cards, Card};
use crate::rules::hand::{evaluate, evaluate_front};
use crate::rules::profile::Wheel;

use super::settle_json::{settle_line_into, ErrorOut};

/// Reads one round per line and writes one JSON line per input line, in order: the settlement
/// or `{"error": "..."}`. Blank lines are echoed as errors too, so output lines match input
/// lines. Returns whether any line failed.
///
/// Built for batch throughput: input is read in 1 MiB blocks, each settlement is written
/// straight into one output buffer (no per-line allocation), and the buffer goes out in
/// writes of about 1 MiB.
pub fn settle_stream(input: impl BufRead, mut output: impl Write) -> std::io::Result<bool> {
    const BLOCK: usize = 1 << 20;
    let mut input = std::io::BufReader::with_capacity(BLOCK, input);
    let mut out = Vec::with_capacity(BLOCK + 64 * 1024);
    let settled = settle_lines(&mut input, &mut out, &mut output, BLOCK);
    // Lines settled before a read error still go out, as a dropped `BufWriter` would send them.
    let written = output.write_all(&out).and_then(|()| output.flush());
    let any_failed = settled?;
    written?;
    Ok(any_failed)
}

/// The loop of [`settle_stream`]: appends each line's answer to `out` and sends `out` to
/// `output` whenever it holds `block` bytes or more.
fn settle_lines(
    input: &mut impl BufRead,
    out: &mut Vec<u8>,
    output: &mut impl Write,
    block: usize,
) -> std::io::Result<bool> {
    let mut bytes = Vec::with_capacity(4096);
    let mut any_failed = false;
    let mut number = 0usize;
    loop {
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            return Ok(any_failed);
        }
        // As `read_line` would: the stream must be UTF-8.
        let line = std::str::from_utf8(&bytes).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            )
        })?;
        number += 1;
        if let Err(error) = settle_line_into(line.trim_end_matches(['\n', '\r']), out) {
            any_failed = true;
            let error = ErrorOut {
                error: format!("line {number}: {error}"),
            };
            serde_json::to_writer(&mut *out, &error)?;
        }
        out.push(b'\n');
        if out.len() >= block {
            output.write_all(out)?;
            out.clear();
        }
    }
}

/// The name of a 3-card front or a 5-card hand, e.g. "straight, five high".
pub fn eval(cards: &[String], wheel: Wheel) -> anyhow::Result<String> {
    let cards: Vec<Card> = parse_cards(&cards.join(" ")).context("cannot read the cards")?;
    if let Ok(front) = <[Card; 3]>::try_from(cards.as_slice()) {
        check_distinct(&cards)?;
        return Ok(evaluate_front(front).name());
    }
    if let Ok(hand) = <[Card; 5]>::try_from(cards.as_slice()) {
        check_distinct(&cards)?;
        return Ok(evaluate(hand, wheel).name());
    }
    bail!(
        "a hand is 3 cards (a front) or 5 cards, not {}",
        cards.len()
    )
}

fn check_distinct(cards: &[Card]) -> anyhow::Result<()> {
    for (i, card) in cards.iter().enumerate() {
        if cards[..i].contains(card) {
            bail!("{card} is in the hand twice");
        }
    }
    Ok(())
}
