//! The JSON lines of `pusoy-pit settle`: each input line settled and its answer appended to
//! the output buffer. Lines with `"game": "points"` are points rounds; all others are banking
//! rounds. Banking settlements are written straight from the engine's types, byte for byte what
//! serde_json writes for `rules::wire::SettlementOut` (tested), because this writer is most of
//! the command's time budget.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::rules::game::Game;
use crate::rules::money::Money;
use crate::rules::place::Place;
use crate::rules::points::round::PointsRound;
use crate::rules::points::settle::{settle_points, PointsOutcome, PointsSettlement};
use crate::rules::points::wire::{PointsRoundIn, PointsWireError};
use crate::rules::profile::RuleProfile;
use crate::rules::round::Round;
use crate::rules::royalty::Royalty;
use crate::rules::set_hand::{SetHand, Slot};
use crate::rules::settle::{settle, Outcome, Settlement, Winner};
use crate::rules::wire::{RoundIn, WireError};

/// Why a line cannot be settled: as a banking round or as a points round.
#[derive(Debug, Error)]
pub enum LineError {
    #[error(transparent)]
    Banking(#[from] WireError),
    #[error(transparent)]
    Points(#[from] PointsWireError),
}

/// Settles one line of either game and appends its answer to `out`; on an error nothing is
/// appended.
pub fn settle_line_into(line: &str, out: &mut Vec<u8>) -> Result<(), LineError> {
    // Only a line that mentions "game" can be a points round; the others (every banking line
    // so far) go straight to the banking reader.
    if !line.contains("\"game\"") {
        return Ok(settle_json_into(line, out)?);
    }
    // Most such lines are points rounds: read them once. Only when that fails, see which game
    // the line names, to give the right game's error or read it as a banking round.
    let points_error = match settle_points_into(line, out) {
        Ok(()) => return Ok(()),
        Err(error) => error,
    };
    #[derive(Deserialize)]
    struct GameField {
        #[serde(default)]
        game: Game,
    }
    match serde_json::from_str::<GameField>(line).map(|field| field.game) {
        Ok(Game::Banking) => {
            // A banking round that names its game: read it without the `game` field.
            let mut value: serde_json::Value =
                serde_json::from_str(line).map_err(WireError::from)?;
            if let Some(fields) = value.as_object_mut() {
                fields.remove("game");
            }
            let round_in = RoundIn::deserialize(&value).map_err(WireError::from)?;
            let round = round_in.to_round()?;
            let settlement = settle(&round).map_err(WireError::from)?;
            write_settlement_json(&round, &settlement, out);
            Ok(())
        }
        Ok(Game::Points) => Err(points_error.into()),
        Err(error) => Err(WireError::from(error).into()),
    }
}

/// Parses one points line, settles it and appends the `PointsSettlementOut` JSON to `out`
/// (the same bytes as serde_json writes for it, without building it). On an error nothing is
/// appended.
pub fn settle_points_into(line: &str, out: &mut Vec<u8>) -> Result<(), PointsWireError> {
    let round_in: PointsRoundIn<'_> = serde_json::from_str(line)?;
    let round = round_in.to_round()?;
    let settlement = settle_points(&round)?;
    write_points_json(&round, &settlement, out);
    Ok(())
}

/// Appends the JSON of `PointsSettlementOut::new(round, settlement)` to `out`, byte for byte
/// what serde_json writes for it (tested).
pub fn write_points_json(round: &PointsRound, settlement: &PointsSettlement, out: &mut Vec<u8>) {
    let profile = round.profile();
    out.extend_from_slice(b"{\"seats\":[");
    for (i, (play, result)) in round.players().zip(settlement.players()).enumerate() {
        open_seat(out, i, result.seat.number());
        out.extend_from_slice(match result.outcome {
            PointsOutcome::Played => b",\"outcome\":\"played\"".as_slice(),
            PointsOutcome::Natural => b",\"outcome\":\"natural\"",
            PointsOutcome::Surrendered => b",\"outcome\":\"surrendered\"",
        });
        if let Some(natural) = result.natural {
            out.extend_from_slice(b",\"natural\":\"");
            out.extend_from_slice(natural.key().as_bytes());
            out.push(b'"');
        }
        if let Some(fouled) = result.fouled {
            out.extend_from_slice(if fouled {
                b",\"fouled\":true"
            } else {
                b",\"fouled\":false"
            });
        }
        let hands = play.hands.as_ref();
        if let Some(foul) = hands.and_then(|set| set.foul_by(profile.wheel, profile.suit_ties())) {
            // Slot and suit words and hand names only: nothing to escape (see write_place_json).
            out.extend_from_slice(b",\"foul\":\"");
            for piece in foul.pieces() {
                out.extend_from_slice(piece.as_bytes());
            }
            out.push(b'"');
        }
        out.extend_from_slice(b",\"points\":");
        write_integer(out, result.points);
        out.extend_from_slice(b",\"result\":");
        write_integer(out, result.result.minor_units());
        out.extend_from_slice(b",\"against\":{");
        let against = result.against.iter().enumerate();
        for (n, (slot, points)) in against
            .filter_map(|(slot, p)| p.map(|p| (slot, p)))
            .enumerate()
        {
            if n > 0 {
                out.push(b',');
            }
            out.push(b'"');
            write_integer(out, slot as i64 + 1);
            out.extend_from_slice(b"\":");
            write_integer(out, points);
        }
        out.push(b'}');
        if let Some(set) = hands {
            write_hands_json(out, set);
        }
        out.push(b'}');
    }
    out.extend_from_slice(b"],\"pusoy\":");
    match settlement.pusoy {
        Some(seat) => write_integer(out, i64::from(seat.number())),
        None => out.extend_from_slice(b"null"),
    }
    out.push(b'}');
}

/// Parses one banking line, settles it and appends the `SettlementOut` JSON to `out` (the same
/// bytes as `serde_json::to_writer(out, &settle_json(line)?)`, without building it). On an
/// error nothing is appended.
pub fn settle_json_into(line: &str, out: &mut Vec<u8>) -> Result<(), WireError> {
    let round_in: RoundIn<'_> = serde_json::from_str(line)?;
    let round = round_in.to_round()?;
    let settlement = settle(&round)?;
    write_settlement_json(&round, &settlement, out);
    Ok(())
}

/// Appends the JSON of `SettlementOut::new(round, settlement)` to `out`, byte for byte what
/// serde_json writes for it (tested), without building it: no allocation, hand names copied
/// straight from the name table (they never need escaping, see the hand module's tests).
pub fn write_settlement_json(round: &Round, settlement: &Settlement, out: &mut Vec<u8>) {
    let profile = round.profile();
    let dealer = round.dealer();
    out.extend_from_slice(b"{\"dealer\":{");
    write_place_json(
        out,
        PlaceJson {
            royalty: round.royalty(Place::Dealer),
            fouled: settlement.dealer.fouled,
            hands: dealer.hands.as_ref(),
            result: settlement.dealer.result,
        },
        profile,
        |_| {},
    );
    out.extend_from_slice(b"},\"seats\":[");
    for (i, (play, result)) in round.seats().zip(settlement.seats()).enumerate() {
        open_seat(out, i, result.seat.number());
        out.extend_from_slice(b",\"outcome\":\"");
        out.extend_from_slice(outcome_word(result.outcome).as_bytes());
        out.extend_from_slice(b"\",");
        let place = PlaceJson {
            royalty: round.royalty(Place::Seat(play.seat)),
            fouled: result.fouled,
            hands: play.hands.as_ref(),
            result: result.result,
        };
        write_place_json(out, place, profile, |out| {
            if let Some(won) = result.hands_won {
                out.extend_from_slice(b"\"hands_won\":");
                write_integer(out, i64::from(won));
                out.push(b',');
            }
            if let Some(winners) = result.winners {
                out.extend_from_slice(b"\"winners\":{\"back\":\"");
                out.extend_from_slice(winner_word(winners.back).as_bytes());
                out.extend_from_slice(b"\",\"middle\":\"");
                out.extend_from_slice(winner_word(winners.middle).as_bytes());
                out.extend_from_slice(b"\",\"front\":\"");
                out.extend_from_slice(winner_word(winners.front).as_bytes());
                out.extend_from_slice(b"\"},");
            }
        });
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
}

/// The fields a dealer's and a seat's line share.
struct PlaceJson<'a> {
    royalty: Option<Royalty>,
    fouled: Option<bool>,
    hands: Option<&'a SetHand>,
    result: Money,
}

/// Writes `royalty`, `fouled`, `foul`, then the seat-only fields `before_result` adds (each
/// followed by a comma), then `result` and `hands`: the order of the `*Out` structs' fields.
fn write_place_json(
    out: &mut Vec<u8>,
    place: PlaceJson<'_>,
    profile: &RuleProfile,
    before_result: impl FnOnce(&mut Vec<u8>),
) {
    if let Some(royalty) = place.royalty {
        out.extend_from_slice(b"\"royalty\":\"");
        out.extend_from_slice(royalty_word(royalty).as_bytes());
        out.extend_from_slice(b"\",");
    }
    if let Some(fouled) = place.fouled {
        out.extend_from_slice(if fouled {
            b"\"fouled\":true,"
        } else {
            b"\"fouled\":false,"
        });
    }
    if let Some(foul) = place.hands.and_then(|set| set.foul(profile)) {
        // Slot and suit words and hand names only, none of which needs escaping (the hand
        // module tests every name; the writer's tests compare with serde_json).
        out.extend_from_slice(b"\"foul\":\"");
        for piece in foul.pieces() {
            out.extend_from_slice(piece.as_bytes());
        }
        out.extend_from_slice(b"\",");
    }
    before_result(out);
    out.extend_from_slice(b"\"result\":");
    write_integer(out, place.result.minor_units());
    if let Some(set) = place.hands {
        write_hands_json(out, set);
    }
}

/// Writes `,"hands":{...}`: the names of the back, middle and front.
fn write_hands_json(out: &mut Vec<u8>, set: &SetHand) {
    out.extend_from_slice(b",\"hands\":{\"back\":\"");
    out.extend_from_slice(set.name(Slot::Back).as_bytes());
    out.extend_from_slice(b"\",\"middle\":\"");
    out.extend_from_slice(set.name(Slot::Middle).as_bytes());
    out.extend_from_slice(b"\",\"front\":\"");
    out.extend_from_slice(set.name(Slot::Front).as_bytes());
    out.extend_from_slice(b"\"}");
}

/// Opens the `i`th seat's object of a `seats` array: `{"seat":N`, after a comma but for the first.
fn open_seat(out: &mut Vec<u8>, i: usize, seat: u8) {
    if i > 0 {
        out.push(b',');
    }
    out.extend_from_slice(b"{\"seat\":");
    write_integer(out, i64::from(seat));
}

/// Writes an integer in decimal, as serde_json does.
fn write_integer(out: &mut Vec<u8>, value: i64) {
    let mut digits = [0u8; 20];
    let mut rest = value.unsigned_abs();
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if value < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[at..]);
}

/// The serde names of the wire enums (`rename_all = "snake_case"`); tested against serde_json.
fn outcome_word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Played => "played",
        Outcome::Surrendered => "surrendered",
        Outcome::Royalty => "royalty",
        Outcome::DealerRoyalty => "dealer_royalty",
        Outcome::DealerSurrendered => "dealer_surrendered",
    }
}

