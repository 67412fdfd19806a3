//! The JSON shapes of a round and its settlement, as `pusoy-pit settle` reads and writes them
//! (one JSON object per line) and as the web API reuses them, plus conversion to and from the
//! engine's types.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::rules::card::{
    format_cards, parse_cards, parse_cards_into, Card, ParseCardError, Rank, Suit,
};
use crate::rules::money::Money;
use crate::rules::place::{Place, SeatNo};
use crate::rules::profile::RuleProfile;
use crate::rules::round::{DealerPlay, Declaration, Round, SeatPlay, SettlementError};
use crate::rules::royalty::Royalty;
use crate::rules::set_hand::{SetHand, SetHandError, Slot};
use crate::rules::settle::{settle, HandWinners, Outcome, Settlement};

/// An optional text field that borrows from the input when it holds no escapes. serde's
/// `borrow` attribute does that only for a bare `Cow`; an `Option<Cow>` came out owned, one
/// allocation per card list.
pub(crate) fn borrowed_text<'de: 'a, 'a, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Cow<'a, str>>, D::Error> {
    #[derive(Deserialize)]
    struct Text<'b>(#[serde(borrow)] Cow<'b, str>);
    Ok(Option::<Text<'a>>::deserialize(deserializer)?.map(|text| text.0))
}

/// What a place did before setting, on the wire.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    #[default]
    Play,
    Surrender,
    Royalty,
}

/// One round as submitted: rules (each field optional), the dealer and up to three seats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundIn<'a> {
    #[serde(default)]
    pub rules: RuleProfile,
    #[serde(borrow)]
    pub dealer: PlaceIn<'a>,
    #[serde(default, borrow)]
    pub seats: Vec<SeatIn<'a>>,
}

/// The dealer's hands and declaration. Card lists are text such as `"As Ks Qs Js Ts"`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaceIn<'a> {
    #[serde(default)]
    pub action: Action,
    /// The royalty claimed, when `action` is `royalty` (optional: the best one held).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub royalty: Option<Royalty>,
    #[serde(
        default,
        borrow,
        deserialize_with = "borrowed_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub back: Option<Cow<'a, str>>,
    #[serde(
        default,
        borrow,
        deserialize_with = "borrowed_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub middle: Option<Cow<'a, str>>,
    #[serde(
        default,
        borrow,
        deserialize_with = "borrowed_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub front: Option<Cow<'a, str>>,
    /// The 13 cards dealt: required for a royalty, optional otherwise.
    #[serde(
        default,
        borrow,
        deserialize_with = "borrowed_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub dealt: Option<Cow<'a, str>>,
}

/// One occupied seat: the seat, the bet and the same fields as [`PlaceIn`]. (Spelled out rather
/// than `#[serde(flatten)]`, which buffers every field and halves the CLI's throughput.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatIn<'a> {
    pub seat: SeatNo,
    pub bet: Money,
    #[serde(default)]
    pub action: Action,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub royalty: Option<Royalty>,
    #[serde(
        default,
        borrow,
        deserialize_with = "borrowed_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub back: Option<Cow<'a, str>>,
    #[serde(
        default,
        borrow,
        deserialize_with = "borrowed_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub middle: Option<Cow<'a, str>>,
    #[serde(
        default,
        borrow,
        deserialize_with = "borrowed_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub front: Option<Cow<'a, str>>,
    #[serde(
        default,
        borrow,
        deserialize_with = "borrowed_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub dealt: Option<Cow<'a, str>>,
}

impl<'a> SeatIn<'a> {
    /// Seat `seat`'s bet and play.
    pub fn new(seat: SeatNo, bet: Money, play: PlaceIn<'a>) -> SeatIn<'a> {
        SeatIn {
            seat,
            bet,
            action: play.action,
            royalty: play.royalty,
            back: play.back,
            middle: play.middle,
            front: play.front,
            dealt: play.dealt,
        }
    }

    /// The seat's play as a borrowed [`PlaceIn`] (no copying of card text).
    pub fn play(&self) -> PlaceIn<'_> {
        fn borrow<'b>(text: &'b Option<Cow<'_, str>>) -> Option<Cow<'b, str>> {
            text.as_deref().map(Cow::Borrowed)
        }
        PlaceIn {
            action: self.action,
            royalty: self.royalty,
            back: borrow(&self.back),
            middle: borrow(&self.middle),
            front: borrow(&self.front),
            dealt: borrow(&self.dealt),
        }
    }
}

