//! The command line's subcommands, one function each; `src/main.rs` parses the arguments and
//! calls them. `settle` and `eval` are pure (the rules engine on standard input and output);
//! the others need the configuration and the database.

pub mod audit;
pub mod audit_export;
pub mod demo_history;
pub mod export;
pub mod generate;
pub mod houseway;
pub mod review;
pub mod service;
pub mod settle;
pub(crate) mod settle_json;
pub mod users;
