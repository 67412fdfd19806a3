//! A rating's figures (docs/rules.md §14): what a carded player did at a seat, computed from the
//! rounds settled there while they sat, not estimated. Pure: the rounds, the rating's steps and
//! the time it is read at come from the caller.

use chrono::{DateTime, Duration, FixedOffset, NaiveDate, NaiveTime, Utc};

use crate::rules::money::{Money, Total};

/// When a rating counted: from its start to its end (or to now, while it runs), less its
/// pauses. A round dealt in a pause, or outside the span, is not the rated player's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub start: DateTime<Utc>,
    /// The pauses in order: from, and until (none while the player is away).
    pub pauses: Vec<(DateTime<Utc>, Option<DateTime<Utc>>)>,
    pub end: Option<DateTime<Utc>>,
}

impl Span {
    /// The span of a rating begun at `start` from its steps in order, each its kind as stored
    /// (`pause`, `resume`, `end`) and when it was taken.
    pub fn from_steps<'a>(
        start: DateTime<Utc>,
        steps: impl IntoIterator<Item = (&'a str, DateTime<Utc>)>,
    ) -> Span {
        let mut span = Span {
            start,
            pauses: Vec::new(),
            end: None,
        };
        for (kind, at) in steps {
            match kind {
                "pause" => span.pauses.push((at, None)),
                "resume" => {
                    if let Some(last) = span.pauses.last_mut() {
                        last.1 = Some(at);
                    }
                }
                _ => span.end = Some(at),
            }
        }
        span
    }

    /// Whether a round settled at `at` was played by the rated player: at or after the start,
    /// before the end, and in no pause.
    pub fn covers(&self, at: DateTime<Utc>) -> bool {
        at >= self.start
            && self.end.is_none_or(|end| at < end)
            && !self
                .pauses
                .iter()
                .any(|&(from, until)| at >= from && until.is_none_or(|until| at < until))
    }

    /// Seconds the player sat, up to the end or `now`, less the pauses (a pause still open
    /// counts up to the same time).
    pub fn seconds_played(&self, now: DateTime<Utc>) -> i64 {
        let stop = self.end.unwrap_or(now).max(self.start);
        let paused: i64 = self
            .pauses
            .iter()
            .map(|&(from, until)| {
                let from = from.clamp(self.start, stop);
                let until = until.unwrap_or(stop).clamp(from, stop);
                (until - from).num_seconds()
            })
            .sum();
        ((stop - self.start).num_seconds() - paused).max(0)
    }
}

/// One settled round at the rated seat: when it was dealt, what the seat bet and its result
/// (the player's: positive when the player won), and the house edge of the round's rule
/// profile version in parts per million of the bet, when it is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatRound {
    pub at: DateTime<Utc>,
    pub bet: Money,
    pub result: Money,
    pub edge_ppm: Option<i32>,
}

/// A rating's figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Figures {
    pub hands: u32,
    pub total_bet: Total,
    /// The total bet over the hands, rounded down to a minor unit (zero with no hands).
    pub average_bet: Total,
    pub largest_bet: Money,
    /// The player's result: what the player won (negative: lost).
    pub player_result: Total,
    /// What the house won from the player: the player's result turned round.
    pub actual_win: Total,
    /// Σ bet × house edge over the hands whose edge is known, rounded to a minor unit.
    pub theoretical_win: Total,
    /// Whether every hand's edge was known (otherwise the theoretical win is short).
    pub theoretical_complete: bool,
    pub seconds_played: i64,
    /// Hands per hour played, in tenths (zero before a minute has passed).
    pub hands_per_hour_tenths: i64,
}

