//! Rule profile administration: administrators create profiles and edit them (each edit is a
//! new version; rounds keep the version they were settled under). Others read the list.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::config::Zone;
use crate::db::ids::ProfileId;
use crate::db::users::Role;
use crate::pit::profiles;
use crate::rules::game::{Game, GameRules};
use crate::rules::hand::Category;
use crate::rules::points::natural::Natural;
use crate::rules::points::profile::{
    category_key, HandPoints, NaturalPoints, PointsProfile, PointsTies,
};
use crate::rules::profile::{BothFouled, RuleProfile, SuitOrder, TieRule, Wheel};
use crate::rules::set_hand::Slot;
use crate::web::error::AppError;
use crate::web::format::typed_local_time;
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

pub struct ProfileRow {
    pub id: i64,
    /// Prefix for the edit form's field ids.
    pub prefix: String,
    pub name: String,
    pub version: i32,
    pub description: String,
    /// The profile's game (`banking` or `points`): it keeps it in every version.
    pub game: &'static str,
    /// The edit form's values: the newest version's, or what was typed if it was refused.
    pub options: OptionValues,
    pub applies: AppliesValues,
    pub error: Option<String>,
}

/// The rule options as a form holds them: as stored, or exactly as typed. The points game's
/// (docs/rules.md §8.8) are beside the banking game's; `game` says which apply.
pub struct OptionValues {
    pub game: String,
    pub surrender: bool,
    pub royalties: bool,
    pub dealer_royalties: bool,
    pub ties: String,
    pub both_fouled: String,
    pub wheel: String,
    pub suit_order: String,
    pub house_way: bool,
    pub points: PointsValues,
}

impl OptionValues {
    /// The suit order's four places, highest first: each a suit's letter, as chosen.
    pub fn suit_slots(&self) -> Vec<String> {
        suit_slots(&self.suit_order)
    }
}

impl PointsValues {
    pub fn suit_slots(&self) -> Vec<String> {
        suit_slots(&self.suit_order)
    }
}

/// The four places of a suit order written as letters (`dchs`), empty where none was chosen.
fn suit_slots(order: &str) -> Vec<String> {
    let mut chars = order.chars();
    (0..4)
        .map(|_| chars.next().map(String::from).unwrap_or_default())
        .collect()
}

/// The suit order chosen place by place (four lists, highest first), as letters.
fn chosen_suits(places: [&str; 4]) -> String {
    places
        .iter()
        .map(|s| s.trim().to_ascii_lowercase())
        .collect()
}

/// One hand's row of the hand-points grid: its points as the back, middle and front hand.
pub struct HandPointsRow {
    pub label: String,
    pub cells: Vec<HandPointsCell>,
}

/// One field of the grid, or none where the hand cannot be (a front is only high card, a pair
/// or three of a kind).
pub struct HandPointsCell {
    /// `hp_{position}_{hand}`.
    pub name: String,
    pub label: String,
    pub value: Option<String>,
}

/// The grid's positions, in the order of its columns.
const POSITIONS: [(Slot, &str); 3] = [
    (Slot::Back, "back"),
    (Slot::Middle, "middle"),
    (Slot::Front, "front"),
];

/// Whether a hand of `category` can stand at `slot`.
fn can_be(slot: Slot, category: Category) -> bool {
    slot != Slot::Front
        || matches!(
            category,
            Category::HighCard | Category::OnePair | Category::ThreeOfAKind
        )
}

/// The grid of `points`.
fn points_grid(points: &HandPoints) -> Vec<HandPointsRow> {
    hand_grid(|slot, category| points.points(slot, category).to_string())
}

