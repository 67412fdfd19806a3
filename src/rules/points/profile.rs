//! The options of the points game (docs/rules.md §8.8), each with its default. The points
//! tables are data: a profile may give its own, and a missing entry scores 1 (a hand) or 0 (a
//! natural: not a natural at that table).

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::rules::hand::Category;
use crate::rules::points::natural::Natural;
use crate::rules::profile::{SuitOrder, Wheel};
use crate::rules::set_hand::Slot;

/// A points-game table's rules. Every field is optional on the wire and defaults as docs/rules.md
/// §8.8 says; a table given on the wire replaces the default table whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PointsProfile {
    /// Two hands of equal rank: decided by suit (default) or nobody scores.
    pub ties: PointsTies,
    /// Suit strength for `ties = suit_order`. Default: diamonds, clubs, hearts, spades.
    pub suit_order: SuitOrder,
    /// Where `5-4-3-2-A` ranks. Default: lowest.
    pub wheel: Wheel,
    /// Players may show naturals. Default on.
    pub naturals: bool,
    /// What each natural scores against each other player.
    pub natural_points: NaturalPoints,
    /// Players may fold before setting. Default on.
    pub surrender: bool,
    /// What a folding player pays each player who sets hands. Default 3.
    pub surrender_points: u32,
    /// What a winning hand scores, by position and category.
    pub hand_points: HandPoints,
    /// What winning all three positions against one opponent adds. Default 3.
    pub scoop_bonus: u32,
    /// The pusoy bonus for scooping every other player who set hands. Default on.
    pub pusoy_bonus: bool,
}

impl Default for PointsProfile {
    fn default() -> Self {
        PointsProfile {
            ties: PointsTies::SuitOrder,
            suit_order: SuitOrder::default(),
            wheel: Wheel::Lowest,
            naturals: true,
            natural_points: NaturalPoints::default(),
            surrender: true,
            surrender_points: 3,
            hand_points: HandPoints::default(),
            scoop_bonus: 3,
            pusoy_bonus: true,
        }
    }
}

impl PointsProfile {
    /// The suit order when equal hands go by suit, `None` under `ties = push`.
    #[inline]
    pub fn suit_ties(&self) -> Option<&SuitOrder> {
        (self.ties == PointsTies::SuitOrder).then_some(&self.suit_order)
    }

    /// The options in plain words, e.g. "naturals on (a dragon 13, six pairs 6, ...), surrender
    /// on (pays 3), scoop +3, pusoy bonus on, ties by suit (...), wheel lowest".
    pub fn describe(&self) -> String {
        let naturals = if self.naturals {
            let listed: Vec<String> = Natural::ALL
                .into_iter()
                .filter(|&natural| self.natural_points.points(natural) > 0)
                .map(|natural| format!("{natural} {}", self.natural_points.points(natural)))
                .collect();
            format!("naturals on ({})", listed.join(", "))
        } else {
            "naturals off".to_owned()
        };
        let surrender = if self.surrender {
            format!("surrender on (pays {})", self.surrender_points)
        } else {
            "surrender off".to_owned()
        };
        let ties = match self.ties {
            PointsTies::SuitOrder => format!("ties by suit ({})", self.suit_order.describe()),
            PointsTies::Push => "ties push".to_owned(),
        };
        let wheel = match self.wheel {
            Wheel::Lowest => "lowest",
            Wheel::Second => "second",
        };
        format!(
            "{naturals}, {surrender}, scoop +{}, pusoy bonus {}, {ties}, wheel {wheel}",
            self.scoop_bonus,
            if self.pusoy_bonus { "on" } else { "off" }
        )
    }
}

/// Two hands of exactly equal rank in the points game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PointsTies {
    /// Decided by the suit of the main group's highest card (docs/rules.md §3.6).
    #[default]
    SuitOrder,
    /// Nobody scores that position.
    Push,
}

/// Points per natural; 0 means not a natural at this table. On the wire, a map from natural
/// name to points listing only the naturals the table has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NaturalPoints([u32; 4]);

impl NaturalPoints {
    /// The points the natural scores, 0 when the table does not have it.
    pub const fn points(&self, natural: Natural) -> u32 {
        self.0[natural as usize]
    }
}

impl Default for NaturalPoints {
    fn default() -> Self {
        NaturalPoints([13, 6, 6, 6])
    }
}

impl Serialize for NaturalPoints {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let listed: BTreeMap<&str, u32> = Natural::ALL
            .into_iter()
            .filter(|&natural| self.points(natural) > 0)
            .map(|natural| (natural.key(), self.points(natural)))
            .collect();
        listed.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for NaturalPoints {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let listed = BTreeMap::<String, u32>::deserialize(deserializer)?;
        let mut points = [0; 4];
        for (name, value) in listed {
            let natural = Natural::from_key(&name).ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "`{name}` is not a natural (dragon, six_pairs, three_flushes, three_straights)"
                ))
            })?;
            points[natural as usize] = value;
        }
        Ok(NaturalPoints(points))
    }
}

