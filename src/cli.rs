//! Command-line entry points: `settle` (JSON Lines in, JSON Lines out) and `eval`.

use std::io::{BufRead, Write};

use anyhow::{bail, Context};

use crate::rules::card::{parse_cards, Card};
use crate::rules::hand::{evaluate, evaluate_front};
use crate::rules::profile::Wheel;
use crate::rules::wire::{settle_json, ErrorOut};

/// Reads one round per line and writes one JSON line per input line, in order: the settlement
/// or `{"error": "..."}`. Blank lines are echoed as errors too, so output lines match input
/// lines. Returns whether any line failed.
pub fn settle_stream(mut input: impl BufRead, output: impl Write) -> std::io::Result<bool> {
    let mut output = std::io::BufWriter::with_capacity(64 * 1024, output);
    let mut line = String::new();
    let mut any_failed = false;
    let mut number = 0usize;
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        number += 1;
        match settle_json(line.trim_end_matches(['\n', '\r'])) {
            Ok(settlement) => serde_json::to_writer(&mut output, &settlement)?,
            Err(error) => {
                any_failed = true;
                let error = ErrorOut {
                    error: format!("line {number}: {error}"),
                };
                serde_json::to_writer(&mut output, &error)?;
            }
        }
        output.write_all(b"\n")?;
    }
    output.flush()?;
    Ok(any_failed)
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
