//! Integration tests: the real server over HTTP against a real PostgreSQL database.
#![allow(clippy::unwrap_used)]

mod access;
mod admin;
mod audit;
mod durability;
mod forms;
mod headers;
mod helpers;
mod history;
mod outage;
mod prepared;
mod record;
mod refusals;
mod review;
mod round_shifts;
mod rounds;
mod sessions;
mod sign_in;
mod staff;
mod table_screen;
mod tables;
mod tokens;
