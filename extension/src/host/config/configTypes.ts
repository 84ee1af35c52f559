// TypeScript views of the core's config JSON (crates/lazy-mcp-core/src/config).

export interface DiscoveryInput {
  home: string;
  workspaceFolders: string[];
  platform: string;
  env: Record<string, string>;
  vscodeUserMcpJson?: string;
  sources?: string[];
}

export interface SourceRef {
  format: string;
  scope: string;
  file: string;
  line: number;
  column: number;
  workspaceFolder?: string;
}

export interface ServerConfig {
  name: string;
  transport: { type: string } & Record<string, unknown>;
  enabled: boolean;
  autoConnect: boolean;
  source: SourceRef;
  loadedByVscode: boolean;
  fingerprint: string;
}

export interface Problem {
  severity: 'error' | 'warning' | 'info';
  file: string;
  line: number;
  column: number;
  server?: string;
  field?: string;
  message: string;
}

export interface FileReport {
  path: string;
  format: string;
  scope: string;
  workspaceFolder?: string;
  loadedByVscode: boolean;
  found: boolean;
  serverCount: number;
  error?: Problem;
  /** `error` is a JSON syntax error (VS Code's JSON service reports those in open documents). */
  syntaxError?: boolean;
  /** Set by the host: the file is broken right now and its last good version was used. */
  usingLastGood?: boolean;
}

export interface NormalizeResult {
  servers: ServerConfig[];
  files: FileReport[];
  problems: Problem[];
  shadowed: { name: string; winner: SourceRef; loser: SourceRef }[];
  needsFiles: string[];
}

export interface FileInput {
  path: string;
  content: string | null;
  format?: string;
  scope?: string;
}
