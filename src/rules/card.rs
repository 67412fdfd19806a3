//! Cards: ranks, suits, the canonical two-character notation and parsing of card lists.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

/// A card rank, deuce lowest. Aces are high; the wheel (`5-4-3-2-A`) is handled by the evaluator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rank {
    Two,
    Three,
    Four,
    Five,
    Six,
    Seven,
    Eight,
    Nine,
    Ten,
    Jack,
    Queen,
    King,
    Ace,
}

impl Rank {
    /// All ranks, lowest first.
    pub const ALL: [Rank; 13] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// 0 for a deuce up to 12 for an ace.
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The rank with this index (taken modulo 13, so any `u8` maps to a rank).
    pub const fn from_index(index: u8) -> Rank {
        Rank::ALL[(index % 13) as usize]
    }

    /// The canonical character: `2`..`9`, `T`, `J`, `Q`, `K`, `A`.
    pub const fn symbol(self) -> char {
        [
            '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A',
        ][self as usize]
    }

    /// The word a dealer says: "seven", "queen".
    pub const fn word(self) -> &'static str {
        [
            "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
            "queen", "king", "ace",
        ][self as usize]
    }

    /// The plural: "sixes", "queens".
    pub const fn plural(self) -> &'static str {
        [
            "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
            "jacks", "queens", "kings", "aces",
        ][self as usize]
    }

    fn parse_text(text: &str) -> Option<Rank> {
        if text == "10" {
            return Some(Rank::Ten);
        }
        let mut chars = text.chars();
        let symbol = chars.next()?.to_ascii_uppercase();
        if chars.next().is_some() {
            return None;
        }
        Rank::ALL.into_iter().find(|rank| rank.symbol() == symbol)
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

/// A suit. The derived order (clubs lowest) is only for sorting; suit strength in ties comes from
/// the rule profile's `suit_order`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Suit {
    Clubs,
    Diamonds,
    Hearts,
    Spades,
}

impl Suit {
    /// All suits in index order.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// 0 for clubs up to 3 for spades.
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The suit with this index (taken modulo 4).
    pub const fn from_index(index: u8) -> Suit {
        Suit::ALL[(index % 4) as usize]
    }

    /// The canonical lowercase letter.
    pub const fn symbol(self) -> char {
        ['c', 'd', 'h', 's'][self as usize]
    }

    /// The plural word: "diamonds".
    pub const fn word(self) -> &'static str {
        ["clubs", "diamonds", "hearts", "spades"][self as usize]
    }

    /// Parses a letter (any case) or a suit symbol (♣♦♥♠, also the white variants).
    pub fn from_char(c: char) -> Option<Suit> {
        match c.to_ascii_lowercase() {
            'c' | '♣' | '♧' => Some(Suit::Clubs),
            'd' | '♦' | '♢' => Some(Suit::Diamonds),
            'h' | '♥' | '♡' => Some(Suit::Hearts),
            's' | '♠' | '♤' => Some(Suit::Spades),
            _ => None,
        }
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

/// One of the 52 cards. Stored as its index `4 * rank + suit`, so it is one byte and `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card {
    index: u8,
}

impl Card {
    /// The card of this rank and suit.
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card {
            index: rank.index() * 4 + suit.index(),
        }
    }

    /// The card's index, `0..52`: `4 * rank + suit` (so `2c` is 0 and `As` is 51).
    pub const fn index(self) -> u8 {
        self.index
    }

    /// The card with this index, or `None` outside `0..52`.
    pub const fn from_index(index: u8) -> Option<Card> {
        if index < 52 {
            Some(Card { index })
        } else {
            None
        }
    }

    pub const fn rank(self) -> Rank {
        // A table rather than `Rank::from_index`, whose `% 13` costs a multiply on hot paths.
        const RANK_OF: [Rank; 64] = {
            let mut table = [Rank::Two; 64];
            let mut i = 0;
            while i < 64 {
                table[i] = Rank::from_index((i >> 2) as u8);
                i += 1;
            }
            table
        };
        RANK_OF[(self.index & 63) as usize]
    }

    pub const fn suit(self) -> Suit {
        Suit::from_index(self.index & 3)
    }

    /// The whole deck in index order.
    pub fn all() -> impl Iterator<Item = Card> {
        (0..52).map(|index| Card { index })
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank(), self.suit())
    }
}