fn winner_word(winner: Winner) -> &'static str {
    match winner {
        Winner::Player => "player",
        Winner::Dealer => "dealer",
    }
}

fn royalty_word(royalty: Royalty) -> &'static str {
    match royalty {
        Royalty::SixPairs => "six_pairs",
        Royalty::FourOfAKind => "four_of_a_kind",
        Royalty::StraightFlush => "straight_flush",
    }
}

/// The line printed for a round that cannot be settled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorOut {
    pub error: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::points::wire::{settle_points_json, PointsSettlementOut};
    use crate::rules::test_support::{
        banking_cases, build_points_round, build_round, deck_strategy, points_profile_strategy,
        profile_strategy,
    };
    use crate::rules::wire::{settle_json, SettlementOut};
    use proptest::prelude::*;

    /// A natural, a surrender, a mis-set, a pusoy: the shapes random deals seldom make.
    const POINTS_LINES: [&str; 3] = [
        r#"{"game": "points", "unit": 100, "seats": [{"seat": 1, "back": "8c 9c Jc Qc Kc", "middle": "2s 3s 4s 6s 7s", "front": "9h Th Jh"}, {"seat": 2, "action": "natural", "natural": "dragon", "dealt": "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"}, {"seat": 3, "action": "surrender"}, {"seat": 4, "back": "9d Td Qd Kd Ad", "middle": "8s Ts Js Qs 8d", "front": "5h Kh Ah"}]}"#,
        r#"{"game": "points", "seats": [{"seat": 1, "back": "As Ks Qs Js 9s", "middle": "Tc Jd Qc Kd Ah", "front": "Ac Ad 2c"}, {"seat": 2, "back": "Jc Jh 4c 5d 6h", "middle": "Kc Kh Qd Qh 3c", "front": "Th Ts 2d"}, {"seat": 3, "back": "9c 9d 9h 2h 3d", "middle": "8c 8d 7c 7d 4d", "front": "5c 5h 2s"}, {"seat": 4, "back": "4h 5s 6c 7h 8s", "middle": "3s 3h 6s 6d Td", "front": "4s 7s 8h"}]}"#,
        r#"{"game": "points", "rules": {"ties": "suit_order"}, "seats": [{"seat": 2, "back": "Ac Ad Kc Kd 4c", "middle": "Qc Qd 7c 8d 9d", "front": "9h 6h 3s"}, {"seat": 4, "back": "3c 5d 7h 9s Jc", "middle": "2c 4d 6c 8s Tc", "front": "9c 6s 3h"}]}"#,
    ];

    #[test]
    fn points_lines_print_what_serde_json_prints() {
        for line in POINTS_LINES {
            let mut direct = Vec::new();
            settle_line_into(line, &mut direct).expect("settles");
            let serde = serde_json::to_vec(&settle_points_json(line).expect("settles"))
                .expect("serialises");
            assert_eq!(
                String::from_utf8_lossy(&direct),
                String::from_utf8_lossy(&serde)
            );
        }
    }

    #[test]
    fn a_bad_points_line_gives_the_points_error_and_a_named_banking_line_settles() {
        let mut out = Vec::new();
        let unknown = POINTS_LINES[2].replace(r#""seat": 4, "#, r#""seat": 4, "bet": 5, "#);
        let error = settle_line_into(&unknown, &mut out).expect_err("refused");
        assert!(
            error
                .to_string()
                .starts_with("not a round: unknown field `bet`"),
            "{error}"
        );
        let short = POINTS_LINES[2].replace("3c 5d 7h 9s Jc", "3c 5d 7h 9s");
        let error = settle_line_into(&short, &mut out).expect_err("refused");
        assert_eq!(error.to_string(), "seat 4: the back needs 5 cards, not 4");
        assert!(out.is_empty());
        let (_, banking, _) = &banking_cases()[0];
        let named = banking.replacen('{', r#"{"game": "banking", "#, 1);
        settle_line_into(&named, &mut out).expect("settles");
        let mut plain = Vec::new();
        settle_line_into(banking, &mut plain).expect("settles");
        assert_eq!(out, plain);
    }

    #[test]
    fn every_banking_case_prints_what_serde_json_prints_and_nothing_on_errors() {
        for (name, line, _) in banking_cases() {
            let mut direct = Vec::new();
            let direct_result = settle_json_into(&line, &mut direct);
            match settle_json(&line) {
                Ok(out) => {
                    assert!(direct_result.is_ok(), "{name}");
                    let serde = serde_json::to_vec(&out).expect("serialises");
                    assert_eq!(
                        String::from_utf8_lossy(&direct),
                        String::from_utf8_lossy(&serde),
                        "{name}"
                    );
                }
                Err(error) => {
                    assert!(direct.is_empty(), "{name}");
                    let direct_error = direct_result.expect_err("fails too");
                    assert_eq!(direct_error.to_string(), error.to_string(), "{name}");
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn the_direct_json_writer_prints_what_serde_json_prints(
            profile in profile_strategy(),
            deck in deck_strategy(),
            // Up to 19 digits, and results of both signs; three doubled bets still fit an i64.
            bets in proptest::collection::vec(1i64..i64::MAX / 8, 3),
            surrender in proptest::collection::vec(any::<bool>(), 3),
            legal in any::<bool>(),
        ) {
            let round = build_round(profile, &deck, &bets, &surrender, legal);
            let settlement = settle(&round).expect("settles");
            let mut direct = Vec::new();
            write_settlement_json(&round, &settlement, &mut direct);
            let serde = serde_json::to_vec(&SettlementOut::new(&round, &settlement)).expect("serialises");
            prop_assert_eq!(String::from_utf8_lossy(&direct), String::from_utf8_lossy(&serde));
        }

        #[test]
        fn the_direct_points_writer_prints_what_serde_json_prints(
            profile in points_profile_strategy(),
            deck in deck_strategy(),
            choices in proptest::collection::vec(0u8..5, 4),
        ) {
            let Some(round) = build_points_round(profile, &deck, &choices) else { return Ok(()) };
            let settlement = settle_points(&round).expect("settles");
            let mut direct = Vec::new();
            write_points_json(&round, &settlement, &mut direct);
            let serde = serde_json::to_vec(&PointsSettlementOut::new(&round, &settlement)).expect("serialises");
            prop_assert_eq!(String::from_utf8_lossy(&direct), String::from_utf8_lossy(&serde));
        }
    }
}
