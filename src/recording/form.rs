//! The round form of the dealer's table screen as typed: each field's raw text, stored in the
//! table's draft as it is (valid or not), and read into a [`RoundBody`] separately, so that a
//! reload or a restarted tablet finds every field as it was typed. Pure.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::recording::entry::{FieldErrors, PlaceBody, RoundBody, SeatBody};
use crate::recording::points::{PlayerBody, PointsBody};
use crate::recording::write::Entered;
use crate::rules::card::parse_cards;
use crate::rules::game::Game;
use crate::rules::houseway::{house_way, HouseWayOut, Side};
use crate::rules::money::Money;
use crate::rules::points::natural::Natural;
use crate::rules::points::wire::PointsAction;
use crate::rules::profile::RuleProfile;
use crate::rules::wire::Action;

/// Field name → text as typed (`seat1_bet` → `5OO`).
pub type Fields = BTreeMap<String, String>;

/// The places of the form, in table order (seat 4 and the natural: a points-game table's).
pub const PLACES: [&str; 5] = ["seat1", "seat2", "seat3", "seat4", "dealer"];
/// The fields of a place: `{place}_{part}`.
pub const PARTS: [&str; 7] = [
    "action", "bet", "natural", "dealt", "back", "middle", "front",
];

/// What a draft holds: the form as typed (`{"form": {...}}`) or, when the JSON API saved it, a
/// round body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypedDraft {
    pub form: Fields,
}

/// The draft's data as form fields: the form as typed, the API's round as the form shows it,
/// or nothing (a draft opened but not saved yet).
pub fn fields_of_data(data: &Value) -> Fields {
    if let Ok(typed) = serde_json::from_value::<TypedDraft>(data.clone()) {
        return typed.form;
    }
    if let Ok(body) = serde_json::from_value::<RoundBody>(data.clone()) {
        return fields_of(&body);
    }
    match serde_json::from_value::<PointsBody>(data.clone()) {
        Ok(body) if !body.seats.is_empty() => fields_of_points(&body),
        _ => Fields::new(),
    }
}

/// A points round body as the form shows it.
pub fn fields_of_points(body: &PointsBody) -> Fields {
    let mut fields = Fields::new();
    for player in &body.seats {
        let place = format!("seat{}", player.seat);
        let action = match player.action {
            PointsAction::Play => "play",
            PointsAction::Natural => "natural",
            PointsAction::Surrender => "surrender",
        };
        fields.insert(format!("{place}_action"), action.into());
        if let Some(natural) = player.natural {
            fields.insert(format!("{place}_natural"), natural.key().into());
        }
        for (slot, value) in [
            ("dealt", &player.dealt),
            ("back", &player.back),
            ("middle", &player.middle),
            ("front", &player.front),
        ] {
            if let Some(value) = value {
                fields.insert(format!("{place}_{slot}"), value.clone());
            }
        }
    }
    fields
}

/// The round fields of a submitted form, as typed (other fields, such as the CSRF token, are
/// left out). An empty field is left out too.
pub fn typed(submitted: &HashMap<String, String>) -> Fields {
    PLACES
        .iter()
        .flat_map(|place| PARTS.iter().map(move |part| format!("{place}_{part}")))
        .filter_map(|name| {
            let value = submitted.get(&name)?;
            (!value.is_empty()).then(|| (name, value.clone()))
        })
        .collect()
}

/// Whether nothing of a round is typed (seats empty, no cards).
pub fn is_blank(fields: &Fields) -> bool {
    fields
        .iter()
        .all(|(name, value)| value.trim().is_empty() || name == "dealer_action")
}

fn action_name(action: Action) -> &'static str {
    match action {
        Action::Play => "play",
        Action::Surrender => "surrender",
        Action::Royalty => "royalty",
    }
}

/// A round body as the form shows it (bets in major units, as dealers type them).
pub fn fields_of(body: &RoundBody) -> Fields {
    let mut fields = Fields::new();
    let mut put = |place: &str, play: &PlaceBody| {
        fields.insert(format!("{place}_action"), action_name(play.action).into());
        for (slot, value) in [
            ("dealt", &play.dealt),
            ("back", &play.back),
            ("middle", &play.middle),
            ("front", &play.front),
        ] {
            if let Some(value) = value {
                fields.insert(format!("{place}_{slot}"), value.clone());
            }
        }
    };
    put("dealer", &body.dealer);
    for seat in &body.seats {
        put(&format!("seat{}", seat.seat), &seat.play);
    }
    for seat in &body.seats {
        fields.insert(
            format!("seat{}_bet", seat.seat),
            Money::from_minor_units(seat.bet).typed_text(),
        );
    }
    fields
}

