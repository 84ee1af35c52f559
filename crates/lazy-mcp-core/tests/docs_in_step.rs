//! The docs that describe the engine's contract stay in step with the code (in
//! the spirit of rust-analyzer's check that `lsp/ext.rs` and its doc agree):
//! - docs/engine-events-effects.md lists every `Event` and `Effect` variant,
//!   and no variant that is gone; each variant's row names every field a host
//!   sees (its serde name, camelCase);
//! - ARCHITECTURE.md's "Server states" tables name every `ServerState`
//!   variant and every `Trigger` of `next_state`, and nothing else; its
//!   transitions table has exactly the From → To pairs `next_state` allows.
//!
//! The variants and fields are read from the source text, the transitions from
//! `next_state` itself, so a new variant, field or transition fails here until
//! its doc row is written. Each failure names what is missing and where.

// The helpers fail the test with what is wrong (clippy counts only #[test] fns as tests).
#![allow(clippy::panic)]
// The field reader walks the source by index, always bounds-checked first.
#![allow(clippy::indexing_slicing)]

use lazy_mcp_core::engine::state::{next_state, ServerState, Trigger};
use std::collections::{BTreeMap, BTreeSet};
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
    const STATE_RS: &str = "crates/lazy-mcp-core/src/engine/state.rs";
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

