//! `approved-definitions.json`'s text: the file built as a JSON value by hand,
//! then written by serde's pretty writer for `Value` (in the `.wasm` anyway,
//! for the definition review). Byte for byte what
//! `serde_json::to_string_pretty(file)` writes (object members keep their
//! order; the test below holds them equal), without that writer compiled for
//! each of the file's types (bench/README.md "WASM size").

use super::approved_definitions::{ApprovedFile, ApprovedItem, Baseline};
use crate::vec_map::VecMap;
use serde_json::{Map, Value};

/// The file's text, as `serde_json::to_string_pretty(file)` writes it.
pub(super) fn approved_text(file: &ApprovedFile) -> String {
    let mut out = Map::new();
    out.insert("format".into(), Value::String(file.format.clone()));
    out.insert("version".into(), Value::from(file.version));
    let servers = file.servers.iter();
    let servers = servers.map(|(name, baseline)| (name.clone(), baseline_value(baseline)));
    out.insert("servers".into(), Value::Object(servers.collect()));
    serde_json::to_string_pretty(&Value::Object(out)).unwrap_or_default()
}

/// One baseline's members, in `Baseline`'s field order (absent options left out).
fn baseline_value(baseline: &Baseline) -> Value {
    let mut out = Map::new();
    out.insert("server".into(), Value::String(baseline.server.clone()));
    if let Some(at) = baseline.approved_at_ms {
        out.insert("approvedAtMs".into(), Value::from(at));
    }
    if let Some(text) = &baseline.instructions {
        out.insert("instructions".into(), Value::String(text.clone()));
    }
    out.insert("tools".into(), items_value(&baseline.tools));
    out.insert("prompts".into(), items_value(&baseline.prompts));
    out.insert(
        "resourceTemplates".into(),
        items_value(&baseline.resource_templates),
    );
    Value::Object(out)
}

fn items_value(items: &VecMap<String, ApprovedItem>) -> Value {
    let items = items.iter().map(|(name, item)| {
        let mut out = Map::new();
        out.insert("hash".into(), Value::String(item.hash.clone()));
        out.insert("definition".into(), item.definition.clone());
        (name.clone(), Value::Object(out))
    });
    Value::Object(items.collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn baseline(server: &str, at: Option<u64>, instructions: Option<&str>) -> Baseline {
        let mut baseline = Baseline {
            server: server.into(),
            approved_at_ms: at,
            instructions: instructions.map(str::to_string),
            ..Baseline::default()
        };
        let item = |hash: &str, definition: Value| ApprovedItem {
            hash: hash.into(),
            definition,
        };
        baseline.tools.insert(
            "zeta".into(),
            item("00ff", json!({"name": "zeta", "inputSchema": {"type": "object", "b": [1, 2.5, null], "a": {}}})),
        );
        baseline
            .tools
            .insert("alpha \"q\"\n".into(), item("", json!([])));
        baseline.prompts.insert(
            "p".into(),
            item(
                "01",
                json!({"name": "p", "arguments": [{"z": true, "a": "ü\t"}]}),
            ),
        );
        baseline
    }

    #[test]
    fn written_as_serde_json_pretty_writes_it() {
        let mut full = ApprovedFile::default();
        full.servers.insert(
            "b".into(),
            baseline("b", Some(1_700_000_000_000), Some("Use\nit")),
        );
        full.servers.insert("a".into(), baseline("a", None, None));
        full.servers.insert("empty".into(), Baseline::default());
        for file in [ApprovedFile::default(), full] {
            assert_eq!(
                approved_text(&file),
                serde_json::to_string_pretty(&file).unwrap(),
                "{file:?}"
            );
        }
    }
}