/// The typed form as a round of `game`, with the errors of fields that cannot be read at all
/// (an unknown action or natural, a bet that is not an amount, a missing bet). A field the
/// place's action hides (the cards of a surrender, the hands of a royalty or a natural) is kept
/// in the draft but not read.
pub fn read(fields: &Fields, game: Game) -> (Entered, FieldErrors) {
    match game {
        Game::Banking => {
            let (body, errors) = read_banking(fields);
            (Entered::Banking(body), errors)
        }
        Game::Points => {
            let (body, errors) = read_points(fields);
            (Entered::Points(body), errors)
        }
    }
}

/// A field as typed, trimmed; `None` when empty.
fn getter(fields: &Fields) -> impl Fn(String) -> Option<String> + '_ {
    |name: String| {
        fields
            .get(&name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    }
}

/// The typed form of a points-game table: the players of seats 1-4 that have an action.
pub fn read_points(fields: &Fields) -> (PointsBody, FieldErrors) {
    let mut errors = FieldErrors::default();
    let get = getter(fields);
    let mut seats = Vec::new();
    for n in 1..=4 {
        let place = format!("seat{n}");
        let Some(action) = get(format!("{place}_action")) else {
            continue;
        };
        let action = match action.as_str() {
            "play" => PointsAction::Play,
            "natural" => PointsAction::Natural,
            "surrender" => PointsAction::Surrender,
            other => {
                errors.add(format!("{place}_action"), format!("unknown action {other}"));
                PointsAction::Play
            }
        };
        let natural = match action {
            PointsAction::Natural => match get(format!("{place}_natural")) {
                None => None,
                Some(text) => Natural::from_key(&text).or_else(|| {
                    errors.add(
                        format!("{place}_natural"),
                        format!(
                            "unknown natural {text} (dragon, six_pairs, three_flushes or \
                             three_straights)"
                        ),
                    );
                    None
                }),
            },
            PointsAction::Play | PointsAction::Surrender => None,
        };
        let hands = |slot: &str| match action {
            PointsAction::Play => get(format!("{place}_{slot}")),
            PointsAction::Natural | PointsAction::Surrender => None,
        };
        seats.push(PlayerBody {
            seat: n,
            action,
            natural,
            dealt: match action {
                PointsAction::Surrender => None,
                PointsAction::Play | PointsAction::Natural => get(format!("{place}_dealt")),
            },
            back: hands("back"),
            middle: hands("middle"),
            front: hands("front"),
            bet: None,
            royalty: None,
        });
    }
    (
        PointsBody {
            seats,
            dealer: None,
        },
        errors,
    )
}

/// The typed form of a banking table.
pub fn read_banking(fields: &Fields) -> (RoundBody, FieldErrors) {
    let mut errors = FieldErrors::default();
    let get = getter(fields);
    let place = |place: &str, errors: &mut FieldErrors| -> PlaceBody {
        let action = match get(format!("{place}_action")).as_deref() {
            None | Some("play") => Action::Play,
            Some("surrender") => Action::Surrender,
            Some("royalty") => Action::Royalty,
            Some(other) => {
                errors.add(format!("{place}_action"), format!("unknown action {other}"));
                Action::Play
            }
        };
        let hands = |slot: &str| match action {
            Action::Play => get(format!("{place}_{slot}")),
            Action::Surrender | Action::Royalty => None,
        };
        PlaceBody {
            action,
            royalty: None,
            dealt: match action {
                Action::Surrender => None,
                Action::Play | Action::Royalty => get(format!("{place}_dealt")),
            },
            back: hands("back"),
            middle: hands("middle"),
            front: hands("front"),
        }
    };
    let mut seats = Vec::new();
    for n in 1..=3 {
        if get(format!("seat{n}_action")).is_none() {
            continue;
        }
        let play = place(&format!("seat{n}"), &mut errors);
        let bet = match get(format!("seat{n}_bet")).map(|b| Money::parse_major(&b)) {
            Some(Some(bet)) => bet.minor_units(),
            Some(None) => {
                errors.add(
                    format!("seat{n}_bet"),
                    "enter the bet as an amount, like 500 or 500.50",
                );
                0
            }
            None => {
                errors.add(format!("seat{n}_bet"), format!("seat {n} needs a bet"));
                0
            }
        };
        seats.push(SeatBody { seat: n, bet, play });
    }
    let dealer = place("dealer", &mut errors);
    (RoundBody { seats, dealer }, errors)
}

/// The house way's set of the dealer's 13 cards as typed in `dealer_dealt`, or what is wrong
/// with them, said on that field.
pub fn house_way_of_dealt(
    fields: &Fields,
    profile: &RuleProfile,
) -> Result<HouseWayOut, (&'static str, String)> {
    const FIELD: &str = "dealer_dealt";
    let typed = fields.get(FIELD).map(|v| v.trim()).unwrap_or_default();
    house_way_of_text(typed, profile).map_err(|problem| (FIELD, problem))
}

