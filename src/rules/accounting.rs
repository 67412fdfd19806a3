//! Table accounting's arithmetic (docs/accounting.md): a chip set's denominations and an
//! inventory of chips by denomination with its total. Pure: no I/O.

use std::fmt;

use crate::rules::money::Money;

/// Whether a table's newest slip that is not void holds the table (no round is recorded there):
/// an opener whose difference from the previous closer was above the limit when it was signed
/// (`held`), not yet explained by a pit manager (docs/accounting.md, "The opener against the previous closer").
pub fn opener_holds(kind: &str, held: bool, explained: bool) -> bool {
    kind == "opener" && held && !explained
}

/// The most denominations a chip set has.
pub const MOST_DENOMINATIONS: usize = 20;

/// A chip set's denominations: at least one, at most [`MOST_DENOMINATIONS`], each above zero,
/// ascending and distinct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denominations(Vec<Money>);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DenominationsError {
    #[error("Enter at least one denomination.")]
    Empty,
    #[error("A chip set has at most {MOST_DENOMINATIONS} denominations.")]
    TooMany,
    #[error("{0:?} is not an amount: enter amounts such as 25 or 0.50, separated by spaces.")]
    NotAnAmount(String),
    #[error("A denomination is above zero.")]
    Zero,
    #[error("{} is entered twice.", .0.major_text())]
    Repeated(Money),
}

impl Denominations {
    /// The denominations, sorted; refused if any is zero or repeated.
    pub fn new(mut amounts: Vec<Money>) -> Result<Denominations, DenominationsError> {
        if amounts.is_empty() {
            return Err(DenominationsError::Empty);
        }
        if amounts.len() > MOST_DENOMINATIONS {
            return Err(DenominationsError::TooMany);
        }
        amounts.sort();
        if !amounts[0].is_positive() {
            return Err(DenominationsError::Zero);
        }
        if let Some(pair) = amounts.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(DenominationsError::Repeated(pair[0]));
        }
        Ok(Denominations(amounts))
    }

    /// Amounts in major units as a person types them, separated by spaces or new lines
    /// (`25 100 500 1,000 5,000 10,000`).
    pub fn parse(text: &str) -> Result<Denominations, DenominationsError> {
        let amounts = text
            .split_whitespace()
            .map(|word| {
                Money::parse_major(word)
                    .ok_or_else(|| DenominationsError::NotAnAmount(word.to_owned()))
            })
            .collect::<Result<Vec<Money>, DenominationsError>>()?;
        Denominations::new(amounts)
    }

    pub fn as_slice(&self) -> &[Money] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// As typed: `25 100 500 1000`.
impl fmt::Display for Denominations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words: Vec<String> = self.0.iter().map(|d| d.typed_text()).collect();
        f.write_str(&words.join(" "))
    }
}

/// Chips of each denomination of a chip set (a par, an opener, a closer), and their total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inventory {
    denominations: Denominations,
    counts: Vec<i64>,
    total: Money,
}

/// One denomination's line of an inventory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    pub denomination: Money,
    pub count: i64,
    /// `denomination` × `count`.
    pub amount: Money,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InventoryError {
    #[error("the count has {counts} numbers for {denominations} denominations")]
    WrongLength { counts: usize, denominations: usize },
    #[error("The count of {} chips is below zero.", .0.major_text())]
    Negative(Money),
    #[error("The count of {denomination} chips is not a whole number of chips: {1:?}.", denomination = .0.major_text())]
    NotACount(Money, String),
    #[error("The total is too large to hold.")]
    Overflow,
}

