//! The core/host boundary as TypeScript, generated from the core's Rust types
//! with ts-rs. `extension/src/core/contract.generated.ts` is this crate's output,
//! checked in; `tests/contract_is_current.rs` fails when it is stale, and
//! `cargo run -p lazy-mcp-contract` rewrites it. So is the JSON of the core's
//! `host_limits()` the WASM returns as it is (`HOST_LIMITS_PATH`): the .wasm then
//! carries no serializer for it.

use lazy_mcp_core::config::host_policy::{
    ApprovalRequest, ApprovalStatus, ApprovalVia, HostPolicy, ProjectServer, Unmanaged,
    UnmanagedGroup, VsCodeNativePolicy,
};
use lazy_mcp_core::config::load::{ConfigReport, ConfigSources, ExplicitFile, FileRead};
use lazy_mcp_core::config::project_approval::{TrustEdit, TrustRequest};
use lazy_mcp_core::config::{
    model::{ConfigFormat, ConfigScope, OAuthConfig, ToolExposure, ToolFilter},
    CandidateFile, DiscoveryInput, FileInput, FileReport, NormalizeInput, NormalizeResult, Problem,
    ServerConfig, Severity, Shadowed, SourceRef, Transport,
};
use lazy_mcp_core::diagnostics::ReportContext;
use lazy_mcp_core::engine::auth_contract::{
    AuthSnapshot, OAuthBinding, RefreshOutcome, SignInOutcome,
};
use lazy_mcp_core::engine::definition_review::{DefinitionWarning, WarningKind};
use lazy_mcp_core::engine::diagnostics_snapshot::{
    DiagnosticsTotals, ServerDiagnostics, UnmanagedView,
};
use lazy_mcp_core::engine::effects::AnnounceAction;
use lazy_mcp_core::engine::held_definitions::{
    DefinitionsReview, DefinitionsStatus, HeldDefinition, ReviewItem,
};
use lazy_mcp_core::engine::server_actions::{Progress, ServerAction};
use lazy_mcp_core::engine::{
    AggregateEndpoint, DiagnosticsSnapshot, Effect, Endpoint, EndpointInfo, Event, LogLevel,
    ServerState, Settings,
};
use lazy_mcp_core::host_limits::{
    GatewayLimits, HostLimits, LogThrottleLimits, SharedOwnerLimits, SignInLimits, StdioLimits,
};
use lazy_mcp_core::http_status::{HttpExchange, HttpMode, HttpVerdict};
use lazy_mcp_core::problem_presentation::{
    OpenDocument, Presentation, PresentationInput, ProblemLogLine,
};
use lazy_mcp_core::protocol::client_discover::Era;
use lazy_mcp_core::protocol::client_message::{ClientBody, ClientEnvelope, ErrorShape};
use lazy_mcp_core::protocol::modern_http::RequestHeaders;
use lazy_mcp_core::shared::launch::{SharedHolder, SharedLaunch};
use ts_rs::TS;

/// Where the generated file lives, relative to the repository root.
pub const GENERATED_PATH: &str = "extension/src/core/contract.generated.ts";

/// Where the WASM's `hostLimits` JSON lives (included by crates/lazy-mcp-wasm).
pub const HOST_LIMITS_PATH: &str = "crates/lazy-mcp-wasm/src/host_limits.generated.json";

/// The core's `host_limits()` as the host reads it (one line of JSON).
pub fn render_host_limits() -> String {
    lazy_mcp_core::host_limits::host_limits_json() + "\n"
}

fn declaration<T: TS>() -> String {
    // u64 fields (ids, milliseconds, bytes) cross as JSON numbers, which JSON.parse
    // gives as `number`, not ts-rs's default `bigint`.
    let config = ts_rs::Config::new().with_large_int("number");
    // One union member per line, so a change reads as a one-line diff.
    let decl = T::decl(&config).replace("} | {", "}\n  | {");
    format!("export {decl}\n")
}