/// Each variant of `pub enum NAME` in `source` with its named fields, in
/// order: identifiers at the enum body's depth are variants, identifiers
/// followed by one `:` inside a variant's braces are its fields. Comments and
/// attributes are skipped; `<…>`, `(…)` and `[…]` nest like braces.
fn enum_fields(source: &str, name: &str, file: &str) -> Vec<(String, Vec<String>)> {
    let header = format!("pub enum {name} {{");
    let start = source
        .find(&header)
        .unwrap_or_else(|| panic!("{file}: `{header}` not found"))
        + header.len()
        - 1;
    let chars: Vec<char> = source[start..].chars().collect();
    let mut variants: Vec<(String, Vec<String>)> = Vec::new();
    let mut openers: Vec<char> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '#' && next == Some('[') {
            let mut depth = 0;
            while i < chars.len() {
                match chars[i] {
                    '[' => depth += 1,
                    ']' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            i += 1;
            continue;
        }
        match c {
            '{' | '(' | '<' | '[' => openers.push(c),
            '}' | ')' | '>' | ']' => {
                openers.pop();
                if openers.is_empty() {
                    break;
                }
            }
            _ if c.is_ascii_alphabetic() || c == '_' => {
                let begin = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let ident: String = chars[begin..i].iter().collect();
                let mut after = i;
                while after < chars.len() && chars[after].is_whitespace() {
                    after += 1;
                }
                let colon = chars.get(after) == Some(&':') && chars.get(after + 1) != Some(&':');
                if openers == ['{'] && ident.starts_with(|c: char| c.is_ascii_uppercase()) {
                    variants.push((ident, Vec::new()));
                } else if openers == ['{', '{'] && colon {
                    if let Some((_, fields)) = variants.last_mut() {
                        fields.push(ident);
                    }
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    assert!(
        !variants.is_empty(),
        "{file}: no variants read from `{name}`"
    );
    variants
}

/// `retry_at_ms` → `retryAtMs` (serde's `rename_all_fields = "camelCase"`).
fn camel_field(field: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in field.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `word` appears in `text` as a whole identifier.
fn mentions(text: &str, word: &str) -> bool {
    let ident = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    text.match_indices(word).any(|(at, _)| {
        !ident(text[..at].chars().next_back()) && !ident(text[at + word.len()..].chars().next())
    })
}

#[test]
fn engine_events_effects_doc_rows_name_every_field() {
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
        // Each type's rows (a row may show several types), joined.
        let mut rows: BTreeMap<String, (usize, String)> = BTreeMap::new();
        for (number, line) in section(&doc, heading, DOC) {
            for name in doc_types(&[(number, line)]) {
                let entry = rows.entry(name).or_insert((number, String::new()));
                entry.1.push_str(line);
            }
        }
        let variants = enum_fields(&read(file), enum_name, file);
        assert!(
            variants
                .iter()
                .filter(|(_, fields)| !fields.is_empty())
                .count()
                > 5,
            "{file}: hardly any fields read from `{enum_name}`: the field reader is broken"
        );
        for (variant, fields) in variants {
            let Some((line, text)) = rows.get(&camel_case(&variant)) else {
                continue; // a missing row is the variants test's finding
            };
            for field in fields.iter().map(|f| camel_field(f)) {
                if !mentions(text, &field) {
                    problems.push(format!(
                        "{DOC} line {line}: the row of `{}` does not mention its field `{field}` (`{enum_name}::{variant}` in {file}): show it in the JSON or say what it is",
                        camel_case(&variant)
                    ));
                }
            }
        }
    }
    assert_no_problems(problems);
}

/// The states named in a cell (`NEEDS AUTH` → NEEDS_AUTH; `any` → all of them).
fn states_in(cell: &str, all: &BTreeSet<String>) -> BTreeSet<String> {
    if cell.trim() == "any" {
        return all.clone();
    }
    let cell = cell.replace("NEEDS AUTH", "NEEDS_AUTH");
    cell.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| all.contains(*word))
        .map(str::to_string)
        .collect()
}

#[test]
fn architecture_transitions_table_has_exactly_the_pairs_next_state_allows() {
    const DOC: &str = "ARCHITECTURE.md";
    const STATE_RS: &str = "crates/lazy-mcp-core/src/engine/state.rs";
    let doc = read(DOC);
    let source = read(STATE_RS);
    let failed = |retry_at_ms| ServerState::Failed {
        error: "e".into(),
        retry_at_ms,
    };
    let states = [
        ServerState::Disabled,
        ServerState::Dormant,
        ServerState::Pending,
        ServerState::Cataloguing,
        ServerState::Catalogued,
        ServerState::Connecting,
        ServerState::Connected,
        failed(Some(1)),
        failed(None),
        ServerState::NeedsAuth,
    ];
    let triggers = [
        Trigger::Disable,
        Trigger::MakeDormant,
        Trigger::Enable { warm: true },
        Trigger::Enable { warm: false },
        Trigger::Wake,
        Trigger::WarmCatalogueFound,
        Trigger::NeedsCatalogue,
        Trigger::CatalogueStarted,
        Trigger::CatalogueSucceeded,
        Trigger::ConnectStarted,
        Trigger::Connected,
        Trigger::Stopped,
        Trigger::Fail {
            error: "e".into(),
            retry_at_ms: Some(1),
        },
        Trigger::Fail {
            error: "e".into(),
            retry_at_ms: None,
        },
        Trigger::AuthRequired,
        Trigger::RetryDue { warm: true },
        Trigger::RetryDue { warm: false },
    ];
    // The state's `kind` as hosts see it (NEEDS_AUTH, …).
    let label = |state: &ServerState| -> String {
        serde_json::to_value(state)
            .ok()
            .and_then(|v| v["kind"].as_str().map(str::to_string))
            .unwrap_or_else(|| panic!("{state:?} has no `kind`"))
    };
    let trigger_name = |trigger: &Trigger| -> String {
        format!("{trigger:?}")
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect()
    };
    // The lists above cover every variant (a new one must be added here too).
    let listed: BTreeSet<String> = triggers.iter().map(trigger_name).collect();
    let code_triggers: BTreeSet<String> = enum_variants(&source, "Trigger", STATE_RS)
        .into_iter()
        .collect();
    assert_eq!(
        listed, code_triggers,
        "add the new `Trigger` to this test's list"
    );
    let all: BTreeSet<String> = states.iter().map(label).collect();
    let code_states: BTreeSet<String> = enum_variants(&source, "ServerState", STATE_RS)
        .iter()
        .map(|v| upper_snake(v))
        .collect();
    assert_eq!(
        all, code_states,
        "add the new `ServerState` to this test's list"
    );

    // (From, Trigger) → the states it may lead to, from the code and from the doc.
    let mut code: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for state in &states {
        for trigger in &triggers {
            if let Ok(to) = next_state(state, trigger) {
                code.entry((label(state), trigger_name(trigger)))
                    .or_default()
                    .insert(label(&to));
            }
        }
    }
    let mut documented: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    let mut in_triggers = false;
    for (_, line) in section(&doc, "## Server states", DOC) {
        if !line.starts_with('|') || line.starts_with("|---") {
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let first = cells.get(1).copied().unwrap_or_default();
        if first == "State" || first == "From" {
            in_triggers = first == "From";
            continue;
        }
        if !in_triggers {
            continue;
        }
        let trigger: String = cells
            .get(2)
            .copied()
            .unwrap_or_default()
            .trim_matches('`')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let to = states_in(cells.get(3).copied().unwrap_or_default(), &all);
        for from in states_in(first, &all) {
            documented
                .entry((from, trigger.clone()))
                .or_default()
                .extend(to.iter().cloned());
        }
    }
    let mut problems = Vec::new();
    for ((from, trigger), to) in &code {
        match documented.get(&(from.clone(), trigger.clone())) {
            None => problems.push(format!(
                "{DOC}'s transitions table has no {from} on `{trigger}` (→ {}), which `next_state` in {STATE_RS} allows: add {from} to the row's From",
                to.iter().cloned().collect::<Vec<_>>().join(", ")
            )),
            Some(doc_to) if doc_to != to => problems.push(format!(
                "{DOC}'s transitions table: {from} on `{trigger}` goes to {}, but `next_state` in {STATE_RS} gives {}: fix the row's To",
                doc_to.iter().cloned().collect::<Vec<_>>().join(", "),
                to.iter().cloned().collect::<Vec<_>>().join(", ")
            )),
            Some(_) => {}
        }
    }
    for (from, trigger) in documented.keys() {
        if !code.contains_key(&(from.clone(), trigger.clone())) {
            problems.push(format!(
                "{DOC}'s transitions table has {from} on `{trigger}`, which `next_state` in {STATE_RS} refuses: remove {from} from the row's From (or allow it in the code)"
            ));
        }
    }
    assert_no_problems(problems);
}

#[test]
fn the_field_reader_reads_variants_fields_and_skips_types_and_attributes() {
    let source = "pub enum Demo {\n    /// doc: not: fields\n    First,\n    #[serde(rename = \"x\")]\n    Second { a_b: u8, c: Option<Vec<(u8, u8)>> },\n    Third(u8),\n    Fourth {\n        #[serde(default)]\n        path: crate::x::Y<Z>,\n    },\n}\npub enum Other { Nope { x: u8 } }\n";
    assert_eq!(
        enum_fields(source, "Demo", "demo.rs"),
        [
            ("First".to_string(), vec![]),
            (
                "Second".to_string(),
                vec!["a_b".to_string(), "c".to_string()]
            ),
            ("Third".to_string(), vec![]),
            ("Fourth".to_string(), vec!["path".to_string()]),
        ]
    );
    assert_eq!(camel_field("retry_at_ms"), "retryAtMs");
    assert!(mentions("| `{\"conn\":1}` | x |", "conn"));
    assert!(!mentions("| `{\"connection\":1}` |", "conn"));
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