impl Inventory {
    /// `counts[i]` chips of `denominations[i]`; their total, refused if it overflows.
    pub fn new(
        denominations: Denominations,
        counts: Vec<i64>,
    ) -> Result<Inventory, InventoryError> {
        if counts.len() != denominations.len() {
            return Err(InventoryError::WrongLength {
                counts: counts.len(),
                denominations: denominations.len(),
            });
        }
        let mut total = Money::ZERO;
        for (&denomination, &count) in denominations.as_slice().iter().zip(&counts) {
            if count < 0 {
                return Err(InventoryError::Negative(denomination));
            }
            let amount = denomination
                .checked_mul(count)
                .ok_or(InventoryError::Overflow)?;
            total = Money::from_minor_units(
                total
                    .minor_units()
                    .checked_add(amount.minor_units())
                    .ok_or(InventoryError::Overflow)?,
            );
        }
        Ok(Inventory {
            denominations,
            counts,
            total,
        })
    }

    /// Counts as a person typed them, one per denomination in order; a blank is no chips.
    pub fn typed(
        denominations: Denominations,
        typed: &[&str],
    ) -> Result<Inventory, InventoryError> {
        let counts = denominations
            .as_slice()
            .iter()
            .zip(typed)
            .map(|(&denomination, text)| {
                let text = text.trim().replace(',', "");
                if text.is_empty() {
                    return Ok(0);
                }
                if let Some(digits) = text.strip_prefix('-') {
                    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                        return Err(InventoryError::Negative(denomination));
                    }
                }
                if !text.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(InventoryError::NotACount(denomination, text));
                }
                text.parse::<i64>().map_err(|_| InventoryError::Overflow)
            })
            .collect::<Result<Vec<i64>, InventoryError>>()?;
        Inventory::new(denominations, counts)
    }

    pub fn denominations(&self) -> &Denominations {
        &self.denominations
    }

    pub fn counts(&self) -> &[i64] {
        &self.counts
    }

    pub fn total(&self) -> Money {
        self.total
    }

    /// The chips of `denomination` counted (none if it is not in this count's chip set).
    pub fn count_of(&self, denomination: Money) -> i64 {
        self.denominations
            .as_slice()
            .iter()
            .position(|&d| d == denomination)
            .map_or(0, |i| self.counts[i])
    }

    /// Each denomination with its count and amount, smallest first.
    pub fn lines(&self) -> impl Iterator<Item = Line> + '_ {
        self.denominations
            .as_slice()
            .iter()
            .zip(&self.counts)
            .map(|(&denomination, &count)| Line {
                denomination,
                count,
                // Every product was checked when the inventory was made.
                amount: Money::from_minor_units(denomination.minor_units().saturating_mul(count)),
            })
    }
}

/// One denomination's difference between two counts of a table's chips (the previous closer and
/// the opener): the chips counted in each, and the value of the difference (`after − before`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Difference {
    pub denomination: Money,
    pub before: i64,
    pub after: i64,
    pub amount: Money,
}

/// Every denomination whose count differs between `before` and `after`, ascending; a
/// denomination in only one of them (the chip set changed between the two counts) counts as
/// none in the other. `None` when an amount is too large to hold.
pub fn differences(before: &Inventory, after: &Inventory) -> Option<Vec<Difference>> {
    let mut denominations: Vec<Money> = before
        .denominations
        .as_slice()
        .iter()
        .chain(after.denominations.as_slice())
        .copied()
        .collect();
    denominations.sort();
    denominations.dedup();
    let mut found = Vec::new();
    for denomination in denominations {
        let (was, is) = (before.count_of(denomination), after.count_of(denomination));
        if was != is {
            found.push(Difference {
                denomination,
                before: was,
                after: is,
                amount: denomination.checked_mul(is.checked_sub(was)?)?,
            });
        }
    }
    Some(found)
}

/// The value of the chips that do not match, whichever way: the sum of each denomination's
/// difference without its sign (a 1,000 chip short and two 500s over is 2,000, not zero: chips
/// that moved overnight are what the explanation is for). `None` when too large to hold.
pub fn gross(differences: &[Difference]) -> Option<Money> {
    differences.iter().try_fold(Money::ZERO, |sum, d| {
        let amount = d.amount.minor_units().checked_abs()?;
        sum.minor_units()
            .checked_add(amount)
            .map(Money::from_minor_units)
    })
}