/// The figures of a rating over `rounds` (those the span does not cover are left out), read
/// at `now`.
pub fn figures(span: &Span, rounds: &[SeatRound], now: DateTime<Utc>) -> Figures {
    let mut f = Figures {
        theoretical_complete: true,
        seconds_played: span.seconds_played(now),
        ..Figures::default()
    };
    // Σ bet × edge in millionths of a minor unit, rounded once at the end.
    let mut theoretical_millionths: i128 = 0;
    for round in rounds.iter().filter(|r| span.covers(r.at)) {
        f.hands += 1;
        f.total_bet.0 += i128::from(round.bet.minor_units());
        f.largest_bet = f.largest_bet.max(round.bet);
        f.player_result.0 += i128::from(round.result.minor_units());
        match round.edge_ppm {
            Some(edge) => {
                theoretical_millionths += i128::from(round.bet.minor_units()) * i128::from(edge)
            }
            None => f.theoretical_complete = false,
        }
    }
    f.actual_win = Total(-f.player_result.0);
    f.theoretical_win = Total(rounded_millionths(theoretical_millionths));
    f.average_bet = average_bet(f.total_bet, f.hands);
    if f.seconds_played >= 60 {
        f.hands_per_hour_tenths = i64::from(f.hands) * 36_000 / f.seconds_played;
    }
    f
}

/// A total bet over its hands, rounded down to a minor unit (zero with no hands).
pub fn average_bet(total_bet: Total, hands: u32) -> Total {
    Total(if hands == 0 {
        0
    } else {
        total_bet.0 / i128::from(hands)
    })
}

/// `millionths / 1,000,000`, rounded half away from zero.
fn rounded_millionths(millionths: i128) -> i128 {
    let half = 500_000 * millionths.signum();
    (millionths + half) / 1_000_000
}

/// The house edge of a game as simulated: the dealer's mean result per unit a seat bets, and
/// the half width of its 95 % confidence interval, in parts per million.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub edge_ppm: i32,
    pub half_width_ppm: i32,
    pub deals: u32,
}

/// The edge from each simulated deal's dealer result per seat, in bet units (one number per
/// deal: a deal's seats share the dealer's hand, so the deal, not the seat, is the independent
/// draw). None without deals.
pub fn edge_of(per_deal: &[f64]) -> Option<Edge> {
    let n = per_deal.len();
    if n == 0 {
        return None;
    }
    let mean = per_deal.iter().sum::<f64>() / n as f64;
    let variance = if n > 1 {
        per_deal.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    let half_width = 1.96 * (variance / n as f64).sqrt();
    let ppm = |x: f64| (x * 1e6).round().clamp(-1e6, 1e6) as i32;
    Some(Edge {
        edge_ppm: ppm(mean),
        half_width_ppm: ppm(half_width),
        deals: u32::try_from(n).unwrap_or(u32::MAX),
    })
}

/// A comp rule: from gaming day `from_day` on, a player earns `basis_points` hundredths of a
/// percent of their theoretical win as comp (docs/rules.md §14).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompRule {
    pub from_day: NaiveDate,
    pub basis_points: i32,
}

impl CompRule {
    /// The rule in force on gaming day `day`: of `rules` (oldest set first), the one with the
    /// latest first day on or before it, the one set last among equals. None before any.
    pub fn on(rules: &[CompRule], day: NaiveDate) -> Option<CompRule> {
        rules
            .iter()
            .enumerate()
            .filter(|(_, r)| r.from_day <= day)
            .max_by_key(|&(at, r)| (r.from_day, at))
            .map(|(_, r)| *r)
    }

    /// `12.5 %`.
    pub fn percent_text(&self) -> String {
        let (whole, hundredths) = (self.basis_points / 100, self.basis_points % 100);
        match hundredths {
            0 => format!("{whole} %"),
            h if h % 10 == 0 => format!("{whole}.{} %", h / 10),
            h => format!("{whole}.{h:02} %"),
        }
    }
}

/// The comp earned over ratings, from each one's theoretical win and the basis points of its
/// day's rule: Σ theoretical × basis points / 10,000, rounded down to a minor unit, none when
/// the sum is below zero.
pub fn comp(earned: impl IntoIterator<Item = (Total, i32)>) -> Total {
    let units: i128 = earned
        .into_iter()
        .map(|(theoretical, bp)| theoretical.0 * i128::from(bp))
        .sum();
    Total((units / 10_000).max(0))
}