/// Why a round as submitted cannot be settled.
#[derive(Debug, Error)]
pub enum WireError {
    #[error("not a round: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{place} {hand}: {source}")]
    Cards {
        place: Place,
        /// "back", "middle", "front" or "dealt".
        hand: &'static str,
        source: ParseCardError,
    },
    #[error("{place}: {source}")]
    Set { place: Place, source: SetHandError },
    #[error("{place}: {missing} is missing (give back, middle and front together)")]
    PartialSet { place: Place, missing: Slot },
    #[error("{place}: a deal is 13 cards, not {count}")]
    DealtCount { place: Place, count: usize },
    #[error(transparent)]
    Rules(#[from] SettlementError),
}

/// Parses one line and settles it.
pub fn settle_json(line: &str) -> Result<SettlementOut, WireError> {
    let round_in: RoundIn<'_> = serde_json::from_str(line)?;
    let round = round_in.to_round()?;
    let settlement = settle(&round)?;
    Ok(SettlementOut::new(&round, &settlement))
}

impl RoundIn<'_> {
    /// Checks and converts to a validated [`Round`].
    pub fn to_round(&self) -> Result<Round, WireError> {
        let dealer = {
            let (declaration, hands, dealt) = self.dealer.to_engine(Place::Dealer)?;
            DealerPlay {
                declaration,
                hands,
                dealt,
            }
        };
        let mut seats = Vec::with_capacity(self.seats.len());
        for seat in &self.seats {
            let (declaration, hands, dealt) = seat.play().to_engine(Place::Seat(seat.seat))?;
            seats.push(SeatPlay {
                seat: seat.seat,
                bet: seat.bet,
                declaration,
                hands,
                dealt,
            });
        }
        Ok(Round::new(self.rules, dealer, seats)?)
    }

    /// The canonical submission of a validated round (cards in canonical form, every rule
    /// spelled out): settling it again gives the same settlement.
    pub fn from_round(round: &Round) -> RoundIn<'static> {
        let dealer = round.dealer();
        RoundIn {
            rules: *round.profile(),
            dealer: PlaceIn::from_engine(
                dealer.declaration,
                round.royalty(Place::Dealer),
                dealer.hands.as_ref(),
                dealer.dealt.as_ref(),
            ),
            seats: round
                .seats()
                .map(|seat| {
                    let play = PlaceIn::from_engine(
                        seat.declaration,
                        round.royalty(Place::Seat(seat.seat)),
                        seat.hands.as_ref(),
                        seat.dealt.as_ref(),
                    );
                    SeatIn::new(seat.seat, seat.bet, play)
                })
                .collect(),
        }
    }
}

type EngineParts = (Declaration, Option<SetHand>, Option<[Card; 13]>);

/// The cards of one hand or deal text, parsed without allocating: the first 13 are kept and
/// `count` says how many the text held.
struct CardList {
    cards: [Card; 13],
    count: usize,
}

impl CardList {
    fn parse(text: &str) -> Result<CardList, ParseCardError> {
        let mut cards = [Card::new(Rank::Two, Suit::Clubs); 13];
        let count = parse_cards_into(text, {
            let mut next = cards.iter_mut();
            move |card| {
                if let Some(slot) = next.next() {
                    *slot = card;
                }
            }
        })?;
        Ok(CardList { cards, count })
    }

    /// The cards, or `None` when the text held more than were kept.
    fn as_slice(&self) -> Option<&[Card]> {
        self.cards.get(..self.count)
    }
}

/// Why the card texts of one place make no deal or set; the caller names the place.
#[derive(Debug)]
pub(crate) enum CardsError {
    Cards {
        hand: &'static str,
        source: ParseCardError,
    },
    Set(SetHandError),
    PartialSet(Slot),
    DealtCount(usize),
}

impl CardsError {
    fn at(self, place: Place) -> WireError {
        match self {
            CardsError::Cards { hand, source } => WireError::Cards {
                place,
                hand,
                source,
            },
            CardsError::Set(source) => WireError::Set { place, source },
            CardsError::PartialSet(missing) => WireError::PartialSet { place, missing },
            CardsError::DealtCount(count) => WireError::DealtCount { place, count },
        }
    }
}

