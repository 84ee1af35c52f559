//! The four tools a model sees in `index` mode, and the "did you mean" list
//! for a tool name that does not exist.

use super::text::tokenize;
use crate::protocol::listed_item::ListedItem;
use crate::vec_map::VecSet;
use serde_json::Value;

/// Name of the meta-tool that searches the catalogue.
pub const SEARCH_TOOLS: &str = "search_tools";
/// Name of the meta-tool that adds tools' full schemas to the tool list.
pub const LOAD_TOOLS: &str = "load_tools";
/// Name of the meta-tool that removes loaded tools from the tool list again.
pub const UNLOAD_TOOLS: &str = "unload_tools";
/// Name of the meta-tool that calls any catalogued tool by name.
pub const CALL_TOOL: &str = "call_tool";

/// Default and largest `limit` of `search_tools`.
pub const SEARCH_DEFAULT_LIMIT: usize = 5;
pub const SEARCH_MAX_LIMIT: usize = 20;

/// The meta-tools' MCP definitions (`name`, `description`, `inputSchema`),
/// as short as a model can still use unaided: every token here is paid on
/// every request. Tool names are `server/tool`, as in the index and in search
/// results; a bare tool name works when only one server has it. Search, load
/// and unload change nothing outside the session (`readOnlyHint`: no
/// confirmation needed). `load_tools` and `unload_tools` take `{names: [string, …]}`.
/// JSON text read at each call rather than `json!`, whose every key and value is
/// code in the `.wasm`; the names and the limit are the constants above
/// (checked by `the_definitions_use_the_constants`).
const META_TOOLS: &str = r#"[
{"name":"search_tools","description":"Find tools for a task. Returns server/tool names with summaries.",
 "inputSchema":{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":20}},"required":["query"],"additionalProperties":false},
 "annotations":{"readOnlyHint":true}},
{"name":"load_tools","description":"Load tools by server/tool name to call them directly.",
 "inputSchema":{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["names"],"additionalProperties":false},
 "annotations":{"readOnlyHint":true}},
{"name":"unload_tools","description":"Remove loaded tools from the tool list.",
 "inputSchema":{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["names"],"additionalProperties":false},
 "annotations":{"readOnlyHint":true}},
{"name":"call_tool","description":"Call a tool by server/tool name without loading it.",
 "inputSchema":{"type":"object","properties":{"name":{"type":"string"},"arguments":{"type":"object"}},"required":["name"],"additionalProperties":false}}
]"#;

/// The meta-tools' definitions ([`META_TOOLS`]).
pub fn meta_tools() -> Vec<Value> {
    match serde_json::from_str(META_TOOLS) {
        Ok(Value::Array(tools)) => tools,
        _ => Vec::new(),
    }
}

/// [`meta_tools`] with the compact index appended to the description of
/// `load_tools`: tool descriptions are the one text every MCP client puts in
/// front of the model (server `instructions` are not shown by all), so this is
/// where `index` mode tells the model which tools exist.
pub fn meta_tools_with_index(index: &str) -> Vec<Value> {
    let mut tools = meta_tools();
    let load = tools
        .iter_mut()
        .find(|t| ListedItem::read(t).name == Some(LOAD_TOOLS));
    if let Some(load) = load {
        let description = ListedItem::read(load).description.unwrap_or("").to_string();
        if let Some(load) = load.as_object_mut() {
            load.insert(
                "description".into(),
                Value::String(format!("{description} Available:\n{}", index.trim_end())),
            );
        }
    }
    tools
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = i;
        let mut next = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let left = next.last().copied().unwrap_or(0);
            let up = row.get(j + 1).copied().unwrap_or(0);
            let cost = usize::from(ca != *cb);
            next.push((diagonal + cost).min(left + 1).min(up + 1));
            diagonal = up;
        }
        row = next;
    }
    row.last().copied().unwrap_or(0)
}

