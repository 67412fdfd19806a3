//! The crate's layers, checked from its source: every `crate::` path in a file of `src/` (outside
//! comments and its unit tests) must name a module of the same top-level module or of a lower
//! layer, and no files may import each other, directly or round a longer cycle.
//!
//! ```text
//! cli               the command line (`serve` starts the web application)
//!   web             handlers, pages, sessions
//!     recording     the use-cases of entering rounds, the round writer, what the process remembers
//!       db          rows, queries, SQL texts, the audit log
//!         config    settings
//!           rules, password   the game (pure); password hashing
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Each top-level module's layer: a file may import its own top-level module and lower layers.
const LAYERS: &[(&str, u8)] = &[
    ("rules", 0),
    ("password", 0),
    ("config", 1),
    ("db", 2),
    ("recording", 3),
    ("reports", 3),
    ("web", 4),
    // `serve` starts the web application.
    ("cli", 5),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, but `main.rs` (the binary, which uses the library by name).
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("src/main.rs") {
            out.push(path);
        }
    }
}

/// A file's module path: `src/db/rounds/rows.rs` is `db::rounds::rows`.
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).expect("a file under src");
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file without comments and without its `#[cfg(test)]` module.
fn code(file: &Path) -> String {
    let text = fs::read_to_string(file).expect("a readable source file");
    let text = match text.find("\n#[cfg(test)]\n") {
        Some(at) => &text[..at],
        None => &text,
    };
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules a file's code names through `crate::` paths, each as the longest prefix of the
/// path that is a module of `modules`.
fn imports(code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let path: Vec<&str> = code[at + "crate::".len()..]
            .split("::")
            .map(|seg| {
                let end = seg
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(seg.len());
                &seg[..end]
            })
            .take_while(|seg| !seg.is_empty())
            .collect();
        let mut longest = None;
        for n in 1..=path.len() {
            let prefix = path[..n].join("::");
            if modules.contains(&prefix) {
                longest = Some(prefix);
            }
        }
        if let Some(module) = longest {
            found.insert(module);
        }
    }
    found
}

fn top(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

fn layer(module: &str) -> u8 {
    LAYERS
        .iter()
        .find(|(name, _)| *name == top(module))
        .map(|(_, layer)| *layer)
        .unwrap_or_else(|| panic!("{module} has no layer in tests/layers.rs"))
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut paths = Vec::new();
    files(&src(), &mut paths);
    let modules: BTreeSet<String> = paths.iter().map(|p| module_of(p)).collect();
    paths
        .iter()
        .map(|path| {
            let module = module_of(path);
            let mut uses = imports(&code(path), &modules);
            uses.remove(&module);
            // A parent module declaring its children (`pub mod x;`) is not an import.
            uses.retain(|used| !used.starts_with(&format!("{module}::")) && !module.is_empty());
            (module, uses)
        })
        .collect()
}

#[test]
fn no_module_imports_a_module_above_its_layer() {
    let mut wrong = Vec::new();
    for (module, uses) in graph() {
        if module.is_empty() {
            continue;
        }
        for used in uses {
            let lower = layer(&used) < layer(&module);
            if top(&used) != top(&module) && !lower {
                wrong.push(format!("{module} imports {used}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_files_import_each_other() {
    let graph = graph();
    // Depth-first search for a path back to where it started.
    fn cycle_from(
        graph: &BTreeMap<String, BTreeSet<String>>,
        at: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| m == at) {
            let mut cycle = path[start..].to_vec();
            cycle.push(at.to_owned());
            return Some(cycle);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_owned());
        for next in graph.get(at).into_iter().flatten() {
            if let Some(cycle) = cycle_from(graph, next, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(at.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        if let Some(cycle) = cycle_from(&graph, module, &mut Vec::new(), &mut done) {
            panic!("an import cycle: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn the_check_sees_imports_in_code_but_not_in_comments() {
    let modules: BTreeSet<String> = ["db", "db::rounds", "db::rounds::rows", "web"]
        .map(String::from)
        .into();
    let found = imports(
        "use crate::db::rounds::rows::{self, RoundRow};\nlet x = crate::web::run();",
        &modules,
    );
    assert_eq!(found, ["db::rounds::rows", "web"].map(String::from).into());
}