/// Points for a winning hand by position (`Slot as usize`) and category (`Category as usize`).
/// On the wire, `{"front": {"three_of_a_kind": 3}, "middle": {...}, "back": {...}}` listing
/// only entries other than 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HandPoints([[u32; 9]; 3]);

impl HandPoints {
    /// Every hand 1: what a given table starts from before its entries.
    const ONES: HandPoints = HandPoints([[1; 9]; 3]);

    #[inline]
    pub const fn points(&self, slot: Slot, category: Category) -> u32 {
        self.0[slot as usize][category as usize]
    }

    fn set(&mut self, slot: Slot, category: Category, points: u32) {
        self.0[slot as usize][category as usize] = points;
    }
}

impl Default for HandPoints {
    fn default() -> Self {
        let mut table = HandPoints::ONES;
        table.set(Slot::Front, Category::ThreeOfAKind, 3);
        table.set(Slot::Middle, Category::FullHouse, 2);
        table.set(Slot::Middle, Category::FourOfAKind, 8);
        table.set(Slot::Middle, Category::StraightFlush, 10);
        table.set(Slot::Back, Category::FourOfAKind, 4);
        table.set(Slot::Back, Category::StraightFlush, 5);
        table
    }
}

/// The category names of `hand_points`.
pub const fn category_key(category: Category) -> &'static str {
    match category {
        Category::HighCard => "high_card",
        Category::OnePair => "pair",
        Category::TwoPair => "two_pair",
        Category::ThreeOfAKind => "three_of_a_kind",
        Category::Straight => "straight",
        Category::Flush => "flush",
        Category::FullHouse => "full_house",
        Category::FourOfAKind => "four_of_a_kind",
        Category::StraightFlush => "straight_flush",
    }
}