/// The whole generated file: one exported declaration per boundary type, in a
/// fixed order so the output is stable.
pub fn render() -> String {
    let declarations = [
        // events and effects
        declaration::<Event>(),
        declaration::<Effect>(),
        declaration::<Endpoint>(),
        declaration::<EndpointInfo>(),
        declaration::<AnnounceAction>(),
        declaration::<LogLevel>(),
        declaration::<ServerState>(),
        declaration::<OAuthBinding>(),
        declaration::<SharedLaunch>(),
        declaration::<SharedHolder>(),
        declaration::<SignInOutcome>(),
        declaration::<RefreshOutcome>(),
        // settings
        declaration::<Settings>(),
        declaration::<AggregateEndpoint>(),
        // the snapshot
        declaration::<DiagnosticsSnapshot>(),
        declaration::<ServerDiagnostics>(),
        declaration::<DiagnosticsTotals>(),
        declaration::<UnmanagedView>(),
        declaration::<Era>(),
        declaration::<ServerAction>(),
        declaration::<Progress>(),
        declaration::<AuthSnapshot>(),
        declaration::<DefinitionsStatus>(),
        declaration::<HeldDefinition>(),
        // a server's held definitions to review (`definitionsReview`)
        declaration::<DefinitionsReview>(),
        declaration::<ReviewItem>(),
        declaration::<DefinitionWarning>(),
        declaration::<WarningKind>(),
        // the Diagnostics report's host facts (`report`)
        declaration::<ReportContext>(),
        // a client's body as the core reads it (`clientBody`)
        declaration::<ClientBody>(),
        declaration::<ClientEnvelope>(),
        declaration::<ErrorShape>(),
        declaration::<RequestHeaders>(),
        // what the host's I/O runs by (`hostLimits`, `httpStatusVerdict`)
        declaration::<HostLimits>(),
        declaration::<GatewayLimits>(),
        declaration::<SharedOwnerLimits>(),
        declaration::<StdioLimits>(),
        declaration::<SignInLimits>(),
        declaration::<LogThrottleLimits>(),
        declaration::<HttpExchange>(),
        declaration::<HttpVerdict>(),
        // what an HTTP connection speaks (`httpTransport`)
        declaration::<HttpMode>(),
        // config
        declaration::<ConfigSources>(),
        declaration::<ExplicitFile>(),
        declaration::<HostPolicy>(),
        declaration::<VsCodeNativePolicy>(),
        declaration::<FileRead>(),
        declaration::<ConfigReport>(),
        declaration::<Unmanaged>(),
        declaration::<UnmanagedGroup>(),
        // project servers' approval (`trustEdit`)
        declaration::<ApprovalVia>(),
        declaration::<ApprovalRequest>(),
        declaration::<ProjectServer>(),
        declaration::<ApprovalStatus>(),
        declaration::<TrustRequest>(),
        declaration::<TrustEdit>(),
        declaration::<PresentationInput>(),
        declaration::<OpenDocument>(),
        declaration::<Presentation>(),
        declaration::<ProblemLogLine>(),
        declaration::<DiscoveryInput>(),
        declaration::<CandidateFile>(),
        declaration::<NormalizeInput>(),
        declaration::<FileInput>(),
        declaration::<NormalizeResult>(),
        declaration::<FileReport>(),
        declaration::<Problem>(),
        declaration::<Severity>(),
        declaration::<Shadowed>(),
        declaration::<ServerConfig>(),
        declaration::<SourceRef>(),
        declaration::<Transport>(),
        declaration::<ToolFilter>(),
        declaration::<OAuthConfig>(),
        declaration::<ToolExposure>(),
        declaration::<ConfigFormat>(),
        declaration::<ConfigScope>(),
    ];
    let mut out = String::from(
        "// GENERATED by `cargo run -p lazy-mcp-contract` from the core's Rust types (ts-rs).\n\
         // Do not edit: change the Rust type and regenerate; `cargo test` fails when this is stale.\n\n",
    );
    out.push_str(&declarations.join("\n"));
    out
}
