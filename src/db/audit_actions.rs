//! Every action the application writes to the audit trail, as one enum: an event appended is
//! always one of these (`NewAuditEvent::action`), so a new kind of event is added here, where
//! its text is written once. Events read back keep their text (`AuditEvent::action`): the
//! trail holds what earlier builds wrote, and compares with an action as text.

use std::fmt;
use std::str::FromStr;

macro_rules! audit_actions {
    ($($variant:ident = $text:literal,)*) => {
        /// An audit event's action, written as its text (`round.settled`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum AuditAction {
            $($variant,)*
        }

        impl AuditAction {
            /// Every action, in the order of their texts.
            pub const ALL: &'static [AuditAction] = &[$(AuditAction::$variant,)*];

            /// The text stored in the trail.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(AuditAction::$variant => $text,)*
                }
            }
        }
    };
}

audit_actions! {
    ApiTokenIssued = "api_token.issued",
    ApiTokenRefused = "api_token.refused",
    ApiTokenRevoked = "api_token.revoked",
    AuditVerified = "audit.verified",
    AuthLockout = "auth.lockout",
    AuthSignin = "auth.signin",
    AuthSigninFailed = "auth.signin.failed",
    AuthSignout = "auth.signout",
    AuthzDenied = "authz.denied",
    AuthzDeniedRepeatedly = "authz.denied_repeatedly",
    BuyinAttributed = "buyin.attributed",
    BuyinAttributionWithdrawn = "buyin.attribution_withdrawn",
    BuyinRecorded = "buyin.recorded",
    BuyinVoid = "buyin.void",
    CageIssued = "cage.issued",
    CagePrinted = "cage.printed",
    CageReceived = "cage.received",
    CageRequested = "cage.requested",
    CageVoid = "cage.void",
    CashApproaching = "cash.approaching",
    CashCageRecorded = "cash.cage_recorded",
    CashCageVoid = "cash.cage_void",
    CashRecorded = "cash.recorded",
    CashWithdrawn = "cash.withdrawn",
    ChipsCreate = "chips.create",
    ChipsNewVersion = "chips.new_version",
    CompRuleSet = "comp.rule_set",
    ComplianceCaseBasisChanged = "compliance.case_basis_changed",
    ComplianceCaseRaised = "compliance.case_raised",
    ComplianceCaseRead = "compliance.case_read",
    ComplianceDecided = "compliance.decided",
    ComplianceThresholdsSet = "compliance.thresholds_set",
    CountSigned = "count.signed",
    CountVoid = "count.void",
    CsrfRejected = "csrf.rejected",
    CsrfRejectedRepeatedly = "csrf.rejected_repeatedly",
    DayClosed = "day.closed",
    ExclusionListImported = "exclusion_list.imported",
    FeeRecorded = "fee.recorded",
    FeeVoid = "fee.void",
    InvestigationClosed = "investigation.closed",
    InvestigationOpened = "investigation.opened",
    ObservationCarded = "observation.carded",
    ObservationEnded = "observation.ended",
    ObservationRecorded = "observation.recorded",
    ObservationVoid = "observation.void",
    PlayerCorrected = "player.corrected",
    PlayerRead = "player.read",
    PlayerRegistered = "player.registered",
    PlayerSeatRefused = "player.seat_refused",
    PlayerStatusSet = "player.status_set",
    ProfileCreate = "profile.create",
    ProfileNewVersion = "profile.new_version",
    RatingEnded = "rating.ended",
    RatingPaused = "rating.paused",
    RatingResumed = "rating.resumed",
    RatingStarted = "rating.started",
    ReviewRechecked = "review.rechecked",
    RoundApprove = "round.approve",
    RoundApproveRefused = "round.approve.refused",
    RoundApproved = "round.approved",
    RoundDraftChanged = "round.draft_changed",
    RoundDraftOpened = "round.draft_opened",
    RoundReenter = "round.reenter",
    RoundReenterRefused = "round.reenter.refused",
    RoundReentered = "round.reentered",
    RoundSettled = "round.settled",
    RoundVoid = "round.void",
    RoundVoidRefused = "round.void.refused",
    RoundVoided = "round.voided",
    SessionExpired = "session.expired",
    Signature = "signature",
    SignatureRefused = "signature.refused",
    SlipCloser = "slip.closer",
    SlipExplained = "slip.explained",
    SlipOpener = "slip.opener",
    SlipVoid = "slip.void",
    TableConfirmPrompt = "table.confirm_prompt",
    TableCreate = "table.create",
    TablePar = "table.par",
    TableSignOff = "table.sign_off",
    TableSignOn = "table.sign_on",
    TableUpdate = "table.update",
    UserCreate = "user.create",
    UserDisable = "user.disable",
    UserEnable = "user.enable",
    UserPasswordChange = "user.password_change",
    UserPasswordReset = "user.password_reset",
    UserPinCleared = "user.pin_cleared",
    UserPinRemoved = "user.pin_removed",
    UserPinSet = "user.pin_set",
    UserUnlock = "user.unlock",
}

impl AuditAction {
    /// The action that records a refusal of this one (`round.void` → `round.void.refused`),
    /// for the review decisions that record their refusals.
    pub const fn refused(self) -> Option<AuditAction> {
        match self {
            AuditAction::RoundApprove => Some(AuditAction::RoundApproveRefused),
            AuditAction::RoundVoid => Some(AuditAction::RoundVoidRefused),
            AuditAction::RoundReenter => Some(AuditAction::RoundReenterRefused),
            _ => None,
        }
    }
}

impl AsRef<str> for AuditAction {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for AuditAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A text that is no action of this build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no such audit action")]
pub struct UnknownAction;

impl FromStr for AuditAction {
    type Err = UnknownAction;

    fn from_str(text: &str) -> Result<AuditAction, UnknownAction> {
        AuditAction::ALL
            .iter()
            .copied()
            .find(|action| action.as_str() == text)
            .ok_or(UnknownAction)
    }
}

impl PartialEq<AuditAction> for str {
    fn eq(&self, action: &AuditAction) -> bool {
        self == action.as_str()
    }
}

impl PartialEq<AuditAction> for String {
    fn eq(&self, action: &AuditAction) -> bool {
        self.as_str() == action.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_reads_back_from_its_text_and_no_two_share_one() {
        for (i, action) in AuditAction::ALL.iter().enumerate() {
            assert_eq!(action.as_str().parse(), Ok(*action));
            assert!(AuditAction::ALL[..i]
                .iter()
                .all(|a| a.as_str() != action.as_str()));
        }
        assert_eq!("round.settle".parse::<AuditAction>(), Err(UnknownAction));
        let stored = String::from("round.settled");
        assert!(stored == AuditAction::RoundSettled);
        assert_eq!(
            AuditAction::RoundVoid.refused(),
            Some(AuditAction::RoundVoidRefused)
        );
    }
}
