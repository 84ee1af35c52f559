// TypeScript view of the engine's diagnostics snapshot (engine/diagnostics_snapshot.rs).
import type { SourceRef } from './config/configTypes';

export type StateKind = 'DISABLED' | 'DORMANT' | 'PENDING' | 'CATALOGUING' | 'CATALOGUED' | 'CONNECTING' | 'CONNECTED' | 'FAILED' | 'NEEDS_AUTH';

export interface ServerDiagnostics {
  name: string;
  source: SourceRef;
  transport: string;
  state: { kind: StateKind; error?: string; retryAtMs?: number };
  stateLabel: string;
  tools: number;
  prompts: number;
  resources: number;
  resourceTemplates: number;
  toolsAreDeclaredStubs: boolean;
  pid?: number;
  rssBytes?: number;
  cacheAgeMs?: number;
  connectLatencyMs?: number;
  callsServed: number;
  lastError?: string;
  /** Estimated tokens of the tool definitions in full mode. */
  schemaTokenEstimate: number;
  /** Estimated tokens the server costs the model now (index lines + loaded tools in index mode). */
  exposedTokenEstimate: number;
  toolExposure: 'full' | 'index' | 'auto';
  exposedAs?: 'full' | 'index';
  loadedTools: string[];
  loadedByVscode: boolean;
}

export interface DiagnosticsSnapshot {
  coreVersion: string;
  servers: ServerDiagnostics[];
  /** One line naming every non-empty state ("1 connected · 2 catalogued only · 1 disabled"). */
  summary: string;
  totals: {
    servers: number;
    /** Neither disabled nor dormant. */
    enabled: number;
    catalogued: number;
    connected: number;
    dormant: number;
    failed: number;
    disabled: number;
    needsAuth: number;
    inProgress: number;
    tools: number;
    schemaTokenEstimate: number;
    exposedTokenEstimate: number;
    metaToolTokens: number;
    loadedTools: number;
  };
}
