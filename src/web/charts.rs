//! Charts as server-rendered SVG (askama templates `chart_bars.svg` and `chart_line.svg`): the
//! geometry is worked out here, in plain numbers, so that the templates only place what they are
//! given. No script and no chart library reaches the browser.

use askama::Template;

use crate::rules::money::Money;
use crate::web::format;

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 320.0;
// Room for the widest amount label of the axis, "PHP -1,000,000.00", whole.
const LEFT: f64 = 132.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 36.0;
const BOTTOM: f64 = 56.0;

/// A horizontal grid line with its amount.
pub struct Tick {
    pub y: f64,
    pub label: String,
}

/// One bar: its label under the axis, its amount, and where it is drawn.
pub struct Bar {
    pub label: String,
    pub text: String,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub loss: bool,
}

/// What every chart draws around its marks: the title, the grid with its amounts, the zero
/// line, and "No rounds" when there is nothing to draw (`chart_frame.svg`).
pub struct Frame {
    pub title: String,
    pub width: f64,
    pub height: f64,
    pub left: f64,
    pub right_edge: f64,
    pub zero_y: f64,
    pub label_y: f64,
    pub ticks: Vec<Tick>,
    pub empty: bool,
    /// What an empty chart says.
    pub empty_text: &'static str,
}

impl Frame {
    fn new(
        title: String,
        scale: &Scale,
        tick_values: &[i64],
        currency: &str,
        empty: bool,
    ) -> Frame {
        let ticks = ticks(scale, tick_values, |v| {
            format::money(Money::from_minor_units(v), currency)
        });
        Frame::with_ticks(title, scale, ticks, empty, "No rounds")
    }

    fn with_ticks(
        title: String,
        scale: &Scale,
        ticks: Vec<Tick>,
        empty: bool,
        empty_text: &'static str,
    ) -> Frame {
        Frame {
            title,
            width: WIDTH,
            height: HEIGHT,
            left: LEFT,
            right_edge: WIDTH - RIGHT,
            zero_y: round1(scale.y(0)),
            label_y: HEIGHT - BOTTOM + 18.0,
            ticks,
            empty,
            empty_text,
        }
    }
}

/// A bar chart of amounts, one bar per label, positive above the zero line and negative below.
#[derive(Template)]
#[template(path = "chart_bars.svg")]
pub struct BarChart {
    pub frame: Frame,
    pub bars: Vec<Bar>,
}

/// A point of a line chart, with what its tooltip says.
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub title: String,
}

/// A running total: a line through its points, with the first and last labels under the axis.
#[derive(Template)]
#[template(path = "chart_line.svg")]
pub struct LineChart {
    pub frame: Frame,
    pub path: String,
    pub points: Vec<Point>,
    pub first_label: String,
    pub last_label: String,
}

/// The vertical scale: amounts from `low` to `high` (zero always inside) onto the plot area.
struct Scale {
    low: i64,
    high: i64,
}

impl Scale {
    /// A scale that shows every value and zero, with round grid lines.
    fn fitting(values: impl Iterator<Item = i64>) -> (Scale, Vec<i64>) {
        let (mut low, mut high) = (0_i64, 0_i64);
        for v in values {
            low = low.min(v);
            high = high.max(v);
        }
        let step = nice_step(high.saturating_sub(low).max(1));
        let low = low.div_euclid(step) * step;
        let high = if high % step == 0 {
            high
        } else {
            (high.div_euclid(step) + 1) * step
        };
        let high = if high == low { low + step } else { high };
        let ticks = (0..)
            .map(|i| low + i * step)
            .take_while(|t| *t <= high)
            .collect();
        (Scale { low, high }, ticks)
    }

    fn y(&self, value: i64) -> f64 {
        let span = (self.high - self.low) as f64;
        TOP + (HEIGHT - TOP - BOTTOM) * (self.high - value) as f64 / span
    }
}

/// A step of 1, 2 or 5 times a power of ten that splits `span` into at most five parts.
fn nice_step(span: i64) -> i64 {
    let mut power = 1_i64;
    loop {
        for factor in [1, 2, 5] {
            let step = factor * power;
            if span / step + i64::from(span % step != 0) <= 5 {
                return step;
            }
        }
        power = match power.checked_mul(10) {
            Some(next) => next,
            None => return i64::MAX,
        };
    }
}

