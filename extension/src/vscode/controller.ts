// Composition root for VS Code: the shared LazyHost plus VS Code's MCP
// definition provider, tree, status bar, commands and Diagnostics. UI only:
// every decision about servers is the core's.
import { createHash } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WasmCore } from '../core/wasmCore';
import { AuthHost } from '../host/auth/authHost';
import { editApprovals } from '../host/config/approvalsFile';
import type { Endpoint, Presentation, PresentationInput, Problem, ReportContext, ServerAction } from '../core/contract.generated';
import type { ConfigReport, DiscoveryInput, HostPolicy } from '../host/config/configTypes';
import type { Announcement, EngineEvent } from '../host/engineDriver';
import { processEnv } from '../host/config/configSession';
import { LazyHost, type LogLevel } from '../host/lazyHost';
import { treeRssBytes } from '../host/processTree';
import { ownerSpecFor } from '../host/shared/ownerLauncher';
import type { DiagnosticsSnapshot, ServerDiagnostics } from '../host/snapshotTypes';
import { BlobFile } from '../host/storage/blobFile';
import { SharedCatalogueDir, defaultSharedCatalogueDir } from '../host/storage/sharedCatalogueDir';
import { count } from '../host/wording';
import { approvedDefinitionsPath } from '../host/storage/approvedDefinitionsFile';
import { DefinitionReviewDocuments } from './definitionReview';
import { DiagnosticsView, type DiagnosticsAction } from './diagnosticsView';
import { inputResolver } from './inputVariables';
import { GatewayDefinitions, definitionLabel, providerId } from './mcpDefinitions';
import { Notifier, type Button, type ShownNotification } from './notifier';
import { ServerTree } from './serverTree';
import { SecretTokenStore } from './secretTokenStore';
import { hasCountdown } from './retryText';
import { readSettings, type LazyMcpSettings } from './settings';
import { SignInUi } from './signInUi';
import { StatusBar } from './statusBar';
import { stateIcons } from './stateIcons';

const levels: LogLevel[] = ['debug', 'info', 'warn', 'error'];
/** The recent log lines kept for the API's `logLines()` (the Output channel keeps them all); the oldest fifth goes at once. */
const recentLogLimit = 1000;

/** What tests (and other extensions) can read. */
export interface LazyMcpApi {
  snapshot(): DiagnosticsSnapshot;
  endpointUrl(server: string): string;
  reload(): Promise<void>;
  exposedServers(): string[];
  /** Labels of the MCP definitions given to VS Code (servers, then the tool index if any). */
  definitionLabels(): string[];
  /** The version of each definition given to VS Code (its cache key: a new one makes VS Code stop a running connection). */
  definitionVersions(): Record<string, string>;
  /** Open gateway sessions on a server's endpoint ('' = the tool index): VS Code's "Running". */
  gatewaySessions(server: string): number;
  /** Whether VS Code has listed this server's tools from the gateway in this window (it then knows them, not just its cache). */
  listedByVsCode(server: string): boolean;
  /** Notifications shown so far, oldest first (the smoke-test driver hides the toasts). */
  notifications(): ShownNotification[];
  /** The last lines written to the Lazy MCP log (`level message`), oldest first. */
  logLines(): string[];
  /** What the status bar items and the servers view's summary show now (signIn*: empty while hidden). */
  ui(): { statusText: string; statusTooltip: string; treeMessage: string; signInText: string; signInTooltip: string };
  /** Every URL handed to the browser (`env.openExternal`) for a sign-in, oldest first. */
  openedUrls(): string[];
  /** Answers the `index`th notification as if the user chose `label` (the smoke-test driver hides toasts). */
  chooseNotification(index: number, label: string | undefined): boolean;
  /** The folder of the sign-in locks every window of this profile shares (host/auth/signInLock.ts). */
  signInLockDir(): string;
  /** Servers whose held definitions were opened in the diff editor, oldest first. */
  reviewedDefinitions(): string[];
}

/** Palette titles of the commands that pick a server (Title Case, as in package.json). */
const commandTitles: Record<ServerAction, string> = {
  enable: 'Enable Server',
  disable: 'Disable Server',
  connect: 'Connect Now',
  disconnect: 'Disconnect',
  refresh: 'Refresh Catalogue',
  signIn: 'Sign In',
  signOut: 'Sign Out',
};

