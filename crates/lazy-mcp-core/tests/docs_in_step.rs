//! The docs that describe the engine's contract stay in step with the code (in
//! the spirit of rust-analyzer's check that `lsp/ext.rs` and its doc agree):
//! - docs/engine-events-effects.md lists every `Event` and `Effect` variant,
//!   and no variant that is gone;
//! - ARCHITECTURE.md's "Server states" tables name every `ServerState`
//!   variant and every `Trigger` of `next_state`, and nothing else.
//!
//! The variants are read from the source text, so a new variant fails here
//! until its doc row is written. Each failure names what is missing and where.

// The helpers fail the test with what is wrong (clippy counts only #[test] fns as tests).
#![allow(clippy::panic)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(relative: &str) -> String {
    let path = repo_root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {relative}: {e}"))
}

/// The variant names of `pub enum NAME` in `source`: the identifiers that open
/// a line at the enum body's own depth.
fn enum_variants(source: &str, name: &str, file: &str) -> Vec<String> {
    let header = format!("pub enum {name} {{");
    let start = source
        .find(&header)
        .unwrap_or_else(|| panic!("{file}: `{header}` not found"));
    let mut variants = Vec::new();
    let mut depth = 0i32;
    for line in source[start..].lines() {
        let trimmed = line.trim_start();
        if depth == 1 && !trimmed.starts_with("//") && !trimmed.starts_with('#') {
            let ident: String = trimmed
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if ident.starts_with(|c: char| c.is_ascii_uppercase()) {
                variants.push(ident);
            }
        }
        for c in line.chars() {
            match c {
                '{' | '(' => depth += 1,
                '}' | ')' => depth -= 1,
                _ => {}
            }
        }
        if depth == 0 && !variants.is_empty() {
            break;
        }
    }
    assert!(
        !variants.is_empty(),
        "{file}: no variants read from `{name}`"
    );
    variants
}