fn ticks(scale: &Scale, values: &[i64], label: impl Fn(i64) -> String) -> Vec<Tick> {
    values
        .iter()
        .map(|v| Tick {
            y: round1(scale.y(*v)),
            label: label(*v),
        })
        .collect()
}

/// A share in basis points as a percentage with one decimal: `12.3 %`.
fn percent(basis_points: i64) -> String {
    let sign = if basis_points < 0 { "-" } else { "" };
    let tenths = (basis_points.unsigned_abs() + 5) / 10;
    format!("{sign}{}.{} %", tenths / 10, tenths % 10)
}

/// One table's hold, and the band its hold is expected in (around its hold of the days
/// before), where it has one.
pub struct HoldBar {
    pub bar: Bar,
    /// The band's top and height, and what it says.
    pub band: Option<(f64, f64, String)>,
    /// The hold is outside its band.
    pub outside: bool,
}

/// Hold by table: a bar per table and the band of ± the property's hold band around the
/// table's hold of the days before (the regulator's statistical check, drawn).
#[derive(Template)]
#[template(path = "chart_hold.svg")]
pub struct HoldChart {
    pub frame: Frame,
    pub bars: Vec<HoldBar>,
}

impl HoldChart {
    /// `(label, hold, centre of its band)` in basis points, in the order given; `band` is the
    /// band's half-width in basis points.
    pub fn new(title: String, holds: &[(String, i64, Option<i64>)], band: i64) -> HoldChart {
        let values = holds.iter().flat_map(|(_, hold, centre)| {
            let (low, high) = centre.map_or((*hold, *hold), |c| (c - band, c + band));
            [*hold, low, high]
        });
        let (scale, tick_values) = Scale::fitting(values);
        let slot = (WIDTH - LEFT - RIGHT) / holds.len().max(1) as f64;
        let zero_y = scale.y(0);
        let bars = holds
            .iter()
            .enumerate()
            .map(|(i, (label, hold, centre))| {
                let y = scale.y(*hold);
                let x = LEFT + slot * i as f64;
                HoldBar {
                    bar: Bar {
                        label: label.clone(),
                        text: percent(*hold),
                        x: round1(x + slot * 0.3),
                        y: round1(y.min(zero_y)),
                        width: round1(slot * 0.4),
                        height: round1((y - zero_y).abs()),
                        loss: *hold < 0,
                    },
                    band: centre.map(|c| {
                        let (top, bottom) = (scale.y(c + band), scale.y(c - band));
                        (
                            round1(top),
                            round1(bottom - top),
                            format!("{} to {}", percent(c - band), percent(c + band)),
                        )
                    }),
                    outside: centre.is_some_and(|c| (hold - c).abs() > band),
                }
            })
            .collect::<Vec<HoldBar>>();
        let ticks = ticks(&scale, &tick_values, percent);
        HoldChart {
            frame: Frame::with_ticks(
                title,
                &scale,
                ticks,
                bars.is_empty(),
                "No table-day reconciled",
            ),
            bars,
        }
    }
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

impl BarChart {
    /// Bars of `(label, amount)` in `currency`, in the order given.
    pub fn new(title: String, currency: &str, bars: &[(String, Money)]) -> BarChart {
        let (scale, tick_values) = Scale::fitting(bars.iter().map(|(_, m)| m.minor_units()));
        let slot = (WIDTH - LEFT - RIGHT) / bars.len().max(1) as f64;
        let zero_y = scale.y(0);
        let bars: Vec<Bar> = bars
            .iter()
            .enumerate()
            .map(|(i, (label, amount))| {
                let y = scale.y(amount.minor_units());
                Bar {
                    label: label.clone(),
                    text: format::result(*amount, currency),
                    x: round1(LEFT + slot * i as f64 + slot * 0.15),
                    y: round1(y.min(zero_y)),
                    width: round1(slot * 0.7),
                    height: round1((y - zero_y).abs()),
                    loss: amount.minor_units() < 0,
                }
            })
            .collect();
        BarChart {
            frame: Frame::new(title, &scale, &tick_values, currency, bars.is_empty()),
            bars,
        }
    }
}

impl LineChart {
    /// The running total of `steps` (label, amount) in `currency`, starting from zero.
    pub fn running_total(title: String, currency: &str, steps: &[(String, Money)]) -> LineChart {
        let mut total = 0_i64;
        let totals: Vec<i64> = std::iter::once(0)
            .chain(steps.iter().map(|(_, m)| {
                total = total.saturating_add(m.minor_units());
                total
            }))
            .collect();
        let (scale, tick_values) = Scale::fitting(totals.iter().copied());
        let dx = (WIDTH - LEFT - RIGHT) / (totals.len().saturating_sub(1)).max(1) as f64;
        let points: Vec<Point> = totals
            .iter()
            .enumerate()
            .skip(1)
            .zip(steps)
            .map(|((i, t), (label, _))| Point {
                x: round1(LEFT + dx * i as f64),
                y: round1(scale.y(*t)),
                title: format!(
                    "{label}: {}",
                    format::result(Money::from_minor_units(*t), currency)
                ),
            })
            .collect();
        let mut path = format!("M{} {}", LEFT, round1(scale.y(0)));
        for p in &points {
            path.push_str(&format!(" L{} {}", p.x, p.y));
        }
        LineChart {
            frame: Frame::new(title, &scale, &tick_values, currency, points.is_empty()),
            path,
            first_label: steps.first().map(|(l, _)| l.clone()).unwrap_or_default(),
            last_label: steps.last().map(|(l, _)| l.clone()).unwrap_or_default(),
            points,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_round_and_split_the_span_in_at_most_five() {
        for (span, step) in [(1, 1), (5, 1), (6, 2), (10, 2), (11, 5), (25, 5), (26, 10)] {
            assert_eq!(nice_step(span), step, "{span}");
        }
        assert_eq!(nice_step(123_456), 50_000);
    }

    #[test]
    fn bars_rise_above_zero_for_wins_and_hang_below_for_losses() {
        let chart = BarChart::new(
            "By table".to_owned(),
            "PHP",
            &[
                ("A".to_owned(), Money::from_minor_units(10_000)),
                ("B".to_owned(), Money::from_minor_units(-5_000)),
            ],
        );
        let (win, loss) = (&chart.bars[0], &chart.bars[1]);
        assert!(!win.loss && loss.loss);
        assert!(
            (win.y + win.height - chart.frame.zero_y).abs() < 0.2,
            "a win ends on the zero line"
        );
        assert!(
            (loss.y - chart.frame.zero_y).abs() < 0.2,
            "a loss starts on the zero line"
        );
        assert!(
            (win.height - 2.0 * loss.height).abs() < 0.3,
            "heights are proportional"
        );
        assert_eq!(win.text, "PHP +100.00");
        assert_eq!(
            chart.frame.ticks.first().map(|t| t.label.as_str()),
            Some("PHP -50.00")
        );
        assert_eq!(
            chart.frame.ticks.last().map(|t| t.label.as_str()),
            Some("PHP 100.00")
        );
        let svg = chart.render().unwrap_or_default();
        assert!(
            svg.starts_with("<svg") && svg.contains("PHP +100.00"),
            "{svg}"
        );
    }

    #[test]
    fn a_running_total_adds_up_each_step_from_zero() {
        let chart = LineChart::running_total(
            "Shift".to_owned(),
            "PHP",
            &[
                ("#1".to_owned(), Money::from_minor_units(300)),
                ("#2".to_owned(), Money::from_minor_units(-500)),
                ("#3".to_owned(), Money::from_minor_units(100)),
            ],
        );
        let titles: Vec<&str> = chart.points.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles, ["#1: PHP +3.00", "#2: PHP -2.00", "#3: PHP -1.00"]);
        assert!(chart
            .path
            .starts_with(&format!("M{} {}", LEFT, chart.frame.zero_y)));
        assert_eq!(chart.path.matches(" L").count(), 3);
        assert!(!chart.frame.empty);
        assert!(
            LineChart::running_total("Shift".to_owned(), "PHP", &[])
                .frame
                .empty
        );
    }
}
