//! Hybrid tool search in the engine (issue 27): the embedding table the host
//! loads, `search_tools` finding a tool by meaning (in `index` and `auto`
//! mode), tool vectors cached in the persisted catalogue (a warm start reuses
//! them, another model version recomputes them once), and the lexical
//! fallback without a table.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;
mod tool_index_support;

use engine_support::*;
use lazy_mcp_core::config::model::ToolExposure;
use lazy_mcp_core::engine::{Endpoint, Event, Settings};
use serde_json::{json, Value};
use std::path::Path;

fn model_bytes() -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/model/tool-embeddings.bin"),
    )
    .unwrap()
}

/// The real server-memory and server-time tool lists, in `index` mode.
fn sim() -> Sim {
    sim_with(Settings {
        tool_exposure: ToolExposure::Index,
        ..Settings::default()
    })
}

/// The real server-memory and server-time tool lists under `settings`.
fn sim_with(settings: Settings) -> Sim {
    let mut sim = Sim::new(settings);
    for server in ["memory", "time"] {
        let mut fake = FakeServer::with_tools(&[]);
        fake.tools = tool_index_support::real_tools()
            .into_iter()
            .filter(|(s, _)| s == server)
            .map(|(_, t)| t)
            .collect();
        sim = sim.fake(server, fake);
    }
    sim
}

fn load_model(sim: &mut Sim, bytes: &[u8]) {
    for effect in sim
        .engine
        .load_embedding_model(sim.now, "tool-embeddings.bin", bytes)
    {
        sim.perform(effect);
    }
}

/// Client "c" of the aggregate endpoint says hello.
fn initialize(sim: &mut Sim) {
    sim.client(
        "c",
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}}}),
    );
}

fn search(sim: &mut Sim, id: u64, query: &str) -> String {
    initialize(sim);
    sim.client(
        "c",
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "search_tools", "arguments": {"query": query}}}),
    );
    let reply = sim.reply_to("c", json!(id)).unwrap();
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

fn vectors_of(blob: &str, server: &str) -> Value {
    let blob: Value = serde_json::from_str(blob).unwrap();
    blob["entries"][server]["toolVectors"].clone()
}

#[test]
fn search_tools_finds_a_tool_by_meaning_with_the_real_table() {
    let mut sim = sim();
    load_model(&mut sim, &model_bytes());
    assert!(sim.engine.has_embedding_model());
    assert!(sim
        .logs()
        .iter()
        .any(|l| l.contains("embedding table minilm-l6-v2")));
    sim.apply(vec![config("memory"), config("time")]);
    let text = search(&mut sim, 1, "remember that Alice works at Acme");
    let first5: Vec<&str> = text.lines().take(6).collect();
    assert!(
        first5
            .iter()
            .any(|l| l.starts_with("memory/create_entities")),
        "{text}"
    );
    // A misspelt query still returns tools.
    let text = search(&mut sim, 2, "waht tiem is it in tokyo");
    assert!(text.contains("time/get_current_time"), "{text}");
    // Nothing started for either search.
    assert!(sim.live.is_empty());
}

#[test]
fn auto_mode_searches_the_servers_it_moved_to_the_index_with_the_table() {
    // `auto` with a budget nothing fits moves both servers to the index; its
    // search_tools answers exactly as `index` mode's hybrid search, which
    // differs from the words-only answer without the table.
    let query = "remember that Alice works at Acme";
    let answer = |exposure: ToolExposure, table: bool| {
        let mut sim = sim_with(Settings {
            tool_exposure: exposure,
            tool_token_budget: 1,
            ..Settings::default()
        });
        if table {
            load_model(&mut sim, &model_bytes());
        }
        sim.apply(vec![config("memory"), config("time")]);
        let indexed = sim
            .engine
            .snapshot()
            .servers
            .iter()
            .filter(|s| s.exposed_as == Some(ToolExposure::Index))
            .count();
        assert_eq!(indexed, 2, "{exposure:?}");
        search(&mut sim, 1, query)
    };
    let auto = answer(ToolExposure::Auto, true);
    assert_eq!(auto, answer(ToolExposure::Index, true));
    assert_ne!(auto, answer(ToolExposure::Auto, false), "{auto}");
    assert!(
        auto.lines()
            .take(6)
            .any(|l| l.starts_with("memory/create_entities")),
        "{auto}"
    );
}