/// The banknotes of `currency` the count team counts by denomination, smallest first: PHP 20,
/// 50, 100, 200, 500, 1,000; USD 1, 2, 5, 10, 20, 50, 100. Any other currency has none listed
/// (its count takes the cash as one total).
pub fn banknotes(currency: &str) -> Option<Denominations> {
    let majors: &[i64] = match currency {
        "PHP" => &[20, 50, 100, 200, 500, 1_000],
        "USD" => &[1, 2, 5, 10, 20, 50, 100],
        _ => return None,
    };
    // Distinct, above zero and few: always a valid set.
    Denominations::new(
        majors
            .iter()
            .map(|m| Money::from_minor_units(m * 100))
            .collect(),
    )
    .ok()
}

/// A table's drop by kind: the cash, the markers and the chip vouchers (what the table recorded
/// as bought in, or what the count team counted in its drop box).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DropByKind {
    pub cash: Money,
    pub markers: Money,
    pub chip_vouchers: Money,
}

impl DropByKind {
    /// Cash, markers and chip vouchers together; `None` when too large to hold.
    pub fn total(&self) -> Option<Money> {
        self.cash
            .minor_units()
            .checked_add(self.markers.minor_units())?
            .checked_add(self.chip_vouchers.minor_units())
            .map(Money::from_minor_units)
    }

    /// Markers and chip vouchers: the non-cash drop; `None` when too large to hold.
    pub fn non_cash(&self) -> Option<Money> {
        self.markers
            .minor_units()
            .checked_add(self.chip_vouchers.minor_units())
            .map(Money::from_minor_units)
    }
}

/// The count against what the table recorded: each kind's difference and the total's, counted −
/// recorded (below zero: the box holds less than the table recorded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DropComparison {
    pub recorded: DropByKind,
    pub counted: DropByKind,
    pub cash: Money,
    pub markers: Money,
    pub chip_vouchers: Money,
    pub total: Money,
}

impl DropComparison {
    /// Whether the count and the table disagree anywhere (a difference of any kind is flagged,
    /// even when the kinds' differences cancel out in the total).
    pub fn flagged(&self) -> bool {
        [self.cash, self.markers, self.chip_vouchers, self.total]
            .iter()
            .any(|d| d.minor_units() != 0)
    }
}

