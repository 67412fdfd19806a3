//! Generated history: past gaming days of settled rounds at existing tables, for trying the
//! pit manager's and the auditor's sides and for measuring them at scale (`pusoy-pit db
//! generate`). Every round is dealt from a shuffled deck, set by the house way (now and then
//! set at random, which usually fouls), declared (a royalty the cards hold, a surrender where the
//! table allows it), validated and settled by the engine under its table's rules, and written
//! with its `round.settled` event on the table's chain, between the `table.sign_on` and
//! `table.sign_off` of its dealer's shift, at the times it would have happened. The chains stay
//! intact: each shift is sealed after the chain's head, under its lock, in one transaction.
//!
//! The deals are computed on a thread of their own while the previous shift is being written.

use std::sync::mpsc;

use chrono::{DateTime, Duration, FixedOffset, NaiveDate, NaiveTime, Utc};
use diesel::{Connection, PgConnection};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::db::audit_log::{self, Actor, SealedEvent};
use crate::db::ids::UserId;
use crate::db::rounds::confirm::{self, RoundWrite};
use crate::db::rounds::history::write_history;
use crate::db::shifts;
use crate::db::tables::PlayingTable;
use crate::db::users::Role;
use crate::recording::entry::{PlaceBody, RoundBody, SeatBody};
use crate::recording::write::{settle_banking, RoundToSettle, Settled, Slot};
use crate::recording::{RoundsError, Writer};
use crate::rules::card::{format_cards, Card};
use crate::rules::game::GameRules;
use crate::rules::houseway::{house_way, Side};
use crate::rules::profile::RuleProfile;
use crate::rules::royalty::best_royalty;
use crate::rules::wire::Action;

/// A dealer who deals the generated shifts.
#[derive(Debug, Clone)]
pub struct Dealer {
    pub id: UserId,
    pub username: String,
}

/// What to generate: `shifts_per_day` shifts of `rounds_per_shift` rounds at each table on each
/// of `days`, with dealers taken in turn from `dealers` (at least one per table and shift of a
/// day, so nobody deals two tables at once), the same for the same `seed`.
#[derive(Debug, Clone)]
pub struct Plan {
    pub tables: Vec<PlayingTable>,
    pub dealers: Vec<Dealer>,
    pub days: Vec<NaiveDate>,
    pub shifts_per_day: u32,
    pub rounds_per_shift: u32,
    pub seed: u64,
    /// The casino's offset from UTC and the local time its gaming day starts.
    pub utc_offset: FixedOffset,
    pub day_start: NaiveTime,
}

/// How much was written so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Written {
    pub shifts: u64,
    pub rounds: u64,
    pub events: u64,
}

/// Why history could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("{0}")]
    Plan(String),
    #[error("a generated round was refused: {0}")]
    Round(#[from] RoundsError),
    #[error("database query failed")]
    Query(#[from] diesel::result::Error),
}

/// One shift's rounds, dealt and settled, waiting to be written.
struct DealtShift {
    table: usize,
    day: NaiveDate,
    shift: u32,
    rounds: Vec<Settled>,
}

impl Plan {
    /// The shifts in the order they are written: day by day, shift by shift, table by table.
    fn shifts(&self) -> impl Iterator<Item = (NaiveDate, u32, usize)> + '_ {
        self.days.iter().flat_map(move |&day| {
            (0..self.shifts_per_day)
                .flat_map(move |shift| (0..self.tables.len()).map(move |t| (day, shift, t)))
        })
    }

    /// When the gaming day `day` starts, in UTC.
    fn day_starts(&self, day: NaiveDate) -> DateTime<Utc> {
        let local = day.and_time(self.day_start);
        (local - Duration::seconds(i64::from(self.utc_offset.local_minus_utc()))).and_utc()
    }

    fn check(&self) -> Result<(), HistoryError> {
        let per_day = self.tables.len() * self.shifts_per_day as usize;
        if self.tables.is_empty() || self.days.is_empty() || self.shifts_per_day == 0 {
            return Err(HistoryError::Plan("nothing to generate".to_owned()));
        }
        if self.dealers.len() < per_day {
            return Err(HistoryError::Plan(format!(
                "{} tables with {} shifts a day need {per_day} dealers, not {}",
                self.tables.len(),
                self.shifts_per_day,
                self.dealers.len()
            )));
        }
        Ok(())
    }
}