#[test]
fn tool_vectors_are_cached_in_the_catalogue_and_reused_on_a_warm_start() {
    let bytes = model_bytes();
    let mut first = sim();
    load_model(&mut first, &bytes);
    first.apply(vec![config("memory"), config("time")]);
    let blob = first.persisted.clone().unwrap();
    let vectors = vectors_of(&blob, "memory");
    assert!(vectors["model"]
        .as_str()
        .unwrap()
        .starts_with("minilm-l6-v2"));
    assert_eq!(vectors["vectors"].as_array().unwrap().len(), 9);

    // Warm start, same model: the cached vectors are used as they are. To see
    // that, the cache is doctored (every memory tool gets time's vector):
    // recomputing would replace them.
    let mut doctored: Value = serde_json::from_str(&blob).unwrap();
    let time_vector = doctored["entries"]["time"]["toolVectors"]["vectors"][0].clone();
    for v in doctored["entries"]["memory"]["toolVectors"]["vectors"]
        .as_array_mut()
        .unwrap()
    {
        *v = time_vector.clone();
    }
    let doctored = doctored.to_string();
    let mut warm = sim();
    load_model(&mut warm, &bytes);
    warm.persisted = None;
    warm.send(Event::CatalogueLoaded {
        blob: doctored.clone(),
    });
    warm.apply(vec![config("memory"), config("time")]);
    assert_eq!(warm.opens(), 0, "warm start spawns nothing");
    assert_eq!(
        vectors_of(&warm.engine.catalogue_blob(), "memory"),
        vectors_of(&doctored, "memory"),
        "a warm start recomputed the vectors"
    );
    if let Some(persisted) = &warm.persisted {
        assert_eq!(
            vectors_of(persisted, "memory"),
            vectors_of(&doctored, "memory")
        );
    }

    // Another model version: recomputed once, persisted under the new version.
    let mut old: Value = serde_json::from_str(&blob).unwrap();
    old["entries"]["memory"]["toolVectors"]["model"] = json!("older-model-0");
    old["entries"]["memory"]["toolVectors"]["vectors"] = json!(vec!["00"; 9]);
    let mut next = sim();
    load_model(&mut next, &bytes);
    next.persisted = None;
    next.send(Event::CatalogueLoaded {
        blob: old.to_string(),
    });
    let persisted = next
        .persisted
        .clone()
        .expect("recomputed vectors are persisted");
    assert_eq!(vectors_of(&persisted, "memory"), vectors);
    next.persisted = None;
    next.apply(vec![config("memory"), config("time")]);
    if let Some(again) = &next.persisted {
        assert_eq!(vectors_of(again, "memory"), vectors, "recomputed twice");
    }
}

#[test]
fn without_a_table_search_is_lexical_and_says_so_once() {
    let mut sim = sim();
    load_model(&mut sim, &[]);
    load_model(&mut sim, b"not a table");
    assert!(!sim.engine.has_embedding_model());
    let logs = sim.logs();
    assert!(logs
        .iter()
        .any(|l| l.contains("no embedding table at tool-embeddings.bin")));
    assert!(logs
        .iter()
        .any(|l| l.contains("cannot be used (it is not a Lazy MCP embedding table")));
    sim.apply(vec![config("memory"), config("time")]);
    let blob = sim.persisted.clone().unwrap();
    assert!(vectors_of(&blob, "memory").is_null());
    let text = search(&mut sim, 1, "current time");
    assert!(text.starts_with("time/get_current_time"), "{text}");
    // Sharing no word: the nearest names, marked weak, never nothing.
    let text = search(&mut sim, 2, "xylophone");
    assert!(
        text.starts_with("No tool shares a word with \"xylophone\""),
        "{text}"
    );
    assert!(text.lines().count() > 1);
}

fn table_asks(sim: &Sim) -> usize {
    sim.effects
        .iter()
        .filter(|e| matches!(e, lazy_mcp_core::engine::Effect::ReadEmbeddingTable))
        .count()
}

#[test]
fn an_offered_table_is_read_only_when_a_search_needs_it_and_the_search_waits_for_it() {
    // The lexical and the hybrid answers differ for this query (see above): the
    // waiting searches must be answered with the table, not without it.
    let query = "remember that Alice works at Acme";
    let mut hybrid = sim();
    load_model(&mut hybrid, &model_bytes());
    hybrid.apply(vec![config("memory"), config("time")]);
    let expected = search(&mut hybrid, 1, query);

    let mut sim = sim();
    for effect in sim.engine.offer_embedding_model(sim.now) {
        sim.perform(effect);
    }
    sim.apply(vec![config("memory"), config("time")]);
    // Cataloguing and listing need no table: a warm start never reads it.
    assert_eq!(table_asks(&sim), 0);
    assert!(!sim.engine.has_embedding_model());
    initialize(&mut sim);
    for id in [1, 2] {
        sim.client(
            "c",
            Endpoint::Aggregate,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "search_tools", "arguments": {"query": query}}}),
        );
    }
    // Asked once for both searches, which wait.
    assert_eq!(table_asks(&sim), 1);
    assert!(sim.reply_to("c", json!(1)).is_none());
    assert!(sim.reply_to("c", json!(2)).is_none());
    load_model(&mut sim, &model_bytes());
    for id in [1, 2] {
        let reply = sim
            .reply_to("c", json!(id))
            .expect("answered once the table came");
        assert_eq!(
            reply["result"]["content"][0]["text"].as_str(),
            Some(expected.as_str())
        );
    }
    // Later searches run at once.
    search(&mut sim, 3, "current time");
    assert_eq!(table_asks(&sim), 1);
}

#[test]
fn a_search_waiting_for_a_table_that_cannot_be_read_is_answered_by_words() {
    let mut sim = sim();
    for effect in sim.engine.offer_embedding_model(sim.now) {
        sim.perform(effect);
    }
    sim.apply(vec![config("memory"), config("time")]);
    initialize(&mut sim);
    sim.client(
        "c",
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search_tools", "arguments": {"query": "current time"}}}),
    );
    assert!(sim.reply_to("c", json!(1)).is_none());
    load_model(&mut sim, &[]);
    let reply = sim.reply_to("c", json!(1)).expect("answered by words");
    assert!(reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("time/get_current_time"));
}