fn camel_case(variant: &str) -> String {
    let mut chars = variant.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

fn upper_snake(variant: &str) -> String {
    let mut out = String::new();
    for (i, c) in variant.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// The lines of `doc` under the heading `heading` (up to the next heading of
/// the same or a higher level), with their 1-based line numbers.
fn section<'a>(doc: &'a str, heading: &str, file: &str) -> Vec<(usize, &'a str)> {
    let level = heading.chars().take_while(|c| *c == '#').count();
    let mut lines = doc.lines().enumerate();
    let found = lines.by_ref().any(|(_, line)| line.trim_end() == heading);
    assert!(found, "{file}: heading `{heading}` not found");
    lines
        .take_while(|(_, line)| {
            let hashes = line.chars().take_while(|c| *c == '#').count();
            !(hashes > 0 && hashes <= level && line.chars().nth(hashes) == Some(' '))
        })
        .map(|(i, line)| (i + 1, line))
        .collect()
}

/// Every `"type":"NAME"` in the table rows of a section.
fn doc_types(lines: &[(usize, &str)]) -> BTreeSet<String> {
    let mut types = BTreeSet::new();
    for (_, line) in lines.iter().filter(|(_, l)| l.starts_with('|')) {
        let mut rest = *line;
        while let Some(at) = rest.find("\"type\":\"") {
            rest = &rest[at + 8..];
            let name: String = rest.chars().take_while(|c| *c != '"').collect();
            types.insert(name);
        }
    }
    types
}

/// Both ways: what the code has and the doc lacks, and the other way round.
fn differences(
    code: &BTreeSet<String>,
    doc: &BTreeSet<String>,
    code_where: &str,
    doc_where: &str,
) -> Vec<String> {
    let mut problems = Vec::new();
    for missing in code.difference(doc) {
        problems.push(format!(
            "{doc_where} has no row for `{missing}` ({code_where} has it): add one"
        ));
    }
    for stale in doc.difference(code) {
        problems.push(format!(
            "{doc_where} lists `{stale}`, which {code_where} does not have: remove or rename it"
        ));
    }
    problems
}

fn assert_no_problems(problems: Vec<String>) {
    assert!(
        problems.is_empty(),
        "the docs are out of step with the code:\n- {}",
        problems.join("\n- ")
    );
}

#[test]
fn engine_events_effects_doc_lists_exactly_the_event_and_effect_variants() {
    const DOC: &str = "docs/engine-events-effects.md";
    let doc = read(DOC);
    let mut problems = Vec::new();
    for (enum_name, file, heading) in [
        (
            "Event",
            "crates/lazy-mcp-core/src/engine/events.rs",
            "## Events (host → engine)",
        ),
        (
            "Effect",
            "crates/lazy-mcp-core/src/engine/effects.rs",
            "## Effects (engine → host)",
        ),
    ] {
        let code: BTreeSet<String> = enum_variants(&read(file), enum_name, file)
            .iter()
            .map(|v| camel_case(v))
            .collect();
        let lines = section(&doc, heading, DOC);
        let first_line = lines.first().map(|(n, _)| *n).unwrap_or_default();
        let documented = doc_types(&lines);
        problems.extend(differences(
            &code,
            &documented,
            &format!("`{enum_name}` in {file}"),
            &format!("{DOC}, the table under `{heading}` (line {first_line})"),
        ));
    }
    assert_no_problems(problems);
}

#[test]
fn architecture_state_tables_name_exactly_the_server_states_and_triggers() {
    const DOC: &str = "ARCHITECTURE.md";
    const STATE_RS: &str = "crates/lazy-mcp-core/src/engine/server/state.rs";
    let doc = read(DOC);
    let source = read(STATE_RS);
    let lines = section(&doc, "## Server states", DOC);
    let first_line = lines.first().map(|(n, _)| *n).unwrap_or_default();
    let rows: Vec<Vec<&str>> = lines
        .iter()
        .filter(|(_, l)| l.starts_with('|') && !l.starts_with("|---"))
        .map(|(_, l)| l.split('|').map(str::trim).collect())
        .collect();
    // The states table's first column: `FAILED {error, retryAtMs?}` → FAILED,
    // `CATALOGUED ("CATALOGUED ONLY")` → CATALOGUED, `NEEDS AUTH` → NEEDS_AUTH.
    let mut states = BTreeSet::new();
    let mut triggers = BTreeSet::new();
    let mut in_states = false;
    let mut in_triggers = false;
    for cells in &rows {
        let first = cells.get(1).copied().unwrap_or_default();
        match first {
            "State" => (in_states, in_triggers) = (true, false),
            "From" => (in_states, in_triggers) = (false, true),
            _ if in_states => {
                let name = first.split([' ', '{', '(']).collect::<Vec<_>>();
                let name = match name.as_slice() {
                    ["NEEDS", "AUTH", ..] => "NEEDS_AUTH".to_string(),
                    [word, ..] => word.to_string(),
                    [] => String::new(),
                };
                states.insert(name);
            }
            _ if in_triggers => {
                let cell = cells.get(2).copied().unwrap_or_default();
                let name: String = cell
                    .trim_matches('`')
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                triggers.insert(name);
            }
            _ => {}
        }
    }
    let code_states: BTreeSet<String> = enum_variants(&source, "ServerState", STATE_RS)
        .iter()
        .map(|v| upper_snake(v))
        .collect();
    let code_triggers: BTreeSet<String> = enum_variants(&source, "Trigger", STATE_RS)
        .into_iter()
        .collect();
    let mut problems = differences(
        &code_states,
        &states,
        &format!("`ServerState` in {STATE_RS}"),
        &format!("{DOC}, the states table under `## Server states` (line {first_line})"),
    );
    problems.extend(differences(
        &code_triggers,
        &triggers,
        &format!("`Trigger` in {STATE_RS}"),
        &format!("{DOC}, the transitions table under `## Server states` (line {first_line})"),
    ));
    assert_no_problems(problems);
}

#[test]
fn the_variant_reader_reads_enums_with_fields_and_attributes() {
    let source = "pub enum Demo {\n    /// doc\n    First,\n    #[serde(rename = \"x\")]\n    Second { a: u8, b: Option<(u8, u8)> },\n    Third(u8),\n}\npub enum Other { Nope }\n";
    assert_eq!(
        enum_variants(source, "Demo", "demo.rs"),
        ["First", "Second", "Third"]
    );
    assert_eq!(upper_snake("NeedsAuth"), "NEEDS_AUTH");
    assert_eq!(camel_case("ClientMessageTooLarge"), "clientMessageTooLarge");
}
