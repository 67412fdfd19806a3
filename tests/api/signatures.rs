//! A document's second signature (`accounting::signatures`), against the real database: the
//! second person's own password, the sign-in lock-out, and each refusal audited.
use diesel::prelude::*;
use pusoy_pit::accounting::signatures::{self, Capacity, Document, SecondPerson, Signature};
use pusoy_pit::accounting::AccountingError;
use pusoy_pit::db::audit_log::{table_chain, Actor};
use pusoy_pit::db::handle::Db;
use pusoy_pit::db::ids::TableId;
use pusoy_pit::db::users::{self, Role, User, LOCKOUT_THRESHOLD};
use pusoy_pit::password::HashParams;

use crate::helpers::{create_table, spawn_app, TestApp, PASSWORD};

const TABLET: &str = "10.1.2.3";

struct Setup {
    app: TestApp,
    db: Db,
    document: Document,
    dealer: User,
    actor: Actor,
}

async fn setup() -> Setup {
    let app = spawn_app().await;
    let url = app.config.database_url.clone().unwrap();
    let db = Db::new(pusoy_pit::db::pool(&url, 2).unwrap(), 2);
    let table = TableId(create_table(&app, "T1"));
    let dealer = app.create_user("dee", Role::Dealer, PASSWORD);
    let actor = Actor::user(dealer.id, &dealer.username, Some(TABLET.to_owned()));
    let document = Document {
        chain: table_chain(table),
        target: "table:T1/opener".to_owned(),
        title: "the opener".to_owned(),
        table_id: Some(table),
        gaming_day: None,
    };
    Setup {
        app,
        db,
        document,
        dealer,
        actor,
    }
}

impl Setup {
    async fn second(
        &self,
        username: &str,
        password: &str,
        capacity: Capacity,
    ) -> Result<Signature, String> {
        signatures::second(
            &self.db,
            HashParams::FLOOR,
            SecondPerson {
                username: username.to_owned(),
                password: password.to_owned(),
            },
            self.dealer.id,
            capacity,
            &self.document,
            &self.actor,
        )
        .await
        .unwrap()
    }

    /// (actor, target, details) of each event with this action on the table's chain.
    fn events(&self, action: &str) -> Vec<(String, String, serde_json::Value)> {
        self.app
            .audit(action)
            .into_iter()
            .filter(|e| e.chain == self.document.chain)
            .map(|e| (e.actor_name, e.target, e.details))
            .collect()
    }

    fn record(&self, signatures: &[Signature]) -> Result<(), AccountingError> {
        let mut conn = self.app.conn();
        conn.transaction(|conn| {
            signatures::record(conn, &self.document, signatures, Some(TABLET.to_owned()))
        })
    }

    fn first(&self) -> Signature {
        Signature::signed_in(self.dealer.id, &self.dealer.username, Capacity::DEALER)
    }
}

#[tokio::test]
async fn a_supervisor_signs_second_with_their_own_password_and_both_are_audited() {
    let s = setup().await;
    let boss = s.app.create_user("boss", Role::Supervisor, PASSWORD);
    let second = s
        .second("Boss", PASSWORD, Capacity::SUPERVISOR)
        .await
        .unwrap();
    assert_eq!(second.user(), boss.id);
    s.record(&[s.first(), second]).unwrap();
    let signed = s.events("signature");
    assert_eq!(signed.len(), 2, "{signed:?}");
    assert_eq!(signed[0].0, "dee");
    assert_eq!(signed[0].1, "table:T1/opener");
    assert_eq!(signed[0].2["capacity"], "dealer");
    assert_eq!(signed[0].2["by"], "session");
    assert_eq!(signed[1].0, "boss");
    assert_eq!(signed[1].2["capacity"], "supervisor");
    assert_eq!(signed[1].2["by"], "password");
    assert!(s.events("signature.refused").is_empty());
}