/// A round dealt at an observed seat: when, and its rule profile version's edge (none while not
/// computed).
pub type Dealt = (DateTime<Utc>, Option<i32>);

/// An unrated observation's estimates (docs/rules.md §14): the pit manager's estimated average
/// bet taken as the bet of every round settled at the observed seat from the observation's
/// start up to its end (`dealt`: when each was dealt, and its version's edge). Its hands are
/// those rounds, counted; its total bet and theoretical win are estimates, the average bet's
/// multiples; it has no result (the player is not known to the rounds).
pub fn estimate(
    start: DateTime<Utc>,
    end: Option<DateTime<Utc>>,
    average_bet: Money,
    dealt: &[Dealt],
    now: DateTime<Utc>,
) -> Figures {
    let span = Span {
        start,
        pauses: Vec::new(),
        end,
    };
    let rounds: Vec<SeatRound> = dealt
        .iter()
        .map(|&(at, edge_ppm)| SeatRound {
            at,
            bet: average_bet,
            result: Money::ZERO,
            edge_ppm,
        })
        .collect();
    figures(&span, &rounds, now)
}

/// Why a typed start time is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    #[error("{0:?} is not a time of day: type it as hours and minutes, such as 21:30.")]
    NotATime(String),
    #[error("{at} is before the gaming day began ({began}): record it on the day it was seen.")]
    BeforeTheDay { at: String, began: String },
}

