//! The crate's layers, checked from its source: every file of `src/` is parsed (with `syn`), and
//! every path its code names from `crate`, `super` or `self` (in `use` trees, groups and globs
//! included, in expressions, types and patterns, in the arguments of macros and attributes) must
//! name a module of the same top-level module or of a lower layer, and no files may import each
//! other, directly or round a longer cycle. Comments are not code, and only what is marked
//! `#[cfg(test)]` is left out (a test module wherever it is in a file, a test-only function, a
//! test-only file declared `#[cfg(test)] mod x;`).
//!
//! ```text
//! cli               the command line (`serve` starts the web application)
//!   web             handlers, pages, sessions: parse, call one use-case of `pit`, render
//!     pit           the use-cases handlers call, each in one turn of the database
//!       recording   the use-cases of entering rounds, the round writer, what the process remembers
//!       reports     what reads many rows: audit verification, reports (beside recording: neither imports the other)
//!       players     rated play's use-cases: players, ratings, house edges (above accounting)
//!       accounting  table accounting's use-cases: chip sets, par (beside recording and reports)
//!         db        rows, queries, SQL texts, the audit log, the database handle
//!           config  settings
//!             rules, password   the game (pure); password hashing
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use syn::ext::IdentExt;
use syn::parse::discouraged::Speculative;
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Attribute, Ident, Item, Meta, Token, UseTree};

/// Each top-level module's layer: a file may import its own top-level module and lower layers.
const LAYERS: &[(&str, u8)] = &[
    ("rules", 0),
    ("password", 0),
    ("config", 1),
    ("db", 2),
    ("recording", 3),
    // What reads many rows (reports, exports, audit verification): beside `recording`.
    ("reports", 3),
    // The use-cases the handlers call, each in one turn of the database: above `recording` and
    // `reports`, which it composes.
    // Table accounting's use-cases (chip sets, par, slips): beside `recording` and `reports`.
    ("accounting", 3),
    // Rated play's use-cases (players, ratings, house edges): above table accounting, whose
    // tables, shifts and error they use.
    ("players", 4),
    ("pit", 5),
    ("web", 6),
    // `serve` starts the web application.
    ("cli", 7),
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

/// A module a file's code names, and where: the line (as near as the text tells: the first line
/// of the `use`, or of the path) and the import as written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Import {
    module: String,
    line: Option<usize>,
    text: String,
}

/// What the code of one file imports, and which of the modules it declares are for tests only
/// (`#[cfg(test)] mod x;`, whose file is then no code of the crate's).
#[derive(Debug, Default)]
struct Imports {
    imports: Vec<Import>,
    test_modules: Vec<String>,
}

/// The modules the code of `source`, the file of module `module`, names through `crate::`,
/// `super::` and `self::` paths, each as the longest prefix of the path (resolved from the crate
/// root) that is a module of `modules`; outside comments and outside what is marked
/// `#[cfg(test)]`.
fn imports(module: &str, source: &str, modules: &BTreeSet<String>) -> Imports {
    let file = syn::parse_file(source).unwrap_or_else(|e| panic!("{module} does not parse: {e}"));
    let mut walk = Walk {
        module: module
            .split("::")
            .filter(|m| !m.is_empty())
            .map(String::from)
            .collect(),
        text: Text::of(source),
        named: Vec::new(),
        test_modules: Vec::new(),
    };
    walk.visit_file(&file);
    let mut imports = Vec::new();
    for named in walk.named {
        let longest = (1..=named.path.len())
            .rev()
            .map(|n| named.path[..n].join("::"))
            .find(|prefix| modules.contains(prefix));
        if let Some(module) = longest {
            imports.push(Import {
                module,
                line: named.line,
                text: named.text,
            });
        }
    }
    imports.sort();
    imports.dedup();
    Imports {
        imports,
        test_modules: walk.test_modules,
    }
}

/// A path the code names, from the crate root.
struct Named {
    path: Vec<String>,
    line: Option<usize>,
    text: String,
}

/// Walks a file's items, in the module each is in (a file's module, or a module written inline).
struct Walk {
    module: Vec<String>,
    text: Text,
    named: Vec<Named>,
    test_modules: Vec<String>,
}

