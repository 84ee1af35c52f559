//! `Settings` read from the host's JSON by hand: one loop over the object's
//! members, each member read straight into its field, instead of the derived
//! reader (its field-name visitor, its reader from a JSON array and a slot per
//! field cost about 540 bytes of `.wasm` per field: bench/README.md "WASM size").
//! As the derive read it: camelCase names, every field optional (missing: its
//! `Settings::default()`), unknown members ignored, a member of the wrong type
//! serde's error at that member. Unlike it: a member given twice, the last wins
//! (the derive refused it), and an array is refused (the derive read one
//! positionally).

use super::settings::Settings;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;

impl<'de> Deserialize<'de> for Settings {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(SettingsReader)
    }
}

struct SettingsReader;

impl<'de> Visitor<'de> for SettingsReader {
    type Value = Settings;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        // The derive's words, so a wrong `settings` reads as before.
        formatter.write_str("struct Settings")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Settings, A::Error> {
        let mut settings = Settings::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "catalogueConcurrency" => settings.catalogue_concurrency = map.next_value()?,
                "idleTimeoutMs" => settings.idle_timeout_ms = map.next_value()?,
                "adaptiveIdle" => settings.adaptive_idle = map.next_value()?,
                "idleTimeoutByServer" => settings.idle_timeout_by_server = map.next_value()?,
                "handshakeTimeoutMs" => settings.handshake_timeout_ms = map.next_value()?,
                "requestTimeoutMs" => settings.request_timeout_ms = map.next_value()?,
                "rootsSettleMs" => settings.roots_settle_ms = map.next_value()?,
                "crashLimit" => settings.crash_limit = map.next_value()?,
                "crashWindowMs" => settings.crash_window_ms = map.next_value()?,
                "backoffBaseMs" => settings.backoff_base_ms = map.next_value()?,
                "backoffMaxMs" => settings.backoff_max_ms = map.next_value()?,
                "maxRetries" => settings.max_retries = map.next_value()?,
                "workspaceFolders" => settings.workspace_folders = map.next_value()?,
                "clientName" => settings.client_name = map.next_value()?,
                "clientVersion" => settings.client_version = map.next_value()?,
                "toolExposure" => settings.tool_exposure = map.next_value()?,
                "toolExposureByServer" => settings.tool_exposure_by_server = map.next_value()?,
                "toolTokenBudget" => settings.tool_token_budget = map.next_value()?,
                "maxTools" => settings.max_tools = map.next_value()?,
                "indexTokenBudget" => settings.index_token_budget = map.next_value()?,
                "aggregateEndpoint" => settings.aggregate_endpoint = map.next_value()?,
                "signInMayWait" => settings.sign_in_may_wait = map.next_value()?,
                "maxMessageBytes" => settings.max_message_bytes = map.next_value()?,
                "holdNewTools" => settings.hold_new_tools = map.next_value()?,
                "shareServers" => settings.share_servers = map.next_value()?,
                "sessionLabel" => settings.session_label = map.next_value()?,
                "manageServers" => settings.manage_servers = map.next_value()?,
                "refreshIntervalMs" => settings.refresh_interval_ms = map.next_value()?,
                "sessionIdleMs" => settings.session_idle_ms = map.next_value()?,
                "maxSessions" => settings.max_sessions = map.next_value()?,
                "closeListingSessions" => settings.close_listing_sessions = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::model::ToolExposure;
    use crate::engine::settings::AggregateEndpoint;
    use crate::vec_map::VecMap;
    use serde::Serialize;
    use serde_json::{json, Value};

    /// The reader serde derived before (`#[serde(rename_all = "camelCase",
    /// default)]` on the same fields), to compare the hand reader against.
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase", default)]
    struct Derived {
        catalogue_concurrency: usize,
        idle_timeout_ms: u64,
        adaptive_idle: bool,
        idle_timeout_by_server: String,
        handshake_timeout_ms: u64,
        request_timeout_ms: u64,
        roots_settle_ms: u64,
        crash_limit: usize,
        crash_window_ms: u64,
        backoff_base_ms: u64,
        backoff_max_ms: u64,
        max_retries: u32,
        workspace_folders: Vec<String>,
        client_name: String,
        client_version: String,
        tool_exposure: ToolExposure,
        tool_exposure_by_server: VecMap<String, ToolExposure>,
        tool_token_budget: usize,
        max_tools: usize,
        index_token_budget: usize,
        aggregate_endpoint: AggregateEndpoint,
        sign_in_may_wait: bool,
        max_message_bytes: u64,
        hold_new_tools: bool,
        share_servers: bool,
        session_label: String,
        manage_servers: bool,
        refresh_interval_ms: u64,
        session_idle_ms: u64,
        max_sessions: u64,
        close_listing_sessions: bool,
    }

    impl Default for Derived {
        fn default() -> Self {
            let s = Settings::default();
            Derived {
                catalogue_concurrency: s.catalogue_concurrency,
                idle_timeout_ms: s.idle_timeout_ms,
                adaptive_idle: s.adaptive_idle,
                idle_timeout_by_server: s.idle_timeout_by_server,
                handshake_timeout_ms: s.handshake_timeout_ms,
                request_timeout_ms: s.request_timeout_ms,
                roots_settle_ms: s.roots_settle_ms,
                crash_limit: s.crash_limit,
                crash_window_ms: s.crash_window_ms,
                backoff_base_ms: s.backoff_base_ms,
                backoff_max_ms: s.backoff_max_ms,
                max_retries: s.max_retries,
                workspace_folders: s.workspace_folders,
                client_name: s.client_name,
                client_version: s.client_version,
                tool_exposure: s.tool_exposure,
                tool_exposure_by_server: s.tool_exposure_by_server,
                tool_token_budget: s.tool_token_budget,
                max_tools: s.max_tools,
                index_token_budget: s.index_token_budget,
                aggregate_endpoint: s.aggregate_endpoint,
                sign_in_may_wait: s.sign_in_may_wait,
                max_message_bytes: s.max_message_bytes,
                hold_new_tools: s.hold_new_tools,
                share_servers: s.share_servers,
                session_label: s.session_label,
                manage_servers: s.manage_servers,
                refresh_interval_ms: s.refresh_interval_ms,
                session_idle_ms: s.session_idle_ms,
                max_sessions: s.max_sessions,
                close_listing_sessions: s.close_listing_sessions,
            }
        }
    }

    /// What each reader makes of `text`: the settings as JSON, or the error text.
    fn both(text: &str) -> (Result<Value, String>, Result<Value, String>) {
        crate::hand_reader_tests::read_both::<Settings, Derived>(text, "Settings")
    }

    fn same(text: &str) {
        let (hand, derived) = both(text);
        assert_eq!(hand, derived, "{text}");
    }

    /// Every field set to a value that is not its default: a field the reader
    /// forgets comes back as its default and the round trip differs. (A struct
    /// literal without `..`: a new field does not compile until it is listed.)
    fn every_field_changed() -> Settings {
        Settings {
            catalogue_concurrency: 7,
            idle_timeout_ms: 1,
            adaptive_idle: false,
            idle_timeout_by_server: "a=5".into(),
            handshake_timeout_ms: 2,
            request_timeout_ms: 3,
            roots_settle_ms: 4,
            crash_limit: 9,
            crash_window_ms: 5,
            backoff_base_ms: 6,
            backoff_max_ms: 8,
            max_retries: 11,
            workspace_folders: vec!["/w".into()],
            client_name: "n".into(),
            client_version: "v".into(),
            tool_exposure: ToolExposure::Index,
            tool_exposure_by_server: VecMap::from_iter([("s".to_string(), ToolExposure::Full)]),
            tool_token_budget: 12,
            max_tools: 13,
            index_token_budget: 14,
            aggregate_endpoint: AggregateEndpoint::ToolIndex,
            sign_in_may_wait: true,
            max_message_bytes: 15,
            hold_new_tools: true,
            share_servers: true,
            session_label: "l".into(),
            manage_servers: false,
            refresh_interval_ms: 16,
            session_idle_ms: 17,
            max_sessions: 18,
            close_listing_sessions: false,
        }
    }

    #[test]
    fn every_field_round_trips_and_reads_as_the_derive_did() {
        let changed = every_field_changed();
        let text = serde_json::to_string(&changed).unwrap();
        assert_eq!(serde_json::from_str::<Settings>(&text).unwrap(), changed);
        same(&text);
        // Each field alone: the others keep their defaults.
        let Value::Object(members) = serde_json::to_value(&changed).unwrap() else {
            unreachable!()
        };
        assert_eq!(members.len(), 31);
        for (name, value) in members {
            let one = json!({ name.clone(): value }).to_string();
            let (hand, derived) = both(&one);
            assert_ne!(
                hand,
                Ok(serde_json::to_value(Settings::default()).unwrap()),
                "{name}"
            );
            assert_eq!(hand, derived, "{name}");
        }
    }

    #[test]
    fn defaults_unknown_members_and_wrong_types_read_as_the_derive_did() {
        for text in [
            "{}",
            r#"{"unknown": [1, {"a": 2}], "maxTools": 5, "toolExposure": "full"}"#,
            // Wrong types: serde's error naming the type, at the same place.
            r#"{"maxTools": "many"}"#,
            r#"{"maxTools": -1}"#,
            r#"{"maxTools": 1.5}"#,
            r#"{"idleTimeoutMs": null}"#,
            r#"{"crashLimit": 1, "workspaceFolders": "/w"}"#,
            r#"{"toolExposure": "some"}"#,
            r#"{"aggregateEndpoint": "none"}"#,
            r#"{"toolExposureByServer": {"s": "x"}}"#,
            r#"{"maxRetries": 4294967296}"#,
            r#"{"adaptiveIdle": "yes"}"#,
            // Not an object at all.
            "null",
            "5",
            r#""settings""#,
            // Broken JSON.
            r#"{"maxTools": 5"#,
        ] {
            same(text);
        }
        assert!(both(r#"{"maxTools": "many"}"#)
            .0
            .unwrap_err()
            .starts_with("invalid type: string \"many\", expected usize at line 1 column"));
    }

    #[test]
    fn what_the_hand_reader_reads_differently() {
        // A member given twice: the last wins (the derive refused it; the host's
        // `JSON.stringify` never writes one twice).
        let (hand, derived) = both(r#"{"maxTools": 5, "maxTools": 6}"#);
        assert_eq!(hand.unwrap()["maxTools"], 6);
        assert!(derived
            .unwrap_err()
            .starts_with("duplicate field `maxTools`"));
        // An array: refused (the derive read the fields by position).
        let (hand, derived) = both("[7]");
        assert!(hand
            .unwrap_err()
            .starts_with("invalid type: sequence, expected struct Settings"));
        assert_eq!(derived.unwrap()["catalogueConcurrency"], 7);
    }

    #[test]
    fn the_settings_changed_event_reads_them_the_same_way() {
        let event = crate::engine::events::Event::from_json(
            r#"{"type": "settingsChanged", "settings": {"maxTools": 3, "other": 1}}"#,
        )
        .unwrap();
        let crate::engine::events::Event::SettingsChanged { settings } = event else {
            panic!("{event:?}")
        };
        assert_eq!(settings.max_tools, 3);
        assert_eq!(
            settings.idle_timeout_ms,
            Settings::default().idle_timeout_ms
        );
        let error = crate::engine::events::Event::from_json(
            r#"{"type": "settingsChanged", "settings": {"maxTools": "x"}}"#,
        )
        .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("invalid type: string \"x\", expected usize"),
            "{error}"
        );
    }
}
