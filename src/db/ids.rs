//! The ids of stored rows, one type each, usable as diesel columns and bind values
//! (`diesel-derive-newtype`) and serialised as the bare number. Imports nothing of the crate.

use std::fmt;

use diesel_derive_newtype::DieselNewType;
use serde::{Deserialize, Serialize};

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident($inner:ty);)*) => {$(
        $(#[$doc])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
            DieselNewType,
        )]
        pub struct $name(pub $inner);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl From<$inner> for $name {
            fn from(id: $inner) -> Self {
                $name(id)
            }
        }
    )*};
}

ids! {
    /// A staff account (`users.id`).
    UserId(i64);
    /// A gaming table (`gaming_tables.id`).
    TableId(i64);
    /// A rule profile (`rule_profiles.id`).
    ProfileId(i64);
    /// One version of a rule profile (`rule_profile_versions.id`).
    ProfileVersionId(i64);
    /// A dealer's shift at a table (`dealer_shifts.id`).
    ShiftId(i64);
    /// A settled round (`rounds.id`).
    RoundId(i64);
    /// A round being entered (`round_drafts.id`).
    DraftId(i64);
    /// An API token (`api_tokens.id`).
    TokenId(i64);
    /// A chip set, one per currency (`chip_sets.id`).
    ChipSetId(i64);
    /// A fill or credit slip (`cage_slips.id`).
    CageSlipId(i64);
    /// One print of a fill or credit slip (`cage_slip_prints.id`).
    CageSlipPrintId(i64);
    /// One version of a chip set's denominations (`chip_set_versions.id`).
    ChipSetVersionId(i64);
    /// One version of a table's par inventory (`table_pars.id`).
    ParId(i64);
    /// A table inventory slip, an opener or a closer (`inventory_slips.id`).
    SlipId(i64);
    /// A buy-in recorded at a table (`buy_ins.id`).
    BuyInId(i64);
    /// A points-game table fee recorded at a table (`table_fees.id`).
    TableFeeId(i64);
    /// The count team's count of a table's drop (`drop_counts.id`).
    DropCountId(i64);
    /// An investigation of a table-day's variance (`investigations.id`).
    InvestigationId(i64);
    /// A player of the casino (`players.id`).
    PlayerId(i64);
    /// One status of a player (`player_statuses.id`).
    PlayerStatusId(i64);
    /// A rating of a player at a seat (`ratings.id`).
    RatingId(i64);
    /// A seating refused because the player is excluded (`seat_refusals.id`).
    SeatRefusalId(i64);
    /// A pit manager's observation of a player not carded (`unrated_observations.id`).
    ObservationId(i64);
    /// Cash over the cage's counter (`cage_cash.id`).
    CageCashId(i64);
    /// A compliance case: a covered transaction or a structuring candidate
    /// (`compliance_cases.id`).
    CaseId(i64);
    /// A regulator's exclusion list as imported (`exclusion_lists.id`).
    ExclusionListId(i64);
}

/// A round's one-time key: a draft's (random) or the caller's, for a round recorded whole
/// (`round_drafts.draft_key`, `rounds.draft_key`).
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, DieselNewType,
)]
pub struct DraftKey(pub String);

impl DraftKey {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DraftKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
