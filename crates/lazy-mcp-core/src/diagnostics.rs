//! The "MCP Diagnostics" report, rendered by the core from what it knows so that
//! the VS Code command and the CLI show the same thing: the engine's snapshot
//! and its last config load's report, plus the few facts only the host has.
//! Values shown here never include secrets: the snapshot carries no env or
//! header values, and server definitions are masked.

use crate::config::load::ConfigReport;
use crate::config::model::ToolExposure;
use crate::config::{Problem, ServerConfig, Severity, SourceRef, Transport};
use crate::engine::server_actions::ServerAction;
use crate::engine::{DiagnosticsSnapshot, Engine, ServerState};
use crate::wording::{count, count_as};
use serde::Serialize;
use std::fmt::Write as _;

/// What only the host knows (the input of `report`): the config files, their
/// problems and servers are the engine's own (`Engine::config_report`).
// Read by hand (`report_context_json.rs`), not derived.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReportContext {
    /// e.g. "Visual Studio Code 1.139.1" or "lazy-mcp CLI".
    pub host: String,
    pub workspace_folders: Vec<String>,
    /// The user's home directory: files under it (outside the workspace) show as `~/…`.
    pub home: String,
    /// Render `lazy-mcp://` action links (the VS Code webview handles them).
    pub links: bool,
    /// The host's clock when the report is rendered, for relative times such as
    /// "next retry in 12 s" (else the time of the engine's last event).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now_ms: Option<u64>,
}

/// `engine`'s report: its snapshot and last config load, with the host's facts.
pub fn engine_report(ctx: &ReportContext, engine: &Engine) -> String {
    render_markdown(ctx, engine.config_report(), Some(&engine.snapshot()))
}

/// Render the report as Markdown. `config`: the config load's report (its
/// notices, unmanaged servers, definitions, problems, shadowed entries, files).
pub fn render_markdown(
    ctx: &ReportContext,
    config: &ConfigReport,
    snapshot: Option<&DiagnosticsSnapshot>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# MCP Diagnostics\n");
    let _ = writeln!(out, "Core version: {}\n", crate::CORE_VERSION);
    if !ctx.host.is_empty() {
        let _ = writeln!(out, "Host: {}\n", ctx.host);
    }
    for notice in &config.notices {
        let _ = writeln!(out, "> **Note:** {notice}\n");
    }
    let managed = snapshot.map_or(0, |s| s.servers.len() + s.needs_approval.len());
    let configured = managed + config.unmanaged.len();
    let _ = write!(out, "**{} configured**", count(configured, "server"));
    if let Some(s) = snapshot {
        let t = &s.totals;
        let _ = write!(
            out,
            " — {} connected · {} catalogued only · {} dormant · {} failed · {} disabled · {}",
            t.connected,
            t.catalogued,
            t.dormant,
            t.failed,
            t.disabled,
            count_as(t.needs_auth, "needs auth", "need auth")
        );
        if t.in_progress > 0 {
            let _ = write!(out, " · {} in progress", t.in_progress);
        }
        if t.needs_approval > 0 {
            let _ = write!(out, " · **{} NEEDS APPROVAL**", t.needs_approval);
        }
        // With the unmanaged ones the counts add up to the servers configured.
        for (group, count) in crate::config::host_policy::unmanaged_counts(&config.unmanaged) {
            let _ = write!(out, " · {count} {}", group.counted_as());
        }
        let _ = write!(
            out,
            "\n\nTools catalogued: {} — the model's context holds ≈ {} tokens of them now, ≈ {} if every schema were listed in full (estimates)",
            t.tools,
            group_digits(t.exposed_token_estimate),
            group_digits(t.schema_token_estimate)
        );
        if t.meta_tool_tokens > 0 {
            let _ = write!(
                out,
                "; the tool index and its meta-tools take ≈ {}, {}",
                group_digits(t.meta_tool_tokens),
                count(t.loaded_tools, "loaded tool")
            );
        }
    }
    out.push_str("\n\n");
    if let Some(s) = snapshot.filter(|s| !s.servers.is_empty()) {
        render_servers(&mut out, ctx, s);
    }
    if let Some(s) = snapshot {
        render_needs_approval(&mut out, ctx, s);
    }
    render_unmanaged(&mut out, ctx, config);
    render_definitions(&mut out, ctx, config);
    render_problems(&mut out, ctx, config);
    render_shadowed(&mut out, ctx, config);
    render_files(&mut out, ctx, config);
    out
}

