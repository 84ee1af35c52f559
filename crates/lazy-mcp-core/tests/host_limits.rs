//! The numbers the hosts' I/O runs by (`host_limits.rs`, WASM `hostLimits`):
//! the values the host files used to hold as literals, and their JSON form.

use lazy_mcp_core::host_limits::{
    host_limits, host_limits_json, HTTP_CONNECT_TIMEOUT_MS, QUIET_BEFORE_STOP_MS, START_LIMIT_MS,
    START_PAUSES_MS,
};

#[test]
fn the_limits_are_the_ones_the_hosts_used_to_hold() {
    let limits = host_limits();
    // An HTTP connection's first exchange: the engine's own deadline since issue 25.
    assert_eq!(HTTP_CONNECT_TIMEOUT_MS, 15_000);
    assert_eq!(limits.http_session_end_timeout_ms, 2_000);
    assert_eq!(limits.gateway.session_idle_ms, 3_600_000);
    assert_eq!(limits.gateway.max_sessions, 1_000);
    assert_eq!(limits.gateway.max_body_bytes, 16 * 1024 * 1024);
    assert_eq!(limits.gateway.deferred_headers_ms, 60_000);
    // The gateway's idle sweep (60 s at most, 10 ms at least) left the host:
    // the engine looks at its sessions at their deadline (gateway_sessions.rs).
    // VS Code's definition starts: the engine's own schedule since issue 25.
    assert_eq!(START_LIMIT_MS, 20_000);
    assert_eq!(START_PAUSES_MS, [25, 50, 100, 200, 400]);
    assert_eq!(QUIET_BEFORE_STOP_MS, 3_000);
    assert_eq!(limits.first_catalogue_wait_ms, 20_000);
    assert_eq!(limits.serve_drain_after_eof_ms, 150_000);
    assert_eq!(limits.serve_stop_deadline_ms, 15_000);
    assert_eq!(limits.gateway.sse_keep_alive_ms, 25_000);
    assert_eq!(limits.gateway.sse_headers_within_ms, 1_000);
    assert_eq!(limits.shared_owner.linger_ms, 30_000);
    assert_eq!(limits.shared_owner.start_wait_ms, 10_000);
    assert_eq!(limits.shared_owner.start_poll_ms, 20);
    assert_eq!(limits.shared_owner.busy_pause_ms, 5);
    assert_eq!(limits.shared_owner.busy_jitter_ms, 20);
    assert_eq!(limits.config_poll_ms, 1_000);
    assert_eq!(limits.config_debounce_ms, 150);
    assert_eq!(limits.gateway.max_backlog, 256);
    assert_eq!(limits.stdio.max_line_bytes, 256 * 1024 * 1024);
    assert_eq!(limits.stdio.max_stderr_line_bytes, 1024 * 1024);
    assert_eq!(limits.stdio.stderr_tail_lines, 200);
    assert_eq!(limits.stdio.stderr_tail_chars, 64 * 1024);
    assert_eq!(limits.stdio.kill_grace_ms, 2_000);
    assert_eq!(limits.stdio.group_poll_ms, 25);
    assert_eq!(limits.stdio.pipe_close_wait_ms, 500);
    assert_eq!(limits.sign_in.request_timeout_ms, 10_000);
    assert_eq!(limits.sign_in.browser_wait_ms, 300_000);
    assert_eq!(limits.sign_in.lock_stale_margin_ms, 60_000);
    assert_eq!(limits.sign_in.lock_unwritten_grace_ms, 5_000);
    assert_eq!(limits.sign_in.other_sign_in_poll_ms, 300);
    assert_eq!(limits.sign_in.token_file_poll_ms, 500);
    assert_eq!(limits.log_throttle.burst, 10);
    assert_eq!(limits.log_throttle.interval_ms, 10_000);
    assert_eq!(limits.log_throttle.max_kinds, 1_000);
    assert_eq!(limits.trap_notice_interval_ms, 60_000);
    // Moved from the host's files by the audit of issue 25's "no policy a grep would find".
    assert_eq!(limits.http_error_body_max_chars, 64 * 1024);
    assert_eq!(limits.config_file_max_bytes, 4 * 1024 * 1024);
    assert_eq!(limits.gateway.oversized_head_bytes, 64 * 1024);
    assert_eq!(limits.gateway.token_file_max_bytes, 4096);
    assert_eq!(limits.gateway.token_min_chars, 32);
    assert_eq!(limits.gateway.token_file_attempts, 5);
    assert_eq!(limits.shared_owner.listen_attempts, 3);
    assert_eq!(limits.shared_owner.listen_backlog, 4096);
    assert_eq!(limits.shared_owner.max_frame_bytes, 256 * 1024 * 1024);
    assert_eq!(limits.sign_in.token_store_max_bytes, 4 * 1024 * 1024);
}