#[tokio::test]
async fn a_wrong_password_is_refused_audited_and_counted_towards_the_lockout() {
    let s = setup().await;
    s.app.create_user("boss", Role::Supervisor, PASSWORD);
    let refused = s
        .second("boss", "not-the-password", Capacity::SUPERVISOR)
        .await
        .unwrap_err();
    assert_eq!(
        refused,
        "The user name or password of the second signer is wrong."
    );
    let events = s.events("signature.refused");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].0, "dee", "who tried");
    assert_eq!(events[0].1, "table:T1/opener", "to sign what");
    assert_eq!(events[0].2["as"], "boss");
    assert_eq!(events[0].2["reason"], "wrong password");
    assert!(!events[0].2.to_string().contains("not-the-password"));
    // The same count as a sign-in's.
    assert_eq!(s.app.audit("auth.signin.failed").len(), 1);
    for _ in 1..LOCKOUT_THRESHOLD {
        s.second("boss", "not-the-password", Capacity::SUPERVISOR)
            .await
            .unwrap_err();
    }
    assert_eq!(s.app.audit("auth.lockout").len(), 1);
    let locked = s
        .second("boss", PASSWORD, Capacity::SUPERVISOR)
        .await
        .unwrap_err();
    assert!(locked.contains("locked"), "{locked}");
}

#[tokio::test]
async fn an_unknown_name_and_a_disabled_account_are_refused_and_audited() {
    let s = setup().await;
    let gone = s.app.create_user("gone", Role::Supervisor, PASSWORD);
    users::set_disabled(&mut s.app.conn(), gone.id, true, &Actor::system("test")).unwrap();
    let unknown = s
        .second("nobody", PASSWORD, Capacity::SUPERVISOR)
        .await
        .unwrap_err();
    assert_eq!(
        unknown,
        "The user name or password of the second signer is wrong."
    );
    let disabled = s
        .second("gone", PASSWORD, Capacity::SUPERVISOR)
        .await
        .unwrap_err();
    assert!(disabled.contains("disabled"), "{disabled}");
    let reasons: Vec<_> = s
        .events("signature.refused")
        .into_iter()
        .map(|(_, _, d)| d["reason"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(reasons, ["unknown user", "account disabled"]);
}

#[tokio::test]
async fn the_first_signer_cannot_sign_again_as_the_second() {
    let s = setup().await;
    let refused = s
        .second("dee", PASSWORD, Capacity::SUPERVISOR)
        .await
        .unwrap_err();
    assert!(refused.contains("signs once"), "{refused}");
    assert_eq!(s.events("signature.refused")[0].2["reason"], "same person");
    // Nor can the document's transaction take one person's two signatures.
    let twice = Signature::signed_in(s.dealer.id, "dee", Capacity::SUPERVISOR);
    let err = s.record(&[s.first(), twice]).unwrap_err();
    assert!(
        matches!(&err, AccountingError::Refused(words) if words.contains("two different people")),
        "{err:?}"
    );
    assert!(s.events("signature").is_empty());
}

#[tokio::test]
async fn each_signature_needs_a_role_that_may_sign_in_its_capacity() {
    let s = setup().await;
    s.app.create_user("other-dealer", Role::Dealer, PASSWORD);
    s.app.create_user("reader", Role::Auditor, PASSWORD);
    let dealer = s
        .second("other-dealer", PASSWORD, Capacity::SUPERVISOR)
        .await
        .unwrap_err();
    assert_eq!(
        dealer,
        "other-dealer Test is a dealer and cannot sign as a supervisor: \
         that needs a pit manager or an administrator."
    );
    let auditor = s
        .second("reader", PASSWORD, Capacity::DEALER)
        .await
        .unwrap_err();
    assert!(auditor.contains("cannot sign as the dealer"), "{auditor}");
    assert_eq!(s.events("signature.refused").len(), 2);
    // The signed-in account's role is checked too, when the document is recorded.
    let reader = s.app.create_user("reader2", Role::Auditor, PASSWORD);
    let first = Signature::signed_in(reader.id, "reader2", Capacity::DEALER);
    let boss = s.app.create_user("boss", Role::Supervisor, PASSWORD);
    let second = s
        .second("boss", PASSWORD, Capacity::SUPERVISOR)
        .await
        .unwrap();
    assert_eq!(second.user(), boss.id);
    assert!(matches!(
        s.record(&[first, second]),
        Err(AccountingError::Refused(_))
    ));
}
