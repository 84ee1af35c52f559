// The `lazyMcp.*` settings, read into what the core expects.
import * as vscode from 'vscode';
import type { ConfigFormat, LogLevel, Settings, ToolExposure, VsCodeNativePolicy } from '../core/contract.generated';

export interface LazyMcpSettings {
  /** Engine settings JSON object (docs/engine-events-effects.md). */
  engine: Partial<Settings>;
  vscodeNativeServers: VsCodeNativePolicy;
  /** Run servers from the workspace's own files without asking (`lazyMcp.trustProjectServers`). */
  trustProjectServers: boolean;
  sources: ConfigFormat[] | undefined;
  logLevel: LogLevel;
}

export function readSettings(): LazyMcpSettings {
  const c = vscode.workspace.getConfiguration('lazyMcp');
  const sources = c.get<ConfigFormat[]>('sources');
  return {
    engine: {
      catalogueConcurrency: Math.max(1, c.get<number>('catalogueConcurrency', 2)),
      idleTimeoutMs: Math.max(0, c.get<number>('idleTimeoutMinutes', 10)) * 60_000,
      adaptiveIdle: c.get<boolean>('adaptiveIdle', true) !== false,
      // A server's own ceiling in minutes (`{"memory": 30}`) as the core's `NAME=MS` lines; anything but a number ≥ 0 is left out.
      idleTimeoutByServer: Object.entries(c.get<Record<string, unknown>>('serverIdleTimeoutMinutes', {}))
        .flatMap(([name, minutes]) => (typeof minutes === 'number' && minutes >= 0 && !/[=\n]/.test(name) ? [`${name}=${Math.round(minutes * 60_000)}`] : []))
        .join('\n'),
      handshakeTimeoutMs: Math.max(1, c.get<number>('handshakeTimeoutSeconds', 30)) * 1000,
      clientName: 'lazy-mcp (VS Code)',
      // How other windows and CLI sessions holding a shared server see this one.
      sessionLabel: 'VS Code window',
      toolExposure: exposure(c.get('toolExposure')) ?? 'auto',
      toolExposureByServer: Object.fromEntries(
        Object.entries(c.get<Record<string, unknown>>('toolExposureByServer', {})).flatMap(([name, mode]) => {
          const m = exposure(mode);
          return m ? [[name, m]] : [];
        }),
      ),
      toolTokenBudget: Math.max(0, c.get<number>('toolTokenBudget', 20_000)),
      // Every server has its own endpoint in VS Code: /mcp carries only the tool index
      // (and the core asks VS Code to start each definition until it listed its tools).
      aggregateEndpoint: 'toolIndex',
      // A call to a server that needs sign-in asks the user and waits (the CLI fails at once).
      signInMayWait: true,
      holdNewTools: c.get<boolean>('holdNewTools', false),
      // The engine's own timer re-lists connected servers this often (0: never).
      refreshIntervalMs: Math.max(0, c.get<number>('refreshIntervalMinutes', 0)) * 60_000,
      // One process per server for every window and `lazy-mcp serve` (docs/shared-servers.md); on by default.
      shareServers: c.get<boolean>('shareServers', true) !== false && process.platform !== 'win32',
      closeListingSessions: c.get<boolean>('closeListingSessions', true) !== false,
    },
    vscodeNativeServers: c.get('vscodeNativeServers', 'leaveToVsCode'),
    trustProjectServers: c.get<boolean>('trustProjectServers', false) === true,
    sources: sources && sources.length > 0 ? sources : undefined,
    logLevel: c.get('logLevel', 'info'),
  };
}

function exposure(value: unknown): ToolExposure | undefined {
  return value === 'full' || value === 'index' || value === 'auto' ? value : undefined;
}