#[test]
fn waits_are_shorter_than_what_they_wait_within() {
    let limits = host_limits();
    // A stop's five waits fit in `serve`'s stop deadline (stdin, SIGTERM, SIGKILL, the group's TERM and KILL, then the pipes).
    assert!(
        5 * limits.stdio.kill_grace_ms + limits.stdio.pipe_close_wait_ms
            < limits.serve_stop_deadline_ms
    );
    assert!(limits.stdio.group_poll_ms < limits.stdio.kill_grace_ms);
    // A lock whose holder still waits for its browser is never stale; an empty one is, soon.
    assert!(limits.sign_in.lock_unwritten_grace_ms < limits.sign_in.browser_wait_ms);
    assert!(limits.sign_in.other_sign_in_poll_ms < limits.sign_in.lock_unwritten_grace_ms);
    assert!(limits.log_throttle.burst > 0 && limits.log_throttle.interval_ms > 0);
}

#[test]
fn a_client_waits_for_a_starting_owner_longer_than_it_polls_and_less_than_a_call_may_take() {
    let owner = host_limits().shared_owner;
    assert!(owner.start_poll_ms > 0 && owner.start_poll_ms < owner.start_wait_ms);
    // The engine's handshake timeout (30 s by default) covers the start.
    assert!(owner.start_wait_ms < lazy_mcp_core::engine::Settings::default().handshake_timeout_ms);
}

#[test]
fn start_until_listed_pauses_double_and_stay_within_its_limit() {
    for pair in START_PAUSES_MS.windows(2) {
        assert_eq!(pair[1], pair[0] * 2, "{pair:?}");
    }
    assert!(START_PAUSES_MS.iter().sum::<u64>() < START_LIMIT_MS);
    assert!(!START_PAUSES_MS.is_empty());
}

#[test]
fn the_gateway_answers_before_clients_give_up_on_headers() {
    let gateway = host_limits().gateway;
    // Node's fetch and the Python `mcp` client wait 300 s for headers.
    assert!(gateway.deferred_headers_ms < 300_000);
}

#[test]
fn the_engine_runs_the_gateway_sessions_by_the_limits_hosts_are_told() {
    let gateway = host_limits().gateway;
    let settings = lazy_mcp_core::engine::Settings::default();
    assert_eq!(settings.session_idle_ms, gateway.session_idle_ms);
    assert_eq!(settings.max_sessions, gateway.max_sessions);
}

#[test]
fn the_host_reads_them_as_camel_case_json() {
    let json: serde_json::Value = serde_json::from_str(&host_limits_json()).unwrap();
    // The engine times an HTTP connection's first exchange: the host is not told it.
    assert!(json.get("httpConnectTimeoutMs").is_none());
    assert_eq!(json["gateway"]["sessionIdleMs"], 3_600_000);
    assert_eq!(json["gateway"]["maxSessions"], 1_000);
    assert_eq!(json["gateway"]["deferredHeadersMs"], 60_000);
    // The engine runs VS Code's definition starts: the host is not told the schedule.
    assert!(json.get("startUntilListed").is_none());
    assert_eq!(json["firstCatalogueWaitMs"], 20_000);
    assert_eq!(json["serveDrainAfterEofMs"], 150_000);
    assert_eq!(json["serveStopDeadlineMs"], 15_000);
    assert_eq!(json["sharedOwner"]["lingerMs"], 30_000);
    assert_eq!(json["gateway"]["sseKeepAliveMs"], 25_000);
    assert_eq!(json["gateway"]["maxBacklog"], 256);
    assert_eq!(json["stdio"]["pipeCloseWaitMs"], 500);
    assert_eq!(json["signIn"]["lockUnwrittenGraceMs"], 5_000);
    assert_eq!(json["logThrottle"]["intervalMs"], 10_000);
    assert_eq!(json["trapNoticeIntervalMs"], 60_000);
}