/// How alike two tool names are, 0 to 1: the better of spelling similarity
/// (1 − edit distance / longer length, case-insensitive) and word overlap
/// (shared stems / all stems), plus a little when one contains the other.
fn similarity(query: &str, name: &str) -> f64 {
    let (q, n) = (query.to_lowercase(), name.to_lowercase());
    let longer = q.chars().count().max(n.chars().count()).max(1);
    let spelling = 1.0 - levenshtein(&q, &n) as f64 / longer as f64;
    // Sorted vectors, as the engine's sets: no B-tree code in the `.wasm` for this.
    let qa: VecSet<String> = tokenize(query).into_iter().collect();
    let na: VecSet<String> = tokenize(name).into_iter().collect();
    let shared = qa.iter().filter(|word| na.contains(*word)).count();
    let union = qa.len() + na.len() - shared;
    let overlap = if union == 0 {
        0.0
    } else {
        shared as f64 / union as f64
    };
    let contains = if !q.is_empty() && (n.contains(&q) || q.contains(&n)) {
        0.2
    } else {
        0.0
    };
    spelling.max(overlap) + contains
}

/// Up to `n` names from `all_names` most like `query`, best first, for an
/// "unknown tool" error. Names with nothing in common with the query (under a
/// third alike) are left out, so the list may be shorter or empty.
pub fn closest_names(query: &str, all_names: &[&str], n: usize) -> Vec<String> {
    let mut scored: Vec<(f64, &str)> = all_names
        .iter()
        .map(|name| (similarity(query, name), *name))
        .filter(|(score, name)| *score >= 1.0 / 3.0 && *name != query)
        .collect();
    crate::sorting::sort_by(&mut scored, |a, b| {
        b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1))
    });
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(n)
        .map(|(_, name)| name.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_index::validate_arguments;
    use serde_json::json;

    #[test]
    fn the_definitions_use_the_constants() {
        let tools = meta_tools();
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, [SEARCH_TOOLS, LOAD_TOOLS, UNLOAD_TOOLS, CALL_TOOL]);
        let limit = &tools[0]["inputSchema"]["properties"]["limit"]["maximum"];
        assert_eq!(limit, &json!(SEARCH_MAX_LIMIT));
        assert_eq!(tools[1]["inputSchema"], tools[2]["inputSchema"]);
    }

    #[test]
    fn meta_tools_are_search_load_unload_call_with_closed_schemas() {
        let tools = meta_tools();
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, [SEARCH_TOOLS, LOAD_TOOLS, UNLOAD_TOOLS, CALL_TOOL]);
        for tool in &tools {
            assert_eq!(tool["inputSchema"]["additionalProperties"], false);
            assert!(tool["description"].as_str().is_some_and(|d| d.len() < 120));
        }
    }

    #[test]
    fn meta_tool_schemas_reject_what_a_model_gets_wrong() {
        let tools = meta_tools();
        let load = &tools[1]["inputSchema"];
        assert_eq!(
            validate_arguments(load, &json!({"names": ["git/git_status"]})),
            Ok(())
        );
        assert_eq!(
            validate_arguments(load, &json!({"names": "git/git_status"})),
            Err("arguments.names must be array, got string \"git/git_status\"".to_string())
        );
        let search = &tools[0]["inputSchema"];
        assert!(validate_arguments(search, &json!({"query": "x", "limit": 0})).is_err());
        assert!(validate_arguments(search, &json!({"q": "x"})).is_err());
    }

    #[test]
    fn the_index_rides_in_the_load_tools_description() {
        let tools = meta_tools_with_index("git: git_status git_log\n");
        assert_eq!(
            tools[1]["description"],
            "Load tools by server/tool name to call them directly. Available:\ngit: git_status git_log"
        );
        assert_eq!(tools[0], meta_tools()[0]);
        assert_eq!(tools[2], meta_tools()[2]);
        assert_eq!(tools[3], meta_tools()[3]);
    }

    #[test]
    fn edit_distance() {
        assert_eq!(levenshtein("", ""), 0);
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("git_status", "git_status"), 0);
        assert_eq!(levenshtein("abc", ""), 3);
    }

    #[test]
    fn closest_names_catch_typos_and_reordered_words() {
        let names = [
            "git/git_status",
            "git/git_commit",
            "filesystem/read_text_file",
            "filesystem/read_file",
            "filesystem/list_directory",
            "memory/read_graph",
        ];
        assert_eq!(
            closest_names("git/git_stauts", &names, 1),
            ["git/git_status"]
        );
        let near = closest_names("text_file_read", &names, 2);
        assert_eq!(
            near.first().map(String::as_str),
            Some("filesystem/read_text_file")
        );
        assert_eq!(
            closest_names("list_dir", &names, 1),
            ["filesystem/list_directory"]
        );
        assert!(closest_names("zzzzzz", &names, 3).is_empty());
    }
}
