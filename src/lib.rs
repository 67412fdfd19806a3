//! pusoy-pit: the back office for casino Pusoy tables.
pub mod accounting;
pub mod cli;
pub mod config;
pub mod db;
pub mod password;
pub mod pit;
pub mod players;
pub mod recording;
pub mod reports;
pub mod rules;
pub mod web;
