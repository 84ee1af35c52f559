// Composition root for VS Code: the shared LazyHost plus VS Code's MCP
// definition provider, tree, status bar, commands and Diagnostics. UI only:
// every decision about servers is the core's.
import { createHash } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WasmCore } from '../core/wasmCore';
import type { DiscoveryInput, NormalizeResult, Problem } from '../host/config/configTypes';
import { processEnv } from '../host/config/configSession';
import { LazyHost, type LogLevel } from '../host/lazyHost';
import { treeRssBytes } from '../host/processTree';
import type { DiagnosticsSnapshot, ServerDiagnostics, StateKind } from '../host/snapshotTypes';
import { BlobFile } from '../host/storage/blobFile';
import { DiagnosticsView, type DiagnosticsAction } from './diagnosticsView';
import { inputResolver } from './inputVariables';
import { GatewayDefinitions, providerId } from './mcpDefinitions';
import { ServerTree } from './serverTree';
import { readSettings, type LazyMcpSettings } from './settings';
import { StatusBar } from './statusBar';

const levels: LogLevel[] = ['debug', 'info', 'warn', 'error'];

interface Unmanaged {
  name: string;
  source: { file: string; line: number };
  reason: string;
}

/** What tests (and other extensions) can read. */
export interface LazyMcpApi {
  snapshot(): DiagnosticsSnapshot;
  endpointUrl(server: string): string;
  reload(): Promise<void>;
  exposedServers(): string[];
  /** Labels of the MCP definitions given to VS Code (servers, then the tool index if any). */
  definitionLabels(): string[];
}

