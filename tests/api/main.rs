//! Integration tests: the real server over HTTP against a real PostgreSQL database.
#![allow(clippy::unwrap_used)]

mod access;
mod accounting;
mod admin;
mod admin_forms;
mod audit;
mod audit_trail;
mod checkpoints;
mod durability;
mod export;
mod forms;
mod headers;
mod helpers;
mod history;
mod house_way;
mod outage;
mod points;
mod prepared;
mod profile_versions;
mod record;
mod refusals;
mod replays;
mod replica;
mod reports;
mod review;
mod round_input;
mod round_shifts;
mod rounds;
mod sessions;
mod shift_end;
mod sign_in;
mod staff;
mod table_screen;
mod table_typed;
mod tables;
mod tokens;
