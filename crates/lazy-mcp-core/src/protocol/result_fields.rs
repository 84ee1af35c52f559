//! What the engine reads of a result besides its payload: a list page's cursor
//! and cache hint, and a 2026-07-28 result's `resultType` with what an
//! `input_required` result asks. A typed view borrowed from the parsed result,
//! filled in one pass (see `message_fields.rs` for why views and not serde derives).

use super::message_fields::members;
use serde_json::{Map, Value};

#[derive(Debug, Default, Clone, Copy)]
pub struct ResultFields<'a> {
    /// A list page: where the next page starts.
    pub next_cursor: Option<&'a str>,
    /// A modern list result: how long it may be reused (milliseconds)...
    pub ttl_ms: Option<u64>,
    /// ...and for whom (`public` or `private`).
    pub cache_scope: Option<&'a str>,
    /// A modern result: `complete` or `input_required`.
    pub result_type: Option<&'a str>,
    /// `input_required`: the requests for input, by key.
    pub input_requests: Option<&'a Map<String, Value>>,
    /// `input_required`: the server's state, as sent (any JSON).
    pub request_state: Option<&'a Value>,
}

impl<'a> ResultFields<'a> {
    pub fn read(result: &'a Value) -> ResultFields<'a> {
        let mut read = ResultFields::default();
        for (key, member) in members(Some(result)) {
            match key {
                "nextCursor" => read.next_cursor = member.as_str(),
                "ttlMs" => read.ttl_ms = member.as_u64(),
                "cacheScope" => read.cache_scope = member.as_str(),
                "resultType" => read.result_type = member.as_str(),
                "inputRequests" => read.input_requests = member.as_object(),
                "requestState" => read.request_state = Some(member),
                _ => {}
            }
        }
        read
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_result_reads_as_the_get_chains_did() {
        let page = json!({"tools": [], "nextCursor": "2", "ttlMs": 5, "cacheScope": "public"});
        let read = ResultFields::read(&page);
        assert_eq!(
            (read.next_cursor, read.ttl_ms, read.cache_scope),
            (Some("2"), Some(5), Some("public"))
        );
        let asks = json!({"resultType": "input_required", "inputRequests": {"a": {}}, "requestState": null});
        let read = ResultFields::read(&asks);
        assert_eq!(read.result_type, Some("input_required"));
        assert_eq!(read.input_requests.map(Map::len), Some(1));
        assert_eq!(read.request_state, Some(&Value::Null));
        let odd = json!({"ttlMs": -1, "nextCursor": 3, "inputRequests": []});
        let read = ResultFields::read(&odd);
        assert_eq!(
            (read.ttl_ms, read.next_cursor, read.input_requests),
            (None, None, None)
        );
    }
}
