//! A document's second signature (`accounting::signatures`), against the real database: the
//! second person's own password or signing PIN, the sign-in lock-out, and each refusal audited.
use diesel::prelude::*;
use pusoy_pit::accounting::signatures::{self, Capacity, Document, SecondPerson, Signature};
use pusoy_pit::accounting::AccountingError;
use pusoy_pit::db::audit_log::{table_chain, Actor};
use pusoy_pit::db::handle::Db;
use pusoy_pit::db::ids::TableId;
use pusoy_pit::db::users::{self, Role, User, LOCKOUT_THRESHOLD};
use pusoy_pit::password::pin::PinKey;
use pusoy_pit::password::{HashParams, Secrets};
use reqwest::StatusCode;

use crate::helpers::{create_table, spawn_app, TestApp, PASSWORD};

const TABLET: &str = "10.1.2.3";

struct Setup {
    app: TestApp,
    db: Db,
    document: Document,
    dealer: User,
    actor: Actor,
    /// The app's own: the key its PIN pages seal PINs under.
    secrets: Secrets,
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
    let secrets = Secrets {
        params: HashParams::FLOOR,
        pin_key: std::sync::Arc::new(PinKey::load_or_create(&app.config.pin_key_file).unwrap()),
    };
    Setup {
        app,
        db,
        document,
        dealer,
        actor,
        secrets,
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
            self.secrets.clone(),
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

/// `user` (password [`PASSWORD`]) signs in on a browser of their own and sets `pin`.
async fn set_pin(app: &TestApp, user: &User, pin: &str) -> reqwest::Response {
    let browser = app.another_browser();
    let res = browser.sign_in(&user.username, PASSWORD).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    browser.set_own_pin(pin).await
}

fn stored_pin(app: &TestApp, user: &User) -> Option<Vec<u8>> {
    users::find(&mut app.conn(), user.id)
        .unwrap()
        .unwrap()
        .signing_pin
}

#[tokio::test]
async fn a_second_person_signs_with_their_signing_pin_and_the_event_says_so() {
    let s = setup().await;
    let boss = s.app.create_user("boss", Role::Supervisor, PASSWORD);
    let res = set_pin(&s.app, &boss, "402917").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(s.app.audit("user.pin_set").len(), 1);
    let stored = stored_pin(&s.app, &boss).unwrap();
    assert_eq!(stored.len(), 32);
    assert!(!stored.windows(6).any(|w| w == b"402917"));
    let second = s
        .second("boss", "402917", Capacity::SUPERVISOR)
        .await
        .unwrap();
    s.record(&[s.first(), second]).unwrap();
    let signed = s.events("signature");
    assert_eq!(signed[1].0, "boss");
    assert_eq!(signed[1].2["by"], "pin");
    // The password still signs too.
    let by_password = s
        .second("boss", PASSWORD, Capacity::SUPERVISOR)
        .await
        .unwrap();
    s.record(&[s.first(), by_password]).unwrap();
    assert_eq!(s.events("signature")[3].2["by"], "password");
    // A PIN does not sign in.
    let res = s.app.another_browser().sign_in("boss", "402917").await;
    assert_ne!(res.status(), StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn a_wrong_pin_is_refused_audited_and_counted_towards_the_lockout() {
    let s = setup().await;
    let boss = s.app.create_user("boss", Role::Supervisor, PASSWORD);
    set_pin(&s.app, &boss, "402917").await;
    let refused = s
        .second("boss", "402918", Capacity::SUPERVISOR)
        .await
        .unwrap_err();
    assert_eq!(
        refused,
        "The user name or PIN of the second signer is wrong."
    );
    let events = s.events("signature.refused");
    assert_eq!(events[0].2["reason"], "wrong PIN");
    assert!(!events[0].2.to_string().contains("40291"));
    for _ in 1..LOCKOUT_THRESHOLD {
        s.second("boss", "402918", Capacity::SUPERVISOR)
            .await
            .unwrap_err();
    }
    assert_eq!(s.app.audit("auth.lockout").len(), 1);
    let locked = s
        .second("boss", "402917", Capacity::SUPERVISOR)
        .await
        .unwrap_err();
    assert!(locked.contains("locked"), "{locked}");
}

#[tokio::test]
async fn a_pin_is_set_only_by_its_owner_after_their_password_and_only_a_hard_one() {
    let s = setup().await;
    let boss = s.app.create_user("boss", Role::Supervisor, PASSWORD);
    let browser = s.app.another_browser();
    browser.sign_in("boss", PASSWORD).await;
    let page = browser.get("/account/pin").await.text().await.unwrap();
    assert!(page.contains("You have no signing PIN"), "{page}");
    for (password, pin, confirm, says) in [
        (
            "wrong password",
            "402917",
            "402917",
            "This is not your current password.",
        ),
        (
            PASSWORD,
            "4029",
            "4029",
            "A PIN is 6 to 12 digits, and digits only.",
        ),
        (
            PASSWORD,
            "40291x",
            "40291x",
            "A PIN is 6 to 12 digits, and digits only.",
        ),
        (
            PASSWORD,
            "555555",
            "555555",
            "One digit repeated is too easy to guess",
        ),
        (PASSWORD, "234567", "234567", "Consecutive digits"),
        (PASSWORD, "402917", "402971", "The two PINs differ."),
    ] {
        let res = browser
            .post_form(
                "/account/pin",
                &[
                    ("current_password", password),
                    ("pin", pin),
                    ("confirm_pin", confirm),
                ],
            )
            .await;
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY, "{pin}");
        let text = res.text().await.unwrap();
        assert!(text.contains(says), "{pin}: {text}");
        assert_eq!(stored_pin(&s.app, &boss), None, "{pin}");
    }
    assert!(s.app.audit("user.pin_set").is_empty());
    // A PIN copied from another account's row does not sign for this one.
    let other = s.app.create_user("other", Role::Supervisor, PASSWORD);
    set_pin(&s.app, &other, "402917").await;
    diesel::update(pusoy_pit::db::schema::users::table.find(boss.id.0))
        .set(pusoy_pit::db::schema::users::signing_pin.eq(stored_pin(&s.app, &other)))
        .execute(&mut s.app.conn())
        .unwrap();
    let copied = s
        .second("boss", "402917", Capacity::SUPERVISOR)
        .await
        .unwrap_err();
    assert_eq!(
        copied,
        "The user name or PIN of the second signer is wrong."
    );
}

#[tokio::test]
async fn a_pin_removed_cleared_or_reset_away_signs_no_more() {
    let s = setup().await;
    let boss = s.app.create_user("boss", Role::Supervisor, PASSWORD);
    let browser = s.app.another_browser();
    browser.sign_in("boss", PASSWORD).await;
    assert_eq!(
        browser.set_own_pin("402917").await.status(),
        StatusCode::SEE_OTHER
    );
    // Its owner removes it (with their password).
    let res = browser
        .post_form("/account/pin/remove", &[("current_password", "wrong one")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(stored_pin(&s.app, &boss).is_some());
    let res = browser
        .post_form("/account/pin/remove", &[("current_password", PASSWORD)])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(stored_pin(&s.app, &boss), None);
    assert_eq!(s.app.audit("user.pin_removed").len(), 1);
    // Without a PIN, what is typed is checked as the password.
    let refused = s
        .second("boss", "402917", Capacity::SUPERVISOR)
        .await
        .unwrap_err();
    assert_eq!(
        refused,
        "The user name or password of the second signer is wrong."
    );
    // An administrator clears it; never sets it.
    assert_eq!(
        browser.set_own_pin("402917").await.status(),
        StatusCode::SEE_OTHER
    );
    let admin = s.app.another_browser();
    admin.signed_in_as(Role::Admin).await;
    let users_page = admin.get("/admin/users").await.text().await.unwrap();
    assert!(users_page.contains(&format!("/admin/users/{}/clear-pin", boss.id.0)));
    let res = admin
        .post_form(&format!("/admin/users/{}/clear-pin", boss.id.0), &[])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(stored_pin(&s.app, &boss), None);
    let cleared = s.app.audit("user.pin_cleared");
    assert_eq!(cleared.len(), 1);
    assert_eq!(cleared[0].actor_name, "the-admin");
    // A password reset clears it too.
    assert_eq!(
        browser.set_own_pin("402917").await.status(),
        StatusCode::SEE_OTHER
    );
    let res = admin
        .post_form(
            &format!("/admin/users/{}/reset-password", boss.id.0),
            &[("new_password", "a fresh start 42")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(stored_pin(&s.app, &boss), None);
    let reset = s.app.audit("user.password_reset");
    assert_eq!(reset[0].details["signing_pin_cleared"], true);
}
