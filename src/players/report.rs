//! The rated play of a gaming day (docs/players.md, "The day's rated play"): the top players by
//! theoretical and by actual win, rated play by table, and the share of the day's drop that was
//! bought in by rated players, and the unrated play the pit managers observed (estimates). For
//! pit managers, hosts, compliance officers and auditors
//! (those who see players' names); players are named by card number and name, no personal
//! data.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, NaiveDate, Utc};

use crate::accounting::record::{names, person};
use crate::accounting::slips::Me;
use crate::accounting::AccountingError;
use crate::db::handle::Db;
use crate::db::ids::{PlayerId, UserId};
use crate::db::players as rows;
use crate::players::observations::{of_day, Observation};
use crate::players::ratings::rated;
use crate::players::Sight;
use crate::rules::money::Total;

/// A player's rated play of the day, in one currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerDay {
    pub player: PlayerId,
    pub card_number: String,
    pub name: String,
    pub currency: String,
    pub ratings: u32,
    pub hands: u32,
    pub total_bet: Total,
    pub actual_win: Total,
    pub theoretical_win: Total,
    pub seconds_played: i64,
}

/// A table's rated play of the day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDay {
    pub code: String,
    pub currency: String,
    pub ratings: u32,
    pub hands: u32,
    pub total_bet: Total,
    pub actual_win: Total,
    pub theoretical_win: Total,
    pub bought_in: Total,
}

/// A dealer's rated play of the day: the rated players' hands they dealt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealerDay {
    pub dealer: UserId,
    pub name: String,
    pub currency: String,
    /// Rated players they dealt to.
    pub players: u32,
    pub hands: u32,
    pub total_bet: Total,
    pub actual_win: Total,
    pub theoretical_win: Total,
}

/// A currency's drop of the day and the part of it rated players bought in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DropShare {
    pub currency: String,
    pub drop: Total,
    pub rated: Total,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayReport {
    pub day: NaiveDate,
    /// The day's players, highest theoretical win first.
    pub by_theoretical: Vec<PlayerDay>,
    /// The same, highest actual win first.
    pub by_actual: Vec<PlayerDay>,
    pub tables: Vec<TableDay>,
    /// By dealer's name, then currency.
    pub dealers: Vec<DealerDay>,
    pub drop: Vec<DropShare>,
    /// The day's unrated observations not void, per currency: estimates.
    pub unrated: Vec<UnratedDay>,
    /// Each observation of the day, void ones included (shown struck).
    pub observations: Vec<Observation>,
}

/// A currency's unrated play of the day, from the observations not void: every figure but the
/// count and the hands is estimated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnratedDay {
    pub currency: String,
    pub observations: u32,
    pub seconds_played: i64,
    /// The rounds counted at the observed seats while observed.
    pub hands: u32,
    /// Σ estimated average bet × hands.
    pub total_bet: Total,
    pub theoretical_win: Total,
    /// Whether every hand's edge was known.
    pub theoretical_complete: bool,
}

/// The day's unrated play per currency, from its observations not void.
fn unrated_of(observations: &[Observation]) -> Vec<UnratedDay> {
    let mut by_currency: BTreeMap<String, UnratedDay> = BTreeMap::new();
    for o in observations.iter().filter(|o| o.void.is_none()) {
        let u = by_currency
            .entry(o.currency.clone())
            .or_insert_with(|| UnratedDay {
                currency: o.currency.clone(),
                observations: 0,
                seconds_played: 0,
                hands: 0,
                total_bet: Total(0),
                theoretical_win: Total(0),
                theoretical_complete: true,
            });
        let f = &o.estimate;
        u.observations += 1;
        u.seconds_played += f.seconds_played;
        u.hands += f.hands;
        u.total_bet.0 += f.total_bet.0;
        u.theoretical_win.0 += f.theoretical_win.0;
        u.theoretical_complete &= f.theoretical_complete;
    }
    by_currency.into_values().collect()
}

/// How many players each top list shows.
pub const TOP: usize = 10;