/// Two tables that fit a normal editor width: what a user acts on (state, source,
/// last error, actions), then the runtime numbers, each column short.
fn render_servers(out: &mut String, ctx: &ReportContext, s: &DiagnosticsSnapshot) {
    out.push_str("## Servers managed by Lazy MCP\n\n");
    out.push_str("| server | state | tools | prompts | resources | source | last error |");
    if ctx.links {
        out.push_str(" actions |");
    }
    out.push_str("\n|---|---|--:|--:|--:|---|---|");
    if ctx.links {
        out.push_str("---|");
    }
    out.push('\n');
    let mut notes = String::new();
    for server in &s.servers {
        let mut state = server.state_label.clone();
        if server.tools_are_declared_stubs {
            state.push_str(" (declared tools)");
        }
        if let Some(note) = retry_note(server, ctx.now_ms.unwrap_or(s.now_ms)) {
            state.push_str(&format!(" ({note})"));
        }
        let error = match &server.auth {
            // The row's own Sign in link is the next step: not a sentence
            // sending the user to MCP Diagnostics from inside it.
            Some(auth) if auth.needs_sign_in && server.state == ServerState::NeedsAuth => {
                let reason = auth.reason.as_deref().unwrap_or("not signed in");
                match (ctx.links, auth.next_step.as_deref()) {
                    (true, _) => cell(&format!("{reason}: use Sign in in this row")),
                    (false, Some(step)) => cell(&format!("{reason}: {step}")),
                    (false, None) => cell(reason),
                }
            }
            _ => server
                .last_error
                .as_deref()
                .map_or_else(|| "—".to_string(), cell),
        };
        let _ = write!(
            out,
            "| {} | **{}** | {} | {} | {} | {} | {} |",
            cell(&server.name),
            state,
            server.tools,
            server.prompts,
            server.resources + server.resource_templates,
            source_cell(ctx, &server.source),
            error,
        );
        if ctx.links {
            let _ = write!(out, " {} |", actions(&server.name, &server.actions));
        }
        out.push('\n');
        if !server.dropped_declared_tools.is_empty() {
            let _ = writeln!(
                notes,
                "- {} ↳ declared tools the server does not have: {}",
                cell(&server.name),
                cell(&server.dropped_declared_tools.join(", "))
            );
        }
        if !server.loaded_tools.is_empty() {
            let _ = writeln!(
                notes,
                "- {} ↳ loaded from the index: {}",
                cell(&server.name),
                cell(&server.loaded_tools.join(", "))
            );
        }
    }
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes);
    }
    render_approvals(out, ctx, s);
    out.push_str("\n### Processes, cache and exposure\n\n");
    out.push_str("| server | transport | pid | memory | cache age | connect | calls | idle stop | exposure | tokens now / full (est.) |\n|---|---|--:|--:|--:|--:|--:|---|---|--:|\n");
    for server in &s.servers {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} |",
            cell(&server.name),
            transport_cell(server),
            server.pid.map_or("—".into(), |p| pid_cell(p, server)),
            server.rss_bytes.map_or("—".into(), megabytes),
            cache_cell(server),
            server
                .connect_latency_ms
                .map_or("—".into(), |ms| format!("{ms} ms")),
            server.calls_served,
            idle_cell(server),
            exposure_cell(server),
            group_digits(server.exposed_token_estimate),
            group_digits(server.schema_token_estimate),
        );
    }
    render_holders(out, s);
    out.push('\n');
}

