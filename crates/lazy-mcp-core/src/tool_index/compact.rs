//! What the model reads in `index` mode instead of full schemas: one line per
//! tool, grouped by server, and a token estimate to decide when to switch.

use crate::protocol::listed_item::ListedItem;
use crate::protocol::message_fields::members;
use serde_json::Value;

/// Longest summary, in characters, before it is cut at a word boundary.
pub const SUMMARY_MAX_CHARS: usize = 80;

/// The end of the first sentence of `text` (whitespace already collapsed): a
/// `.`, `!` or `?` followed by a space and an upper-case letter or a digit, or
/// the end. `e.g. this` and `v1.2` do not end a sentence.
fn first_sentence(text: &str) -> &str {
    for (i, c) in text.char_indices() {
        if matches!(c, '.' | '!' | '?') {
            let rest = text.get(i + c.len_utf8()..).unwrap_or("");
            if rest.is_empty() {
                return text.get(..i).unwrap_or(text);
            }
            let mut after = rest.chars();
            if after.next() == Some(' ')
                && after
                    .next()
                    .is_some_and(|n| n.is_uppercase() || n.is_numeric())
            {
                return text.get(..i).unwrap_or(text);
            }
        }
    }
    text
}

/// The first paragraph, stopping before a bullet list or a `Key:` heading line.
fn first_paragraph(text: &str) -> String {
    let mut lines = Vec::new();
    for line in text.trim().lines() {
        let line = line.trim();
        let bullet = line.starts_with(['-', '*', '•']) || line.starts_with("1.");
        if line.is_empty() || (bullet && !lines.is_empty()) {
            if lines.is_empty() {
                continue;
            }
            break;
        }
        lines.push(line);
    }
    lines
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Cuts `text` to at most `max` characters at a word boundary, marking the cut
/// with `…`.
fn trim_to(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    let at_word = match cut.rfind(' ') {
        Some(space) if space > max / 2 => cut.get(..space).unwrap_or(&cut),
        _ => cut.as_str(),
    };
    format!(
        "{}…",
        at_word.trim_end_matches([' ', ',', ';', ':', '-', '('])
    )
}

/// Whether the tool says it is deprecated (MCP has no field for it): its
/// title says so ("Read File (Deprecated)"), or its description starts with
/// "Deprecated" or shouts "DEPRECATED". A description that merely mentions a
/// deprecated *other* thing ("replaces the deprecated foo") does not count.
pub(crate) fn is_deprecated(tool: &Value) -> bool {
    is_deprecated_item(&ListedItem::read(tool))
}

fn is_deprecated_item(tool: &ListedItem) -> bool {
    let description = tool.description.unwrap_or("").trim_start();
    tool.display_title()
        .is_some_and(|t| t.to_lowercase().contains("deprecated"))
        || description
            .get(..10)
            .is_some_and(|head| head.eq_ignore_ascii_case("deprecated"))
        || description
            .split(|c: char| !c.is_alphanumeric())
            .any(|word| word == "DEPRECATED")
}

/// A one-line summary of an MCP tool for indexes and search results: the first
/// sentence of its description (else its title), whitespace collapsed, no
/// trailing period, at most [`SUMMARY_MAX_CHARS`] characters, ending in
/// `(deprecated)` when the description says so further on.
pub fn one_line_summary(tool: &Value) -> String {
    let tool = ListedItem::read(tool);
    let description = tool.description.unwrap_or("");
    let paragraph = first_paragraph(description);
    let source = if paragraph.is_empty() {
        tool.display_title().unwrap_or("").to_string()
    } else {
        paragraph
    };
    let sentence = first_sentence(source.trim()).trim_end_matches(['.', ' ']);
    const MARK: &str = " (deprecated)";
    if is_deprecated_item(&tool) && !sentence.to_lowercase().contains("deprecated") {
        let room = SUMMARY_MAX_CHARS - MARK.chars().count();
        format!("{}{MARK}", trim_to(sentence, room))
    } else {
        trim_to(sentence, SUMMARY_MAX_CHARS)
    }
}

/// The compact index the model sees in `index` mode: for each server (in order
/// of first appearance) a `# server` heading, then one `name — summary` line
/// per tool. A tool without a description is listed by name alone.
pub fn render_compact_index(entries: &[(&str, &Value)]) -> String {
    let mut out = String::new();
    for (server, tools) in group_by_server(entries) {
        out.push_str("# ");
        out.push_str(server);
        out.push('\n');
        for tool in tools {
            let name = ListedItem::read(tool).name.unwrap_or("?");
            out.push_str(name);
            let summary = one_line_summary(tool);
            if !summary.is_empty() {
                out.push_str(" — ");
                out.push_str(&summary);
            }
            out.push('\n');
        }
    }
    out
}

/// Estimated tokens one tool costs the model in `full` mode: its definition
/// as clients hand it over (`name`, `description`, `inputSchema`, compact
/// JSON). What `auto` compares with its budget and diagnostics shows as
/// "tokens in full mode".
pub fn estimate_definition_tokens(tool: &Value) -> usize {
    // These three members as sent, of any type (`null` when absent), in this order.
    let mut definition = [
        ("name", &Value::Null),
        ("description", &Value::Null),
        ("inputSchema", &Value::Null),
    ];
    for (key, member) in members(Some(tool)) {
        if let Some(slot) = definition.iter_mut().find(|(name, _)| *name == key) {
            slot.1 = member;
        }
    }
    let definition: serde_json::Map<String, Value> = definition
        .into_iter()
        .map(|(name, member)| (name.to_string(), member.clone()))
        .collect();
    estimate_tokens(&Value::Object(definition).to_string())
}

/// How much of each tool the index shows; [`IndexDetail::within_budget`]
/// picks the richest that fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexDetail {
    /// `name — summary`, one line per tool ([`render_compact_index`]).
    Summaries,
    /// Tool names only, one line per server ([`render_names_index`]).
    Names,
}