/// When an observed player sat down, from the local time of day typed (`HH:MM`, 24-hour, at
/// `offset`): the latest such moment at or before `now`; empty: `now`. Refused before
/// `day_began` (the start of the current gaming day).
pub fn started_at(
    typed: &str,
    now: DateTime<Utc>,
    offset: FixedOffset,
    day_began: DateTime<Utc>,
) -> Result<DateTime<Utc>, StartError> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Ok(now);
    }
    let time = NaiveTime::parse_from_str(typed, "%H:%M")
        .map_err(|_| StartError::NotATime(typed.to_owned()))?;
    let local_now = now.with_timezone(&offset);
    let today = local_now.date_naive().and_time(time);
    let local = if today > local_now.naive_local() {
        today - Duration::days(1)
    } else {
        today
    };
    let at = (local - offset).and_utc();
    if at < day_began {
        return Err(StartError::BeforeTheDay {
            at: local.format("%Y-%m-%d %H:%M").to_string(),
            began: day_began
                .with_timezone(&offset)
                .format("%Y-%m-%d %H:%M")
                .to_string(),
        });
    }
    Ok(at)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use proptest::prelude::*;

    fn t(minutes: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 29, 20, 0, 0).unwrap() + Duration::minutes(minutes)
    }

    fn round(minute: i64, bet: i64, result: i64) -> SeatRound {
        SeatRound {
            at: t(minute),
            bet: Money::from_minor_units(bet),
            result: Money::from_minor_units(result),
            edge_ppm: Some(10_000),
        }
    }

    #[test]
    fn a_rating_counts_the_rounds_of_its_span_less_its_pauses() {
        let span = Span {
            start: t(0),
            pauses: vec![(t(20), Some(t(30)))],
            end: Some(t(60)),
        };
        let rounds = [
            round(-1, 99_900, 99_900), // before the player sat
            round(5, 10_000, 10_000),
            round(19, 30_000, -60_000),
            round(20, 77_700, 77_700), // away
            round(29, 77_700, 77_700), // away
            round(30, 20_000, 0),
            round(59, 40_000, 40_000),
            round(60, 88_800, 88_800), // after leaving
        ];
        let f = figures(&span, &rounds, t(500));
        assert_eq!(f.hands, 4);
        assert_eq!(f.total_bet, Total(100_000));
        assert_eq!(f.average_bet, Total(25_000));
        assert_eq!(f.largest_bet, Money::from_minor_units(40_000));
        assert_eq!(f.player_result, Total(-10_000));
        assert_eq!(f.actual_win, Total(10_000));
        // 1 % of 100,000.
        assert_eq!(f.theoretical_win, Total(1_000));
        assert!(f.theoretical_complete);
        assert_eq!(f.seconds_played, 50 * 60);
        // 4 hands in 50 minutes: 4.8 an hour.
        assert_eq!(f.hands_per_hour_tenths, 48);
    }

    #[test]
    fn an_open_rating_runs_to_now_and_an_open_pause_stops_the_clock() {
        let span = Span {
            start: t(0),
            pauses: vec![(t(45), None)],
            end: None,
        };
        assert_eq!(span.seconds_played(t(90)), 45 * 60);
        assert!(span.covers(t(44)));
        assert!(!span.covers(t(46)));
        assert!(!span.covers(t(-1)));
    }

    #[test]
    fn an_unknown_edge_leaves_the_theoretical_win_short_and_says_so() {
        let span = Span {
            start: t(0),
            pauses: vec![],
            end: None,
        };
        let mut unknown = round(2, 50_000, -50_000);
        unknown.edge_ppm = None;
        let f = figures(&span, &[round(1, 50_000, 50_000), unknown], t(10));
        assert_eq!(f.theoretical_win, Total(500));
        assert!(!f.theoretical_complete);
        assert_eq!(f.hands_per_hour_tenths, 2 * 36_000 / 600);
    }

    #[test]
    fn theoretical_win_rounds_half_away_from_zero_once() {
        assert_eq!(rounded_millionths(1_499_999), 1);
        assert_eq!(rounded_millionths(1_500_000), 2);
        assert_eq!(rounded_millionths(-1_500_000), -2);
        assert_eq!(rounded_millionths(0), 0);
    }

    #[test]
    fn an_edge_has_its_mean_and_a_95_percent_half_width_per_deal() {
        let edge = edge_of(&[0.5, -0.5, 0.5, -0.5]).unwrap();
        assert_eq!(edge.edge_ppm, 0);
        // s² = 1/3, half width = 1.96 × sqrt(1/3 / 4).
        assert_eq!(edge.half_width_ppm, 565_803);
        assert_eq!(edge.deals, 4);
        assert_eq!(edge_of(&[]), None);
        assert_eq!(edge_of(&[0.25]).unwrap().edge_ppm, 250_000);
    }

    proptest! {
        /// Every round is counted once by exactly one of the ratings that tile a seat's
        /// evening: the rated results add up to the rounds' results.
        #[test]
        fn ratings_that_tile_the_time_add_up_to_the_rounds(
            cuts in proptest::collection::btree_set(1i64..600, 1..6),
            rounds in proptest::collection::vec((0i64..600, 1i64..100_000, -200_000i64..200_000), 0..80),
        ) {
            let mut bounds = vec![0];
            bounds.extend(cuts);
            bounds.push(600);
            let rounds: Vec<SeatRound> =
                rounds.iter().map(|&(m, bet, result)| round(m, bet, result)).collect();
            let rated: i128 = bounds
                .windows(2)
                .map(|w| {
                    let span = Span { start: t(w[0]), pauses: vec![], end: Some(t(w[1])) };
                    figures(&span, &rounds, t(600)).player_result.0
                })
                .sum();
            let all: i128 = rounds.iter().map(|r| i128::from(r.result.minor_units())).sum();
            prop_assert_eq!(rated, all);
        }
    }

    #[test]
    fn the_comp_rule_of_a_day_is_the_latest_begun_by_then_and_comp_is_never_negative() {
        let day = |d: &str| d.parse::<NaiveDate>().unwrap();
        let rules = [
            CompRule {
                from_day: day("2000-01-01"),
                basis_points: 1_000,
            },
            CompRule {
                from_day: day("2026-12-01"),
                basis_points: 1_250,
            },
            CompRule {
                from_day: day("2026-12-01"),
                basis_points: 1_500,
            },
            CompRule {
                from_day: day("2026-12-10"),
                basis_points: 5,
            },
        ];
        assert_eq!(CompRule::on(&rules, day("1999-12-31")), None);
        assert_eq!(
            CompRule::on(&rules, day("2026-11-30")).map(|r| r.basis_points),
            Some(1_000)
        );
        assert_eq!(
            CompRule::on(&rules, day("2026-12-01")).map(|r| r.basis_points),
            Some(1_500)
        );
        assert_eq!(
            CompRule::on(&rules, day("2026-12-10")).map(|r| r.basis_points),
            Some(5)
        );
        assert_eq!(rules[1].percent_text(), "12.5 %");
        assert_eq!(rules[0].percent_text(), "10 %");
        assert_eq!(rules[3].percent_text(), "0.05 %");
        // 10 % of 1,999 and 15 % of 1,000 (minor units): 199.9 + 150 = 349.9, rounded down.
        assert_eq!(
            comp([(Total(1_999), 1_000), (Total(1_000), 1_500)]),
            Total(349)
        );
        assert_eq!(
            comp([(Total(-5_000), 1_000), (Total(1_000), 1_000)]),
            Total(0)
        );
        assert_eq!(comp([]), Total(0));
    }

    #[test]
    fn an_observation_estimates_from_its_bet_and_the_rounds_dealt_at_its_seat() {
        // 500.00 estimated; three rounds at the seat, one after the end; a 2 % and a 1.5 % edge.
        let dealt = [
            (t(5), Some(20_000)),
            (t(10), Some(15_000)),
            (t(40), Some(20_000)),
        ];
        let f = estimate(
            t(0),
            Some(t(30)),
            Money::from_minor_units(50_000),
            &dealt,
            t(600),
        );
        assert_eq!(f.hands, 2);
        assert_eq!(f.total_bet, Total(100_000));
        assert_eq!(f.average_bet, Total(50_000));
        // 50,000 × 0.02 + 50,000 × 0.015 = 1,000 + 750.
        assert_eq!(f.theoretical_win, Total(1_750));
        assert!(f.theoretical_complete);
        assert_eq!(f.player_result, Total(0));
        assert_eq!(f.seconds_played, 30 * 60);
        // Running: its time runs to now; an edge not known says so.
        let f = estimate(
            t(0),
            None,
            Money::from_minor_units(50_000),
            &[(t(5), None)],
            t(20),
        );
        assert_eq!((f.hands, f.seconds_played), (1, 20 * 60));
        assert!(!f.theoretical_complete);
    }

    #[test]
    fn a_typed_start_is_the_latest_such_time_not_after_now_within_the_day() {
        let manila = FixedOffset::east_opt(8 * 3600).unwrap();
        // t(0) is 04:00 on 30 November in Manila; the gaming day began at 06:00 the day before.
        let began = t(-22 * 60);
        assert_eq!(started_at("", t(0), manila, began), Ok(t(0)));
        assert_eq!(started_at(" 03:30 ", t(0), manila, began), Ok(t(-30)));
        // 23:15 is last night's, not tonight's.
        assert_eq!(started_at("23:15", t(0), manila, began), Ok(t(-285)));
        assert_eq!(started_at("04:00", t(0), manila, began), Ok(t(0)));
        assert_eq!(
            started_at("05:59", t(0), manila, began),
            Err(StartError::BeforeTheDay {
                at: "2026-11-29 05:59".to_owned(),
                began: "2026-11-29 06:00".to_owned(),
            })
        );
        assert_eq!(
            started_at("9pm", t(0), manila, began),
            Err(StartError::NotATime("9pm".to_owned()))
        );
        assert!(started_at("24:00", t(0), manila, began).is_err());
    }
}
