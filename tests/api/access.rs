use pusoy_pit::db::users::Role;
use reqwest::StatusCode;

use crate::helpers::{location, spawn_app, TestApp, PASSWORD};

/// Who makes the request: nobody signed in, or a user of one role.
#[derive(Debug, Clone, Copy)]
enum Who {
    Anonymous,
    Signed(Role),
}

const EVERYONE: [Who; 9] = [
    Who::Anonymous,
    Who::Signed(Role::Dealer),
    Who::Signed(Role::Supervisor),
    Who::Signed(Role::Auditor),
    Who::Signed(Role::Admin),
    Who::Signed(Role::Cashier),
    Who::Signed(Role::Count),
    Who::Signed(Role::Host),
    Who::Signed(Role::Compliance),
];

struct Case {
    method: &'static str,
    path: &'static str,
    form: &'static [(&'static str, &'static str)],
    /// Expected status for anonymous, dealer, supervisor, auditor, admin, cashier, count,
    /// host, compliance.
    expect: [u16; 9],
}

const fn case(
    method: &'static str,
    path: &'static str,
    form: &'static [(&'static str, &'static str)],
    expect: [u16; 9],
) -> Case {
    Case {
        method,
        path,
        form,
        expect,
    }
}

/// Every route against every role. `{id}` is another user's id. Requests run in this order,
/// so the state-changing ones leave later ones meaningful (sign-out comes last).
const MATRIX: &[Case] = &[
    //                                        anon dealer sup audit admin cashier count
    case(
        "GET",
        "/login",
        &[],
        [200, 303, 303, 303, 303, 303, 303, 303, 303],
    ),
    case(
        "GET",
        "/",
        &[],
        [303, 200, 200, 200, 200, 200, 200, 200, 200],
    ),
    case(
        "GET",
        "/account/password",
        &[],
        [303, 200, 200, 200, 200, 200, 200, 200, 200],
    ),
    case(
        "GET",
        "/admin/users",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/tables",
        &[],
        [303, 200, 200, 200, 200, 200, 200, 200, 200],
    ),
    case(
        "GET",
        "/admin/tables",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/admin/profiles",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/admin/tokens",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/admin/chips",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/admin/comp",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/admin/tables/999999/par",
        &[],
        [303, 403, 404, 404, 404, 403, 403, 403, 403],
    ),
    // The cage: fills and credits.
    case(
        "GET",
        "/cage",
        &[],
        [303, 403, 403, 200, 200, 200, 403, 403, 403],
    ),
    case(
        "GET",
        "/cage/slips",
        &[],
        [303, 403, 200, 200, 200, 200, 200, 403, 403],
    ),
    case(
        "GET",
        "/cage/slips/999999",
        &[],
        [303, 404, 404, 404, 404, 404, 403, 403, 403],
    ),
    case(
        "GET",
        "/cage/prints/999999",
        &[],
        [303, 404, 404, 404, 404, 404, 403, 403, 403],
    ),
    case(
        "POST",
        "/cage/slips/999999/issue",
        &[],
        [303, 403, 403, 403, 403, 404, 403, 403, 403],
    ),
    case(
        "POST",
        "/cage/slips/999999/receive",
        &[("second_username", "x"), ("second_password", "y")],
        [303, 404, 404, 403, 403, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/cage/slips/999999/void",
        &[
            ("reason", "r"),
            ("second_username", "x"),
            ("second_password", "y"),
        ],
        [303, 403, 404, 403, 404, 404, 403, 403, 403],
    ),
    case(
        "POST",
        "/cage/slips/999999/print",
        &[],
        [303, 404, 404, 403, 404, 404, 403, 403, 403],
    ),
    case(
        "GET",
        "/tables/NO-SUCH/cage",
        &[],
        [303, 404, 404, 403, 403, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/cage",
        &[("kind", "fill"), ("chip_set_version_id", "1")],
        [303, 403, 404, 403, 403, 403, 403, 403, 403],
    ),
    // Buy-ins and table fees.
    case(
        "GET",
        "/tables/NO-SUCH/buy-ins",
        &[],
        [303, 404, 404, 404, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/buy-ins",
        &[("seat", "1"), ("amount", "5")],
        [303, 404, 404, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/buy-ins/999999/void",
        &[("reason", "r")],
        [303, 403, 404, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/fees",
        &[("amount", "5")],
        [303, 404, 404, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/fees/999999/void",
        &[("reason", "r")],
        [303, 403, 404, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/api/v1/tables/NO-SUCH/buy-ins",
        &[],
        [401, 404, 404, 404, 404, 403, 403, 403, 403],
    ),
    // A form is not the API's JSON: refused as unreadable, before the table is looked up.
    case(
        "POST",
        "/api/v1/tables/NO-SUCH/buy-ins",
        &[("seat", "1")],
        [401, 400, 400, 403, 400, 403, 403, 403, 403],
    ),
    // The count of the drop.
    case(
        "GET",
        "/count",
        &[],
        [303, 403, 200, 200, 200, 403, 200, 403, 403],
    ),
    case(
        "GET",
        "/count/2020-01-01/NO-SUCH",
        &[],
        [303, 403, 404, 404, 404, 403, 404, 403, 403],
    ),
    case(
        "POST",
        "/count/2020-01-01/NO-SUCH",
        &[("second_username", "x"), ("second_password", "y")],
        [303, 403, 403, 403, 403, 403, 404, 403, 403],
    ),
    case(
        "POST",
        "/count/2020-01-01/NO-SUCH/999999/void",
        &[("reason", "r")],
        [303, 403, 403, 403, 404, 403, 404, 403, 403],
    ),
    case(
        "GET",
        "/audit/exports",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 200, 200],
    ),
    // Without a query the form comes back naming each missing field.
    case(
        "GET",
        "/audit/exports/download",
        &[],
        [303, 403, 400, 400, 400, 403, 403, 400, 400],
    ),
    case(
        "POST",
        "/admin/tokens",
        &[("name", ""), ("user_id", "")],
        [303, 403, 403, 403, 422, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/tokens/999999/revoke",
        &[],
        [303, 403, 403, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/profiles",
        &[
            ("name", ""),
            ("ties", "dealer_wins"),
            ("both_fouled", "push"),
            ("wheel", "lowest"),
            ("suit_order_1", "d"),
            ("suit_order_2", "c"),
            ("suit_order_3", "h"),
            ("suit_order_4", "s"),
        ],
        [303, 403, 403, 403, 422, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/profiles/999999",
        &[
            ("ties", "dealer_wins"),
            ("both_fouled", "push"),
            ("wheel", "lowest"),
            ("suit_order_1", "d"),
            ("suit_order_2", "c"),
            ("suit_order_3", "h"),
            ("suit_order_4", "s"),
        ],
        [303, 403, 403, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/chips",
        &[("currency", "X"), ("denominations", "25")],
        [303, 403, 403, 403, 422, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/comp",
        &[("percent", "101"), ("from_day", "2999-01-01")],
        [303, 403, 403, 403, 422, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/chips/999999",
        &[("denominations", "25")],
        [303, 403, 403, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/tables/999999/par",
        &[("chip_set_version_id", "1"), ("count-2500", "1")],
        [303, 403, 403, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/tables",
        &[
            ("code", "X"),
            ("name", ""),
            ("currency", "PHP"),
            ("min_bet", "1"),
            ("max_bet", "2"),
            ("rule_profile_id", "1"),
        ],
        [303, 403, 403, 403, 422, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/tables/999999",
        &[
            ("name", "T"),
            ("currency", "PHP"),
            ("min_bet", "1"),
            ("max_bet", "2"),
            ("rule_profile_id", "1"),
        ],
        [303, 403, 403, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/tables/999999/confirm-prompt",
        &[("confirm_prompt", "on")],
        [303, 403, 403, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/sign-on",
        &[],
        [303, 404, 403, 403, 403, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/sign-off",
        &[],
        [303, 404, 404, 403, 403, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/tables/NO-SUCH/sign-off",
        &[],
        [303, 404, 404, 403, 403, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/static/app.css",
        &[],
        [200, 200, 200, 200, 200, 200, 200, 200, 200],
    ),
    case(
        "GET",
        "/health",
        &[],
        [200, 200, 200, 200, 200, 200, 200, 200, 200],
    ),
    case(
        "GET",
        "/healthz",
        &[],
        [200, 200, 200, 200, 200, 200, 200, 200, 200],
    ),
    case(
        "GET",
        "/no/such/page",
        &[],
        [404, 404, 404, 404, 404, 404, 404, 404, 404],
    ),
    // The pit board and the reports: pit managers, administrators and auditors.
    case(
        "GET",
        "/pit",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/api/v1/pit",
        &[],
        [401, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/reports",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/reports/csv",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/reports/accounting",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/reports/accounting/csv",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/reports/accounting/hold.svg",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/reports/accounting/investigations/999999/close",
        &[("findings", "f"), ("back", "")],
        [303, 403, 404, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/reports/house-way",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/reports/house-way/csv",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/reports/charts/hours.svg",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/reports/charts/tables.svg",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/reports/shifts/999999/chart.svg",
        &[],
        [303, 403, 404, 404, 404, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/logout",
        &[],
        [405, 405, 405, 405, 405, 405, 405, 405, 405],
    ),
    case(
        "GET",
        "/admin/users/{id}/disable",
        &[],
        [405, 405, 405, 405, 405, 405, 405, 405, 405],
    ),
    case(
        "POST",
        "/account/password",
        &[
            ("current_password", "not-my-password"),
            ("new_password", "x"),
            ("confirm_password", "y"),
        ],
        [303, 422, 422, 422, 422, 422, 422, 422, 422],
    ),
    case(
        "POST",
        "/admin/users",
        &[
            ("username", "made-by-matrix"),
            ("display_name", "Made By Matrix"),
            ("role", "dealer"),
            ("password", PASSWORD),
        ],
        [303, 403, 403, 403, 303, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/users/{id}/unlock",
        &[],
        [303, 403, 303, 403, 303, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/users/{id}/disable",
        &[("confirm", "yes")],
        [303, 403, 403, 403, 303, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/users/{id}/enable",
        &[],
        [303, 403, 403, 403, 303, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/users/{id}/reset-password",
        &[("new_password", PASSWORD)],
        [303, 403, 403, 403, 303, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/admin/users/{id}/clear-pin",
        &[],
        [303, 403, 403, 403, 303, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/account/pin",
        &[],
        [303, 200, 200, 200, 200, 200, 200, 200, 200],
    ),
    case(
        "POST",
        "/account/pin",
        &[
            ("current_password", "not-my-password"),
            ("pin", "402917"),
            ("confirm_pin", "402917"),
        ],
        [303, 422, 422, 422, 422, 422, 422, 422, 422],
    ),
    case(
        "POST",
        "/account/pin/remove",
        &[("current_password", "not-my-password")],
        [303, 422, 422, 422, 422, 422, 422, 422, 422],
    ),
    // Cash compliance (docs/compliance.md): the cage's cash desk read by the cage,
    // administrators, auditors and compliance, written by cashiers, voided by cashiers and
    // administrators; the cases read by compliance and auditors, decided by compliance; the
    // thresholds set by administrators.
    case(
        "GET",
        "/cage/cash",
        &[],
        [303, 403, 403, 200, 200, 200, 403, 403, 200],
    ),
    case(
        "POST",
        "/cage/cash",
        &[],
        [303, 403, 403, 403, 403, 422, 403, 403, 403],
    ),
    case(
        "POST",
        "/cage/cash/999999/void",
        &[("reason", "matrix")],
        [303, 403, 403, 403, 404, 404, 403, 403, 403],
    ),
    case(
        "GET",
        "/compliance",
        &[],
        [303, 403, 403, 200, 403, 403, 403, 403, 200],
    ),
    case(
        "GET",
        "/compliance/cases/999999",
        &[],
        [303, 403, 403, 404, 403, 403, 403, 403, 404],
    ),
    case(
        "POST",
        "/compliance/cases/999999/decision",
        &[("decision", "filed")],
        [303, 403, 403, 403, 403, 403, 403, 403, 404],
    ),
    case(
        "GET",
        "/compliance/thresholds",
        &[],
        [303, 403, 403, 200, 200, 403, 403, 403, 200],
    ),
    case(
        "POST",
        "/compliance/thresholds",
        &[],
        [303, 403, 403, 403, 422, 403, 403, 403, 403],
    ),
    // Players (docs/players.md): read by hosts, compliance, auditors and pit managers; kept by
    // hosts and compliance; statuses set by those and pit managers; ratings by the table's
    // writers. A missing player or table is 404 once past access.
    case(
        "GET",
        "/players",
        &[],
        [303, 403, 200, 200, 403, 403, 403, 200, 200],
    ),
    case(
        "POST",
        "/players",
        &[],
        [303, 403, 403, 403, 403, 403, 403, 422, 422],
    ),
    case(
        "GET",
        "/reports/players",
        &[],
        [303, 403, 200, 200, 403, 403, 403, 200, 200],
    ),
    case(
        "POST",
        "/players/exclusions",
        &[("source", ""), ("list", "")],
        [303, 403, 403, 403, 403, 403, 403, 422, 422],
    ),
    case(
        "GET",
        "/players/999999",
        &[],
        [303, 403, 404, 404, 403, 403, 403, 404, 404],
    ),
    case(
        "POST",
        "/players/999999",
        &[
            ("card_number", "RC9999"),
            ("first_name", "A"),
            ("last_name", "B"),
        ],
        [303, 403, 403, 403, 403, 403, 403, 404, 404],
    ),
    case(
        "POST",
        "/players/999999/status",
        &[("status", "barred"), ("reason", "matrix")],
        [303, 403, 404, 403, 403, 403, 403, 404, 404],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/ratings",
        &[("seat", "1"), ("card", "RC9999")],
        [303, 404, 404, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/ratings/1/pause",
        &[],
        [303, 404, 404, 403, 404, 403, 403, 403, 403],
    ),
    // The same steps over the API: a form is not its JSON, refused before the table is looked up.
    case(
        "POST",
        "/api/v1/tables/NO-SUCH/ratings",
        &[("seat", "1"), ("card", "RC9999")],
        [401, 400, 400, 403, 400, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/api/v1/tables/NO-SUCH/ratings/1/leave",
        &[("walked_with", "0")],
        [401, 400, 400, 403, 400, 403, 403, 403, 403],
    ),
    // Unrated observations: recorded, ended, voided and their players carded by pit managers
    // (`.../{id}/card` is the route of `.../{id}/end`: one case, as refusals are audited once
    // a route and minute), read by them and auditors.
    case(
        "GET",
        "/tables/NO-SUCH/observations",
        &[],
        [303, 403, 404, 404, 403, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/observations",
        &[("seat", "1"), ("description", "man"), ("average_bet", "25")],
        [303, 403, 404, 403, 403, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/observations/1/end",
        &[],
        [303, 403, 404, 403, 403, 403, 403, 403, 403],
    ),
    // Round entry: a missing table or round is 404 once past access; a form body is not a
    // round (422).
    case(
        "POST",
        "/api/v1/tables/NO-SUCH/rounds",
        &[],
        [401, 404, 404, 403, 403, 403, 403, 403, 403],
    ),
    case(
        "PUT",
        "/api/v1/tables/NO-SUCH/rounds/round-key-1",
        &[],
        [401, 422, 422, 403, 403, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/api/v1/rounds/no-such",
        &[],
        [401, 404, 404, 404, 403, 403, 403, 403, 403],
    ),
    case(
        "PUT",
        "/api/v1/rounds/no-such",
        &[],
        [401, 422, 422, 403, 403, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/api/v1/rounds/no-such/preview",
        &[],
        [401, 404, 404, 403, 403, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/api/v1/rounds/no-such/confirm",
        &[],
        [401, 422, 422, 403, 403, 403, 403, 403, 403],
    ),
    // The table screen: a missing table is 404 once past access.
    case(
        "GET",
        "/tables/NO-SUCH",
        &[],
        [303, 404, 404, 403, 403, 403, 403, 403, 403],
    ),
    // The address the round form posts to, opened: back to the table's screen.
    case(
        "GET",
        "/tables/NO-SUCH/round",
        &[],
        [303, 303, 303, 403, 403, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/tables/NO-SUCH/slips",
        &[],
        [303, 404, 404, 404, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/slips",
        &[("chip_set_version_id", "1"), ("kind", "opener")],
        [303, 404, 404, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/slips/1/void",
        &[("text", "x")],
        [303, 403, 404, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/slips/1/explanation",
        &[("text", "x")],
        [303, 403, 404, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/round",
        &[("step", "preview")],
        [303, 404, 404, 403, 403, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/tables/NO-SUCH/round/check",
        &[],
        [303, 404, 404, 403, 403, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/api/v1/tables/NO-SUCH/house-way",
        &[],
        [401, 404, 404, 403, 403, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/tables/NO-SUCH/rounds/1",
        &[],
        [303, 404, 404, 404, 404, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/review",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/review/rounds/999999/approve",
        &[],
        [303, 403, 404, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/review/rounds/999999/void",
        &[("reason", "misdeal")],
        [303, 403, 404, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/review/rounds/999999/reenter",
        &[],
        [303, 403, 404, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/review/rounds/999999/reenter",
        &[],
        [303, 403, 404, 403, 404, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/audit",
        &[],
        [303, 403, 403, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/audit/events",
        &[],
        [303, 403, 403, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/audit/verify",
        &[],
        [303, 403, 403, 303, 303, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/reports/recheck",
        &[("day", "2020-01-01")],
        [303, 403, 303, 403, 303, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/days",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    case(
        "GET",
        "/days/2020-01-01",
        &[],
        [303, 403, 200, 200, 200, 403, 403, 403, 403],
    ),
    // Without the confirmation: back to the day's page, nothing closed.
    case(
        "POST",
        "/days/2020-01-01/close",
        &[],
        [303, 403, 303, 403, 303, 403, 403, 403, 403],
    ),
    case(
        "POST",
        "/login",
        &[("username", "nobody"), ("password", "wrong-password")],
        [401, 401, 401, 401, 401, 401, 401, 401, 401],
    ),
    case(
        "POST",
        "/logout",
        &[],
        [303, 303, 303, 303, 303, 303, 303, 303, 303],
    ),
];

#[tokio::test]
async fn every_role_gets_exactly_the_routes_it_is_allowed() {
    // Nine sign-ins from one address: more than the default burst allows.
    let app = crate::helpers::spawn_app_with(|c| c.login_rate_limit.burst = 100).await;
    let other = app.create_user("other", Role::Dealer, PASSWORD);
    for (column, who) in EVERYONE.into_iter().enumerate() {
        let mut browser = app.another_browser();
        if let Who::Signed(role) = who {
            browser.signed_in_as(role).await;
        }
        // An account refused more than DENIALS_PER_MINUTE times in a minute is answered 429:
        // the matrix goes on with a fresh account of the same role before that.
        let (mut refused_here, mut accounts) = (0, 0);
        for case in MATRIX {
            if let (Who::Signed(role), 403) = (who, case.expect[column]) {
                refused_here += 1;
                if refused_here > 50 {
                    accounts += 1;
                    browser = app.another_browser();
                    let fresh = app.create_user(&format!("the-{role}-{accounts}"), role, PASSWORD);
                    let res = browser.sign_in(&fresh.username, PASSWORD).await;
                    assert_eq!(res.status().as_u16(), 303, "sign-in of {}", fresh.username);
                    refused_here = 1;
                }
            }
            let path = case.path.replace("{id}", &other.id.to_string());
            let denied_before = app.audit("authz.denied").len();
            let res = match case.method {
                "GET" => browser.get(&path).await,
                "PUT" => browser
                    .client
                    .put(browser.url(&path))
                    .header("X-CSRF-Token", browser.csrf_token().await)
                    .send()
                    .await
                    .unwrap(),
                _ => browser.post_form(&path, case.form).await,
            };
            let expected = case.expect[column];
            assert_eq!(
                res.status().as_u16(),
                expected,
                "{who:?} {} {path}",
                case.method
            );
            let denied = app.audit("authz.denied");
            if expected == 403 {
                assert_eq!(denied.len(), denied_before + 1, "{who:?} {path} audited");
                let last = denied.last().unwrap();
                assert_eq!(last.target, format!("{} {path}", case.method));
                assert!(last.actor_user_id.is_some());
            } else {
                assert_eq!(denied.len(), denied_before, "{who:?} {path} not audited");
            }
            if matches!(who, Who::Anonymous) && expected == 303 {
                assert_eq!(location(&res), "/login", "{} {path}", case.method);
            }
        }
    }
}

#[tokio::test]
async fn every_declared_route_is_in_the_matrix() {
    for rule in pusoy_pit::web::access::RULES {
        assert!(
            MATRIX
                .iter()
                .any(|c| c.method == rule.method && matches_pattern(c.path, rule.pattern)),
            "{} {} has no row in the role matrix",
            rule.method,
            rule.pattern
        );
    }
}

/// Whether `path` fits a route pattern, `{name}` standing for any one segment.
fn matches_pattern(path: &str, pattern: &str) -> bool {
    let (path, pattern): (Vec<&str>, Vec<&str>) =
        (path.split('/').collect(), pattern.split('/').collect());
    path.len() == pattern.len()
        && path
            .iter()
            .zip(&pattern)
            .all(|(seg, pat)| seg == pat || (pat.starts_with('{') && pat.ends_with('}')))
}

async fn admin_and_victim(app: &TestApp) -> pusoy_pit::db::users::User {
    app.signed_in_as(Role::Admin).await;
    app.create_user("victim", Role::Dealer, PASSWORD)
}

#[tokio::test]
async fn a_post_without_a_csrf_token_is_refused_and_audited() {
    let app = spawn_app().await;
    let victim = admin_and_victim(&app).await;

    let res = app
        .post_form_raw(
            &format!("/admin/users/{}/disable", victim.id),
            &[("confirm", "yes")],
        )
        .await;

    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(res.text().await.unwrap().contains("This form has expired"));
    assert!(app.user(victim.id).disabled_at.is_none());
    let events = app.audit("csrf.rejected");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].actor_name, "the-admin");
    assert_eq!(events[0].details["reason"], "no token sent");
    assert!(app.audit("user.disable").is_empty());
}

#[tokio::test]
async fn a_post_with_a_wrong_csrf_token_is_refused() {
    let app = spawn_app().await;
    let victim = admin_and_victim(&app).await;
    let path = format!("/admin/users/{}/disable", victim.id);

    let res = app
        .post_form_raw(&path, &[("csrf_token", "forged"), ("confirm", "yes")])
        .await;

    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(app.user(victim.id).disabled_at.is_none());
    assert_eq!(
        app.audit("csrf.rejected")[0].details["reason"],
        "token mismatch"
    );
}

#[tokio::test]
async fn a_sign_in_without_a_csrf_token_is_refused_before_the_password_is_checked() {
    let app = spawn_app().await;
    let dealer = app.create_user("dana", Role::Dealer, PASSWORD);

    let res = app
        .post_form_raw("/login", &[("username", "dana"), ("password", PASSWORD)])
        .await;

    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert_eq!(app.session_count(dealer.id), 0);
    let events = app.audit("csrf.rejected");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].actor_name, "anonymous");
    assert_eq!(events[0].target, "POST /login");
    assert!(app.audit("auth.signin").is_empty());
}

#[tokio::test]
async fn the_csrf_token_may_come_in_a_header() {
    let app = spawn_app().await;
    let dealer = app.signed_in_as(Role::Dealer).await;
    let token = app.csrf_token().await;

    let res = app
        .client
        .post(app.url("/logout"))
        .header("X-CSRF-Token", token)
        .send()
        .await
        .unwrap();

    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(app.session_count(dealer.id), 0);
}

#[tokio::test]
async fn a_get_to_a_state_changing_route_changes_nothing() {
    let app = spawn_app().await;
    let victim = admin_and_victim(&app).await;

    let res = app
        .get(&format!("/admin/users/{}/disable", victim.id))
        .await;

    assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(res.headers()["allow"], "POST");
    assert!(app.user(victim.id).disabled_at.is_none());
    assert!(app.audit("user.disable").is_empty());
}

#[tokio::test]
async fn a_user_who_must_change_their_password_is_sent_to_do_so() {
    let app = spawn_app().await;
    let admin = app.another_browser();
    let victim = admin_and_victim(&admin).await;
    let res = admin
        .post_form(
            &format!("/admin/users/{}/reset-password", victim.id),
            &[("new_password", "temporary-pass-1")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);

    let res = app.sign_in("victim", "temporary-pass-1").await;
    assert_eq!(location(&res), "/account/password");
    let res = app.get("/").await;
    assert_eq!(location(&res), "/account/password");

    let res = app
        .post_form(
            "/account/password",
            &[
                ("current_password", "temporary-pass-1"),
                ("new_password", "my-own-choice-99"),
                ("confirm_password", "my-own-choice-99"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(app.get("/").await.status(), StatusCode::OK);
    assert!(!app.user(victim.id).must_change_password);
    assert_eq!(app.audit("user.password_reset").len(), 1);
    assert_eq!(app.audit("user.password_change").len(), 1);
}

/// Every route's path with `value` in its `n`th parameter and `1` in the others.
fn with_parameter(pattern: &str, n: usize, value: &str) -> String {
    let mut seen = 0;
    pattern
        .split('/')
        .map(|seg| {
            if seg.starts_with('{') && seg.ends_with('}') {
                seen += 1;
                if seen - 1 == n {
                    return value.to_owned();
                }
                return "1".to_owned();
            }
            seg.to_owned()
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test]
async fn a_nul_in_any_parameter_of_any_route_is_a_400_saying_where() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Admin).await;
    let mut cases = Vec::new();
    for rule in pusoy_pit::web::access::RULES {
        let params = rule.pattern.matches('{').count();
        for n in 0..params {
            cases.push((rule.method, with_parameter(rule.pattern, n, "%00"), "path"));
        }
        let plain = with_parameter(rule.pattern, usize::MAX, "");
        cases.push((rule.method, format!("{plain}?actor=%00&x=1"), "query"));
        cases.push((rule.method, format!("{plain}?from=2026-01-01%1B"), "query"));
    }
    assert!(cases.len() > 100, "{}", cases.len());
    for (method, path, place) in cases {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let res = app
            .client
            .request(method.clone(), app.url(&path))
            .send()
            .await
            .unwrap();
        let status = res.status();
        let json = res
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .is_some_and(|v| v.to_str().unwrap().starts_with("application/json"));
        let body = res.text().await.unwrap();
        assert_eq!(status, StatusCode::BAD_REQUEST, "{method} {path}: {body}");
        assert!(
            body.contains("contains a control character"),
            "{method} {path}: {body}"
        );
        let said = if place == "path" { "path" } else { "parameter" };
        assert!(body.contains(said), "{method} {path}: {body}");
        assert_eq!(json, path.starts_with("/api/"), "{method} {path}: {body}");
    }
}

#[tokio::test]
async fn an_account_refused_again_and_again_writes_one_row_a_minute_and_is_slowed() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Dealer).await;
    let mut statuses = Vec::new();
    for _ in 0..100 {
        let res = app.get("/admin/users").await;
        if res.status() == StatusCode::TOO_MANY_REQUESTS {
            assert!(res.headers().contains_key("retry-after"));
        }
        statuses.push(res.status().as_u16());
    }
    assert_eq!(statuses[0], 403);
    // 60 at once, then one a second: a slow machine gets a few more in while the loop runs.
    let refused = statuses.iter().filter(|s| **s == 403).count();
    let slowed = statuses.iter().filter(|s| **s == 429).count();
    assert!((60..=75).contains(&refused), "{statuses:?}");
    assert_eq!(refused + slowed, 100, "{statuses:?}");
    // One row for the account and route in this minute (two if the minute turned meanwhile,
    // the second counting those between).
    let rows = app.audit("authz.denied").len() + app.audit("authz.denied_repeatedly").len();
    assert!((1..=3).contains(&rows), "{rows} rows");
}