/// Compares the `counted` drop with the `recorded` buy-ins; `None` when an amount is too large to
/// hold.
pub fn compare_drop(recorded: DropByKind, counted: DropByKind) -> Option<DropComparison> {
    Some(DropComparison {
        cash: counted.cash.checked_sub(recorded.cash)?,
        markers: counted.markers.checked_sub(recorded.markers)?,
        chip_vouchers: counted.chip_vouchers.checked_sub(recorded.chip_vouchers)?,
        total: counted.total()?.checked_sub(recorded.total()?)?,
        recorded,
        counted,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn php(amounts: &[i64]) -> Denominations {
        Denominations::new(
            amounts
                .iter()
                .map(|a| Money::from_minor_units(a * 100))
                .collect(),
        )
        .unwrap()
    }

    #[test]
    fn denominations_are_read_as_typed_and_kept_ascending() {
        let set = Denominations::parse("10,000 25\n100 500 1,000 5000").unwrap();
        assert_eq!(set, php(&[25, 100, 500, 1_000, 5_000, 10_000]));
        assert_eq!(set.to_string(), "25 100 500 1000 5000 10000");
        assert_eq!(
            Denominations::parse("0.25 1").unwrap().as_slice(),
            &[Money::from_minor_units(25), Money::from_minor_units(100)]
        );
    }

    #[test]
    fn denominations_refused_name_the_problem() {
        for (text, err) in [
            ("", DenominationsError::Empty),
            ("  ", DenominationsError::Empty),
            ("25 0 100", DenominationsError::Zero),
            (
                "25 100 25",
                DenominationsError::Repeated(Money::from_minor_units(2_500)),
            ),
            ("25 ten", DenominationsError::NotAnAmount("ten".to_owned())),
            ("-5", DenominationsError::NotAnAmount("-5".to_owned())),
            ("1.005", DenominationsError::NotAnAmount("1.005".to_owned())),
        ] {
            assert_eq!(Denominations::parse(text), Err(err), "{text:?}");
        }
        let many: Vec<String> = (1..=21).map(|n| n.to_string()).collect();
        assert_eq!(
            Denominations::parse(&many.join(" ")),
            Err(DenominationsError::TooMany)
        );
    }

    #[test]
    fn an_inventory_totals_its_denominations() {
        let par = Inventory::new(php(&[25, 100, 500, 1_000]), vec![40, 20, 10, 3]).unwrap();
        // 1,000 + 2,000 + 5,000 + 3,000
        assert_eq!(par.total(), Money::from_minor_units(1_100_000));
        let amounts: Vec<Money> = par.lines().map(|l| l.amount).collect();
        assert_eq!(
            amounts,
            [
                Money::from_minor_units(100_000),
                Money::from_minor_units(200_000),
                Money::from_minor_units(500_000),
                Money::from_minor_units(300_000)
            ]
        );
    }

    #[test]
    fn typed_counts_are_whole_and_not_negative_and_blank_is_none() {
        let set = php(&[25, 100, 500]);
        let count = Inventory::typed(set.clone(), &["4", "", "1,000"]).unwrap();
        assert_eq!(count.counts(), &[4, 0, 1_000]);
        assert_eq!(
            count.total(),
            Money::from_minor_units(4 * 2_500 + 1_000 * 50_000)
        );
        assert_eq!(
            Inventory::typed(set.clone(), &["4", "-1", "0"]),
            Err(InventoryError::Negative(Money::from_minor_units(10_000)))
        );
        assert_eq!(
            Inventory::typed(set.clone(), &["4", "1.5", "0"]),
            Err(InventoryError::NotACount(
                Money::from_minor_units(10_000),
                "1.5".to_owned()
            ))
        );
        assert_eq!(
            Inventory::new(set, vec![1, 2]),
            Err(InventoryError::WrongLength {
                counts: 2,
                denominations: 3
            })
        );
    }

    #[test]
    fn an_inventory_too_large_to_hold_is_refused() {
        let set = php(&[10_000]);
        assert_eq!(
            Inventory::new(set.clone(), vec![i64::MAX / 100]),
            Err(InventoryError::Overflow)
        );
        assert_eq!(
            // Each product fits; their sum does not.
            Inventory::new(php(&[1, 10_000]), vec![1_000_000_000, i64::MAX / 1_000_000]),
            Err(InventoryError::Overflow)
        );
        assert!(Inventory::new(set, vec![1_000]).is_ok());
    }

    #[test]
    fn differences_name_each_denomination_with_its_amount() {
        let closer = Inventory::new(php(&[25, 100, 1_000]), vec![40, 20, 10]).unwrap();
        let opener = Inventory::new(php(&[25, 100, 1_000]), vec![40, 22, 9]).unwrap();
        let found = differences(&closer, &opener).unwrap();
        assert_eq!(
            found,
            [
                Difference {
                    denomination: Money::from_minor_units(10_000),
                    before: 20,
                    after: 22,
                    amount: Money::from_minor_units(20_000)
                },
                Difference {
                    denomination: Money::from_minor_units(100_000),
                    before: 10,
                    after: 9,
                    amount: Money::from_minor_units(-100_000)
                },
            ]
        );
        // 200 over and 1,000 short: 1,200 that does not match, though the totals differ by 800.
        assert_eq!(gross(&found), Some(Money::from_minor_units(120_000)));
        assert_eq!(differences(&closer, &closer).unwrap(), []);
        assert_eq!(gross(&[]), Some(Money::ZERO));
    }

    #[test]
    fn a_denomination_in_one_count_only_is_none_in_the_other() {
        let closer = Inventory::new(php(&[25, 100]), vec![4, 1]).unwrap();
        let opener = Inventory::new(php(&[100, 500]), vec![1, 2]).unwrap();
        let found = differences(&closer, &opener).unwrap();
        let amounts: Vec<(Money, i64, i64, Money)> = found
            .iter()
            .map(|d| (d.denomination, d.before, d.after, d.amount))
            .collect();
        assert_eq!(
            amounts,
            [
                (
                    Money::from_minor_units(2_500),
                    4,
                    0,
                    Money::from_minor_units(-10_000)
                ),
                (
                    Money::from_minor_units(50_000),
                    0,
                    2,
                    Money::from_minor_units(100_000)
                ),
            ]
        );
        assert_eq!(gross(&found), Some(Money::from_minor_units(110_000)));
    }

    #[test]
    fn banknotes_are_listed_for_php_and_usd_only() {
        let php = banknotes("PHP").unwrap();
        assert_eq!(php.to_string(), "20 50 100 200 500 1000");
        let usd = banknotes("USD").unwrap();
        assert_eq!(usd.to_string(), "1 2 5 10 20 50 100");
        assert_eq!(usd.as_slice()[0], Money::from_minor_units(100));
        for other in ["EUR", "HKD", "php", ""] {
            assert_eq!(banknotes(other), None, "{other:?}");
        }
    }

    #[test]
    fn a_banknote_count_totals_like_a_chip_count() {
        let notes =
            Inventory::typed(banknotes("PHP").unwrap(), &["", "2", "", "", "3", "10"]).unwrap();
        // 100 + 1,500 + 10,000
        assert_eq!(notes.total(), Money::from_minor_units(1_160_000));
    }

    fn drop(cash: i64, markers: i64, chip_vouchers: i64) -> DropByKind {
        DropByKind {
            cash: Money::from_minor_units(cash),
            markers: Money::from_minor_units(markers),
            chip_vouchers: Money::from_minor_units(chip_vouchers),
        }
    }

    #[test]
    fn the_count_is_compared_kind_by_kind_counted_minus_recorded() {
        // (recorded, counted, cash, markers, chip vouchers, total, flagged)
        let cases = [
            (drop(0, 0, 0), drop(0, 0, 0), 0, 0, 0, 0, false),
            (drop(500, 200, 100), drop(500, 200, 100), 0, 0, 0, 0, false),
            (
                drop(500, 200, 100),
                drop(400, 200, 100),
                -100,
                0,
                0,
                -100,
                true,
            ),
            (drop(500, 0, 0), drop(600, 0, 0), 100, 0, 0, 100, true),
            // A marker counted as cash: the total agrees, the kinds do not.
            (drop(500, 200, 0), drop(700, 0, 0), 200, -200, 0, 0, true),
            (drop(0, 0, 300), drop(0, 0, 0), 0, 0, -300, -300, true),
        ];
        for (recorded, counted, cash, markers, vouchers, total, flagged) in cases {
            let c = compare_drop(recorded, counted).unwrap();
            assert_eq!(
                (c.cash, c.markers, c.chip_vouchers, c.total),
                (
                    Money::from_minor_units(cash),
                    Money::from_minor_units(markers),
                    Money::from_minor_units(vouchers),
                    Money::from_minor_units(total)
                ),
                "{recorded:?} {counted:?}"
            );
            assert_eq!(c.flagged(), flagged, "{recorded:?} {counted:?}");
        }
        assert_eq!(drop(1, 2, 3).total(), Some(Money::from_minor_units(6)));
        assert_eq!(drop(1, 2, 3).non_cash(), Some(Money::from_minor_units(5)));
    }

    #[test]
    fn a_drop_too_large_to_hold_is_none() {
        assert_eq!(drop(i64::MAX, 1, 0).total(), None);
        assert_eq!(compare_drop(drop(0, 0, 0), drop(i64::MAX, 1, 0)), None);
        assert_eq!(compare_drop(drop(i64::MAX, 0, 0), drop(-2, 0, 0)), None);
    }
}