/// Writes the history `plan` describes; `progress` hears after each shift. The tables must
/// have no rounds yet on the plan's days (the round numbers start at 1).
pub fn generate(
    conn: &mut PgConnection,
    plan: &Plan,
    mut progress: impl FnMut(&Written),
) -> Result<Written, HistoryError> {
    plan.check()?;
    std::thread::scope(|scope| {
        // A few shifts ahead, no more: the deals wait for the writes, not the other way round.
        let (send, receive) = mpsc::sync_channel::<Result<DealtShift, RoundsError>>(4);
        scope.spawn(move || {
            let mut rng = ChaCha8Rng::seed_from_u64(plan.seed);
            for (day, shift, table) in plan.shifts() {
                let dealt = deal_shift(&mut rng, &plan.tables[table], plan.rounds_per_shift).map(
                    |rounds| DealtShift {
                        table,
                        day,
                        shift,
                        rounds,
                    },
                );
                let failed = dealt.is_err();
                if send.send(dealt).is_err() || failed {
                    return;
                }
            }
        });
        let mut written = Written::default();
        for dealt in receive {
            write_shift(conn, plan, &dealt?, &mut written)?;
            progress(&written);
        }
        Ok(written)
    })
}

/// One shift's rounds at `table`, settled under its rules.
fn deal_shift(
    rng: &mut impl Rng,
    table: &PlayingTable,
    rounds: u32,
) -> Result<Vec<Settled>, RoundsError> {
    (0..rounds)
        .map(|_| {
            let body = deal_round(rng, table)?;
            settle_banking(&body, table).map(|(round, out)| Settled::Banking { round, out })
        })
        .collect()
}

/// How often a player sets at random (and so usually fouls), and the dealer.
const PLAYER_CARELESS: f64 = 0.04;
const DEALER_CARELESS: f64 = 0.01;
/// How often a player surrenders where the table allows it, and declares a royalty held.
const SURRENDERS: f64 = 0.05;
const DECLARES: f64 = 0.9;
/// Bets as multiples of the table minimum.
const BET_STEPS: [i64; 8] = [1, 1, 2, 2, 5, 10, 20, 50];

/// A round dealt from a shuffled deck to the dealer and one to three seats.
fn deal_round(rng: &mut impl Rng, table: &PlayingTable) -> Result<RoundBody, RoundsError> {
    let GameRules::Banking(profile) = &table.rules else {
        return Err(RoundsError::round(format!(
            "table {} plays the points game; history is generated for banking tables",
            table.table.code
        )));
    };
    let mut deck: Vec<Card> = Card::all().collect();
    deck.shuffle(rng);
    let seats = match rng.random_range(0..10) {
        0 => 1,
        1..=3 => 2,
        _ => 3,
    };
    let (min, max) = (
        table.table.min_bet.minor_units(),
        table.table.max_bet.minor_units(),
    );
    let dealer_declares = profile.royalties && profile.dealer_royalties;
    let dealer = place(rng, &deck[..13], profile, Side::Dealer, dealer_declares);
    // A dealer's royalty ends the round before anyone sets.
    let round_ended = dealer.action == Action::Royalty;
    Ok(RoundBody {
        dealer,
        seats: (1..=seats)
            .map(|seat| {
                let step = BET_STEPS[rng.random_range(0..BET_STEPS.len())];
                let cards = &deck[13 * seat..13 * (seat + 1)];
                let play = if round_ended {
                    PlaceBody {
                        dealt: Some(format_cards(cards)),
                        ..PlaceBody::default()
                    }
                } else if profile.surrender && rng.random_bool(SURRENDERS) {
                    PlaceBody {
                        action: Action::Surrender,
                        ..PlaceBody::default()
                    }
                } else {
                    place(rng, cards, profile, Side::Player, profile.royalties)
                };
                SeatBody {
                    seat: seat as i64,
                    bet: min.saturating_mul(step).min(max),
                    play,
                }
            })
            .collect(),
    })
}

/// A place with its 13 cards recorded: a royalty declared if the cards hold one (and it may be
/// declared), otherwise set by the house way or, now and then, at random.
fn place(
    rng: &mut impl Rng,
    cards: &[Card],
    profile: &RuleProfile,
    side: Side,
    may_declare: bool,
) -> PlaceBody {
    let dealt = Some(format_cards(cards));
    if may_declare {
        if let Some(royalty) = best_royalty(cards).filter(|_| rng.random_bool(DECLARES)) {
            return PlaceBody {
                action: Action::Royalty,
                royalty: Some(royalty),
                dealt,
                ..PlaceBody::default()
            };
        }
    }
    let careless = match side {
        Side::Dealer => DEALER_CARELESS,
        Side::Player => PLAYER_CARELESS,
    };
    let set: Vec<Card> = match house_way(cards, profile, side) {
        Ok(choice) if !rng.random_bool(careless) => {
            let set = choice.set;
            set.back()
                .iter()
                .chain(set.middle())
                .chain(set.front())
                .copied()
                .collect()
        }
        _ => {
            let mut set = cards.to_vec();
            set.shuffle(rng);
            set
        }
    };
    PlaceBody {
        action: Action::Play,
        royalty: None,
        dealt,
        back: Some(format_cards(&set[..5])),
        middle: Some(format_cards(&set[5..10])),
        front: Some(format_cards(&set[10..])),
    }
}