impl IndexDetail {
    /// `Summaries` when that index costs at most `budget_tokens` (by
    /// [`estimate_tokens`]), else `Names`.
    pub fn within_budget(entries: &[(&str, &Value)], budget_tokens: usize) -> IndexDetail {
        if estimate_tokens(&render_compact_index(entries)) <= budget_tokens {
            IndexDetail::Summaries
        } else {
            IndexDetail::Names
        }
    }

    /// The index text at this detail.
    pub fn render(self, entries: &[(&str, &Value)]) -> String {
        match self {
            IndexDetail::Summaries => render_compact_index(entries),
            IndexDetail::Names => render_names_index(entries),
        }
    }
}

fn group_by_server<'a>(entries: &[(&'a str, &'a Value)]) -> Vec<(&'a str, Vec<&'a Value>)> {
    let mut servers: Vec<(&str, Vec<&Value>)> = Vec::new();
    for (server, tool) in entries {
        match servers.iter_mut().find(|(name, _)| name == server) {
            Some((_, tools)) => tools.push(tool),
            None => servers.push((server, vec![tool])),
        }
    }
    servers
}

/// The smallest index: one `server: tool tool tool` line per server (tool
/// names hold no spaces, so a space separates them at no extra token). For
/// large catalogues, where a summary per tool would cost more than the budget;
/// `search_tools` gives the summaries on demand.
pub fn render_names_index(entries: &[(&str, &Value)]) -> String {
    let mut out = String::new();
    for (server, tools) in group_by_server(entries) {
        out.push_str(server);
        out.push(':');
        for tool in tools {
            out.push(' ');
            out.push_str(ListedItem::read(tool).name.unwrap_or("?"));
        }
        out.push('\n');
    }
    out
}