/// One place's card texts parsed: its set and its deal, each when given (the deal is read
/// first). Both games' wire types use it.
pub(crate) fn place_cards(
    back: Option<&str>,
    middle: Option<&str>,
    front: Option<&str>,
    dealt: Option<&str>,
) -> Result<(Option<SetHand>, Option<[Card; 13]>), CardsError> {
    let cards = |text: &str, hand: &'static str| {
        CardList::parse(text).map_err(|source| CardsError::Cards { hand, source })
    };
    let dealt = match dealt {
        None => None,
        Some(text) => {
            let dealt = cards(text, "dealt")?;
            match dealt.count {
                13 => Some(dealt.cards),
                count => return Err(CardsError::DealtCount(count)),
            }
        }
    };
    let hands = match (back, middle, front) {
        (None, None, None) => None,
        (Some(back_text), Some(middle_text), Some(front_text)) => {
            let back = cards(back_text, "back")?;
            let middle = cards(middle_text, "middle")?;
            let front = cards(front_text, "front")?;
            let set = match (back.as_slice(), middle.as_slice(), front.as_slice()) {
                (Some(back), Some(middle), Some(front)) => SetHand::new(back, middle, front),
                // More than 13 cards in one hand: wrong anyway, but the error names the
                // real count, so take the allocating path. The texts parsed above.
                _ => {
                    let all = |text: &str| parse_cards(text).unwrap_or_default();
                    SetHand::new(&all(back_text), &all(middle_text), &all(front_text))
                }
            };
            Some(set.map_err(CardsError::Set)?)
        }
        (back, middle, _) => {
            let missing = if back.is_none() {
                Slot::Back
            } else if middle.is_none() {
                Slot::Middle
            } else {
                Slot::Front
            };
            return Err(CardsError::PartialSet(missing));
        }
    };
    Ok((hands, dealt))
}

impl PlaceIn<'_> {
    fn to_engine(&self, place: Place) -> Result<EngineParts, WireError> {
        let declaration = match self.action {
            Action::Play => Declaration::Play,
            Action::Surrender => Declaration::Surrender,
            Action::Royalty => Declaration::Royalty(self.royalty),
        };
        let (hands, dealt) = place_cards(
            self.back.as_deref(),
            self.middle.as_deref(),
            self.front.as_deref(),
            self.dealt.as_deref(),
        )
        .map_err(|error| error.at(place))?;
        Ok((declaration, hands, dealt))
    }

    fn from_engine(
        declaration: Declaration,
        royalty: Option<Royalty>,
        hands: Option<&SetHand>,
        dealt: Option<&[Card; 13]>,
    ) -> PlaceIn<'static> {
        let (action, royalty) = match declaration {
            Declaration::Play => (Action::Play, None),
            Declaration::Surrender => (Action::Surrender, None),
            Declaration::Royalty(_) => (Action::Royalty, royalty),
        };
        let text = |cards: &[Card]| Some(Cow::Owned(format_cards(cards)));
        PlaceIn {
            action,
            royalty,
            back: hands.and_then(|set| text(set.back())),
            middle: hands.and_then(|set| text(set.middle())),
            front: hands.and_then(|set| text(set.front())),
            dealt: dealt.and_then(|cards| text(cards)),
        }
    }
}

/// The names of the three hands of a set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandsOut {
    pub back: Cow<'static, str>,
    pub middle: Cow<'static, str>,
    pub front: Cow<'static, str>,
}

impl HandsOut {
    pub(crate) fn of(set: &SetHand) -> HandsOut {
        HandsOut {
            back: Cow::Borrowed(set.name(Slot::Back)),
            middle: Cow::Borrowed(set.name(Slot::Middle)),
            front: Cow::Borrowed(set.name(Slot::Front)),
        }
    }
}

/// The dealer's line of a settlement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealerOut {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub royalty: Option<Royalty>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fouled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foul: Option<String>,
    pub result: Money,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hands: Option<HandsOut>,
}

/// One seat's line of a settlement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatOut {
    pub seat: SeatNo,
    pub outcome: Outcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub royalty: Option<Royalty>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fouled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foul: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hands_won: Option<u8>,
    /// Who won the back, middle and front (when `hands_won` is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winners: Option<HandWinners>,
    pub result: Money,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hands: Option<HandsOut>,
}

/// A settled round as `pusoy-pit settle` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettlementOut {
    pub dealer: DealerOut,
    pub seats: Vec<SeatOut>,
}

impl SettlementOut {
    pub fn new(round: &Round, settlement: &Settlement) -> SettlementOut {
        let profile = round.profile();
        let foul_of = |set: Option<&SetHand>| {
            set.and_then(|set| set.foul(profile))
                .map(|foul| foul.to_string())
        };
        let dealer = round.dealer();
        let seats = round
            .seats()
            .zip(settlement.seats())
            .map(|(play, result)| SeatOut {
                seat: result.seat,
                outcome: result.outcome,
                royalty: round.royalty(Place::Seat(play.seat)),
                fouled: result.fouled,
                foul: foul_of(play.hands.as_ref()),
                hands_won: result.hands_won,
                winners: result.winners,
                result: result.result,
                hands: play.hands.as_ref().map(HandsOut::of),
            })
            .collect();
        SettlementOut {
            dealer: DealerOut {
                royalty: round.royalty(Place::Dealer),
                fouled: settlement.dealer.fouled,
                foul: foul_of(dealer.hands.as_ref()),
                result: settlement.dealer.result,
                hands: dealer.hands.as_ref().map(HandsOut::of),
            },
            seats,
        }
    }
}