/// What is wrong with one card token.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CardProblem {
    /// Too short, or a word: no rank is more than two characters.
    #[error("a card is a rank (2-9, T or 10, J, Q, K, A) then a suit (c, d, h, s or ♣ ♦ ♥ ♠)")]
    NotACard,
    #[error("`{0}` is not a rank (2-9, T or 10, J, Q, K, A)")]
    UnknownRank(String),
    #[error("`{0}` is not a suit (c, d, h, s or ♣ ♦ ♥ ♠)")]
    UnknownSuit(char),
}

/// A card token that does not parse, with its 1-based position in the list it came from.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("card {position} `{token}`: {problem}")]
pub struct ParseCardError {
    pub position: usize,
    pub token: String,
    pub problem: CardProblem,
}

/// A byte-indexed lookup: `table[b]` is `i + 1` where `b` is `symbols[i]` in either case, else 0.
const fn byte_table(symbols: &[u8]) -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < symbols.len() {
        table[symbols[i].to_ascii_lowercase() as usize] = i as u8 + 1;
        table[symbols[i].to_ascii_uppercase() as usize] = i as u8 + 1;
        i += 1;
    }
    table
}

/// `RANK_BY_BYTE[b]` is the rank index + 1 of an ASCII rank letter (either case), else 0.
const RANK_BY_BYTE: [u8; 256] = byte_table(b"23456789TJQKA");

/// `SUIT_BY_BYTE[b]` is the suit index + 1 of an ASCII suit letter (either case), else 0.
const SUIT_BY_BYTE: [u8; 256] = byte_table(b"cdhs");

fn parse_token(token: &str) -> Result<Card, CardProblem> {
    // Fast path for the canonical two ASCII characters; everything else takes the general one.
    if let [rank, suit] = *token.as_bytes() {
        let (rank, suit) = (
            RANK_BY_BYTE[usize::from(rank)],
            SUIT_BY_BYTE[usize::from(suit)],
        );
        if rank != 0 && suit != 0 {
            return Ok(Card::new(
                Rank::from_index(rank - 1),
                Suit::from_index(suit - 1),
            ));
        }
    }
    let mut chars = token.chars();
    let suit_char = chars.next_back().ok_or(CardProblem::NotACard)?;
    let rank_text = chars.as_str();
    if rank_text.is_empty() || rank_text.chars().count() > 2 {
        return Err(CardProblem::NotACard);
    }
    let rank = Rank::parse_text(rank_text)
        .ok_or_else(|| CardProblem::UnknownRank(rank_text.to_string()))?;
    let suit = Suit::from_char(suit_char).ok_or(CardProblem::UnknownSuit(suit_char))?;
    Ok(Card::new(rank, suit))
}

impl FromStr for Card {
    type Err = ParseCardError;

    fn from_str(text: &str) -> Result<Card, ParseCardError> {
        let token = text.trim();
        parse_token(token).map_err(|problem| ParseCardError {
            position: 1,
            token: token.to_string(),
            problem,
        })
    }
}

/// Parses a list of cards separated by whitespace and/or commas: `"As Kd, 10h ♠2"` is not
/// accepted (rank first), `"As Kd, 10h 2♠"` is.
pub fn parse_cards(text: &str) -> Result<Vec<Card>, ParseCardError> {
    let mut cards = Vec::with_capacity(13);
    parse_cards_into(text, |card| cards.push(card))?;
    Ok(cards)
}

/// Like [`parse_cards`] but hands each card to `sink` instead of allocating.
pub fn parse_cards_into(text: &str, mut sink: impl FnMut(Card)) -> Result<usize, ParseCardError> {
    if let Some(count) = parse_canonical(text.as_bytes(), &mut sink) {
        return Ok(count);
    }
    let mut count = 0;
    // ASCII bytes never occur inside a multi-byte character, so splitting bytes is safe when the
    // text is ASCII; other text may hold Unicode spaces and is split by characters.
    let ascii: &mut dyn Iterator<Item = &str> = &mut text
        .split(|c: char| c.is_ascii_whitespace() || c == ',')
        .filter(|token| !token.is_empty());
    let unicode: &mut dyn Iterator<Item = &str> = &mut text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|token| !token.is_empty());
    let tokens = if text.is_ascii() { ascii } else { unicode };
    for token in tokens {
        match parse_token(token) {
            Ok(card) => {
                sink(card);
                count += 1;
            }
            // Cards typed without spaces between them (`AsKsQs`): each in turn.
            Err(problem) => match glued(token) {
                Some(cards) => {
                    count += cards.len();
                    cards.into_iter().for_each(&mut sink);
                }
                None => {
                    return Err(ParseCardError {
                        position: count + 1,
                        token: token.to_string(),
                        problem,
                    })
                }
            },
        }
    }
    Ok(count)
}