export class Controller implements vscode.Disposable {
  private readonly host: LazyHost;
  private readonly definitions: GatewayDefinitions;
  private readonly tree = new ServerTree();
  private readonly status = new StatusBar();
  private readonly view: DiagnosticsView;
  private readonly problems = vscode.languages.createDiagnosticCollection('lazy-mcp');
  private readonly disposables: vscode.Disposable[] = [];
  private settings: LazyMcpSettings = readSettings();
  private unmanaged: Unmanaged[] = [];
  private lastProblemKey = '';
  private cataloguing: (() => void) | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private uiTimer: NodeJS.Timeout | undefined;
  private startedVersions = new Map<string, string>();
  private stopped = false;
  private readonly treeView = vscode.window.createTreeView('lazyMcp.servers', { treeDataProvider: this.tree });

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly core: WasmCore,
    private readonly log: vscode.LogOutputChannel,
  ) {
    const discovery = this.discovery();
    this.host = new LazyHost({
      core,
      discovery,
      settings: this.settings.engine,
      store: new BlobFile(cataloguePath(context.globalStorageUri.fsPath, discovery.workspaceFolders)),
      log: (level, message, server) => this.write(level, message, server),
      gateway: {},
      selectServers: (result) => this.selectServers(result),
      watchConfig: true,
      onChange: () => this.scheduleUi(),
      onEndpointsChanged: (endpoints, aggregate) => this.exposeEndpoints(endpoints.map((e) => ({ name: e.server, version: e.version })), aggregate),
      onConfigLoaded: (result) => this.showProblems(result.problems),
      resolveTransport: inputResolver(context.secrets),
      measureRss: treeRssBytes,
    });
    this.definitions = new GatewayDefinitions((server) => this.host.endpointUrl(server), this.host.gatewayToken);
    this.view = new DiagnosticsView(
      (links) => this.report(links),
      (action) => void this.onAction(action),
    );
  }

  async start(): Promise<LazyMcpApi> {
    const c = this.context;
    this.disposables.push(
      this.tree,
      this.status,
      this.view,
      this.problems,
      this.definitions,
      vscode.lm.registerMcpServerDefinitionProvider(providerId, this.definitions),
      this.treeView,
      // A refresh fired while the view was hidden is not replayed by VS Code: refresh on show.
      this.treeView.onDidChangeVisibility((e) => {
        if (e.visible) this.updateUi();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.onFoldersChanged()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.host.reload()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('lazyMcp')) void this.onSettingsChanged();
      }),
    );
    this.registerCommands();
    await this.host.start();
    this.armRefresh();
    this.updateUi();
    c.subscriptions.push(this);
    return {
      snapshot: () => this.snapshot(),
      endpointUrl: (server) => this.host.endpointUrl(server),
      reload: async () => {
        await this.host.reload();
      },
      exposedServers: () => this.definitions.exposed.map((s) => s.name),
      definitionLabels: () => this.definitions.definitions.map((d) => d.name),
    };
  }

  /** Ends every process this extension started. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.refreshTimer);
    clearTimeout(this.uiTimer);
    this.cataloguing?.();
    await this.host.stop();
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }

  recoverFromTrap(): void {
    this.host.driver.recoverFromTrap();
  }

  // ── config and policy ──────────────────────────────────────────────

  private discovery(): DiscoveryInput {
    // globalStorage is <profile>/User/globalStorage/<extension id>; the user mcp.json sits in User/.
    const userDir = path.dirname(path.dirname(this.context.globalStorageUri.fsPath));
    return {
      home: os.homedir(),
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      platform: process.platform,
      env: processEnv(),
      vscodeUserMcpJson: path.join(userDir, 'mcp.json'),
      sources: this.settings.sources,
    };
  }

  private selectServers(result: NormalizeResult): unknown[] {
    const input = JSON.stringify({
      servers: result.servers,
      policy: { workspaceTrusted: vscode.workspace.isTrusted, vscodeNative: this.settings.vscodeNativeServers },
    });
    const selection = JSON.parse(this.core.call((c) => c.selectServers(input))) as { managed: unknown[]; unmanaged: Unmanaged[] };
    this.unmanaged = selection.unmanaged;
    return selection.managed;
  }

  private async onFoldersChanged(): Promise<void> {
    const discovery = this.discovery();
    this.host.config.updateDiscovery(discovery);
    this.host.driver.handle({ type: 'rootsChanged', roots: rootsOf(discovery.workspaceFolders) });
    await this.host.reload();
  }

  private async onSettingsChanged(): Promise<void> {
    this.settings = readSettings();
    const discovery = this.discovery();
    // The engine replaces all of its settings: the roots go along, or servers would lose them.
    this.host.driver.handle({ type: 'settingsChanged', settings: { ...this.settings.engine, roots: rootsOf(discovery.workspaceFolders) } });
    this.host.config.updateDiscovery(discovery);
    this.armRefresh();
    await this.host.reload();
  }

  private armRefresh(): void {
    clearInterval(this.refreshTimer);
    if (this.settings.refreshIntervalMs > 0) {
      // Re-lists CONNECTED servers only; the engine never spawns for a refresh.
      this.refreshTimer = setInterval(() => this.host.driver.handle({ type: 'refreshCatalogue' }), this.settings.refreshIntervalMs);
      this.refreshTimer.unref();
    }
  }

  private showProblems(problems: Problem[]): void {
    this.problems.clear();
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const p of problems.filter((p) => p.severity !== 'info')) {
      const pos = new vscode.Position(Math.max(0, p.line - 1), Math.max(0, p.column - 1));
      const d = new vscode.Diagnostic(new vscode.Range(pos, pos.translate(0, 1)), `${p.server ? `${p.server}: ` : ''}${p.message}`, p.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
      d.source = 'Lazy MCP';
      byFile.set(p.file, [...(byFile.get(p.file) ?? []), d]);
    }
    for (const [file, list] of byFile) this.problems.set(vscode.Uri.file(file), list);
    // One notification per distinct set of errors, not one per reload.
    const errors = problems.filter((p) => p.severity === 'error');
    const key = JSON.stringify(errors.map((p) => [p.file, p.line, p.column, p.message]));
    if (key === this.lastProblemKey) return;
    this.lastProblemKey = key;
    const first = errors[0];
    if (!first) return;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    void vscode.window.showWarningMessage(`Lazy MCP: ${path.basename(first.file)}:${first.line}:${first.column}: ${first.message}${more}`, 'Open File', 'MCP Diagnostics').then((choice) => {
      if (choice === 'Open File') void this.openSource(first.file, first.line, first.column);
      if (choice === 'MCP Diagnostics') void vscode.commands.executeCommand('lazyMcp.showDiagnostics');
    });
  }

  // ── exposing tools to Copilot Chat ─────────────────────────────────

  private exposeEndpoints(exposed: { name: string; version: string }[], toolIndexVersion: string | undefined): void {
    this.definitions.update(exposed, toolIndexVersion);
    const servers = this.definitions.definitions;
    // VS Code lists an extension's MCP tools only after starting the server once; starting
    // our gateway definition is an in-process handshake, nothing upstream is spawned.
    const changed = servers.filter((s) => this.startedVersions.get(s.name) !== s.version);
    for (const name of [...this.startedVersions.keys()]) if (!servers.some((s) => s.name === name)) this.startedVersions.delete(name);
    for (const s of changed) this.startedVersions.set(s.name, s.version);
    const since = Date.now();
    for (const s of changed) void this.startUntilListed(s, since);
  }

  /**
   * Asks VS Code to start one gateway definition until VS Code has listed its tools.
   * VS Code reads the provider asynchronously and ignores a start for a definition it
   * does not know yet (the command resolves either way), so the gateway's record of
   * VS Code's `tools/list` is what says it worked.
   */
  private async startUntilListed(def: { name: string; version: string; endpoint: string }, since: number): Promise<void> {
    const current = (): boolean => this.definitions.definitions.some((d) => d.name === def.name && d.version === def.version);
    const listed = (): boolean => (this.host.toolsListedAt(def.endpoint) ?? 0) >= since;
    let pause = 25;
    while (!this.stopped && current() && !listed() && Date.now() - since < 20_000) {
      await vscode.commands.executeCommand('workbench.mcp.startServer', `${this.context.extension.id}/${def.name}`, { waitForLiveTools: true }).then(undefined, (err: unknown) =>
        this.write('debug', `could not ask VS Code to start ${def.name}: ${String(err)}`),
      );
      if (listed()) return;
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 400);
    }
  }

  // ── UI ─────────────────────────────────────────────────────────────

  private snapshot(): DiagnosticsSnapshot {
    return this.host.snapshot() as DiagnosticsSnapshot;
  }

  private report(links: boolean): string {
    const config = this.host.configResult;
    const context = JSON.stringify({
      host: `${vscode.env.appName} ${vscode.version}`,
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      links,
      files: config?.files ?? [],
      problems: config?.problems ?? [],
      shadowed: config?.shadowed ?? [],
      unmanaged: this.unmanaged,
      servers: config?.servers ?? [],
    });
    return this.host.driver.reportMarkdown(context);
  }

  private scheduleUi(): void {
    clearTimeout(this.uiTimer);
    this.uiTimer = setTimeout(() => this.updateUi(), 100);
  }

  private updateUi(): void {
    // Tree and status bar show no memory: skip the /proc scan on every state change.
    const snap = this.host.snapshot({ withMemory: false }) as DiagnosticsSnapshot;
    this.tree.update(snap);
    const t = snap.totals;
    this.treeView.message = t.servers === 0 ? 'No servers managed by Lazy MCP. Run MCP Diagnostics to see why.' : `${t.connected} connected · ${t.catalogued} catalogued only${t.failed ? ` · ${t.failed} failed` : ''}`;
    this.status.update(snap);
    if (this.view.isOpen) void this.view.refresh();
    // The core counts what deserves a progress toast (automatic retries do not).
    const cataloguing = snap.totals.cataloguingShown;
    if (cataloguing > 0 && !this.cataloguing) {
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Lazy MCP' }, (progress) => {
        progress.report({ message: `cataloguing ${cataloguing} server${cataloguing === 1 ? '' : 's'}…` });
        return new Promise<void>((resolve) => (this.cataloguing = resolve));
      });
    } else if (cataloguing === 0 && this.cataloguing) {
      this.cataloguing();
      this.cataloguing = undefined;
    }
  }

  private write(level: LogLevel, message: string, server?: string): void {
    if (levels.indexOf(level) < levels.indexOf(this.settings.logLevel)) return;
    this.log[level === 'debug' ? 'debug' : level](server ? `[${server}] ${message}` : message);
  }

  // ── commands ───────────────────────────────────────────────────────

  private registerCommands(): void {
    const on = (id: string, fn: (...args: unknown[]) => unknown): void => {
      this.disposables.push(vscode.commands.registerCommand(id, fn));
    };
    const serverCommand = (id: string, type: string, states: StateKind[], verb: string): void =>
      on(id, async (arg?: unknown) => {
        const name = await this.serverArg(arg, states, verb);
        if (name) this.host.driver.handle({ type, server: name });
      });
    on('lazyMcp.showDiagnostics', () => this.view.show());
    serverCommand('lazyMcp.enableServer', 'enable', ['DISABLED', 'DORMANT'], 'enable');
    serverCommand('lazyMcp.disableServer', 'disable', ['CATALOGUED', 'CONNECTED', 'CONNECTING', 'PENDING', 'CATALOGUING', 'FAILED', 'NEEDS_AUTH', 'DORMANT'], 'disable');
    serverCommand('lazyMcp.connectNow', 'connectNow', ['CATALOGUED', 'PENDING', 'FAILED', 'NEEDS_AUTH'], 'connect');
    serverCommand('lazyMcp.disconnect', 'disconnect', ['CONNECTED', 'CONNECTING'], 'disconnect');
    on('lazyMcp.refreshCatalogue', async (arg?: unknown) => {
      const name = arg === undefined ? await this.pickServer(undefined, 'refresh (or Escape for all)') : await this.serverArg(arg, undefined, 'refresh');
      this.host.driver.handle({ type: 'refreshCatalogue', server: name ?? null, recatalogue: true });
    });
    on('lazyMcp.syncConfig', async () => {
      const result = await this.host.reload();
      void vscode.window.showInformationMessage(`Lazy MCP: re-read ${result.files.filter((f) => f.found).length} config files, ${result.servers.length} servers.`);
    });
    on('lazyMcp.showLogs', () => this.log.show());
    on('lazyMcp.copyDiagnosticsJson', async () => {
      const config = this.host.configResult;
      const json = JSON.stringify({ snapshot: this.snapshot(), files: config?.files, problems: config?.problems, shadowed: config?.shadowed, unmanaged: this.unmanaged }, null, 2);
      await vscode.env.clipboard.writeText(json);
      void vscode.window.showInformationMessage('Lazy MCP: diagnostics copied as JSON.');
      return json;
    });
    on('lazyMcp.openSource', (arg?: unknown) => {
      const s = arg as ServerDiagnostics | undefined;
      if (s?.source) void this.openSource(s.source.file, s.source.line, s.source.column);
    });
  }

  private async serverArg(arg: unknown, states: StateKind[] | undefined, verb: string): Promise<string | undefined> {
    if (typeof arg === 'string') return arg;
    if (arg && typeof arg === 'object' && 'name' in arg && typeof arg.name === 'string') return arg.name;
    return this.pickServer(states, verb);
  }

  private async pickServer(states: StateKind[] | undefined, verb: string): Promise<string | undefined> {
    const servers = this.snapshot().servers.filter((s) => !states || states.includes(s.state.kind));
    if (servers.length === 0) {
      void vscode.window.showInformationMessage(`Lazy MCP: no server to ${verb}.`);
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      servers.map((s) => ({ label: `$(${stateIcon(s.state.kind)}) ${s.name}`, description: s.stateLabel, detail: `${s.tools} tools · ${s.source.file}:${s.source.line}`, name: s.name })),
      { title: `Lazy MCP: ${verb}`, placeHolder: `Server to ${verb}` },
    );
    return pick?.name;
  }

  private async onAction(action: DiagnosticsAction): Promise<void> {
    const server = action.params.get('server') ?? undefined;
    const events: Record<string, string> = { enable: 'enable', disable: 'disable', connect: 'connectNow', disconnect: 'disconnect' };
    if (action.verb === 'open') {
      await this.openSource(action.params.get('file') ?? '', Number(action.params.get('line') ?? 1), Number(action.params.get('column') ?? 1));
    } else if (action.verb === 'refresh') {
      this.host.driver.handle({ type: 'refreshCatalogue', server: server ?? null, recatalogue: true });
    } else {
      const type = events[action.verb];
      if (type && server) this.host.driver.handle({ type, server });
    }
  }

  private async openSource(file: string, line: number, column: number): Promise<void> {
    if (!file) return;
    const pos = new vscode.Position(Math.max(0, line - 1), Math.max(0, column - 1));
    await vscode.window.showTextDocument(vscode.Uri.file(file), { selection: new vscode.Range(pos, pos) });
  }
}

/**
 * One catalogue per set of workspace folders, in global storage: workspace storage
 * ids change with a remote's port (code-server), which would lose the catalogue.
 */
function cataloguePath(globalStorage: string, folders: string[]): string {
  const key = createHash('sha256').update(JSON.stringify([...folders].sort())).digest('hex').slice(0, 16);
  return path.join(globalStorage, 'catalogues', `${key}.json`);
}

function stateIcon(kind: StateKind): string {
  return ({ CONNECTED: 'pass-filled', CATALOGUED: 'circle-outline', DORMANT: 'debug-pause', DISABLED: 'circle-slash', FAILED: 'error', NEEDS_AUTH: 'key' } as Partial<Record<StateKind, string>>)[kind] ?? 'sync';
}

function rootsOf(folders: readonly string[]): { uri: string; name: string }[] {
  return folders.map((f) => ({ uri: vscode.Uri.file(f).toString(), name: path.basename(f) }));
}