/// The house way's set (for the dealer) of 13 cards as text, or the problem in words.
pub fn house_way_of_text(text: &str, profile: &RuleProfile) -> Result<HouseWayOut, String> {
    if text.is_empty() {
        return Err("type the dealer's 13 dealt cards to set them by the house way".to_owned());
    }
    let cards = parse_cards(text).map_err(|err| err.to_string())?;
    let choice = house_way(&cards, profile, Side::Dealer).map_err(|err| err.to_string())?;
    Ok(HouseWayOut::new(&choice))
}

/// "Set by house way": the form with the dealer playing and the dealer's back, middle and
/// front set by the house way from the 13 cards typed as dealt.
pub fn set_dealer_by_house_way(
    fields: &Fields,
    profile: &RuleProfile,
) -> Result<Fields, (&'static str, String)> {
    let set = house_way_of_dealt(fields, profile)?;
    let mut filled = fields.clone();
    filled.insert("dealer_action".to_owned(), "play".to_owned());
    filled.insert("dealer_back".to_owned(), set.back);
    filled.insert("dealer_middle".to_owned(), set.middle);
    filled.insert("dealer_front".to_owned(), set.front);
    Ok(filled)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn fields(pairs: &[(&str, &str)]) -> Fields {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn only_round_fields_are_kept_and_each_as_typed() {
        let submitted: HashMap<String, String> = [
            ("seat1_bet", " 5OO "),
            ("seat1_back", "as ks"),
            ("csrf_token", "x"),
            ("seat2_front", ""),
            ("revision", "3"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        assert_eq!(
            typed(&submitted),
            fields(&[("seat1_back", "as ks"), ("seat1_bet", " 5OO ")])
        );
    }

    #[test]
    fn a_typed_draft_and_an_api_round_both_come_back_as_fields() {
        let typed = fields(&[("seat1_action", "play"), ("seat1_bet", "5OO")]);
        let data = serde_json::to_value(TypedDraft {
            form: typed.clone(),
        })
        .unwrap();
        assert_eq!(fields_of_data(&data), typed);
        let body = RoundBody {
            seats: vec![SeatBody {
                seat: 2,
                bet: 50_050,
                play: PlaceBody::default(),
            }],
            dealer: PlaceBody::default(),
        };
        let api = fields_of_data(&serde_json::to_value(&body).unwrap());
        assert_eq!(api["seat2_bet"], "500.50");
        assert_eq!(api["seat2_action"], "play");
        assert_eq!(fields_of_data(&serde_json::json!({})), Fields::new());
    }

    #[test]
    fn unreadable_fields_are_named_and_hidden_fields_are_not_read() {
        let (body, errors) = read_banking(&fields(&[
            ("seat1_action", "play"),
            ("seat1_bet", "5OO"),
            ("seat2_action", "surrender"),
            ("seat2_bet", "2"),
            ("seat2_back", "As Ks"),
            ("seat3_action", "dance"),
            ("seat3_bet", ""),
        ]));
        assert_eq!(
            errors.0,
            BTreeMap::from([
                (
                    "seat1_bet".to_owned(),
                    "enter the bet as an amount, like 500 or 500.50".to_owned()
                ),
                ("seat3_action".to_owned(), "unknown action dance".to_owned()),
                ("seat3_bet".to_owned(), "seat 3 needs a bet".to_owned()),
            ])
        );
        assert_eq!(body.seats.len(), 3);
        assert_eq!(body.seats[1].play.back, None);
        assert!(is_blank(&fields(&[
            ("dealer_action", "play"),
            ("seat1_bet", " ")
        ])));
        assert!(!is_blank(&fields(&[("seat1_bet", "5")])));
    }

    #[test]
    fn set_by_house_way_fills_the_dealers_hands_from_the_dealt_cards() {
        let typed = fields(&[
            ("dealer_dealt", "As Ad Ac Ah Ks Kd 7c 6h 5s 4d 3c 2h 9s"),
            ("dealer_back", "old"),
        ]);
        let filled = set_dealer_by_house_way(&typed, &RuleProfile::default()).unwrap();
        assert_eq!(filled["dealer_action"], "play");
        // Four aces stay together in the back.
        assert_eq!(filled["dealer_back"].matches('A').count(), 4, "{filled:?}");
        assert_eq!(filled["dealer_dealt"], typed["dealer_dealt"]);
        let short = fields(&[("dealer_dealt", "As Ad")]);
        let (field, problem) =
            set_dealer_by_house_way(&short, &RuleProfile::default()).unwrap_err();
        assert_eq!(field, "dealer_dealt");
        assert!(problem.contains("13 cards"), "{problem}");
        let (_, problem) =
            set_dealer_by_house_way(&fields(&[]), &RuleProfile::default()).unwrap_err();
        assert!(problem.contains("13 dealt cards"), "{problem}");
    }
}
