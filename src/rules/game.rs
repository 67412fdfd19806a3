//! Which game a table plays, and a rule profile as stored: its game and that game's options.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::rules::points::profile::PointsProfile;
use crate::rules::profile::RuleProfile;

/// The casino banking game (docs/rules.md §5-7) or the players' points game (§8); §1-4 hold
/// for both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Game {
    #[default]
    Banking,
    Points,
}

/// A rule profile: the game and every option of that game. On the wire one object, `game`
/// beside the options (`{"game": "points", "scoop_bonus": 3}`); without `game` it is the
/// banking game, written exactly as a banking profile always was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameRules {
    Banking(RuleProfile),
    Points(PointsProfile),
}

impl Game {
    /// The game's name on the wire and in forms: `banking` or `points`.
    pub const fn key(self) -> &'static str {
        match self {
            Game::Banking => "banking",
            Game::Points => "points",
        }
    }
}

impl std::fmt::Display for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key())
    }
}

impl Default for GameRules {
    fn default() -> Self {
        GameRules::Banking(RuleProfile::default())
    }
}

impl GameRules {
    pub fn game(&self) -> Game {
        match self {
            GameRules::Banking(_) => Game::Banking,
            GameRules::Points(_) => Game::Points,
        }
    }

    /// The banking game's options; `None` for the points game (which has no dealer's hand, so
    /// no house way either).
    pub fn banking(&self) -> Option<&RuleProfile> {
        match self {
            GameRules::Banking(options) => Some(options),
            GameRules::Points(_) => None,
        }
    }

    /// The profile in plain words, as the dealer's screen and the lists show it.
    pub fn describe(&self) -> String {
        match self {
            GameRules::Banking(options) => options.describe(),
            GameRules::Points(options) => format!("points game: {}", options.describe()),
        }
    }
}

impl From<&RuleProfile> for GameRules {
    fn from(options: &RuleProfile) -> Self {
        GameRules::Banking(*options)
    }
}

impl From<&PointsProfile> for GameRules {
    fn from(options: &PointsProfile) -> Self {
        GameRules::Points(*options)
    }
}

impl From<&GameRules> for GameRules {
    fn from(rules: &GameRules) -> Self {
        *rules
    }
}

/// A banking profile is these rules when they are the banking game's with its options.
impl PartialEq<RuleProfile> for GameRules {
    fn eq(&self, other: &RuleProfile) -> bool {
        matches!(self, GameRules::Banking(options) if options == other)
    }
}

#[derive(Serialize)]
struct Tagged<'a, T> {
    game: Game,
    #[serde(flatten)]
    options: &'a T,
}

impl Serialize for GameRules {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            GameRules::Banking(options) => options.serialize(serializer),
            GameRules::Points(options) => Tagged {
                game: Game::Points,
                options,
            }
            .serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for GameRules {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Profiles are read rarely (not per round), so going through a JSON map is fine.
        let mut options = serde_json::Map::deserialize(deserializer)?;
        let game = match options.remove("game") {
            None => Game::Banking,
            Some(game) => Game::deserialize(game).map_err(D::Error::custom)?,
        };
        let options = serde_json::Value::Object(options);
        match game {
            Game::Banking => RuleProfile::deserialize(options).map(GameRules::Banking),
            Game::Points => PointsProfile::deserialize(options).map(GameRules::Points),
        }
        .map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_has_one_name_on_the_wire_in_forms_and_in_text() {
        // The profile form's choice and the lists carry `key`; the wire reads the same name.
        for (game, name) in [(Game::Banking, "banking"), (Game::Points, "points")] {
            assert_eq!(game.key(), name);
            assert_eq!(game.to_string(), name);
            let json = serde_json::to_value(game).expect("a game");
            assert_eq!(json, serde_json::Value::from(name));
            assert_eq!(serde_json::from_value::<Game>(json).expect("reads"), game);
        }
    }

    #[test]
    fn a_profile_is_made_from_either_games_options_and_keeps_them() {
        let banking = RuleProfile {
            surrender: false,
            ..RuleProfile::default()
        };
        let points = PointsProfile {
            scoop_bonus: 6,
            ..PointsProfile::default()
        };
        let from_banking = GameRules::from(&banking);
        let from_points = GameRules::from(&points);
        assert_eq!(from_banking, GameRules::Banking(banking));
        assert_eq!(from_points, GameRules::Points(points));
        assert_eq!(GameRules::from(&from_points), from_points);
        // Only the banking game has the banking options (a dealer's hand, so a house way).
        assert_eq!(from_banking.banking(), Some(&banking));
        assert_eq!(from_points.banking(), None);
        // A stored profile is a banking profile only when it is that game with those options.
        assert!(from_banking == banking);
        assert!(from_banking != RuleProfile::default());
        assert!(GameRules::Points(PointsProfile::default()) != RuleProfile::default());
    }

    #[test]
    fn a_profile_is_described_in_its_games_words_and_the_points_game_says_so() {
        let banking = RuleProfile::default();
        let points = PointsProfile::default();
        assert_eq!(GameRules::Banking(banking).describe(), banking.describe());
        assert_eq!(
            GameRules::Points(points).describe(),
            format!("points game: {}", points.describe())
        );
    }

    #[test]
    fn a_profile_is_the_banking_game_unless_it_says_points() {
        let read = |json: &str| serde_json::from_str::<GameRules>(json);
        assert_eq!(read("{}").expect("empty"), GameRules::default());
        assert_eq!(
            read(r#"{"game": "banking", "surrender": false}"#).expect("banking"),
            GameRules::Banking(RuleProfile {
                surrender: false,
                ..RuleProfile::default()
            })
        );
        assert_eq!(
            read(r#"{"game": "points"}"#).expect("points"),
            GameRules::Points(PointsProfile::default())
        );
        let scoop = read(r#"{"game": "points", "scoop_bonus": 6}"#).expect("points");
        assert_eq!(scoop.game(), Game::Points);
        // Each game's options only.
        for (json, message) in [
            (
                r#"{"game": "points", "both_fouled": "push"}"#,
                "unknown field `both_fouled`",
            ),
            (r#"{"scoop_bonus": 3}"#, "unknown field `scoop_bonus`"),
            (r#"{"game": "poker"}"#, "unknown variant `poker`"),
        ] {
            let error = read(json).expect_err(json).to_string();
            assert!(error.contains(message), "{json}: {error}");
        }
    }

    #[test]
    fn a_banking_profile_is_written_as_before_and_a_points_profile_with_its_game() {
        let banking = serde_json::to_value(GameRules::default()).expect("banking");
        assert_eq!(
            banking,
            serde_json::to_value(RuleProfile::default()).expect("profile")
        );
        let points = GameRules::Points(PointsProfile::default());
        let text = serde_json::to_string(&points).expect("points");
        assert!(
            text.starts_with(r#"{"game":"points","ties":"suit_order""#),
            "{text}"
        );
        assert_eq!(
            serde_json::from_str::<GameRules>(&text).expect("reads back"),
            points
        );
    }
}
