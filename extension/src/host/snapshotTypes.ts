// The engine's diagnostics snapshot, as generated from the Rust types
// (engine/diagnostics_snapshot.rs → core/contract.generated.ts).
import type { ServerState } from '../core/contract.generated';

export type { DiagnosticsSnapshot, DiagnosticsTotals, ServerDiagnostics, ServerState } from '../core/contract.generated';
export type StateKind = ServerState['kind'];