/// An estimate of the tokens `text` costs a GPT-4o-class tokenizer (o200k):
/// each run of letters costs one token per started 12 letters (a word, with
/// its leading space, is usually one token), each run of digits one per 3,
/// each run of other non-space characters one per 4 (`":{"` merges), spaces
/// nothing. Fitted on the six real servers' tool definitions and the compact
/// index: within 3–7% of o200k in total, ~5–10% per line (see
/// docs/tool-index.md). For deciding when `auto` switches to `index`; the
/// benchmark counts with a real tokenizer.
pub fn estimate_tokens(text: &str) -> usize {
    #[derive(PartialEq, Clone, Copy)]
    enum Run {
        Space,
        Letters,
        Digits,
        Other,
    }
    fn cost(run: Run, len: usize) -> usize {
        match run {
            Run::Letters => len.div_ceil(12),
            Run::Digits => len.div_ceil(3),
            Run::Other => len.div_ceil(4),
            Run::Space => 0,
        }
    }
    let mut tokens = 0usize;
    let mut run = Run::Space;
    let mut run_len = 0usize;
    for c in text.chars() {
        let kind = if c.is_alphabetic() {
            Run::Letters
        } else if c.is_numeric() {
            Run::Digits
        } else if c.is_whitespace() {
            Run::Space
        } else {
            Run::Other
        };
        if kind != run {
            tokens += cost(run, run_len);
            run = kind;
            run_len = 0;
        }
        run_len += 1;
    }
    tokens + cost(run, run_len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn summary_is_the_first_sentence_without_its_period() {
        let tool = json!({"name": "read_file", "description": "Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead."});
        assert_eq!(
            one_line_summary(&tool),
            "Read the complete contents of a file as text (deprecated)"
        );
    }

    #[test]
    fn only_the_tool_itself_being_deprecated_counts() {
        assert!(is_deprecated(&json!({"title": "Read File (Deprecated)"})));
        assert!(is_deprecated(&json!({"description": "Deprecated: use b"})));
        assert!(is_deprecated(
            &json!({"description": "Reads. DEPRECATED: use b"})
        ));
        assert!(!is_deprecated(
            &json!({"description": "Replaces the deprecated read_file"})
        ));
        assert!(!is_deprecated(&json!({"description": "Déprecated"})));
    }

    #[test]
    fn deprecation_said_up_front_is_not_repeated() {
        let tool = json!({"description": "Deprecated alias of read_text_file."});
        assert_eq!(
            one_line_summary(&tool),
            "Deprecated alias of read_text_file"
        );
        let long = json!({"description": format!("{}. DEPRECATED.", "word ".repeat(30))});
        let summary = one_line_summary(&long);
        assert!(summary.ends_with("… (deprecated)"), "{summary}");
        assert!(summary.chars().count() <= SUMMARY_MAX_CHARS);
    }

    #[test]
    fn summary_keeps_abbreviations_and_versions_inside_the_sentence() {
        let tool = json!({"description": "Fetch e.g. a page over HTTP/1.1 quickly. Then more."});
        assert_eq!(
            one_line_summary(&tool),
            "Fetch e.g. a page over HTTP/1.1 quickly"
        );
    }

    #[test]
    fn summary_has_no_newlines_and_stops_before_bullets() {
        let tool = json!({"description": "  Search the web\n  with a query\n\n- bullet one\n- bullet two"});
        assert_eq!(one_line_summary(&tool), "Search the web with a query");
        let tool = json!({"description": "A tool for thinking\n- When to use"});
        assert_eq!(one_line_summary(&tool), "A tool for thinking");
    }

    #[test]
    fn long_summary_is_cut_at_a_word_with_an_ellipsis() {
        let tool = json!({"description": "word ".repeat(40)});
        let summary = one_line_summary(&tool);
        assert!(summary.chars().count() <= SUMMARY_MAX_CHARS, "{summary}");
        assert!(summary.ends_with("word…"), "{summary}");
    }

    #[test]
    fn summary_falls_back_to_the_title_then_to_nothing() {
        assert_eq!(
            one_line_summary(&json!({"name": "x", "title": "Echo Tool"})),
            "Echo Tool"
        );
        assert_eq!(
            one_line_summary(&json!({"name": "x", "annotations": {"title": "Annotated"}})),
            "Annotated"
        );
        assert_eq!(
            one_line_summary(&json!({"name": "x", "description": "  "})),
            ""
        );
    }

    #[test]
    fn compact_index_groups_tools_under_their_server() {
        let a = json!({"name": "git_status", "description": "Shows the working tree status"});
        let b = json!({"name": "get_current_time", "description": "Get current time in a specific timezone"});
        let c = json!({"name": "git_log"});
        let index = render_compact_index(&[("git", &a), ("time", &b), ("git", &c)]);
        assert_eq!(
            index,
            "# git\ngit_status — Shows the working tree status\ngit_log\n# time\nget_current_time — Get current time in a specific timezone\n"
        );
    }

    #[test]
    fn definition_tokens_count_name_description_and_schema_only() {
        let bare =
            json!({"name": "echo", "description": "Echo", "inputSchema": {"type": "object"}});
        let mut decorated = bare.clone();
        decorated["annotations"] = json!({"title": "A long title nobody sends to the model"});
        decorated["outputSchema"] =
            json!({"type": "object", "properties": {"x": {"type": "string"}}});
        assert_eq!(
            estimate_definition_tokens(&bare),
            estimate_definition_tokens(&decorated)
        );
        assert!(estimate_definition_tokens(&bare) > 5);
    }

    #[test]
    fn names_index_is_one_line_per_server() {
        let a = json!({"name": "git_status", "description": "Shows the working tree status"});
        let b = json!({"name": "get_current_time"});
        let c = json!({"name": "git_log"});
        let entries = [("git", &a), ("time", &b), ("git", &c)];
        assert_eq!(
            render_names_index(&entries),
            "git: git_status git_log\ntime: get_current_time\n"
        );
        assert_eq!(
            IndexDetail::within_budget(&entries, 1000),
            IndexDetail::Summaries
        );
        assert_eq!(IndexDetail::within_budget(&entries, 5), IndexDetail::Names);
        assert_eq!(
            IndexDetail::Names.render(&entries),
            render_names_index(&entries)
        );
    }

    #[test]
    fn token_estimate_tracks_words_and_punctuation() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("hello world"), 2);
        assert_eq!(estimate_tokens("{\"a\": 1}"), 5);
        assert_eq!(estimate_tokens("internationalization"), 2);
        assert_eq!(estimate_tokens("list_directory_with_sizes"), 7);
        assert_eq!(estimate_tokens("2026-11-21"), 6);
        assert!(estimate_tokens(&"word ".repeat(100)) == 100);
    }
}
