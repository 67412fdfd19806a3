//! The house edge of each rule profile version (docs/players.md, "Theoretical win"): computed
//! once by the engine's simulation (`rules::house_edge`) over deals shuffled from a seed, and
//! stored with the version, with its confidence interval. A points-game version has none to
//! compute: the house plays no part in the points, its edge is nil (its income is the table
//! fee). Versions are computed in the background after the server starts, one at a time, and
//! by `pusoy-pit players edges`.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::accounting::AccountingError;
use crate::db::handle::Db;
use crate::db::ids::ProfileVersionId;
use crate::db::players as rows;
use crate::rules::card::Card;
use crate::rules::game::GameRules;
use crate::rules::house_edge::house_edge;
use crate::rules::houseway::simulate::{self, Deal};

/// `rounds` deals shuffled by ChaCha8 from `seed` (a portable, documented-stable generator, so
/// the same seed deals the same cards everywhere).
pub fn seeded_deals(seed: u64, rounds: u64) -> Vec<Deal> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut deck: Vec<Card> = Card::all().collect();
    (0..rounds)
        .map(|_| {
            deck.sort_unstable();
            deck.shuffle(&mut rng);
            let mut cards = [deck[0]; 52];
            cards.copy_from_slice(&deck);
            simulate::deal_of(&cards)
        })
        .collect()
}

/// A version's edge as computed: parts per million of a seat's bet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Computed {
    pub version: ProfileVersionId,
    pub edge_ppm: i32,
    pub half_width_ppm: i32,
    pub deals: u32,
}

/// Computes and stores the edge of every version that has none, over `deals` deals shuffled
/// from the version's id (so a version's figure can be computed again, the same). Returns what
/// it stored. The simulation runs outside any transaction; two instances computing the same
/// version store the first.
pub async fn compute_missing(db: &Db, deals: u32) -> Result<Vec<Computed>, AccountingError> {
    let missing = db
        .run(|conn| Ok::<_, AccountingError>(rows::versions_without_edge(conn)?))
        .await?;
    let mut stored = Vec::new();
    for (version, options) in missing {
        let computed = match serde_json::from_value::<GameRules>(options) {
            Ok(GameRules::Points(_)) => Computed {
                version,
                edge_ppm: 0,
                half_width_ppm: 0,
                deals: 1,
            },
            Ok(GameRules::Banking(profile)) => {
                let seed = version.0 as u64;
                let edge = tokio::task::spawn_blocking(move || {
                    house_edge(&seeded_deals(seed, u64::from(deals.max(1))), &profile)
                })
                .await
                .map_err(|_| AccountingError::BadStored("the edge's simulation".to_owned()))?;
                let Some(edge) = edge else { continue };
                Computed {
                    version,
                    edge_ppm: edge.edge_ppm,
                    half_width_ppm: edge.half_width_ppm,
                    deals: edge.deals,
                }
            }
            Err(_) => {
                return Err(AccountingError::BadStored(format!(
                    "the options of rule profile version {version}"
                )))
            }
        };
        db.run(move |conn| {
            Ok::<_, AccountingError>(rows::insert_edge(
                conn,
                computed.version,
                computed.edge_ppm,
                computed.half_width_ppm,
                i32::try_from(computed.deals).unwrap_or(i32::MAX),
                computed.version.0,
            )?)
        })
        .await?;
        stored.push(computed);
    }
    Ok(stored)
}