/// Writes one dealt shift: the shift, its sign-on, its rounds and its sign-off, sealed on the
/// table's chain after its head, in one transaction.
fn write_shift(
    conn: &mut PgConnection,
    plan: &Plan,
    dealt: &DealtShift,
    written: &mut Written,
) -> Result<(), HistoryError> {
    let table = &plan.tables[dealt.table];
    let code = table.table.code.as_str();
    let per_day = plan.tables.len() * plan.shifts_per_day as usize;
    let day_index = plan.days.iter().position(|&d| d == dealt.day).unwrap_or(0);
    let turn = dealt.table * plan.shifts_per_day as usize + dealt.shift as usize;
    let dealer = &plan.dealers[(turn + day_index * per_day) % plan.dealers.len()];
    let length = Duration::seconds(86_400 / i64::from(plan.shifts_per_day));
    let starts = plan.day_starts(dealt.day) + length * dealt.shift as i32;
    let (on, off) = (
        starts + Duration::minutes(1),
        starts + length - Duration::minutes(1),
    );
    let actor = Actor::user(dealer.id, &dealer.username, Some("10.20.0.7".to_owned()));
    let writer = Writer {
        user: dealer.id,
        role: Role::Dealer,
    };
    let first_no = dealt.shift as i32 * plan.rounds_per_shift as i32;
    let chain = audit_log::table_chain(table.table.id);
    conn.transaction(|conn| {
        let head = audit_log::lock_chain(conn, &chain)?;
        let shift = shifts::insert_past_shift(conn, table.table.id, dealer.id, dealt.day, on, off)?;
        let mut events = vec![SealedEvent::after_at(
            head.clone(),
            shifts::sign_on_event(&chain, code, &shift, &actor, table.profile_version_id),
            on,
        )];
        let ids = confirm::next_round_ids(conn, dealt.rounds.len() as i64)?;
        let spacing = (off - on) / (dealt.rounds.len() as i32 + 1);
        let mut rounds: Vec<RoundWrite> = Vec::with_capacity(dealt.rounds.len());
        for (n, (settled, id)) in dealt.rounds.iter().zip(ids).enumerate() {
            let last_no = first_no + n as i32;
            let key = format!("gen:{code}:{}:{}", dealt.day, last_no + 1);
            let at = on + spacing * (n as i32 + 1);
            let to_settle = RoundToSettle {
                key: &key,
                table,
                gaming_day: dealt.day,
                writer,
                actor: &actor,
                settled,
                entered_by: std::slice::from_ref(&writer.user),
            };
            let slot = Slot {
                round_id: id,
                last_no,
            };
            let after = events
                .last()
                .map(SealedEvent::head_after)
                .unwrap_or(head.clone());
            let mut write = to_settle.prepare(slot, &shift, after, None)?;
            write.event = write.event.moved_to(at);
            write.round.settled_at = write.event.at;
            events.push(write.event.clone());
            rounds.push(write);
        }
        let after = events
            .last()
            .map(SealedEvent::head_after)
            .unwrap_or(head.clone());
        events.push(SealedEvent::after_at(
            after,
            shifts::sign_off_event(&chain, code, &shift, &actor, "signed off"),
            off,
        ));
        write_history(conn, &chain, &head, &events, &rounds)?;
        written.shifts += 1;
        written.rounds += rounds.len() as u64;
        written.events += events.len() as u64;
        Ok(())
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_gaming_day_starts_at_its_local_hour() {
        let plan = Plan {
            tables: Vec::new(),
            dealers: Vec::new(),
            days: Vec::new(),
            shifts_per_day: 3,
            rounds_per_shift: 1,
            seed: 1,
            utc_offset: FixedOffset::east_opt(8 * 3600).unwrap(),
            day_start: NaiveTime::from_hms_opt(6, 0, 0).unwrap(),
        };
        let day = NaiveDate::from_ymd_opt(2026, 3, 2).unwrap();
        // 06:00 in Manila is 22:00 UTC the evening before.
        assert_eq!(
            plan.day_starts(day).to_rfc3339(),
            "2026-03-01T22:00:00+00:00"
        );
    }
}