impl Walk {
    /// Notes the paths of one written path or `use` tree, `leaves` as written (from `crate`,
    /// `super` or `self`, or from anything else, which is not this crate's); `needle` is its text
    /// without whitespace, to find its line.
    fn name(&mut self, leaves: Vec<Vec<String>>, text: String, needle: &str) {
        let paths: Vec<Vec<String>> = leaves
            .iter()
            .filter_map(|leaf| absolute(&self.module, leaf))
            .collect();
        if paths.is_empty() {
            return;
        }
        let line = self.text.line_of(needle);
        for path in paths {
            self.named.push(Named {
                path,
                line,
                text: text.clone(),
            });
        }
    }

    fn use_tree(&mut self, tree: &UseTree, text: String, needle: &str) {
        let mut leaves = Vec::new();
        leaves_of(tree, &mut Vec::new(), &mut leaves);
        self.name(leaves, text, needle);
    }

    /// The paths written in a macro's or an attribute's arguments, which `syn` leaves as tokens.
    fn tokens(&mut self, found: Vec<Written>) {
        for written in found {
            match written {
                Written::Tree(tree) => {
                    let text = render(&tree);
                    let needle = head(&text);
                    self.use_tree(&tree, text, &needle);
                }
                Written::Path(path) => {
                    let text = path.join("::");
                    self.name(vec![path], text.clone(), &text);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Walk {
    fn visit_item(&mut self, item: &'ast Item) {
        if for_tests(item_attrs(item)) {
            if let Item::Mod(declared) = item {
                if declared.content.is_none() {
                    let mut module = self.module.clone();
                    module.push(declared.ident.to_string());
                    self.test_modules.push(module.join("::"));
                }
            }
            return;
        }
        visit::visit_item(self, item);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.module.push(item.ident.to_string());
        visit::visit_item_mod(self, item);
        self.module.pop();
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        for attr in &item.attrs {
            self.visit_attribute(attr);
        }
        let text = format!("use {}", render(&item.tree));
        let mut needle = head(&text);
        if !needle.ends_with('{') {
            needle.push(';');
        }
        self.use_tree(&item.tree, text, &needle);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            let leaf: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            // As written up to its first generic arguments, to find its line.
            let written = path
                .segments
                .iter()
                .position(|s| !s.arguments.is_none())
                .map_or(leaf.len(), |at| at + 1);
            let text = leaf.join("::");
            let needle = leaf[..written].join("::");
            self.name(vec![leaf], text, &needle);
        }
        visit::visit_path(self, path);
    }

    /// `pub(crate)`, `pub(super)`, `pub(in crate::x)` say who may see an item: not imports.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        visit::visit_macro(self, mac);
        let mut found = Vec::new();
        let _ = mac.parse_body_with(|input: ParseStream<'_>| paths_in(input, &mut found));
        self.tokens(found);
    }

    fn visit_meta_list(&mut self, list: &'ast syn::MetaList) {
        visit::visit_meta_list(self, list);
        let mut found = Vec::new();
        let _ = list.parse_args_with(|input: ParseStream<'_>| paths_in(input, &mut found));
        self.tokens(found);
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs = match item {
            syn::ImplItem::Const(i) => &i.attrs[..],
            syn::ImplItem::Fn(i) => &i.attrs,
            syn::ImplItem::Type(i) => &i.attrs,
            syn::ImplItem::Macro(i) => &i.attrs,
            _ => &[],
        };
        if !for_tests(attrs) {
            visit::visit_impl_item(self, item);
        }
    }

    fn visit_trait_item(&mut self, item: &'ast syn::TraitItem) {
        let attrs = match item {
            syn::TraitItem::Const(i) => &i.attrs[..],
            syn::TraitItem::Fn(i) => &i.attrs,
            syn::TraitItem::Type(i) => &i.attrs,
            syn::TraitItem::Macro(i) => &i.attrs,
            _ => &[],
        };
        if !for_tests(attrs) {
            visit::visit_trait_item(self, item);
        }
    }

    fn visit_field(&mut self, field: &'ast syn::Field) {
        if !for_tests(&field.attrs) {
            visit::visit_field(self, field);
        }
    }

    fn visit_variant(&mut self, variant: &'ast syn::Variant) {
        if !for_tests(&variant.attrs) {
            visit::visit_variant(self, variant);
        }
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        if !for_tests(&local.attrs) {
            visit::visit_local(self, local);
        }
    }

    fn visit_stmt_macro(&mut self, stmt: &'ast syn::StmtMacro) {
        if !for_tests(&stmt.attrs) {
            visit::visit_stmt_macro(self, stmt);
        }
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        if !for_tests(&arm.attrs) {
            visit::visit_arm(self, arm);
        }
    }
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// Whether the attributes hold `#[cfg(test)]` (or `#[cfg(all(test, ...))]`): code only the
/// crate's unit tests compile.
fn for_tests(attrs: &[Attribute]) -> bool {
    fn only_in_tests(meta: &Meta) -> bool {
        match meta {
            Meta::Path(path) => path.is_ident("test"),
            Meta::List(list) if list.path.is_ident("all") => list
                .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                .is_ok_and(|all| all.iter().any(only_in_tests)),
            _ => false,
        }
    }
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg") && attr.parse_args::<Meta>().is_ok_and(|m| only_in_tests(&m))
    })
}

/// `path`, written in module `at`, from the crate root; `None` when it starts at neither `crate`,
/// `super` nor `self` (a dependency, or a name brought into scope, whose `use` is seen itself).
fn absolute(at: &[String], path: &[String]) -> Option<Vec<String>> {
    let mut module = match path.first()?.as_str() {
        "crate" => Vec::new(),
        "super" | "self" if path.len() > 1 || path[0] == "super" => at.to_vec(),
        _ => return None,
    };
    let mut rest = &path[usize::from(path[0] == "crate")..];
    while let Some(first) = rest.first() {
        match first.as_str() {
            "super" => {
                module.pop()?;
            }
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    module.extend(rest.iter().cloned());
    Some(module)
}

/// The paths a `use` tree brings in: `a::{b, c::{self, d as e}, f::*}` is `a::b`, `a::c`,
/// `a::c::d` and `a::f`.
fn leaves_of(tree: &UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            leaves_of(&path.tree, prefix, out);
            prefix.pop();
        }
        UseTree::Name(name) if name.ident == "self" && !prefix.is_empty() => {
            out.push(prefix.clone())
        }
        UseTree::Name(name) => out.push([&prefix[..], &[name.ident.to_string()]].concat()),
        UseTree::Rename(rename) => out.push([&prefix[..], &[rename.ident.to_string()]].concat()),
        UseTree::Glob(_) => out.push(prefix.clone()),
        UseTree::Group(group) => {
            for tree in &group.items {
                leaves_of(tree, prefix, out);
            }
        }
    }
}

fn render(tree: &UseTree) -> String {
    match tree {
        UseTree::Path(path) => format!("{}::{}", path.ident, render(&path.tree)),
        UseTree::Name(name) => name.ident.to_string(),
        UseTree::Rename(rename) => format!("{} as {}", rename.ident, rename.rename),
        UseTree::Glob(_) => "*".to_owned(),
        UseTree::Group(group) => {
            let items: Vec<String> = group.items.iter().map(render).collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// A written path without whitespace, up to its first group: what to look for in the text.
fn head(text: &str) -> String {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    match text.find('{') {
        Some(at) => text[..=at].to_owned(),
        None => text,
    }
}

/// A path found among a macro's or an attribute's tokens.
enum Written {
    Tree(UseTree),
    Path(Vec<String>),
}

/// Every path from `crate`, `$crate`, `super` or `self` among tokens (`syn` does not parse the
/// arguments of macros and attributes), read as a `use` tree where it is one (`crate::{a, b}`,
/// `crate::a::f(...)`), else as far as it is a path of names.
fn paths_in(input: ParseStream<'_>, found: &mut Vec<Written>) -> syn::Result<()> {
    while !input.is_empty() {
        let starts =
            input.peek(Token![crate]) || input.peek(Token![super]) || input.peek(Token![self]);
        if starts && input.peek2(Token![::]) {
            let fork = input.fork();
            if let Ok(tree) = fork.parse::<UseTree>() {
                input.advance_to(&fork);
                found.push(Written::Tree(tree));
                continue;
            }
            let mut path = vec![input.call(Ident::parse_any)?.to_string()];
            while input.peek(Token![::]) && input.peek2(Ident::peek_any) {
                input.parse::<Token![::]>()?;
                path.push(input.call(Ident::parse_any)?.to_string());
            }
            found.push(Written::Path(path));
        } else if input.peek(syn::token::Brace) {
            let inner;
            syn::braced!(inner in input);
            paths_in(&inner, found)?;
        } else if input.peek(syn::token::Paren) {
            let inner;
            syn::parenthesized!(inner in input);
            paths_in(&inner, found)?;
        } else if input.peek(syn::token::Bracket) {
            let inner;
            syn::bracketed!(inner in input);
            paths_in(&inner, found)?;
        } else {
            input.step(|cursor| match cursor.token_tree() {
                Some((_, rest)) => Ok(((), rest)),
                None => Err(cursor.error("no token")),
            })?;
        }
    }
    Ok(())
}

/// A file's text without whitespace and without its `//` comment lines, and each byte's line:
/// where a path is written (the parser here keeps no lines).
struct Text {
    text: String,
    lines: Vec<usize>,
    /// Where the last path found was: paths are named in the order they are written.
    from: usize,
}

impl Text {
    fn of(source: &str) -> Self {
        let mut text = String::new();
        let mut lines = Vec::new();
        for (n, line) in source.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for c in line.chars().filter(|c| !c.is_whitespace()) {
                text.push(c);
                lines.extend(std::iter::repeat_n(n + 1, c.len_utf8()));
            }
        }
        Text {
            text,
            lines,
            from: 0,
        }
    }

    fn line_of(&mut self, needle: &str) -> Option<usize> {
        let after = self
            .text
            .get(self.from..)
            .and_then(|rest| rest.find(needle));
        let at = after
            .map(|at| self.from + at)
            .or_else(|| self.text.find(needle))?;
        self.from = at + needle.chars().next().map_or(1, char::len_utf8);
        Some(self.lines[at])
    }
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

/// A file of the crate: its path, and the modules its code imports (but its own and those under
/// it: a parent module declaring or using its children is not an import), each with where.
struct File {
    path: String,
    uses: BTreeMap<String, BTreeSet<(Option<usize>, String)>>,
}

type Graph = BTreeMap<String, File>;

/// The import graph of files given as (path, module, source text), resolving paths against
/// `modules`.
fn graph_of(sources: &[(String, String, String)], modules: &BTreeSet<String>) -> Graph {
    let read: Vec<(&String, &String, Imports)> = sources
        .iter()
        .map(|(path, module, text)| (path, module, imports(module, text, modules)))
        .collect();
    let test_modules: BTreeSet<&String> = read.iter().flat_map(|r| &r.2.test_modules).collect();
    let for_tests = |module: &str| {
        test_modules
            .iter()
            .any(|t| module == *t || module.starts_with(&format!("{t}::")))
    };
    let mut graph = Graph::new();
    for (path, module, imports) in &read {
        if for_tests(module) {
            continue;
        }
        let mut uses: BTreeMap<String, BTreeSet<_>> = BTreeMap::new();
        for import in &imports.imports {
            let own =
                import.module == **module || import.module.starts_with(&format!("{module}::"));
            if !own && !module.is_empty() {
                uses.entry(import.module.clone())
                    .or_default()
                    .insert((import.line, import.text.clone()));
            }
        }
        graph.insert(
            (*module).clone(),
            File {
                path: (*path).clone(),
                uses,
            },
        );
    }
    graph
}

fn graph() -> Graph {
    let mut paths = Vec::new();
    files(&src(), &mut paths);
    paths.sort();
    let modules: BTreeSet<String> = paths.iter().map(|p| module_of(p)).collect();
    let sources: Vec<(String, String, String)> = paths
        .iter()
        .map(|path| {
            let shown = Path::new("src").join(path.strip_prefix(src()).expect("under src"));
            let text = fs::read_to_string(path).expect("a readable source file");
            (shown.display().to_string(), module_of(path), text)
        })
        .collect();
    graph_of(&sources, &modules)
}

/// Where `file` imports `used`, a line each.
fn wheres(file: &File, used: &str) -> Vec<String> {
    file.uses[used]
        .iter()
        .map(|(line, text)| match line {
            Some(line) => format!("    {}:{line}: {text}", file.path),
            None => format!("    {}: {text}", file.path),
        })
        .collect()
}

/// Each import against the layers, with where it is written.
fn against_layers(graph: &Graph) -> Vec<String> {
    let mut wrong = Vec::new();
    for (module, file) in graph {
        if module.is_empty() {
            continue;
        }
        for used in file.uses.keys() {
            let lower = layer(used) < layer(module);
            if top(used) != top(module) && !lower {
                wrong.push(format!("{module} imports {used}:"));
                wrong.extend(wheres(file, used));
            }
        }
    }
    wrong
}

/// Each cycle of imports, with where each of its imports is written: the first cycle found, then
/// again without the import that closed it, until none is left.
fn cycles(graph: &Graph) -> Vec<String> {
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
    let mut edges: BTreeMap<String, BTreeSet<String>> = graph
        .iter()
        .map(|(module, file)| (module.clone(), file.uses.keys().cloned().collect()))
        .collect();
    let mut found = Vec::new();
    'again: loop {
        let mut done = BTreeSet::new();
        for module in graph.keys() {
            if let Some(cycle) = cycle_from(&edges, module, &mut Vec::new(), &mut done) {
                found.push(format!("an import cycle: {}", cycle.join(" -> ")));
                for pair in cycle.windows(2) {
                    found.extend(wheres(&graph[&pair[0]], &pair[1]));
                }
                let closing = &cycle[cycle.len() - 2..];
                edges
                    .get_mut(&closing[0])
                    .expect("a file")
                    .remove(&closing[1]);
                continue 'again;
            }
        }
        return found;
    }
}

/// Where a handler's file holds database work: it names `diesel`, passes a connection (`conn`,
/// `&mut conn`, `&mut *conn`, any name ending in `conn`) to a call, or takes one as a closure's
/// parameter. Handlers parse, call one use-case of `pit` with the database handle, and render.
struct DatabaseWork {
    text: Text,
    found: Vec<String>,
}

/// Whether `expr`, under any `&`, `&mut`, `*` and parentheses, is a variable named like a
/// connection.
fn is_connection(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Reference(r) => is_connection(&r.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => is_connection(&u.expr),
        syn::Expr::Paren(p) => is_connection(&p.expr),
        syn::Expr::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|name| connection_name(&name.to_string())),
        _ => false,
    }
}

fn connection_name(name: &str) -> bool {
    name == "conn" || name.ends_with("_conn")
}

impl DatabaseWork {
    fn note(&mut self, what: &str, needle: &str) {
        let line = self
            .text
            .line_of(needle)
            .map_or_else(String::new, |l| format!(":{l}"));
        self.found.push(format!("{line}: {what}"));
    }

    fn arguments<'a>(&mut self, callee: &str, args: impl IntoIterator<Item = &'a syn::Expr>) {
        if args.into_iter().any(is_connection) {
            self.note(&format!("{callee}(...) is given a connection"), "conn");
        }
    }
}

impl<'ast> Visit<'ast> for DatabaseWork {
    fn visit_item(&mut self, item: &'ast Item) {
        if !for_tests(item_attrs(item)) {
            visit::visit_item(self, item);
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut leaves = Vec::new();
        leaves_of(&item.tree, &mut Vec::new(), &mut leaves);
        if leaves
            .iter()
            .any(|leaf| leaf.first().is_some_and(|m| m == "diesel"))
        {
            self.note(&format!("use {}", render(&item.tree)), "usediesel");
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.first().is_some_and(|s| s.ident == "diesel") {
            let text: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.note(&format!("names {}", text.join("::")), "diesel::");
        }
        visit::visit_path(self, path);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        let callee = match &*call.func {
            syn::Expr::Path(p) => p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect::<Vec<_>>()
                .join("::"),
            _ => "a call".to_owned(),
        };
        self.arguments(&callee, &call.args);
        visit::visit_expr_call(self, call);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        self.arguments(&format!(".{}", call.method), &call.args);
        visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
        let takes_connection = closure.inputs.iter().any(|input| {
            let pat = match input {
                syn::Pat::Type(typed) => &*typed.pat,
                other => other,
            };
            matches!(pat, syn::Pat::Ident(i) if connection_name(&i.ident.to_string()))
        });
        if takes_connection {
            self.note("a closure takes a connection", "|conn");
        }
        visit::visit_expr_closure(self, closure);
    }
}

/// The database work in `source` (a file of `src/web`), a line each.
fn database_work(path: &str, source: &str) -> Vec<String> {
    let file = syn::parse_file(source).unwrap_or_else(|e| panic!("{path} does not parse: {e}"));
    let mut work = DatabaseWork {
        text: Text::of(source),
        found: Vec::new(),
    };
    work.visit_file(&file);
    work.found
        .into_iter()
        .map(|found| format!("    {path}{found}"))
        .collect()
}

#[test]
fn web_handlers_hold_no_connection_and_name_no_diesel() {
    let mut paths = Vec::new();
    files(&src().join("web"), &mut paths);
    paths.sort();
    let mut found = Vec::new();
    for path in &paths {
        let shown = Path::new("src").join(path.strip_prefix(src()).expect("under src"));
        let text = fs::read_to_string(path).expect("a readable source file");
        found.extend(database_work(&shown.display().to_string(), &text));
    }
    assert!(
        found.is_empty(),
        "database work in src/web (move it into a use-case of src/pit):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_web_check_sees_connections_and_diesel() {
    for text in [
        "async fn h(state: S) { state.db(move |conn| Ok(users::find(conn, id)?)).await; }",
        "fn f(pool: &Pool) { let mut conn = pool.get(); tables(&mut conn, None); }",
        "fn f(conn: &mut C) { x::y(&mut *conn); }",
        "fn f(read_conn: &mut C) { read_conn.query(); q(read_conn); }",
        "fn f() { run(|conn: &mut C| g()); }",
        "use diesel::PgConnection;",
        "use {std::io, diesel::{self, RunQueryDsl}};",
        "fn f() -> diesel::QueryResult<()> { todo!() }",
        "fn f() { let _ = diesel::sql_query(\"SELECT 1\"); }",
    ] {
        assert!(
            !database_work("<web>", text).is_empty(),
            "not seen in {text:?}"
        );
    }
    let clean = "//! Mentions `diesel` and `(conn` in a comment only.\n\
                 fn f(req: &HttpRequest, state: &S) {\n\
                     let connections = req.connection_info();\n\
                     pit::staff::list(&state.db, connections);\n\
                     let _ = \"diesel::x(conn)\";\n\
                 }\n\
                 #[cfg(test)]\n\
                 mod tests {\n\
                     use diesel::PgConnection;\n\
                 }\n";
    assert_eq!(database_work("<web>", clean), Vec::<String>::new());
}

/// The `#[error("...")]` texts of `source` (a file of `src/db`) that read as words for people,
/// a line each: a sentence (a capital first letter, or a closing full stop). `db` holds queries
/// and rows: its errors are facts with data, displayed at most as a terse note for the operators'
/// logs; what staff read is worded by the use-cases above it.
fn worded_errors(path: &str, source: &str) -> Vec<String> {
    struct Errors {
        text: Text,
        found: Vec<String>,
    }
    impl<'ast> Visit<'ast> for Errors {
        fn visit_attribute(&mut self, attr: &'ast Attribute) {
            let first = attr.parse_args_with(|input: ParseStream<'_>| {
                let first: syn::LitStr = input.parse()?;
                // The format's arguments, if any, are not words.
                input.step(|cursor| {
                    let mut rest = *cursor;
                    while let Some((_, next)) = rest.token_tree() {
                        rest = next;
                    }
                    Ok(((), rest))
                })?;
                Ok(first.value())
            });
            if let (true, Ok(text)) = (attr.path().is_ident("error"), first) {
                let sentence = text.starts_with(|c: char| c.is_ascii_uppercase())
                    || text.trim_end().ends_with('.');
                if sentence {
                    let needle: String = format!("{text:?}")
                        .chars()
                        .filter(|c| !c.is_whitespace())
                        .collect();
                    let line = self.text.line_of(&needle);
                    let at = line.map_or_else(String::new, |l| format!(":{l}"));
                    self.found.push(format!("{at}: {text:?}"));
                }
            }
            visit::visit_attribute(self, attr);
        }

        fn visit_item(&mut self, item: &'ast Item) {
            if !for_tests(item_attrs(item)) {
                visit::visit_item(self, item);
            }
        }
    }
    let file = syn::parse_file(source).unwrap_or_else(|e| panic!("{path} does not parse: {e}"));
    let mut errors = Errors {
        text: Text::of(source),
        found: Vec::new(),
    };
    errors.visit_file(&file);
    errors
        .found
        .into_iter()
        .map(|found| format!("    {path}{found}"))
        .collect()
}

#[test]
fn db_errors_are_facts_not_words_for_people() {
    let mut paths = Vec::new();
    files(&src().join("db"), &mut paths);
    // The private cluster's starter answers the operator starting the app (how to install
    // PostgreSQL), never staff.
    paths.retain(|path| !path.ends_with("db/embedded.rs"));
    paths.sort();
    let mut found = Vec::new();
    for path in &paths {
        let shown = Path::new("src").join(path.strip_prefix(src()).expect("under src"));
        let text = fs::read_to_string(path).expect("a readable source file");
        found.extend(worded_errors(&shown.display().to_string(), &text));
    }
    assert!(
        found.is_empty(),
        "errors of src/db worded for people (make them facts and word them in a use-case):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_db_check_sees_worded_errors() {
    for text in [
        "enum E { #[error(\"No such table.\")] NoSuchTable }",
        "enum E { #[error(\"{code} already has {name} signed on.\")] Taken { code: String, name: String } }",
        "#[derive(thiserror::Error)]\n#[error(\"Enter a name of 1 to 80 characters\", )]\nstruct BadName;",
        "enum E {\n    #[error(\n        \"A profile named {0:?} already exists\"\n    )]\n    Taken(String),\n}",
    ] {
        assert!(!worded_errors("<db>", text).is_empty(), "not seen in {text:?}");
    }
    let clean = "enum E {\n\
                     #[error(\"no such table\")] NoSuchTable,\n\
                     #[error(\"gaming day {day} is closed\")] DayClosed { day: D },\n\
                     #[error(\"{0:?} is not a step of a slip\")] Step(String),\n\
                     #[error(transparent)] Query(E),\n\
                 }\n\
                 #[cfg(test)]\n\
                 mod tests { #[derive(E)] #[error(\"Worded, in a test.\")] struct T; }\n";
    assert_eq!(worded_errors("<db>", clean), Vec::<String>::new());
}

#[test]
fn no_module_imports_a_module_above_its_layer() {
    let wrong = against_layers(&graph());
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_files_import_each_other() {
    // Fails today (issue 34): `reports::export::verify` and the exports it checks (`events`,
    // `report`, `rounds`) import each other; the message names each cycle and each of its imports.
    let cycles = cycles(&graph());
    assert!(
        cycles.is_empty(),
        "files importing each other:\n{}",
        cycles.join("\n")
    );
}

// The check itself, on texts given to it as they would be files of `src/`.

const MODULES: &[&str] = &[
    "",
    "db",
    "db::rounds",
    "db::rounds::rows",
    "recording",
    "recording::entry",
    "recording::form",
    "reports",
    "reports::export",
    "reports::export::rounds",
    "reports::export::verify",
    "rules",
    "web",
    "web::pages",
];

/// What the check reports of files given as (module, source text): against the layers, cycles.
fn check(sources: &[(&str, &str)]) -> (Vec<String>, Vec<String>) {
    let modules: BTreeSet<String> = MODULES.iter().map(|m| m.to_string()).collect();
    let sources: Vec<(String, String, String)> = sources
        .iter()
        .map(|(module, text)| (format!("<{module}>"), module.to_string(), text.to_string()))
        .collect();
    let graph = graph_of(&sources, &modules);
    (against_layers(&graph), cycles(&graph))
}

#[test]
fn the_check_sees_an_import_after_a_test_module() {
    let (wrong, _) = check(&[(
        "recording::entry",
        "pub fn place() {}\n\
         \n\
         #[cfg(test)]\n\
         mod tests {\n\
             use super::*;\n\
         }\n\
         \n\
         use crate::web::pages::Page;\n",
    )]);
    assert_eq!(
        wrong,
        [
            "recording::entry imports web::pages:",
            "    <recording::entry>:8: use crate::web::pages::Page"
        ]
    );
}

#[test]
fn the_check_resolves_super() {
    let (_, cycles) = check(&[
        ("reports::export", "pub mod rounds;\npub mod verify;\n"),
        ("reports::export::rounds", "use super::verify::Checker;\n"),
        (
            "reports::export::verify",
            "use super::{rounds::RoundsCheck, Manifest};\n",
        ),
    ]);
    assert_eq!(
        cycles,
        [
            "an import cycle: reports::export::rounds -> reports::export::verify -> reports::export::rounds",
            "    <reports::export::rounds>:1: use super::verify::Checker",
            "    <reports::export::verify>:1: use super::{rounds::RoundsCheck, Manifest}",
        ]
    );
    let (wrong, _) = check(&[("recording::entry", "use super::super::web::pages;\n")]);
    assert_eq!(
        wrong,
        [
            "recording::entry imports web::pages:",
            "    <recording::entry>:1: use super::super::web::pages"
        ]
    );
    // `super` in a module written inline is its parent in the file.
    let (wrong, _) = check(&[(
        "recording",
        "mod inner {\n    use super::super::web::pages;\n}\n",
    )]);
    assert_eq!(
        wrong,
        [
            "recording imports web::pages:",
            "    <recording>:2: use super::super::web::pages"
        ]
    );
}

#[test]
fn the_check_sees_into_use_groups() {
    let (wrong, _) = check(&[(
        "recording::entry",
        "use crate::{db::rounds::rows::RoundRow, web::{pages::{self, Page}}};\n",
    )]);
    assert_eq!(
        wrong,
        [
            "recording::entry imports web::pages:",
            "    <recording::entry>:1: use crate::{db::rounds::rows::RoundRow, web::{pages::{self, Page}}}",
        ]
    );
}

#[test]
fn the_check_sees_paths_in_code_macros_and_attributes() {
    for text in [
        "fn f() { crate::web::pages::page(); }",
        "fn f() -> crate::web::pages::Page { todo!() }",
        "fn f() { let _ = Vec::<crate::web::pages::Page>::new(); }",
        "fn f() -> String { format!(\"{}\", crate::web::pages::title()) }",
        "#[derive(Debug, thiserror::Error)]\nenum E {\n    #[error(\"{}\", crate::web::pages::title())]\n    A,\n}",
        "use crate::web::pages as shown;",
        "use crate::web::pages::*;",
        "use crate::web::*;",
        "pub use self::super::super::web::pages::Page;",
        "macro_rules! m { () => { $crate::web::pages::page() }; }",
        "#[cfg(not(test))]\nuse crate::web::pages::Page;",
    ] {
        let (wrong, _) = check(&[("recording::entry", text)]);
        assert!(
            wrong.first().is_some_and(|w| w.starts_with("recording::entry imports web")),
            "not seen in {text:?}: {wrong:?}"
        );
    }
}

#[test]
fn the_check_passes_code_within_its_layers() {
    let (wrong, cycles) = check(&[
        (
            "recording::entry",
            "//! Mentions [`crate::web::pages`] in a comment only.\n\
             use crate::db::rounds::{self, rows::RoundRow};\n\
             use super::form;\n\
             use self::inner::Helper;\n\
             // use crate::web::pages::Page;\n\
             /// See [`crate::web::pages::Page`].\n\
             pub(crate) fn f(row: &RoundRow) -> crate::rules::Money {\n\
                 let _ = \"crate::web::pages\";\n\
                 rounds::count(row);\n\
                 crate::db::rounds::rows::read(form::Field::A)\n\
             }\n\
             mod inner {\n\
                 pub struct Helper(super::super::form::Field);\n\
             }\n\
             #[cfg(test)]\n\
             mod tests {\n\
                 use super::*;\n\
                 use crate::web::pages::Page;\n\
             }\n\
             #[cfg(test)]\n\
             fn in_tests() -> crate::web::pages::Page { todo!() }\n\
             /// Only the tests compile this.\n\
             #[cfg(all(test, feature = \"slow\"))]\n\
             mod slow;\n",
        ),
        ("recording::entry::slow", "use crate::web::pages::Page;\n"),
        (
            "recording::form",
            "use crate::db::rounds::rows::RoundRow;\n",
        ),
    ]);
    assert_eq!(
        (wrong, cycles),
        (Vec::<String>::new(), Vec::<String>::new())
    );
}

#[test]
fn the_check_names_modules_by_their_longest_prefix() {
    let modules: BTreeSet<String> = MODULES.iter().map(|m| m.to_string()).collect();
    let found = imports(
        "web",
        "use crate::db::rounds::rows::{self, RoundRow};\nfn f() { let _x = crate::recording::run(); }",
        &modules,
    );
    let named: BTreeSet<&str> = found.imports.iter().map(|i| i.module.as_str()).collect();
    assert_eq!(named, ["db::rounds::rows", "recording"].into());
}