/// Which windows and CLI sessions hold each shared process, and for how long.
fn render_holders(out: &mut String, s: &DiagnosticsSnapshot) {
    let shared: Vec<_> = s
        .servers
        .iter()
        .filter(|server| !server.shared_holders.is_empty())
        .collect();
    if shared.is_empty() {
        return;
    }
    out.push_str("\nShared processes, held by:\n");
    for server in shared {
        let holders: Vec<String> = server
            .shared_holders
            .iter()
            .map(|h| {
                format!(
                    "{} (for {})",
                    cell(&h.label),
                    duration(s.now_ms.saturating_sub(h.since_ms))
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "- {} (pid {}): {}",
            cell(&server.name),
            server.pid.map_or("—".into(), |p| p.to_string()),
            holders.join(", ")
        );
    }
}

/// When each server's definitions were approved, and what is held until reviewed.
fn render_approvals(out: &mut String, ctx: &ReportContext, s: &DiagnosticsSnapshot) {
    let servers: Vec<_> = s
        .servers
        .iter()
        .filter_map(|server| Some((server, server.definitions.as_ref()?)))
        .collect();
    if servers.is_empty() {
        return;
    }
    out.push_str("\n### Tool definitions\n\n");
    for (server, status) in servers {
        let name = cell(&server.name);
        let approved = match status.approved_at_ms {
            Some(ms) => format!("definitions approved at {}", utc_time(ms)),
            None => "definitions not approved yet (holdNewTools)".into(),
        };
        if status.held.is_empty() {
            let _ = writeln!(out, "- {name}: {approved}");
            continue;
        }
        let _ = writeln!(
            out,
            "- {name}: {approved}; **{} HELD** until you review them (not listed, not callable):",
            status.held.len()
        );
        for held in &status.held {
            let _ = writeln!(
                out,
                "  - {} `{}`: {}",
                held.kind,
                cell(&held.name),
                cell(&held.change)
            );
        }
        let encoded = percent_encode(&server.name);
        if ctx.links {
            let _ = writeln!(
                out,
                "  - [Review](lazy-mcp://review-definitions?server={encoded}) · [Approve](lazy-mcp://approve-definitions?server={encoded}) · or `lazy-mcp tools diff {}`",
                server.name
            );
        } else {
            let _ = writeln!(
                out,
                "  - review: `lazy-mcp tools diff {0}` · approve: `lazy-mcp tools approve {0}`",
                server.name
            );
        }
    }
}

/// `2026-11-26 12:04 UTC` from Unix milliseconds (no clock, no time library).
fn utc_time(ms: u64) -> String {
    let seconds = ms / 1000;
    let days = (seconds / 86_400) as i64;
    let (hour, minute) = ((seconds % 86_400) / 3600, (seconds % 3600) / 60);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02} UTC")
}

/// Where a failed server's retries stand: "next retry in 12 s", "gave up after 6
/// attempts", or "automatic retry" while a background attempt is under way.
fn retry_note(
    server: &crate::engine::diagnostics_snapshot::ServerDiagnostics,
    now_ms: u64,
) -> Option<String> {
    match &server.state {
        ServerState::Failed {
            retry_at_ms: Some(at),
            ..
        } => Some(format!(
            "next retry in {} s",
            at.saturating_sub(now_ms).div_ceil(1000)
        )),
        ServerState::Failed {
            retry_at_ms: None, ..
        } => Some(format!(
            "gave up after {}",
            count(server.failed_attempts as usize, "attempt")
        )),
        ServerState::Pending | ServerState::Cataloguing if server.background => Some(format!(
            "automatic retry after {}",
            count(server.failed_attempts as usize, "failed attempt")
        )),
        _ => None,
    }
}

/// When a running server stops if nobody calls it, and the call rate that set it.
fn idle_cell(server: &crate::engine::diagnostics_snapshot::ServerDiagnostics) -> String {
    match server.idle_after_ms {
        None => "—".into(),
        Some(0) => "never".into(),
        Some(ms) => format!(
            "after {} ({} in the last hour)",
            duration(ms),
            count(server.calls_last_hour, "call")
        ),
    }
}

/// The transport and the protocol era its catalogue records: `stdio · 2026-07-28`.
/// The pid, and for a process shared with other windows and CLI sessions, by how many.
fn pid_cell(pid: u32, server: &crate::engine::diagnostics_snapshot::ServerDiagnostics) -> String {
    match (server.shared, server.shared_clients) {
        (false, _) => pid.to_string(),
        (true, Some(n)) if n > 1 => format!("{pid} (shared by {n} clients)"),
        (true, _) => format!("{pid} (shared)"),
    }
}

fn transport_cell(server: &crate::engine::diagnostics_snapshot::ServerDiagnostics) -> String {
    match server.era {
        Some(crate::protocol::client_discover::Era::Modern) => {
            format!(
                "{} · {}",
                server.transport,
                crate::protocol::client_discover::MODERN
            )
        }
        Some(crate::protocol::client_discover::Era::Legacy) => {
            format!("{} · legacy", server.transport)
        }
        None => server.transport.clone(),
    }
}

/// The cache age, marked stale past the server's `ttlMs`. A ttl of 0 is the
/// server saying its lists may change at any time: not a fault, and a fresh
/// entry is not called stale (it is listed again at each connection).
fn cache_cell(server: &crate::engine::diagnostics_snapshot::ServerDiagnostics) -> String {
    let age = server.cache_age_ms.map_or("—".into(), duration);
    match (server.cache_stale, server.cache_ttl_ms) {
        (_, Some(0)) => format!("{age} (ttl 0: listed again at each connection)"),
        (true, Some(ttl)) => format!("{age} (stale: ttl {})", duration(ttl)),
        _ => age,
    }
}

/// `full`, `index`, or `index (auto)` when `auto` chose it; `—` while not exposed.
fn exposure_cell(server: &crate::engine::diagnostics_snapshot::ServerDiagnostics) -> String {
    match server.exposed_as {
        None => "—".into(),
        Some(mode) if server.tool_exposure == ToolExposure::Auto => {
            format!("{} (auto)", mode.as_str())
        }
        Some(mode) => mode.as_str().into(),
    }
}

/// The links of the actions the snapshot allows (`server_actions.rs`).
fn actions(name: &str, allowed: &[ServerAction]) -> String {
    allowed
        .iter()
        .map(|action| {
            format!(
                "[{}](lazy-mcp://{}?server={})",
                action.label(),
                action.link_verb(),
                percent_encode(name)
            )
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Project servers that wait for the user: what each would run, what it reads
/// outside the project, and how to approve it (a link in VS Code).
fn render_needs_approval(out: &mut String, ctx: &ReportContext, s: &DiagnosticsSnapshot) {
    if s.needs_approval.is_empty() {
        return;
    }
    out.push_str("## NEEDS APPROVAL: project servers that do not run yet

Defined in this project's files: nothing of them is started, catalogued or connected until you approve them.

| server | state | would run (secrets masked) | reads outside the project | source | to approve |\n|---|---|---|---|---|---|\n");
    for r in &s.needs_approval {
        let state = if r.changed {
            "**NEEDS APPROVAL** (launch changed since approved)"
        } else {
            "**NEEDS APPROVAL**"
        };
        let outside = if r.reads_outside_project.is_empty() {
            "—".to_string()
        } else {
            cell(&r.reads_outside_project.join(", "))
        };
        let action = if ctx.links {
            format!(
                "[Approve](lazy-mcp://approve?server={})",
                percent_encode(&r.name)
            )
        } else {
            cell(&r.action)
        };
        let _ = writeln!(
            out,
            "| {} | {} | `{}` | {} | {} | {} |",
            cell(&r.name),
            state,
            cell(&r.command_line).replace('`', "'"),
            outside,
            source_cell(ctx, &r.source),
            action
        );
    }
    out.push('\n');
}

fn render_unmanaged(out: &mut String, ctx: &ReportContext, config: &ConfigReport) {
    if config.unmanaged.is_empty() {
        return;
    }
    out.push_str(
        "## Configured but not managed by Lazy MCP\n\n| server | source | why |\n|---|---|---|\n",
    );
    for u in &config.unmanaged {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            cell(&u.name),
            source_cell(ctx, &u.source),
            cell(&u.reason)
        );
    }
    out.push('\n');
}

fn render_definitions(out: &mut String, ctx: &ReportContext, config: &ConfigReport) {
    if config.result.servers.is_empty() {
        return;
    }
    out.push_str("## Server definitions (secrets masked)\n\n| server | format · scope | launch | env / headers | source |\n|---|---|---|---|---|\n");
    for server in config.result.servers.iter().map(ServerConfig::redacted) {
        let (launch, pairs) = match &server.transport {
            Transport::Stdio {
                command, args, env, ..
            } => (
                std::iter::once(command.as_str())
                    .chain(args.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" "),
                env,
            ),
            Transport::Http { url, headers } => (format!("http {url}"), headers),
            Transport::Sse { url, headers } => (format!("sse {url}"), headers),
        };
        let pairs = pairs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(
            out,
            "| {} | {} · {} | `{}` | {} | {} |",
            cell(&server.name),
            enum_name(&server.source.format),
            enum_name(&server.source.scope),
            cell(&launch).replace('`', "'"),
            if pairs.is_empty() {
                "—".into()
            } else {
                cell(&pairs)
            },
            source_cell(ctx, &server.source)
        );
    }
    out.push('\n');
}

fn render_problems(out: &mut String, ctx: &ReportContext, config: &ConfigReport) {
    let shown: Vec<&Problem> = config
        .result
        .problems
        .iter()
        .filter(|p| p.severity != Severity::Info)
        .collect();
    if shown.is_empty() {
        return;
    }
    out.push_str("## Problems\n\n");
    for p in shown {
        let icon = if p.severity == Severity::Error {
            "✖ error"
        } else {
            "⚠ warning"
        };
        let mut location = display_path(ctx, &p.file);
        if p.line > 0 {
            let _ = write!(location, ":{}:{}", p.line, p.column);
        }
        let location = if ctx.links {
            format!(
                "[{}](lazy-mcp://open?file={}&line={}&column={})",
                location,
                percent_encode(&p.file),
                p.line,
                p.column
            )
        } else {
            format!("`{location}`")
        };
        let _ = write!(out, "- {icon} {location}");
        if let Some(server) = &p.server {
            let _ = write!(out, " — server `{server}`");
        }
        if let Some(field) = &p.field {
            let _ = write!(out, ", field `{field}`");
        }
        let _ = writeln!(out, ": {}", p.message.replace('\n', " "));
    }
    out.push('\n');
}

fn render_shadowed(out: &mut String, ctx: &ReportContext, config: &ConfigReport) {
    if config.result.shadowed.is_empty() {
        return;
    }
    out.push_str("## Shadowed definitions\n\n");
    for s in &config.result.shadowed {
        let _ = writeln!(
            out,
            "- `{}` in {} is shadowed by {}",
            s.name,
            source_cell(ctx, &s.loser),
            source_cell(ctx, &s.winner)
        );
    }
    out.push('\n');
}

fn render_files(out: &mut String, ctx: &ReportContext, config: &ConfigReport) {
    if config.result.files.is_empty() {
        return;
    }
    out.push_str(
        "## Config files looked at\n\n| file | format | scope | status |\n|---|---|---|---|\n",
    );
    for f in &config.result.files {
        let status = match (&f.error, f.found) {
            (Some(_), _) => "✖ has errors (see Problems)".to_string(),
            (None, false) => "not found".to_string(),
            (None, true) => count(f.server_count, "server"),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(&display_path(ctx, &f.path)),
            enum_name(&f.format),
            enum_name(&f.scope),
            status
        );
    }
    out.push('\n');
}

fn source_cell(ctx: &ReportContext, source: &SourceRef) -> String {
    let text = format!("{}:{}", display_path(ctx, &source.file), source.line);
    if ctx.links {
        format!(
            "[{}](lazy-mcp://open?file={}&line={}&column={})",
            cell(&text),
            percent_encode(&source.file),
            source.line,
            source.column
        )
    } else {
        cell(&text)
    }
}

/// How a config file is named to the user: relative to its workspace folder
/// (prefixed with the folder's name when there are several), else `~/…` under
/// the home directory, else the full path.
pub fn display_path(ctx: &ReportContext, path: &str) -> String {
    display_path_in(&ctx.workspace_folders, &ctx.home, path)
}

pub use crate::display_path::display_path_in;

fn enum_name<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Make a value safe inside a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

fn percent_encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~/".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Whole megabytes, rounded half up, in integers: no float formatting in the
/// core (it costs the .wasm about 15 KB).
fn megabytes(bytes: u64) -> String {
    format!("{} MB", bytes.saturating_add(500_000) / 1_000_000)
}

fn duration(ms: u64) -> String {
    match ms {
        0..=59_999 => format!("{} s", ms / 1000),
        60_000..=3_599_999 => format!("{} min", ms / 60_000),
        3_600_000..=86_399_999 => format!("{} h", ms / 3_600_000),
        _ => format!("{} d", ms / 86_400_000),
    }
}

fn group_digits(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_report_names_the_core_version_and_zero_servers() {
        let report = render_markdown(&ReportContext::default(), &ConfigReport::default(), None);
        assert!(report.starts_with("# MCP Diagnostics\n"));
        assert!(report.contains(&format!("Core version: {}", crate::CORE_VERSION)));
        assert!(report.contains("0 servers configured"));
    }

    #[test]
    fn notices_are_shown_above_the_servers() {
        let config = ConfigReport {
            notices: vec![crate::config::host_policy::UNTRUSTED_NOTICE.to_string()],
            ..ConfigReport::default()
        };
        let report = render_markdown(&ReportContext::default(), &config, None);
        let notice = report
            .find("> **Note:** Restricted Mode")
            .unwrap_or(usize::MAX);
        assert!(
            notice < report.find("servers configured").unwrap_or(0),
            "{report}"
        );
    }

    #[test]
    fn table_cells_cannot_break_the_table_and_paths_are_shortened() {
        assert_eq!(cell("a|b\nc"), "a\\|b c");
        let ctx = ReportContext {
            workspace_folders: vec!["/home/u/ws".into()],
            home: "/home/u".into(),
            ..ReportContext::default()
        };
        assert_eq!(
            display_path(&ctx, "/home/u/ws/.vscode/mcp.json"),
            ".vscode/mcp.json"
        );
        assert_eq!(
            display_path(&ctx, "/home/u/ws/opencode.json"),
            "opencode.json"
        );
        assert_eq!(
            display_path(&ctx, "/home/u/.copilot/mcp-config.json"),
            "~/.copilot/mcp-config.json"
        );
        assert_eq!(display_path(&ctx, "/etc/mcp.json"), "/etc/mcp.json");
        assert_eq!(display_path(&ctx, "/home/u/wsx/a.json"), "~/wsx/a.json");
        let two = ReportContext {
            workspace_folders: vec!["/w/a".into(), "/w/a/b".into()],
            ..ReportContext::default()
        };
        assert_eq!(display_path(&two, "/w/a/b/.mcp.json"), "b/.mcp.json");
    }

    #[test]
    fn server_definitions_are_listed_with_secrets_masked() {
        let server: ServerConfig = serde_json::from_value(serde_json::json!({
            "name": "gh", "enabled": true, "autoConnect": true,
            "tools": {"kind": "all"}, "loadedByVscode": false, "fingerprint": "f",
            "transport": {"type": "stdio", "command": "npx", "args": ["-y", "server-github"],
                          "env": {"GITHUB_TOKEN": "ghp_supersecretvalue"}},
            "source": {"format": "copilot-cli", "scope": "user", "file": "/h/.copilot/mcp-config.json", "line": 3, "column": 5}
        }))
        .unwrap_or_else(|e| panic!("fixture: {e}"));
        let mut config = ConfigReport::default();
        config.result.servers = vec![server];
        let report = render_markdown(&ReportContext::default(), &config, None);
        assert!(report.contains("## Server definitions (secrets masked)"));
        assert!(report.contains("`npx -y server-github`"));
        assert!(report.contains("GITHUB_TOKEN="));
        assert!(!report.contains("ghp_supersecretvalue"), "{report}");
    }

    #[test]
    fn oauth_servers_get_sign_in_or_sign_out_links() {
        let auth = |needs_sign_in: bool, signing_in: bool| crate::engine::auth::AuthSnapshot {
            needs_sign_in,
            reason: None,
            next_step: None,
            signing_in,
            refreshing: false,
        };
        use crate::engine::server_actions::allowed_actions;
        use crate::engine::ServerState;
        let links =
            |name: &str, state: ServerState, a: Option<crate::engine::auth::AuthSnapshot>| {
                actions(name, &allowed_actions(&state, a.as_ref()))
            };
        let needs = links(
            "linear app",
            ServerState::NeedsAuth,
            Some(auth(true, false)),
        );
        assert!(
            needs.starts_with("[Sign in](lazy-mcp://sign-in?server=linear%20app) · "),
            "{needs}"
        );
        assert!(!needs.contains("sign-out"), "{needs}");
        let signed_in = links("linear", ServerState::Catalogued, Some(auth(false, false)));
        assert!(
            signed_in.contains("[Sign out](lazy-mcp://sign-out?server=linear)"),
            "{signed_in}"
        );
        let under_way = links("linear", ServerState::NeedsAuth, Some(auth(true, true)));
        assert!(!under_way.contains("Sign in"), "{under_way}");
        let plain = links("memory", ServerState::Catalogued, None);
        assert!(!plain.contains("Sign"), "{plain}");
    }

    #[test]
    fn approval_times_are_utc_dates() {
        assert_eq!(utc_time(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_time(1_795_694_640_000), "2026-11-26 12:04 UTC");
    }

    #[test]
    fn numbers_read_like_a_person_wrote_them() {
        assert_eq!(group_digits(1234567), "1,234,567");
        assert_eq!(group_digits(12), "12");
        assert_eq!(duration(61_000), "1 min");
        assert_eq!(megabytes(65_400_000), "65 MB");
        assert_eq!(percent_encode("a b/c"), "a%20b/c");
    }
}
