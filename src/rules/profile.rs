//! The rule profile: every option of the banking game (docs/rules.md §7) with its default.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::rules::card::Suit;

/// A table's rules. Every field is optional on the wire and defaults as docs/rules.md §7 says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RuleProfile {
    /// Players may concede before setting (docs/rules.md §5.3). Default on.
    pub surrender: bool,
    /// Players may declare royalties (docs/rules.md §5.2). Default on.
    pub royalties: bool,
    /// The dealer may declare royalties too (only when `royalties` is on). Default on.
    pub dealer_royalties: bool,
    /// Who takes an exact tie. Default: the dealer.
    pub ties: TieRule,
    /// What happens when both player and dealer foul. Default: push.
    pub both_fouled: BothFouled,
    /// Where `5-4-3-2-A` ranks. Default: lowest.
    pub wheel: Wheel,
    /// Suit strength for `ties = suit_order`. Default: diamonds, clubs, hearts, spades.
    pub suit_order: SuitOrder,
    /// The table's dealers must set their hands by the house way ([`crate::rules::houseway`]):
    /// a dealer's set that differs is flagged for the supervisor. Default off (also for
    /// profiles stored before the option existed).
    pub house_way: bool,
}

impl Default for RuleProfile {
    fn default() -> Self {
        RuleProfile {
            surrender: true,
            royalties: true,
            dealer_royalties: true,
            ties: TieRule::DealerWins,
            both_fouled: BothFouled::Push,
            wheel: Wheel::Lowest,
            suit_order: SuitOrder::default(),
            house_way: false,
        }
    }
}

impl RuleProfile {
    /// The suit order when exact ties go by suit, `None` when they go to the dealer.
    #[inline]
    pub fn suit_ties(&self) -> Option<&SuitOrder> {
        (self.ties == TieRule::SuitOrder).then_some(&self.suit_order)
    }

    /// The profile in plain words for the dealer screen, e.g.
    /// "surrender on, royalties on (dealer too), ties to the dealer, both fouled: push, wheel lowest".
    pub fn describe(&self) -> String {
        let on = |flag: bool| if flag { "on" } else { "off" };
        let royalties = match (self.royalties, self.dealer_royalties) {
            (true, true) => "royalties on (dealer too)",
            (true, false) => "royalties on (players only)",
            (false, _) => "royalties off",
        };
        let ties = match self.ties {
            TieRule::DealerWins => "ties to the dealer".to_string(),
            TieRule::SuitOrder => format!("ties by suit ({})", self.suit_order.describe()),
        };
        let both_fouled = match self.both_fouled {
            BothFouled::Push => "push",
            BothFouled::PlayerLoses => "player loses",
        };
        let wheel = match self.wheel {
            Wheel::Lowest => "lowest",
            Wheel::Second => "second",
        };
        let dealer_sets = if self.house_way {
            ", dealer sets by the house way"
        } else {
            ""
        };
        format!(
            "surrender {}, {royalties}, {ties}, both fouled: {both_fouled}, wheel {wheel}{dealer_sets}",
            on(self.surrender)
        )
    }
}

/// Who takes two hands of exactly equal rank.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TieRule {
    #[default]
    DealerWins,
    SuitOrder,
}

/// The result of a played seat when both the player and the dealer fouled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BothFouled {
    #[default]
    Push,
    PlayerLoses,
}

/// Where the wheel `5-4-3-2-A` ranks among straights.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wheel {
    /// The lowest straight (and straight flush), as in the casino rules.
    #[default]
    Lowest,
    /// Just below `A-K-Q-J-T`.
    Second,
}

/// Suit strength, highest first. Always the four suits, each once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct SuitOrder {
    highest_first: [Suit; 4],
    /// `strength[suit.index()]`: 3 for the highest suit down to 0.
    strength: [u8; 4],
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "suit order `{0}` must list the four suits c, d, h, s once each, highest first (e.g. \"dchs\")"
)]
pub struct BadSuitOrder(pub String);

impl SuitOrder {
    pub fn new(highest_first: [Suit; 4]) -> Result<SuitOrder, BadSuitOrder> {
        let mut strength = [u8::MAX; 4];
        for (position, suit) in highest_first.iter().enumerate() {
            let slot = &mut strength[usize::from(suit.index())];
            if *slot != u8::MAX {
                return Err(BadSuitOrder(
                    highest_first.iter().map(|s| s.symbol()).collect(),
                ));
            }
            // position < 4, so 3 - position fits in a u8.
            *slot = 3 - position as u8;
        }
        Ok(SuitOrder {
            highest_first,
            strength,
        })
    }