/// The grid, strongest hand first, each field's value from `value` (position, category).
fn hand_grid(value: impl Fn(Slot, Category) -> String) -> Vec<HandPointsRow> {
    Category::ALL
        .iter()
        .rev()
        .map(|&category| {
            let key = category_key(category);
            let words = key.replace('_', " ");
            HandPointsRow {
                cells: POSITIONS
                    .iter()
                    .map(|&(slot, position)| HandPointsCell {
                        name: format!("hp_{position}_{key}"),
                        label: format!("Points for {words} as the {position} hand"),
                        value: can_be(slot, category).then(|| value(slot, category)),
                    })
                    .collect(),
                label: words,
            }
        })
        .collect()
}

/// The points game's options as a form holds them.
pub struct PointsValues {
    pub ties: String,
    pub suit_order: String,
    pub wheel: String,
    pub naturals: bool,
    /// Points per natural, in the order of [`Natural::ALL`]: (key, label, points as typed).
    pub natural_points: Vec<(&'static str, &'static str, String)>,
    pub surrender: bool,
    pub surrender_points: String,
    pub scoop_bonus: String,
    pub pusoy_bonus: bool,
    /// Points per hand and position, as stored or typed.
    pub hand_points: Vec<HandPointsRow>,
}

fn wheel_key(wheel: Wheel) -> &'static str {
    match wheel {
        Wheel::Lowest => "lowest",
        Wheel::Second => "second",
    }
}

impl From<&PointsProfile> for PointsValues {
    fn from(p: &PointsProfile) -> Self {
        PointsValues {
            ties: match p.ties {
                PointsTies::SuitOrder => "suit_order",
                PointsTies::Push => "push",
            }
            .to_owned(),
            suit_order: p.suit_order.to_string(),
            wheel: wheel_key(p.wheel).to_owned(),
            naturals: p.naturals,
            natural_points: Natural::ALL
                .into_iter()
                .map(|n| (n.key(), n.word(), p.natural_points.points(n).to_string()))
                .collect(),
            surrender: p.surrender,
            surrender_points: p.surrender_points.to_string(),
            scoop_bonus: p.scoop_bonus.to_string(),
            pusoy_bonus: p.pusoy_bonus,
            hand_points: points_grid(&p.hand_points),
        }
    }
}

impl From<&GameRules> for OptionValues {
    fn from(rules: &GameRules) -> Self {
        match rules {
            GameRules::Banking(p) => OptionValues::from(p),
            GameRules::Points(p) => OptionValues {
                game: Game::Points.key().to_owned(),
                points: PointsValues::from(p),
                ..OptionValues::from(&RuleProfile::default())
            },
        }
    }
}

impl From<&RuleProfile> for OptionValues {
    fn from(p: &RuleProfile) -> Self {
        OptionValues {
            game: Game::Banking.key().to_owned(),
            points: PointsValues::from(&PointsProfile::default()),
            surrender: p.surrender,
            royalties: p.royalties,
            dealer_royalties: p.dealer_royalties,
            ties: match p.ties {
                TieRule::DealerWins => "dealer_wins",
                TieRule::SuitOrder => "suit_order",
            }
            .to_owned(),
            both_fouled: match p.both_fouled {
                BothFouled::Push => "push",
                BothFouled::PlayerLoses => "player_loses",
            }
            .to_owned(),
            wheel: wheel_key(p.wheel).to_owned(),
            suit_order: p.suit_order.to_string(),
            house_way: p.house_way,
        }
    }
}

impl From<&ProfileForm> for OptionValues {
    fn from(form: &ProfileForm) -> Self {
        OptionValues {
            game: form.game.clone(),
            surrender: form.surrender.is_some(),
            royalties: form.royalties.is_some(),
            dealer_royalties: form.dealer_royalties.is_some(),
            ties: form.ties.clone(),
            both_fouled: form.both_fouled.clone(),
            wheel: form.wheel.clone(),
            suit_order: chosen_suits(form.suits()),
            points: PointsValues {
                ties: form.points_ties.clone(),
                suit_order: chosen_suits(form.points_suits()),
                wheel: form.points_wheel.clone(),
                naturals: form.naturals.is_some(),
                natural_points: Natural::ALL
                    .into_iter()
                    .map(|n| (n.key(), n.word(), form.natural_points(n).to_owned()))
                    .collect(),
                surrender: form.points_surrender.is_some(),
                surrender_points: form.surrender_points.clone(),
                scoop_bonus: form.scoop_bonus.clone(),
                pusoy_bonus: form.pusoy_bonus.is_some(),
                hand_points: hand_grid(|_, _| String::new())
                    .into_iter()
                    .map(|mut row| {
                        for cell in &mut row.cells {
                            if cell.value.is_some() {
                                cell.value =
                                    Some(form.grid.get(&cell.name).cloned().unwrap_or_default());
                            }
                        }
                        row
                    })
                    .collect(),
            },
            house_way: form.house_way.is_some(),
        }
    }
}