/// The rated play of ratings begun on gaming day `day`, figures read at `now`.
pub async fn day(
    db: &Db,
    day: NaiveDate,
    now: DateTime<Utc>,
    me: Me,
) -> Result<DayReport, AccountingError> {
    if Sight::of(me.role) < Sight::NameAndStatus {
        return Err(AccountingError::Refused(
            "Your role does not read the rated play.".to_owned(),
        ));
    }
    db.run(move |conn| {
        let begun = rows::ratings_of_day(conn, day)?;
        let ratings = rated(conn, begun, now)?;
        let mut ids: Vec<PlayerId> = ratings.iter().map(|r| r.player).collect();
        ids.sort();
        ids.dedup();
        let players: BTreeMap<PlayerId, (String, String)> = rows::players_of(conn, &ids)?
            .into_iter()
            .map(|p| {
                (
                    p.id,
                    (p.card_number, format!("{} {}", p.first_name, p.last_name)),
                )
            })
            .collect();
        let mut by_player: BTreeMap<(PlayerId, String), PlayerDay> = BTreeMap::new();
        let mut by_table: BTreeMap<(String, String), TableDay> = BTreeMap::new();
        let mut by_dealer: BTreeMap<(UserId, String), (DealerDay, BTreeSet<PlayerId>)> =
            BTreeMap::new();
        for r in &ratings {
            let f = &r.figures;
            let (card, name) = players.get(&r.player).cloned().unwrap_or_default();
            let p = by_player
                .entry((r.player, r.currency.clone()))
                .or_insert_with(|| PlayerDay {
                    player: r.player,
                    card_number: card,
                    name,
                    currency: r.currency.clone(),
                    ratings: 0,
                    hands: 0,
                    total_bet: Total(0),
                    actual_win: Total(0),
                    theoretical_win: Total(0),
                    seconds_played: 0,
                });
            p.ratings += 1;
            p.hands += f.hands;
            p.total_bet.0 += f.total_bet.0;
            p.actual_win.0 += f.actual_win.0;
            p.theoretical_win.0 += f.theoretical_win.0;
            p.seconds_played += f.seconds_played;
            let t = by_table
                .entry((r.table_code.clone(), r.currency.clone()))
                .or_insert_with(|| TableDay {
                    code: r.table_code.clone(),
                    currency: r.currency.clone(),
                    ratings: 0,
                    hands: 0,
                    total_bet: Total(0),
                    actual_win: Total(0),
                    theoretical_win: Total(0),
                    bought_in: Total(0),
                });
            t.ratings += 1;
            t.hands += f.hands;
            t.total_bet.0 += f.total_bet.0;
            t.actual_win.0 += f.actual_win.0;
            t.theoretical_win.0 += f.theoretical_win.0;
            t.bought_in.0 += i128::from(r.bought_in.minor_units());
            for (dealer, f) in &r.by_dealer {
                let (d, players) = by_dealer
                    .entry((*dealer, r.currency.clone()))
                    .or_insert_with(|| {
                        (
                            DealerDay {
                                dealer: *dealer,
                                name: String::new(),
                                currency: r.currency.clone(),
                                players: 0,
                                hands: 0,
                                total_bet: Total(0),
                                actual_win: Total(0),
                                theoretical_win: Total(0),
                            },
                            BTreeSet::new(),
                        )
                    });
                players.insert(r.player);
                d.hands += f.hands;
                d.total_bet.0 += f.total_bet.0;
                d.actual_win.0 += f.actual_win.0;
                d.theoretical_win.0 += f.theoretical_win.0;
            }
        }
        let dealer_names = names(conn, by_dealer.keys().map(|(dealer, _)| *dealer))?;
        let mut dealers: Vec<DealerDay> = by_dealer
            .into_values()
            .map(|(mut d, players)| {
                d.players = u32::try_from(players.len()).unwrap_or(u32::MAX);
                d.name = person(&dealer_names, d.dealer).name;
                d
            })
            .collect();
        dealers.sort_by(|a, b| (&a.name, &a.currency).cmp(&(&b.name, &b.currency)));
        let players: Vec<PlayerDay> = by_player.into_values().collect();
        let mut by_theoretical = players.clone();
        by_theoretical.sort_by_key(|p| std::cmp::Reverse(p.theoretical_win.0));
        by_theoretical.truncate(TOP);
        let mut by_actual = players;
        by_actual.sort_by_key(|p| std::cmp::Reverse(p.actual_win.0));
        by_actual.truncate(TOP);
        let tables: Vec<TableDay> = by_table.into_values().collect();
        let drop = rows::day_drop(conn, day)?
            .into_iter()
            .map(|d| DropShare {
                rated: Total(
                    tables
                        .iter()
                        .filter(|t| t.currency == d.currency)
                        .map(|t| t.bought_in.0)
                        .sum(),
                ),
                currency: d.currency,
                drop: Total(i128::from(d.amount)),
            })
            .collect();
        let observations = of_day(conn, day, now)?;
        Ok(DayReport {
            day,
            by_theoretical,
            by_actual,
            tables,
            dealers,
            drop,
            unrated: unrated_of(&observations),
            observations,
        })
    })
    .await
}
