//! The `pusoy-pit` binary: parse the command line and run a subcommand.

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use pusoy_pit::cli;
use pusoy_pit::rules::profile::Wheel;

#[derive(Debug, Parser)]
#[command(
    name = "pusoy-pit",
    version,
    about = "Back office for casino Pusoy tables"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Settle rounds: one JSON round per line on stdin, one JSON result per line on stdout.
    /// Exits with status 1 if any line could not be settled.
    Settle,
    /// Print the name of a 3-card front or a 5-card hand, e.g. `eval As Ks Qs Js Ts`.
    Eval {
        /// Where the wheel (5-4-3-2-A) ranks.
        #[arg(long, value_enum, default_value_t = WheelArg::Lowest)]
        wheel: WheelArg,
        /// The cards, separated by spaces or commas.
        #[arg(required = true, num_args = 1..)]
        cards: Vec<String>,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum WheelArg {
    Lowest,
    Second,
}

fn main() -> anyhow::Result<ExitCode> {
    match Cli::parse().command {
        Command::Settle => {
            let stdin = std::io::stdin().lock();
            let stdout = std::io::stdout().lock();
            let any_failed = cli::settle_stream(stdin, stdout)?;
            Ok(if any_failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Eval { wheel, cards } => {
            let wheel = match wheel {
                WheelArg::Lowest => Wheel::Lowest,
                WheelArg::Second => Wheel::Second,
            };
            println!("{}", cli::eval(&cards, wheel)?);
            Ok(ExitCode::SUCCESS)
        }
    }
}