/// The cards of a token of several cards written together (`AsKsQs`, `10h9h`), each a rank
/// then a suit; `None` unless the whole token is such cards. Ranks and suits share no symbol,
/// so there is one way to read it (docs/rules.md §2.2).
fn glued(token: &str) -> Option<Vec<Card>> {
    let mut cards = Vec::new();
    let mut rest = token;
    while !rest.is_empty() {
        let rank_len = if rest.starts_with("10") {
            2
        } else {
            rest.chars().next()?.len_utf8()
        };
        let suit_len = rest[rank_len..].chars().next()?.len_utf8();
        let (card, tail) = rest.split_at(rank_len + suit_len);
        cards.push(parse_token(card).ok()?);
        rest = tail;
    }
    (cards.len() > 1).then_some(cards)
}

/// The fast path for the canonical form of up to 13 cards (`"As Kd 7h"`: two ASCII characters
/// per card, single spaces): `None`, before any card reaches `sink`, for any other text.
#[inline]
fn parse_canonical(text: &[u8], sink: &mut impl FnMut(Card)) -> Option<usize> {
    let count = text.len().div_ceil(3);
    if text.len() % 3 != 2 || count > 13 {
        return None;
    }
    let mut cards = [Card { index: 0 }; 13];
    for (i, slot) in cards.iter_mut().take(count).enumerate() {
        let rank = RANK_BY_BYTE[usize::from(*text.get(3 * i)?)];
        let suit = SUIT_BY_BYTE[usize::from(*text.get(3 * i + 1)?)];
        let separator = text.get(3 * i + 2).copied().unwrap_or(b' ');
        if rank == 0 || suit == 0 || separator != b' ' {
            return None;
        }
        *slot = Card {
            index: (rank - 1) * 4 + (suit - 1),
        };
    }
    cards.iter().take(count).for_each(|&card| sink(card));
    Some(count)
}

