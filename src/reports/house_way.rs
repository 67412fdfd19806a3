//! The house way for the pit: each place of a settled round measured against the house way of
//! its own 13 cards (the dealer's side for the dealer, a player's for the seats), and the
//! surveillance report of dealers and player seats by how often and how far their sets departed
//! from it over a range of gaming days. Voided rounds are left out. Reads only.

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;
use diesel::prelude::*;
use serde_json::Value;

use crate::db::ids::ProfileVersionId;
use crate::db::profiles;
use crate::db::rounds::rows::{PlaceName, PlaceRow};
use crate::db::schema::{gaming_tables, round_voids, rounds, users};
use crate::reports::gaming_day::{check_range, ReportError};
use crate::rules::card::parse_cards;
use crate::rules::houseway::{analyse, Analysis, Side};
use crate::rules::profile::RuleProfile;
use crate::rules::set_hand::SetHand;

/// The set a place recorded, if it set three readable hands (not a surrender or a royalty).
pub fn recorded_set(place: &PlaceRow) -> Option<SetHand> {
    let hand = |text: &Option<String>| parse_cards(text.as_deref()?).ok();
    SetHand::new(
        &hand(&place.back)?,
        &hand(&place.middle)?,
        &hand(&place.front)?,
    )
    .ok()
}

/// A place's set against the house way of its cards (`None`: the place set no hands).
pub fn analyse_place(place: &PlaceRow, profile: &RuleProfile) -> Option<Analysis> {
    let side = if place.place == PlaceName::Dealer {
        Side::Dealer
    } else {
        Side::Player
    };
    recorded_set(place).map(|set| analyse(&set, profile, side))
}

/// How often and how far one dealer's or one seat's sets departed from the house way.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Departures {
    /// Sets measured (places that set three hands).
    pub sets: u64,
    /// Sets other than the house way's (other values at some position).
    pub departures: u64,
    /// Expected result per unit bet given up, summed over the sets, and the most in one set.
    pub ev_given_up: f64,
    pub most_given_up: f64,
    /// Rounds flagged at confirmation (dealers at tables that require the house way).
    pub flagged: u64,
}

impl Departures {
    fn add(&mut self, analysis: &Analysis) {
        self.sets += 1;
        if !analysis.same_as_house_way {
            self.departures += 1;
        }
        self.ev_given_up += analysis.ev_given_up;
        self.most_given_up = self.most_given_up.max(analysis.ev_given_up);
    }

    /// Departures as a share of the sets, in percent (0 with no sets).
    pub fn rate(&self) -> f64 {
        if self.sets == 0 {
            0.0
        } else {
            self.departures as f64 * 100.0 / self.sets as f64
        }
    }

    /// Expected result given up per set measured.
    pub fn mean_given_up(&self) -> f64 {
        if self.sets == 0 {
            0.0
        } else {
            self.ev_given_up / self.sets as f64
        }
    }
}

/// Whose sets a line counts: a dealer by user name, or a player seat of a table (players are
/// not known by name).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Setter {
    Dealer(String),
    Seat { table: String, seat: u8 },
}

/// The surveillance report over gaming days `from` to `to`.
#[derive(Debug, Clone, PartialEq)]
pub struct HouseWayReport {
    pub rounds: u64,
    pub dealers: Vec<(Setter, Departures)>,
    pub seats: Vec<(Setter, Departures)>,
}

/// One settled, unvoided round as the report reads it.
#[derive(Queryable)]
struct RoundSets {
    table: String,
    dealer: String,
    version: ProfileVersionId,
    places: Value,
    flagged: bool,
}

/// Worst first: the most expected result given up, then the most departures, then by name.
fn ranked(lines: HashMap<Setter, Departures>) -> Vec<(Setter, Departures)> {
    let mut lines: Vec<_> = lines.into_iter().collect();
    lines.sort_by(|(a, x), (b, y)| {
        y.ev_given_up
            .total_cmp(&x.ev_given_up)
            .then(y.departures.cmp(&x.departures))
            .then(a.cmp(b))
    });
    lines
}

/// The report over gaming days `from` to `to` (inclusive, at most
/// [`crate::reports::gaming_day::MOST_DAYS`]). Every set is measured again from its recorded
/// cards under the profile version its round was settled under (some 30 µs a set).
pub fn report(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<HouseWayReport, ReportError> {
    check_range(from, to)?;
    let rows: Vec<RoundSets> = rounds::table
        .inner_join(gaming_tables::table.on(gaming_tables::id.eq(rounds::table_id)))
        .inner_join(users::table.on(users::id.eq(rounds::dealer_id)))
        .left_join(round_voids::table.on(round_voids::round_id.eq(rounds::id)))
        .filter(rounds::gaming_day.between(from, to))
        .filter(round_voids::round_id.nullable().is_null())
        .select((
            gaming_tables::code,
            users::username,
            rounds::rule_profile_version_id,
            rounds::places,
            rounds::house_way_departure,
        ))
        .load(conn)?;
    // `None` for a points-game version: its players set against each other, not against a
    // dealer, so the house way (the banking game's) does not measure their sets.
    let mut rules: BTreeMap<ProfileVersionId, Option<RuleProfile>> = BTreeMap::new();
    for row in &rows {
        if let std::collections::btree_map::Entry::Vacant(slot) = rules.entry(row.version) {
            let version = profiles::version(conn, row.version).map_err(|err| match err {
                profiles::ProfileError::Query(err) => err,
                other => diesel::result::Error::DeserializationError(Box::new(other)),
            })?;
            slot.insert(version.map_or(Some(RuleProfile::default()), |v| {
                v.options.banking().copied()
            }));
        }
    }
    let mut dealers: HashMap<Setter, Departures> = HashMap::new();
    let mut seats: HashMap<Setter, Departures> = HashMap::new();
    for row in &rows {
        let places: Vec<PlaceRow> = serde_json::from_value(row.places.clone())
            .map_err(|err| diesel::result::Error::DeserializationError(Box::new(err)))?;
        let Some(profile) = rules.get(&row.version).copied().unwrap_or_default() else {
            continue;
        };
        for place in &places {
            let is_dealer = place.place == PlaceName::Dealer;
            let analysis = analyse_place(place, &profile);
            let flagged = is_dealer && row.flagged;
            if analysis.is_none() && !flagged {
                continue;
            }
            let (lines, setter) = if is_dealer {
                (&mut dealers, Setter::Dealer(row.dealer.clone()))
            } else {
                let seat = Setter::Seat {
                    table: row.table.clone(),
                    seat: place.place.seat().unwrap_or_default(),
                };
                (&mut seats, seat)
            };
            let line = lines.entry(setter).or_default();
            if flagged {
                line.flagged += 1;
            }
            if let Some(analysis) = analysis {
                line.add(&analysis);
            }
        }
    }
    Ok(HouseWayReport {
        rounds: rows.len() as u64,
        dealers: ranked(dealers),
        seats: ranked(seats),
    })
}

/// The flag a round was confirmed with, in words, from its stored places (the dealer first).
pub fn flag_words(places: &[PlaceRow]) -> Option<String> {
    let dealer = places.first()?;
    dealer
        .house_way
        .as_ref()
        .map(|expected| expected.flag_words(dealer))
}
