//! Rebuild when a migration is added or changed: `embed_migrations!` reads the folder at
//! compile time, and cargo does not know to watch it otherwise.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