export class Controller implements vscode.Disposable {
  private readonly host: LazyHost;
  private readonly definitions: GatewayDefinitions;
  private readonly tree = new ServerTree();
  private readonly status = new StatusBar();
  private readonly view: DiagnosticsView;
  private readonly problems = vscode.languages.createDiagnosticCollection('lazy-mcp');
  private readonly disposables: vscode.Disposable[] = [];
  private settings: LazyMcpSettings = readSettings();
  /** Config problems already logged and announced (the core's `known`). */
  private knownProblems: Problem[] = [];
  /** What `logLines()` returns (bounded). */
  private readonly recentLog: string[] = [];
  private readonly notifier = new Notifier((action, announcement) => this.button(action, announcement));
  private readonly signInUi = new SignInUi(this.notifier, {
    cancel: (server) => this.host.driver.handle({ type: 'cancelSignIn', server }),
    signIn: (server) => this.host.driver.handle({ type: 'signIn', server }),
  });
  private readonly tokenStore: SecretTokenStore;
  private cataloguing: (() => void) | undefined;
  private uiTimer: NodeJS.Timeout | undefined;
  private readonly treeView = vscode.window.createTreeView('lazyMcp.servers', { treeDataProvider: this.tree });
  /** The diff editor's documents of held definitions (the core's review). */
  private readonly reviews = new DefinitionReviewDocuments((server) => this.host.driver.definitionsReview(server));

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly core: WasmCore,
    private readonly log: vscode.LogOutputChannel,
  ) {
    const discovery = this.discovery();
    // Sign-in locks in the global storage folder: every window of this profile sees them.
    this.tokenStore = new SecretTokenStore(context.secrets, path.join(context.globalStorageUri.fsPath, 'oauth-locks'));
    this.host = new LazyHost({
      core,
      discovery,
      settings: this.settings.engine,
      store: new BlobFile(cataloguePath(context.globalStorageUri.fsPath, discovery.workspaceFolders)),
      // Entries of shared servers, the same directory as the CLI's: a server any window or session catalogued is not started again to catalogue it.
      sharedCatalogue: new SharedCatalogueDir(defaultSharedCatalogueDir(), (level, message) => this.write(level, message)),
      log: (level, message, server) => this.write(level, message, server),
      gateway: {},
      policy: this.policy(),
      watchConfig: true,
      onChange: () => this.scheduleUi(),
      onEndpointsChanged: (endpoints, aggregate) => this.exposeEndpoints(endpoints.filter((e) => e.offered).map((e) => ({ name: e.server, version: e.version })), aggregate),
      onConfigLoaded: (result) => {
        this.showProblems(result, true);
        // A load may change only what waits for approval (no server state changes).
        this.scheduleUi();
      },
      onAnnounce: (a) => this.announce(a),
      resolveTransport: inputResolver(context.secrets),
      // Sign-in I/O (the SDK's OAuth client) with tokens in SecretStorage; the browser hooks are UI.
      auth: new AuthHost({
        core,
        store: this.tokenStore,
        browser: {
          openUrl: (url, prompt, cancelled) => this.signInUi.openUrl(url, prompt, cancelled),
          externalUri: (url) => this.signInUi.externalUri(url),
          waitingForOtherSignIn: (prompt) => this.signInUi.waitingForOtherSignIn(prompt),
        },
      }),
      measureRss: treeRssBytes,
      // Shared with every other window and the CLI: an approval given anywhere applies here.
      approvedDefinitionsFile: approvedDefinitionsPath(),
      // Where shared servers live when `lazyMcp.shareServers` is on (the core decides per launch).
      sharedOwner: ownerSpecFor(path.join(context.extensionPath, 'dist', 'cli.js'), core.call((c) => c.sharedProtocol()), core),
      // VS Code lists an extension's MCP tools only after starting its definition once (an
      // in-process handshake with the gateway, nothing upstream is spawned): the core decides
      // when to ask, again, and when to close a session that only listed (clients/definition_starts.rs).
      // `errorOnUserInteraction` fails a start that would need a dialog (trust, inputs) instead of showing one.
      definitions: {
        start: (endpoint) =>
          vscode.commands.executeCommand('workbench.mcp.startServer', this.definitionId(endpoint), { waitForLiveTools: true, errorOnUserInteraction: true }).then(undefined, (err: unknown) => {
            // The core never asks again after a failed start (Lazy MCP never asks twice).
            this.write('warn', `VS Code did not start its connection to ${definitionLabel(endpoint)} (not retried): ${String(err)}`);
            throw err;
          }),
        stop: (endpoint) =>
          vscode.commands
            .executeCommand('workbench.mcp.stopServer', this.definitionId(endpoint))
            .then(undefined, (err: unknown) => this.write('debug', `could not close VS Code's session with ${definitionLabel(endpoint)}: ${String(err)}`)),
      },
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
      this.signInUi,
      this.reviews,
      vscode.lm.registerMcpServerDefinitionProvider(providerId, this.definitions),
      this.treeView,
      // A refresh fired while the view was hidden is not replayed by VS Code: refresh on show.
      this.treeView.onDidChangeVisibility((e) => {
        if (e.visible) this.updateUi();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.onFoldersChanged()),
      // The core starts the definitions once the config load says it may (clients/definition_starts.rs).
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.host.reconfigure(this.discovery(), this.policy())),
      // Which files a tab shows decides which squiggles are VS Code's own (never a toast):
      // VS Code's JSON checker drops a file's diagnostics when its tab closes.
      vscode.workspace.onDidOpenTextDocument(() => this.reshowProblems()),
      vscode.workspace.onDidCloseTextDocument(() => this.reshowProblems()),
      vscode.window.tabGroups.onDidChangeTabs(() => this.reshowProblems()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('lazyMcp')) void this.onSettingsChanged();
      }),
    );
    this.registerCommands();
    await this.host.start();
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
      definitionVersions: () => Object.fromEntries(this.definitions.definitions.map((d) => [d.name, d.version])),
      gatewaySessions: (server) => this.host.gateway?.sessionsOf(server).length ?? 0,
      listedByVsCode: (server) => this.definitions.definitions.some((d) => d.name === server) && this.snapshot().servers.some((s) => s.name === server && s.listedAtMs != null),
      notifications: () => this.notifier.shown.map((n) => ({ ...n, buttons: [...n.buttons] })),
      logLines: () => [...this.recentLog],
      ui: () => ({
        statusText: this.status.shown.text,
        statusTooltip: this.status.shown.tooltip,
        treeMessage: this.treeView.message ?? '',
        signInText: this.status.signInShown.text,
        signInTooltip: this.status.signInShown.tooltip,
      }),
      openedUrls: () => [...this.signInUi.opened],
      chooseNotification: (index, label) => this.notifier.choose(index, label),
      signInLockDir: () => this.tokenStore.lockDir ?? '',
      reviewedDefinitions: () => [...this.reviews.opened],
    };
  }

  /** Ends every process this extension started. */
  async stop(): Promise<void> {
    clearTimeout(this.uiTimer);
    this.cataloguing?.();
    await this.host.stop();
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
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

  /** The facts the core's host policy needs (host_policy.rs); the core decides. */
  private policy(): HostPolicy {
    return {
      workspaceTrusted: vscode.workspace.isTrusted,
      vscodeNative: this.settings.vscodeNativeServers,
      only: null,
      trustProjectServers: this.settings.trustProjectServers,
      approvalVia: 'vsCode',
    };
  }

  private async onFoldersChanged(): Promise<void> {
    const discovery = this.discovery();
    this.host.driver.handle({ type: 'workspaceFoldersChanged', folders: discovery.workspaceFolders });
    await this.host.reconfigure(discovery, this.policy());
  }

  private async onSettingsChanged(): Promise<void> {
    this.settings = readSettings();
    const discovery = this.discovery();
    // The engine replaces all of its settings: the folders go along, or servers would lose their roots.
    // The periodic refresh is the engine's timer (`refreshIntervalMs`), restarted by this.
    this.host.driver.handle({ type: 'settingsChanged', settings: { ...this.settings.engine, workspaceFolders: discovery.workspaceFolders } });
    await this.host.reconfigure(discovery, this.policy());
  }

  /**
   * Config problems as the core presents them (config/problem_presentation.rs): squiggles,
   * minus syntax errors VS Code's JSON service shows for json/jsonc files in an editor tab;
   * a notification (`notify`, only when the config was re-read) naming every file with a
   * new error that no tab shows; log lines for problems that appeared or are gone.
   * Lazy MCP reads saved files only: unsaved edits change nothing here.
   */
  private showProblems(result: ConfigReport, notify: boolean): void {
    const inTabs = new Set(
      vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => (t.input instanceof vscode.TabInputText && t.input.uri.scheme === 'file' ? t.input.uri.fsPath : ''))),
    );
    const openDocuments = vscode.workspace.textDocuments
      .filter((d) => d.uri.scheme === 'file')
      .map((d) => ({ path: d.uri.fsPath, languageId: d.languageId, inTab: inTabs.has(d.uri.fsPath) }));
    const input: PresentationInput = {
      problems: result.problems,
      files: result.files,
      openDocuments,
      // Re-showing (a tab opened or closed) announces and logs nothing: everything is known.
      previous: notify ? this.knownProblems : result.problems,
      home: os.homedir(),
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    };
    const shown = JSON.parse(this.core.call((c) => c.presentProblems(JSON.stringify(input)))) as Presentation;
    this.problems.clear();
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const p of shown.squiggles) {
      const pos = new vscode.Position(Math.max(0, p.line - 1), Math.max(0, p.column - 1));
      const d = new vscode.Diagnostic(new vscode.Range(pos, pos.translate(0, 1)), `${p.server ? `${p.server}: ` : ''}${p.message}`, p.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
      d.source = 'Lazy MCP';
      byFile.set(p.file, [...(byFile.get(p.file) ?? []), d]);
    }
    for (const [file, list] of byFile) this.problems.set(vscode.Uri.file(file), list);
    if (!notify) return;
    this.knownProblems = shown.known;
    for (const line of shown.log) this.write(line.level, line.message);
    const first = shown.notify[0];
    if (!first || !shown.notification) return;
    this.notifier.show('warn', shown.notification, [
      ['Open File', () => this.openSource(first.file, first.line, first.column)],
      ['MCP Diagnostics', () => vscode.commands.executeCommand('lazyMcp.showDiagnostics')],
    ]);
  }

  private reshowProblems(): void {
    const result = this.host.configResult;
    if (result) this.showProblems(result, false);
  }

  private announce(a: Announcement): void {
    this.write(a.level, `notified: ${a.message}`, a.server);
    this.notifier.announce(a);
  }

  private button(action: Announcement['actions'][number], a: Announcement): Button | undefined {
    if (action === 'showDiagnostics') return ['Show Diagnostics', () => vscode.commands.executeCommand('lazyMcp.showDiagnostics')];
    // The announcement's `servers` are the ones its Sign in / Not now apply to.
    const servers = a.servers ?? [];
    if (action === 'signIn') return ['Sign in', () => servers.forEach((server) => this.host.driver.handle({ type: 'signIn', server }))];
    if (action === 'notNow') return ['Not now', () => this.host.driver.handle({ type: 'dismissSignIn', servers })];
    // Project servers waiting for approval: Allow all of them, Review each, or close (asked once per launch).
    if (action === 'allow') return ['Allow', () => void this.approve(servers)];
    if (action === 'review') return ['Review', () => void this.reviewApprovals(servers)];
    if (action === 'dismiss') return ['Not now', () => undefined];
    if (action === 'reviewDefinitions') return ['Review', () => servers.forEach((server) => void this.reviewDefinitions(server))];
    if (action === 'approveDefinitions') return ['Approve', () => servers.forEach((server) => this.approveDefinitions(server))];
    if (action === 'keepBlocked') return ['Keep blocked', () => undefined];
    const source = this.snapshot().servers.find((s) => s.name === a.server)?.source;
    return source ? ['Open Definition', () => this.openSource(source.file, source.line, source.column)] : undefined;
  }

  // ── approving project servers ──────────────────────────────────────

  /** Writes the approvals (the core computes the file: config/project_approval.rs); every window watches it. */
  private async approve(names: string[]): Promise<void> {
    const report = this.host.configResult;
    if (!report || names.length === 0) return;
    try {
      const edit = await editApprovals(this.core, report, { all: false, names, revoke: false });
      for (const refused of edit.refused) this.notifier.show('warn', `Lazy MCP: not approved: ${refused}`, []);
      if (edit.changed.length > 0) this.write('info', `approved project servers: ${edit.changed.join(', ')} (${report.approvalsFile})`);
    } catch (err) {
      this.notifier.show('error', `Lazy MCP: could not save the approval in ${report.approvalsFile}: ${String(err)}`, []);
      return;
    }
    await this.host.reload();
  }

  /**
   * One quick pick of the waiting servers (those of `names`, else all), each with what it
   * would run (secrets masked by the core) and the files outside the project it reads.
   */
  private async reviewApprovals(names: string[]): Promise<void> {
    const waiting = (this.snapshot().needsApproval ?? []).filter((r) => names.length === 0 || names.includes(r.name));
    if (waiting.length === 0) {
      this.notifier.show('info', 'Lazy MCP: no project server waits for approval.', []);
      return;
    }
    const picked = await vscode.window.showQuickPick(
      waiting.map((r) => ({
        label: r.name,
        description: `${r.changed ? 'launch changed · ' : ''}${path.basename(r.source.file)}:${r.source.line}`,
        detail: `${r.commandLine}${r.readsOutsideProject.length > 0 ? `  —  reads outside the project: ${r.readsOutsideProject.join(', ')}` : ''}`,
        picked: false,
        name: r.name,
      })),
      { canPickMany: true, title: 'Lazy MCP: approve project MCP servers', placeHolder: 'Servers defined in this folder\'s files: pick the ones to run' },
    );
    if (picked && picked.length > 0) await this.approve(picked.map((p) => p.name));
  }

  // ── exposing tools to Copilot Chat ─────────────────────────────────

  private exposeEndpoints(exposed: { name: string; version: string }[], toolIndexVersion: string | undefined): void {
    this.definitions.update(exposed, toolIndexVersion);
  }

  /** VS Code's id of the definition of a gateway endpoint. */
  private definitionId(endpoint: Endpoint): string {
    return `${this.context.extension.id}/${definitionLabel(endpoint)}`;
  }

  // ── UI ─────────────────────────────────────────────────────────────

  private snapshot(): DiagnosticsSnapshot {
    return this.host.snapshot() as DiagnosticsSnapshot;
  }

  /** Only the host's facts: the config files, problems and servers are the engine's own last load. */
  private report(links: boolean): string {
    const context: Omit<ReportContext, 'nowMs'> = {
      host: `${vscode.env.appName} ${vscode.version}`,
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      home: os.homedir(),
      links,
    };
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
    this.treeView.message = t.servers === 0 && t.needsApproval === 0 ? 'No servers managed by Lazy MCP. Run MCP Diagnostics to see why.' : snap.summary;
    this.status.update(snap);
    this.signInUi.update(snap);
    if (this.view.isOpen) void this.view.refresh();
    this.view.tick(hasCountdown(snap.servers));
    // The core counts what deserves a progress toast (automatic retries do not).
    const cataloguing = snap.totals.cataloguingShown;
    if (cataloguing > 0 && !this.cataloguing) {
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Lazy MCP' }, (progress) => {
        progress.report({ message: `cataloguing ${count(cataloguing, 'server')}…` });
        return new Promise<void>((resolve) => (this.cataloguing = resolve));
      });
    } else if (cataloguing === 0 && this.cataloguing) {
      this.cataloguing();
      this.cataloguing = undefined;
    }
  }

  private write(level: LogLevel, message: string, server?: string): void {
    if (levels.indexOf(level) < levels.indexOf(this.settings.logLevel)) return;
    const line = server ? `[${server}] ${message}` : message;
    this.log[level === 'debug' ? 'debug' : level](line);
    this.recentLog.push(`${level} ${line}`);
    if (this.recentLog.length > recentLogLimit) this.recentLog.splice(0, recentLogLimit / 5);
  }

  // ── commands ───────────────────────────────────────────────────────

  private registerCommands(): void {
    const on = (id: string, fn: (...args: unknown[]) => unknown): void => {
      this.disposables.push(vscode.commands.registerCommand(id, fn));
    };
    // Each command carries out one action the snapshot offers (engine/server_actions.rs).
    const serverCommand = (id: string, action: ServerAction): void =>
      on(id, async (arg?: unknown) => {
        const name = await this.serverArg(arg, action);
        if (name) this.host.driver.handle(actionEvents[action](name));
      });
    on('lazyMcp.showDiagnostics', () => this.view.show());
    serverCommand('lazyMcp.enableServer', 'enable');
    serverCommand('lazyMcp.disableServer', 'disable');
    serverCommand('lazyMcp.connectNow', 'connect');
    serverCommand('lazyMcp.disconnect', 'disconnect');
    serverCommand('lazyMcp.signIn', 'signIn');
    serverCommand('lazyMcp.signOut', 'signOut');
    on('lazyMcp.refreshCatalogue', async (arg?: unknown) => {
      // Escape cancels; "All servers" is an item of its own.
      const name = arg === undefined ? await this.pickServer('refresh', true) : await this.serverArg(arg, 'refresh');
      if (name === undefined) return;
      this.host.driver.handle({ type: 'refreshCatalogue', server: name, recatalogue: true });
    });
    on('lazyMcp.syncConfig', async () => {
      const result = await this.host.reload();
      this.notifier.show('info', `Lazy MCP: re-read ${count(result.files.filter((f) => f.found).length, 'config file')}, ${count(result.servers.length, 'server')}.`, []);
    });
    on('lazyMcp.showLogs', () => this.log.show());
    // From a NEEDS APPROVAL row (approves it), or the palette (the review of every waiting server).
    on('lazyMcp.approveProjectServers', async (arg?: unknown) => {
      const name = typeof arg === 'string' ? arg : arg && typeof arg === 'object' && 'name' in arg && typeof arg.name === 'string' ? arg.name : undefined;
      if (name) await this.approve([name]);
      else await this.reviewApprovals([]);
    });
    on('lazyMcp.copyDiagnosticsJson', async () => {
      const config = this.host.configResult;
      const json = JSON.stringify({ snapshot: this.snapshot(), files: config?.files, problems: config?.problems, shadowed: config?.shadowed, unmanaged: config?.unmanaged }, null, 2);
      await vscode.env.clipboard.writeText(json);
      this.notifier.show('info', 'Lazy MCP: diagnostics copied as JSON.', []);
      return json;
    });
    on('lazyMcp.reviewDefinitions', async (arg?: unknown) => {
      const server = await this.heldServerArg(arg);
      if (server) await this.reviewDefinitions(server);
    });
    on('lazyMcp.approveDefinitions', async (arg?: unknown) => {
      // From the diff editor's title the argument is the document's URI.
      const fromEditor = arg instanceof vscode.Uri ? DefinitionReviewDocuments.serverOf(arg) : undefined;
      const server = fromEditor ?? (await this.heldServerArg(arg instanceof vscode.Uri ? undefined : arg));
      if (server) this.approveDefinitions(server);
    });
    on('lazyMcp.openSource', (arg?: unknown) => {
      const s = arg as Pick<ServerDiagnostics, 'source'> | undefined;
      if (s?.source) void this.openSource(s.source.file, s.source.line, s.source.column);
    });
  }

  /** Opens the diff of a server's held definitions, then offers Approve / Keep blocked. */
  private async reviewDefinitions(server: string): Promise<void> {
    await this.reviews.open(server);
    this.notifier.show('warn', `Lazy MCP: approve the changed definitions of ${server}? Until then they are not listed to any client and cannot be called.`, [
      ['Approve', () => this.approveDefinitions(server)],
      ['Keep blocked', () => undefined],
    ]);
  }

  private approveDefinitions(server: string): void {
    this.host.driver.handle({ type: 'approveDefinitions', server, items: [] });
  }

  /** A server named by the argument, else picked among those with held definitions (the snapshot says which). */
  private async heldServerArg(arg: unknown): Promise<string | undefined> {
    if (typeof arg === 'string') return arg;
    if (arg && typeof arg === 'object' && 'name' in arg && typeof arg.name === 'string') return arg.name;
    const held = this.snapshot().servers.filter((s) => (s.definitions?.held.length ?? 0) > 0);
    if (held.length === 0) {
      this.notifier.show('info', 'Lazy MCP: no tool definition is held for review.', []);
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      held.map((s) => ({ label: s.name, description: `${s.definitions?.held.length ?? 0} held`, detail: s.definitions?.held.map((h) => `${h.kind} ${h.name}: ${h.change}`).join(' · ') })),
      { title: 'Lazy MCP: Review Changed Tools' },
    );
    return pick?.label;
  }

  private async serverArg(arg: unknown, action: ServerAction): Promise<string | undefined> {
    if (typeof arg === 'string') return arg;
    if (arg && typeof arg === 'object' && 'name' in arg && typeof arg.name === 'string') return arg.name;
    return (await this.pickServer(action)) ?? undefined;
  }

  /** A server that allows `action` now, `null` for "All servers" (only offered when `withAll`), undefined when cancelled. */
  private async pickServer(action: ServerAction, withAll = false): Promise<string | null | undefined> {
    const servers = this.snapshot().servers.filter((s) => s.actions.includes(action));
    if (servers.length === 0) {
      this.notifier.show('info', `Lazy MCP: ${noServerFor[action]}`, []);
      return undefined;
    }
    const all = withAll ? [{ label: '$(list-flat) All servers', description: count(servers.length, 'server'), detail: undefined, name: null }] : [];
    const pick = await vscode.window.showQuickPick<{ label: string; description: string; detail: string | undefined; name: string | null }>(
      [...all, ...servers.map((s) => ({ label: `$(${stateIcons[s.state.kind]?.[0] ?? 'circle-outline'}) ${s.name}`, description: s.stateLabel, detail: `${count(s.tools, 'tool')} · ${s.sourceLabel}`, name: s.name }))],
      { title: `Lazy MCP: ${commandTitles[action]}`, placeHolder: withAll ? `Server to ${action}, or All servers` : `Server to ${action}` },
    );
    return pick ? pick.name : undefined;
  }

  /** A Diagnostics link: open a file, or one of the actions the core rendered for a server. */
  private async onAction(action: DiagnosticsAction): Promise<void> {
    const server = action.params.get('server');
    if (action.verb === 'open') {
      await this.openSource(action.params.get('file') ?? '', Number(action.params.get('line') ?? 1), Number(action.params.get('column') ?? 1));
      return;
    }
    if (action.verb === 'approve' && server) {
      await this.approve([server]);
      return;
    }
    if (server && action.verb === 'review-definitions') return this.reviewDefinitions(server);
    if (server && action.verb === 'approve-definitions') return this.approveDefinitions(server);
    // The core reads its own link verbs back (ServerAction::from_link_verb).
    const verb = this.core.call((c) => c.serverActionOfLinkVerb(action.verb)) as ServerAction | undefined;
    const event = server && verb ? actionEvents[verb](server) : undefined;
    if (event) this.host.driver.handle(event);
  }

  private async openSource(file: string, line: number, column: number): Promise<void> {
    if (!file) return;
    const pos = new vscode.Position(Math.max(0, line - 1), Math.max(0, column - 1));
    await vscode.window.showTextDocument(vscode.Uri.file(file), { selection: new vscode.Range(pos, pos) });
  }
}