/// Writes cards in canonical form separated by single spaces.
pub fn format_cards(cards: &[Card]) -> String {
    let mut text = String::with_capacity(cards.len() * 3);
    for (i, card) in cards.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push(card.rank().symbol());
        text.push(card.suit().symbol());
    }
    text
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Card, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn card(text: &str) -> Card {
        text.parse().expect("test card")
    }

    #[test]
    fn every_spelling_of_a_card_parses_to_the_same_card() {
        let cases = [
            ("Td", "Td"),
            ("10d", "Td"),
            ("td", "Td"),
            ("tD", "Td"),
            ("10♦", "Td"),
            ("As", "As"),
            ("a♠", "As"),
            ("2c", "2c"),
            ("2♣", "2c"),
            ("kH", "Kh"),
            ("Q♥", "Qh"),
        ];
        for (text, canonical) in cases {
            assert_eq!(card(text).to_string(), canonical, "parsing {text}");
        }
    }

    #[test]
    fn bad_tokens_are_rejected_with_the_reason() {
        let cases = [
            ("1x", CardProblem::UnknownRank("1".into())),
            ("Ax", CardProblem::UnknownSuit('x')),
            ("A", CardProblem::NotACard),
            ("hello", CardProblem::NotACard),
            ("11h", CardProblem::UnknownRank("11".into())),
            ("Ahh", CardProblem::UnknownRank("Ah".into())),
        ];
        for (text, problem) in cases {
            let error = text.parse::<Card>().expect_err(text);
            assert_eq!(error.problem, problem, "parsing {text}");
        }
    }

    #[test]
    fn a_list_error_names_the_token_and_its_position() {
        let error = parse_cards("As Kd, 1x Qh").expect_err("bad list");
        assert_eq!(error.position, 3);
        assert_eq!(error.token, "1x");
        assert!(error.to_string().starts_with("card 3 `1x`: "), "{error}");
    }

    #[test]
    fn lists_split_on_whitespace_and_commas() {
        let cards = parse_cards(" As,Kd ,, 10h\t2♠\n").expect("good list");
        assert_eq!(format_cards(&cards), "As Kd Th 2s");
    }

    #[test]
    fn cards_typed_without_spaces_are_read_one_by_one() {
        let cards = parse_cards("AsKsQs 10h9♠,2c").expect("good list");
        assert_eq!(format_cards(&cards), "As Ks Qs Th 9s 2c");
        let error = parse_cards("AsKs 1x").expect_err("bad list");
        assert_eq!((error.position, error.token.as_str()), (3, "1x"));
        // Only a token that is cards from end to end: no half-cards.
        let error = parse_cards("AsKsQ").expect_err("a half card");
        assert_eq!((error.position, error.token.as_str()), (1, "AsKsQ"));
        assert!("AsKs".parse::<Card>().is_err(), "one card is one card");
    }

    #[test]
    fn card_indices_cover_the_deck_once() {
        let all: Vec<Card> = Card::all().collect();
        assert_eq!(all.len(), 52);
        for (i, c) in all.iter().enumerate() {
            assert_eq!(usize::from(c.index()), i);
            assert_eq!(Card::from_index(c.index()), Some(*c));
            assert_eq!(Card::new(c.rank(), c.suit()), *c);
        }
        assert_eq!(Card::from_index(52), None);
        assert_eq!(card("2c").index(), 0);
        assert_eq!(card("As").index(), 51);
    }

    #[test]
    fn cards_serialize_as_their_canonical_string() {
        let json = serde_json::to_string(&card("10d")).expect("serialize");
        assert_eq!(json, "\"Td\"");
        let back: Card = serde_json::from_str("\"t♦\"").expect("deserialize");
        assert_eq!(back, card("Td"));
        assert!(serde_json::from_str::<Card>("\"Tx\"").is_err());
    }

    proptest! {
        #[test]
        fn parse_after_display_is_identity(index in 0u8..52) {
            let c = Card::from_index(index).expect("index in range");
            prop_assert_eq!(c.to_string().parse::<Card>(), Ok(c));
        }

        #[test]
        fn parse_cards_after_format_cards_is_identity(indices in proptest::collection::vec(0u8..52, 0..14)) {
            let cards: Vec<Card> = indices.iter().filter_map(|&i| Card::from_index(i)).collect();
            prop_assert_eq!(parse_cards(&format_cards(&cards)), Ok(cards));
        }
    }

    #[test]
    fn a_card_list_in_any_accepted_form_reports_how_many_cards_it_held() {
        let mut cards = Vec::new();
        let count = parse_cards_into("10h, 9d 2♠", |card| cards.push(card)).expect("cards");
        assert_eq!((count, cards.len()), (3, 3));
        assert_eq!(parse_cards_into("As Kd 7h", |_| {}).expect("cards"), 3);
    }

    /// What the fast path reads of `text`: its answer and the cards it handed on.
    fn canonical(text: &str) -> (Option<usize>, Vec<Card>) {
        let mut cards = Vec::new();
        let read = parse_canonical(text.as_bytes(), &mut |card| cards.push(card));
        (read, cards)
    }

    #[test]
    fn the_fast_path_reads_every_canonical_list_of_up_to_13_cards_and_hands_on_anything_else() {
        // Every card, in runs of 1 to 13, in either case: read by the fast path, card for card
        // as the card parser reads each token.
        let deck: Vec<Card> = Card::all().collect();
        for run in deck
            .chunks(13)
            .flat_map(|suit| (1..=13).map(move |n| &suit[..n]))
        {
            let text = format_cards(run);
            for text in [text.clone(), text.to_lowercase()] {
                let tokens: Vec<Card> = text.split(' ').map(card).collect();
                assert_eq!(canonical(&text), (Some(run.len()), tokens), "{text}");
            }
        }
        let thirteen = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac";
        assert_eq!(canonical(thirteen).0, Some(13));
        // Anything else is handed on whole to the general path: no card taken, nothing counted.
        for text in [
            "",
            "A",
            "As ",
            " As",
            "As  Kd",
            "As,Kd",
            "As\tKd",
            "10s",
            "Xs Kd",
            "As Kx",
            "1s Kd",
            "As Kd7h",
            "As K♦",
            &format!("{thirteen} Ad"),
        ] {
            assert_eq!(canonical(text), (None, Vec::new()), "{text:?}");
        }
        // Fourteen cards are counted by the general path, every one handed on.
        let mut cards = Vec::new();
        let count = parse_cards_into(&format!("{thirteen} Ad"), |card| cards.push(card));
        assert_eq!((count, cards.len()), (Ok(14), 14));
    }
}