/// When an edit applies, as the edit form holds it: `next_shift`, or `at` with a local time.
#[derive(Default)]
pub struct AppliesValues {
    pub at: bool,
    pub time: String,
}

#[derive(Default)]
pub struct ProfileErrors {
    pub name: Option<String>,
    pub suit_order: Option<String>,
    /// A choice that is none of those offered.
    pub choices: Option<String>,
    /// What is wrong with the points game's options, each named.
    pub points: Option<String>,
}

impl ProfileErrors {
    /// Every problem with the options, in one sentence list (for an edit form).
    fn options_text(&self) -> String {
        [&self.suit_order, &self.choices, &self.points]
            .into_iter()
            .flatten()
            .cloned()
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[derive(Template)]
#[template(path = "admin_profiles.html")]
struct ProfilesPage {
    nav: Nav,
    can_manage: bool,
    rows: Vec<ProfileRow>,
    name: String,
    values: OptionValues,
    errors: ProfileErrors,
    zone: String,
}

/// An edit form refused: the profile, what was typed and why.
struct RefusedEdit {
    id: ProfileId,
    values: OptionValues,
    applies: AppliesValues,
    error: String,
}

async fn page(
    session: &Session,
    state: &AppState,
    viewer: &CurrentUser,
    name: String,
    values: OptionValues,
    errors: ProfileErrors,
    mut refused: Option<RefusedEdit>,
) -> Result<ProfilesPage, AppError> {
    let all = profiles::list(&state.db).await?;
    let rows = all
        .iter()
        .map(|p| {
            let (options, applies, error) = match refused.take() {
                Some(edit) if edit.id == p.profile.id => {
                    (edit.values, edit.applies, Some(edit.error))
                }
                other => {
                    refused = other;
                    (
                        OptionValues::from(&p.latest.options),
                        AppliesValues::default(),
                        None,
                    )
                }
            };
            ProfileRow {
                id: p.profile.id.0,
                prefix: format!("p{}", p.profile.id),
                name: p.profile.name.clone(),
                version: p.latest.version,
                description: p.latest.options.describe(),
                game: p.latest.options.game().key(),
                options,
                applies,
                error,
            }
        })
        .collect();
    Ok(ProfilesPage {
        nav: session::nav(session, Some(viewer))?,
        can_manage: viewer.role == Role::Admin,
        rows,
        name,
        values,
        errors,
        zone: state.config.zone().label(),
    })
}

pub async fn list(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let values = OptionValues::from(&RuleProfile::default());
    let page = page(
        &session,
        &state,
        &user,
        String::new(),
        values,
        ProfileErrors::default(),
        None,
    )
    .await?;
    render(StatusCode::OK, &page)
}

fn banking() -> String {
    Game::Banking.key().to_owned()
}

#[derive(Deserialize)]
pub struct ProfileForm {
    #[serde(default)]
    name: String,
    /// `banking` (the default) or `points`.
    #[serde(default = "banking")]
    game: String,
    surrender: Option<String>,
    royalties: Option<String>,
    dealer_royalties: Option<String>,
    #[serde(default)]
    ties: String,
    #[serde(default)]
    both_fouled: String,
    #[serde(default)]
    wheel: String,
    /// The suit order, place by place, highest first (a suit's letter each).
    #[serde(default)]
    suit_order_1: String,
    #[serde(default)]
    suit_order_2: String,
    #[serde(default)]
    suit_order_3: String,
    #[serde(default)]
    suit_order_4: String,
    // The points game's options.
    #[serde(default)]
    points_ties: String,
    #[serde(default)]
    points_suit_order_1: String,
    #[serde(default)]
    points_suit_order_2: String,
    #[serde(default)]
    points_suit_order_3: String,
    #[serde(default)]
    points_suit_order_4: String,
    #[serde(default)]
    points_wheel: String,
    naturals: Option<String>,
    #[serde(default)]
    dragon: String,
    #[serde(default)]
    six_pairs: String,
    #[serde(default)]
    three_flushes: String,
    #[serde(default)]
    three_straights: String,
    points_surrender: Option<String>,
    #[serde(default)]
    surrender_points: String,
    #[serde(default)]
    scoop_bonus: String,
    pusoy_bonus: Option<String>,
    house_way: Option<String>,
    /// `next_shift` (the default) or `at`.
    #[serde(default)]
    applies: String,
    /// With `applies=at`: the casino's local time, as a `datetime-local` field sends it.
    #[serde(default)]
    applies_at: String,
    /// The rest of the form: the hand-points grid's fields (`hp_{position}_{hand}`).
    #[serde(flatten)]
    grid: std::collections::HashMap<String, String>,
}

impl ProfileForm {
    fn suits(&self) -> [&str; 4] {
        [
            &self.suit_order_1,
            &self.suit_order_2,
            &self.suit_order_3,
            &self.suit_order_4,
        ]
    }

    fn points_suits(&self) -> [&str; 4] {
        [
            &self.points_suit_order_1,
            &self.points_suit_order_2,
            &self.points_suit_order_3,
            &self.points_suit_order_4,
        ]
    }

    /// The points typed for a natural.
    fn natural_points(&self, natural: Natural) -> &str {
        match natural {
            Natural::Dragon => &self.dragon,
            Natural::SixPairs => &self.six_pairs,
            Natural::ThreeFlushes => &self.three_flushes,
            Natural::ThreeStraights => &self.three_straights,
        }
    }
}

/// The options the form describes, for its game, or what is wrong with them (each problem
/// named).
fn options(form: &ProfileForm) -> Result<GameRules, ProfileErrors> {
    match form.game.as_str() {
        "points" => points_options(form).map(GameRules::Points),
        "banking" => banking_options(form).map(GameRules::Banking),
        _ => Err(ProfileErrors {
            choices: Some("Choose the banking game or the points game.".to_owned()),
            ..ProfileErrors::default()
        }),
    }
}

/// The points game's options the form describes; every problem named in one sentence list.
fn points_options(form: &ProfileForm) -> Result<PointsProfile, ProfileErrors> {
    let mut problems: Vec<String> = Vec::new();
    let mut number = |text: &str, what: &str| -> u32 {
        text.trim().parse::<u32>().unwrap_or_else(|_| {
            problems.push(format!(
                "{what}: enter a whole number of points (0 or more)."
            ));
            0
        })
    };
    let surrender_points = number(&form.surrender_points, "Surrender pays");
    let scoop_bonus = number(&form.scoop_bonus, "Scoop bonus");
    let mut natural_points = serde_json::Map::new();
    for natural in Natural::ALL {
        let points = number(
            form.natural_points(natural),
            &format!("Points for {natural}"),
        );
        if points > 0 {
            natural_points.insert(natural.key().to_owned(), points.into());
        }
    }
    // The grid's fields, each a whole number, into the positions' tables of points.
    let mut by_position = serde_json::Map::new();
    for row in points_grid(&HandPoints::default()) {
        for cell in &row.cells {
            let Some(default) = &cell.value else { continue };
            // A field not sent scores as the rules' default.
            let typed = form.grid.get(&cell.name).unwrap_or(default);
            let points = number(typed, &cell.label);
            let rest = cell.name.trim_start_matches("hp_");
            if let Some((position, hand)) = rest.split_once('_') {
                let hands = by_position
                    .entry(position)
                    .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
                if let Some(hands) = hands.as_object_mut() {
                    hands.insert(hand.to_owned(), points.into());
                }
            }
        }
    }
    let ties = match form.points_ties.as_str() {
        "suit_order" => Some(PointsTies::SuitOrder),
        "push" => Some(PointsTies::Push),
        _ => None,
    };
    let wheel = match form.points_wheel.as_str() {
        "lowest" => Some(Wheel::Lowest),
        "second" => Some(Wheel::Second),
        _ => None,
    };
    if ties.is_none() || wheel.is_none() {
        problems.push("Choose exact ties and wheel from the lists offered.".to_owned());
    }
    let suit_order: Option<SuitOrder> = chosen_suits(form.points_suits()).parse().ok();
    if suit_order.is_none() {
        problems.push("Suit order: choose each of the four suits once, highest first.".to_owned());
    }
    let natural_points: Option<NaturalPoints> =
        serde_json::from_value(serde_json::Value::Object(natural_points)).ok();
    let hand_points: Option<HandPoints> =
        match serde_json::from_value(serde_json::Value::Object(by_position)) {
            Ok(points) => Some(points),
            Err(err) => {
                problems.push(format!("Hand points: {err}."));
                None
            }
        };
    match (ties, wheel, suit_order, natural_points, hand_points) {
        (Some(ties), Some(wheel), Some(suit_order), Some(natural_points), Some(hand_points))
            if problems.is_empty() =>
        {
            Ok(PointsProfile {
                ties,
                suit_order,
                wheel,
                naturals: form.naturals.is_some(),
                natural_points,
                surrender: form.points_surrender.is_some(),
                surrender_points,
                hand_points,
                scoop_bonus,
                pusoy_bonus: form.pusoy_bonus.is_some(),
            })
        }
        _ => Err(ProfileErrors {
            points: Some(problems.join(" ")),
            ..ProfileErrors::default()
        }),
    }
}

/// The banking game's options the form describes.
fn banking_options(form: &ProfileForm) -> Result<RuleProfile, ProfileErrors> {
    let mut errors = ProfileErrors::default();
    let suit_order: Option<SuitOrder> = chosen_suits(form.suits()).parse().ok();
    if suit_order.is_none() {
        errors.suit_order = Some("Choose each of the four suits once, highest first.".to_owned());
    }
    let ties = match form.ties.as_str() {
        "dealer_wins" => Some(TieRule::DealerWins),
        "suit_order" => Some(TieRule::SuitOrder),
        _ => None,
    };
    let both_fouled = match form.both_fouled.as_str() {
        "push" => Some(BothFouled::Push),
        "player_loses" => Some(BothFouled::PlayerLoses),
        _ => None,
    };
    let wheel = match form.wheel.as_str() {
        "lowest" => Some(Wheel::Lowest),
        "second" => Some(Wheel::Second),
        _ => None,
    };
    match (suit_order, ties, both_fouled, wheel) {
        (Some(suit_order), Some(ties), Some(both_fouled), Some(wheel)) => Ok(RuleProfile {
            surrender: form.surrender.is_some(),
            royalties: form.royalties.is_some(),
            dealer_royalties: form.dealer_royalties.is_some(),
            ties,
            both_fouled,
            wheel,
            suit_order,
            house_way: form.house_way.is_some(),
        }),
        (_, ties, both_fouled, wheel) => {
            if ties.is_none() || both_fouled.is_none() || wheel.is_none() {
                errors.choices = Some(
                    "Choose exact ties, both fouled and wheel from the lists offered.".to_owned(),
                );
            }
            Err(errors)
        }
    }
}

/// When an edit applies: `None` from each table's next dealer shift, or the time typed (in the
/// casino's local time `zone`), which must not be in the past.
fn applies_from(
    form: &ProfileForm,
    zone: Zone,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, String> {
    match form.applies.as_str() {
        "at" => {}
        // The create form has no choice: a new profile applies where a table takes it.
        "next_shift" | "" => return Ok(None),
        other => {
            let other: String = other.chars().take(40).collect();
            return Err(format!(
                "Applies: {other:?} is not a choice; choose the next dealer shift or a time."
            ));
        }
    }
    let typed = form.applies_at.trim();
    let at = typed_local_time(typed, zone).ok_or_else(|| {
        format!("Applies from: enter a date and time such as 2026-03-01 18:00 ({zone}).")
    })?;
    // A minute's grace for the time it took to send the form.
    if at < now - chrono::Duration::minutes(1) {
        return Err(format!(
            "Applies from: {} has passed; choose a later time or the next dealer shift.",
            crate::web::format::when(at, zone)
        ));
    }
    Ok(Some(at))
}

#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn create(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    form: web::Form<ProfileForm>,
) -> Result<HttpResponse, AppError> {
    let form = form.into_inner();
    let name = form.name.trim().to_owned();
    let parsed = options(&form);
    let mut errors = match &parsed {
        Ok(_) => ProfileErrors::default(),
        Err(problems) => ProfileErrors {
            name: None,
            suit_order: problems.suit_order.clone(),
            choices: problems.choices.clone(),
            points: problems.points.clone(),
        },
    };
    if name.is_empty() || name.chars().count() > 80 {
        errors.name = Some("Enter a name of 1 to 80 characters.".to_owned());
    }
    if let (Ok(opts), None) = (&parsed, &errors.name) {
        let (opts, actor, new_name) = (*opts, admin.actor(&req), name.clone());
        let created = profiles::create(&state.db, new_name, opts, actor)
            .await?
            .err();
        match created {
            None => {
                session::set_flash(&session, &format!("Created rule profile {name} (v1)."))?;
                return Ok(redirect("/admin/profiles"));
            }
            Some(message) => errors.name = Some(message),
        }
    }
    // Every value comes back exactly as typed.
    let values = OptionValues::from(&form);
    let page = page(&session, &state, &admin, form.name, values, errors, None).await?;
    render(StatusCode::UNPROCESSABLE_ENTITY, &page)
}

#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn update(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    id: web::Path<i64>,
    form: web::Form<ProfileForm>,
) -> Result<HttpResponse, AppError> {
    let id = ProfileId(id.into_inner());
    let form = form.into_inner();
    let zone = state.config.zone();
    let checked = options(&form)
        .map_err(|problems| problems.options_text())
        .and_then(|opts| applies_from(&form, zone, Utc::now()).map(|from| (opts, from)));
    let saved = match checked {
        Ok((opts, from)) => {
            let actor = admin.actor(&req);
            profiles::new_version(&state.db, id, opts, from, actor)
                .await?
                .map(|version| (version, from))
        }
        Err(error) => Err(error),
    };
    let (version, from) = match saved {
        Ok(saved) => saved,
        Err(error) => {
            let refused = RefusedEdit {
                id,
                values: OptionValues::from(&form),
                applies: AppliesValues {
                    at: form.applies == "at",
                    time: form.applies_at.clone(),
                },
                error,
            };
            let values = OptionValues::from(&RuleProfile::default());
            let page = page(
                &session,
                &state,
                &admin,
                String::new(),
                values,
                ProfileErrors::default(),
                Some(refused),
            )
            .await?;
            return render(StatusCode::UNPROCESSABLE_ENTITY, &page);
        }
    };
    let applies = match from {
        None => "from each table's next dealer shift (a table in mid-shift keeps its version until then)".to_owned(),
        Some(at) => format!("at every table from {}", crate::web::format::when(at, zone)),
    };
    session::set_flash(
        &session,
        &format!(
            "Saved as version {version}; it applies {applies}. Rounds already settled keep the version they were played under."
        ),
    )?;
    Ok(redirect("/admin/profiles"))
}