/** What a command picker says when no server allows its action now. */
const noServerFor: Record<ServerAction, string> = {
  enable: 'No server is disabled or dormant.',
  disable: 'No server can be disabled now.',
  connect: 'No server can be connected now.',
  disconnect: 'No server is connected.',
  refresh: 'No server can be refreshed now.',
  signIn: 'No server needs signing in.',
  signOut: 'No server is signed in.',
};

/** The engine event that carries out each action the snapshot offers. */
const actionEvents: Record<ServerAction, (server: string) => EngineEvent> = {
  enable: (server) => ({ type: 'enable', server }),
  disable: (server) => ({ type: 'disable', server }),
  connect: (server) => ({ type: 'connectNow', server }),
  disconnect: (server) => ({ type: 'disconnect', server }),
  refresh: (server) => ({ type: 'refreshCatalogue', server, recatalogue: true }),
  signIn: (server) => ({ type: 'signIn', server }),
  signOut: (server) => ({ type: 'signOut', server }),
};

/**
 * One catalogue per set of workspace folders, in global storage: workspace storage
 * ids change with a remote's port (code-server), which would lose the catalogue.
 */
function cataloguePath(globalStorage: string, folders: string[]): string {
  const key = createHash('sha256').update(JSON.stringify([...folders].sort())).digest('hex').slice(0, 16);
  return path.join(globalStorage, 'catalogues', `${key}.json`);
}

