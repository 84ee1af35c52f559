// TypeScript view of the engine's diagnostics snapshot (engine/diagnostics_snapshot.rs).
import type { SourceRef } from './config/configTypes';

export type StateKind = 'DISABLED' | 'DORMANT' | 'PENDING' | 'CATALOGUING' | 'CATALOGUED' | 'CONNECTING' | 'CONNECTED' | 'FAILED' | 'NEEDS_AUTH';

export interface ServerDiagnostics {
  name: string;
  source: SourceRef;
  transport: string;
  /** FAILED: `retryAtMs` while an automatic retry is scheduled; absent once Lazy MCP gave up. */
  state: { kind: StateKind; error?: string; retryAtMs?: number };
  stateLabel: string;
  /** PENDING/CATALOGUING as an automatic retry: no progress is shown for it. */
  background: boolean;
  /** Failed attempts in a row. */
  failedAttempts: number;
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
  totals: {
    servers: number;
    catalogued: number;
    connected: number;
    dormant: number;
    failed: number;
    disabled: number;
    needsAuth: number;
    inProgress: number;
    /** Servers being catalogued that the host shows as progress (automatic retries excluded). */
    cataloguingShown: number;
    tools: number;
    schemaTokenEstimate: number;
    exposedTokenEstimate: number;
    metaToolTokens: number;
    loadedTools: number;
  };
}
