//! The `pusoy-pit` binary: parse the command line and run a subcommand.
fn main() {
    println!("pusoy-pit");
}