    pub fn highest_first(&self) -> [Suit; 4] {
        self.highest_first
    }

    /// 3 for the strongest suit down to 0 for the weakest.
    pub fn strength(&self, suit: Suit) -> u8 {
        self.strength[usize::from(suit.index())]
    }

    pub(crate) fn describe(&self) -> String {
        let words: Vec<&str> = self.highest_first.iter().map(|s| s.word()).collect();
        words.join(" > ")
    }
}

impl Default for SuitOrder {
    fn default() -> Self {
        SuitOrder {
            highest_first: [Suit::Diamonds, Suit::Clubs, Suit::Hearts, Suit::Spades],
            strength: [2, 3, 1, 0],
        }
    }
}

impl FromStr for SuitOrder {
    type Err = BadSuitOrder;

    fn from_str(text: &str) -> Result<SuitOrder, BadSuitOrder> {
        let bad = || BadSuitOrder(text.to_string());
        let suits: Vec<Suit> = text
            .chars()
            .map(Suit::from_char)
            .collect::<Option<_>>()
            .ok_or_else(bad)?;
        let highest_first: [Suit; 4] = suits.try_into().map_err(|_| bad())?;
        SuitOrder::new(highest_first).map_err(|_| bad())
    }
}

impl TryFrom<String> for SuitOrder {
    type Error = BadSuitOrder;

    fn try_from(text: String) -> Result<SuitOrder, BadSuitOrder> {
        text.parse()
    }
}

impl From<SuitOrder> for String {
    fn from(order: SuitOrder) -> String {
        order.to_string()
    }
}

impl fmt::Display for SuitOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for suit in self.highest_first {
            write!(f, "{}", suit.symbol())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_profile_gets_every_default_of_the_rules() {
        let profile: RuleProfile = serde_json::from_str("{}").expect("empty profile");
        assert_eq!(profile, RuleProfile::default());
        assert!(profile.surrender && profile.royalties && profile.dealer_royalties);
        assert_eq!(profile.ties, TieRule::DealerWins);
        assert_eq!(profile.both_fouled, BothFouled::Push);
        assert_eq!(profile.wheel, Wheel::Lowest);
        assert_eq!(profile.suit_order.to_string(), "dchs");
        assert!(
            !profile.house_way,
            "a profile stored before the option reads as off"
        );
    }

    #[test]
    fn each_field_can_be_set_alone() {
        let cases = [
            (r#"{"surrender": false}"#, "surrender off, royalties on (dealer too), ties to the dealer, both fouled: push, wheel lowest"),
            (r#"{"dealer_royalties": false}"#, "surrender on, royalties on (players only), ties to the dealer, both fouled: push, wheel lowest"),
            (r#"{"ties": "suit_order", "suit_order": "SHDC"}"#, "surrender on, royalties on (dealer too), ties by suit (spades > hearts > diamonds > clubs), both fouled: push, wheel lowest"),
            (r#"{"both_fouled": "player_loses", "wheel": "second"}"#, "surrender on, royalties on (dealer too), ties to the dealer, both fouled: player loses, wheel second"),
            (r#"{"royalties": false, "dealer_royalties": false}"#, "surrender on, royalties off, ties to the dealer, both fouled: push, wheel lowest"),
            (r#"{"house_way": true}"#, "surrender on, royalties on (dealer too), ties to the dealer, both fouled: push, wheel lowest, dealer sets by the house way"),
        ];
        for (json, described) in cases {
            let profile: RuleProfile = serde_json::from_str(json).expect(json);
            assert_eq!(profile.describe(), described, "{json}");
        }
    }

    #[test]
    fn bad_suit_orders_and_unknown_options_are_rejected() {
        for json in [
            r#"{"suit_order": "dchh"}"#,
            r#"{"suit_order": "dch"}"#,
            r#"{"suit_order": "dchsx"}"#,
            r#"{"ties": "player_wins"}"#,
            r#"{"wheel": "high"}"#,
            r#"{"surender": true}"#,
        ] {
            assert!(serde_json::from_str::<RuleProfile>(json).is_err(), "{json}");
        }
    }

    #[test]
    fn suit_strength_follows_the_order() {
        let order: SuitOrder = "dchs".parse().expect("order");
        assert_eq!(order, SuitOrder::default());
        assert!(order.strength(Suit::Diamonds) > order.strength(Suit::Clubs));
        assert!(order.strength(Suit::Hearts) > order.strength(Suit::Spades));
        let symbols: SuitOrder = "♠♥♦♣".parse().expect("symbols");
        assert_eq!(symbols.to_string(), "shdc");
    }
}