/// The categories a hand in the position can be: a front only high card, pair or trips.
fn categories(slot: Slot) -> &'static [Category] {
    const FRONT: [Category; 3] = [
        Category::HighCard,
        Category::OnePair,
        Category::ThreeOfAKind,
    ];
    match slot {
        Slot::Front => &FRONT,
        Slot::Middle | Slot::Back => &Category::ALL,
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct HandPointsWire {
    #[serde(default)]
    front: BTreeMap<String, u32>,
    #[serde(default)]
    middle: BTreeMap<String, u32>,
    #[serde(default)]
    back: BTreeMap<String, u32>,
}

impl Serialize for HandPoints {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let listed = |slot: Slot| -> BTreeMap<String, u32> {
            categories(slot)
                .iter()
                .filter(|&&category| self.points(slot, category) != 1)
                .map(|&category| {
                    (
                        category_key(category).to_string(),
                        self.points(slot, category),
                    )
                })
                .collect()
        };
        HandPointsWire {
            front: listed(Slot::Front),
            middle: listed(Slot::Middle),
            back: listed(Slot::Back),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for HandPoints {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = HandPointsWire::deserialize(deserializer)?;
        let mut table = HandPoints::ONES;
        for (slot, listed) in [
            (Slot::Front, wire.front),
            (Slot::Middle, wire.middle),
            (Slot::Back, wire.back),
        ] {
            for (name, points) in listed {
                let allowed = categories(slot);
                let category = allowed
                    .iter()
                    .copied()
                    .find(|&category| category_key(category) == name)
                    .ok_or_else(|| {
                        let names: Vec<&str> = allowed.iter().map(|&c| category_key(c)).collect();
                        serde::de::Error::custom(format!(
                            "`{name}` is not a {slot} hand ({})",
                            names.join(", ")
                        ))
                    })?;
                table.set(slot, category, points);
            }
        }
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_points_profile_gets_every_default_of_section_7() {
        let profile: PointsProfile = serde_json::from_str("{}").expect("empty profile");
        assert_eq!(profile, PointsProfile::default());
        assert_eq!(profile.ties, PointsTies::SuitOrder);
        assert_eq!(profile.suit_order.to_string(), "dchs");
        assert_eq!(profile.wheel, Wheel::Lowest);
        assert!(profile.naturals && profile.surrender && profile.pusoy_bonus);
        assert_eq!((profile.surrender_points, profile.scoop_bonus), (3, 3));
        let naturals: Vec<u32> = Natural::ALL
            .map(|natural| profile.natural_points.points(natural))
            .to_vec();
        assert_eq!(naturals, [13, 6, 6, 6]);
        let hand = |slot, category| profile.hand_points.points(slot, category);
        assert_eq!(hand(Slot::Front, Category::ThreeOfAKind), 3);
        assert_eq!(hand(Slot::Front, Category::OnePair), 1);
        assert_eq!(hand(Slot::Middle, Category::FullHouse), 2);
        assert_eq!(hand(Slot::Middle, Category::FourOfAKind), 8);
        assert_eq!(hand(Slot::Middle, Category::StraightFlush), 10);
        assert_eq!(hand(Slot::Back, Category::FourOfAKind), 4);
        assert_eq!(hand(Slot::Back, Category::StraightFlush), 5);
        assert_eq!(hand(Slot::Back, Category::FullHouse), 1);
        assert_eq!(
            serde_json::to_value(profile).expect("serialises")["hand_points"],
            serde_json::json!({
                "front": {"three_of_a_kind": 3},
                "middle": {"full_house": 2, "four_of_a_kind": 8, "straight_flush": 10},
                "back": {"four_of_a_kind": 4, "straight_flush": 5},
            })
        );
    }

    #[test]
    fn a_table_given_replaces_the_default_whole_and_missing_entries_score_one_or_nothing() {
        let profile: PointsProfile = serde_json::from_str(
            r#"{"hand_points": {"front": {"pair": 2}}, "natural_points": {"dragon": 20}}"#,
        )
        .expect("profile");
        let hand = |slot, category| profile.hand_points.points(slot, category);
        assert_eq!(hand(Slot::Front, Category::OnePair), 2);
        assert_eq!(hand(Slot::Front, Category::ThreeOfAKind), 1);
        assert_eq!(hand(Slot::Middle, Category::FourOfAKind), 1);
        assert_eq!(profile.natural_points.points(Natural::Dragon), 20);
        assert_eq!(profile.natural_points.points(Natural::SixPairs), 0);
        // What it serialises to reads back the same.
        let text = serde_json::to_string(&profile).expect("serialises");
        assert_eq!(
            serde_json::from_str::<PointsProfile>(&text).expect("reads back"),
            profile
        );
    }

    #[test]
    fn the_natural_table_is_written_listing_only_the_naturals_the_table_has() {
        let profile: PointsProfile =
            serde_json::from_str(r#"{"natural_points": {"dragon": 20, "six_pairs": 0}}"#)
                .expect("profile");
        let written = serde_json::to_value(profile).expect("serialises");
        assert_eq!(written["natural_points"], serde_json::json!({"dragon": 20}));
    }

    #[test]
    fn unknown_options_and_table_entries_are_refused_by_name() {
        for (json, message) in [
            (r#"{"both_fouled": "push"}"#, "unknown field `both_fouled`"),
            (
                r#"{"ties": "dealer_wins"}"#,
                "unknown variant `dealer_wins`",
            ),
            (
                r#"{"natural_points": {"dragons": 13}}"#,
                "`dragons` is not a natural",
            ),
            (
                r#"{"hand_points": {"front": {"flush": 2}}}"#,
                "`flush` is not a front hand (high_card, pair, three_of_a_kind)",
            ),
            (
                r#"{"hand_points": {"middle": {"trips": 2}}}"#,
                "`trips` is not a middle hand",
            ),
            (r#"{"hand_points": {"top": {}}}"#, "unknown field `top`"),
            (r#"{"scoop_bonus": -1}"#, "invalid value: integer `-1`"),
        ] {
            let error = serde_json::from_str::<PointsProfile>(json).expect_err(json);
            assert!(error.to_string().contains(message), "{json}: {error}");
        }
    }

    #[test]
    fn the_options_read_in_plain_words_listing_only_the_naturals_the_table_has() {
        // What the table lists and the table screen show of a points table's rules.
        let cases = [
            (
                "{}",
                "naturals on (a dragon 13, six pairs 6, three flushes 6, three straights 6), \
                 surrender on (pays 3), scoop +3, pusoy bonus on, \
                 ties by suit (diamonds > clubs > hearts > spades), wheel lowest",
            ),
            (
                r#"{"natural_points": {"dragon": 20}, "surrender": false, "scoop_bonus": 2,
                    "pusoy_bonus": false, "ties": "push", "wheel": "second"}"#,
                "naturals on (a dragon 20), surrender off, scoop +2, pusoy bonus off, \
                 ties push, wheel second",
            ),
            (
                r#"{"naturals": false, "surrender_points": 5, "suit_order": "shdc"}"#,
                "naturals off, surrender on (pays 5), scoop +3, pusoy bonus on, \
                 ties by suit (spades > hearts > diamonds > clubs), wheel lowest",
            ),
        ];
        for (json, described) in cases {
            let profile: PointsProfile = serde_json::from_str(json).expect(json);
            assert_eq!(profile.describe(), described, "{json}");
        }
    }
}
