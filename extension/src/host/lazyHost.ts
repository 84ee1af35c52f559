// The Node host both front ends share (VS Code extension and CLI): the engine
// driver (which reads the config files the core asks for) → upstream connections,
// plus the config watcher and the optional loopback gateway for clients. Front
// ends add only their UI and state their host policy.
import type { OwnerSpec } from './shared/ownerLauncher';
import type { SharedCatalogueStore } from './storage/sharedCatalogueDir';
import { randomBytes } from 'node:crypto';
import type { WasmCore } from '../core/wasmCore';
import type { AuthHost } from './auth/authHost';
import type { Transport } from './connections';
import { ConfigWatcher } from './config/configFiles';
import type { ConfigReport, ConfigSources, DiscoveryInput, HostPolicy } from './config/configTypes';
import { EngineDriver, type Announcement, type ClientRoute, type DriverDeps, type EndpointInfo } from './engineDriver';
import { HttpGateway } from './gateway/httpGateway';
import { LogThrottle } from './logThrottle';
import type { ClientBody, RequestHeaders } from './gateway/jsonRpcShape';
import type { DiagnosticsSnapshot, LogLevel } from '../core/contract.generated';

export type { LogLevel };

export interface LazyHostOptions {
  core: WasmCore;
  discovery: DiscoveryInput;
  explicitFiles?: ConfigSources['explicitFiles'];
  /** What this host may manage (host_policy.rs): VS Code's trust and setting, the CLI's `cliPolicy`; absent: the core's default (every server). */
  policy?: HostPolicy;
  /** Engine settings (see docs/engine-events-effects.md); the workspace folders come from discovery. */
  settings?: Record<string, unknown>;
  store: { read(): Promise<string | undefined>; write(blob: string): Promise<void> };
  /** The user's shared catalogue: entries of shared servers other clients catalogued. */
  sharedCatalogue?: SharedCatalogueStore;
  log(level: LogLevel, message: string, server?: string): void;
  /** Start the loopback gateway (VS Code, `serve --http`). */
  gateway?: { token?: string; port?: number; requireToken?: boolean };
  /** Where client messages go when there is no gateway (`serve --stdio`). */
  deliverToClient?(client: string, message: string, route: ClientRoute): void;
  /** After `clientInputEnded`: every request read from `client` is answered or dropped (the core's `clientSettled`). */
  onClientSettled?(client: string): void;
  watchConfig?: boolean;
  onChange?(): void;
  onEndpointsChanged?(endpoints: EndpointInfo[], aggregate: string | undefined): void;
  onConfigLoaded?(report: ConfigReport): void;
  /** Show what the engine announces (VS Code: a notification); logged when absent. */
  onAnnounce?(announcement: Announcement): void;
  resolveTransport?(server: string, transport: Transport, interactive: boolean): Promise<Transport>;
  measureRss?(pid: number): number | undefined;
  /** Runs OAuth sign-in and refresh for remote servers (the front end supplies the store and browser). */
  auth?: AuthHost;
  /** The user's approved tool definitions (host/storage/approvedDefinitionsFile.ts); absent: kept in memory. */
  approvedDefinitionsFile?: string;
  /** The owner of shared servers (with the `shareServers` setting): stdio servers are attached there. */
  sharedOwner?: OwnerSpec;
  /** The MCP client's definitions of the endpoints (VS Code): started and stopped as the engine decides. */
  definitions?: DriverDeps['definitions'];
}

/** `ConfigSources` as the host sends it: without a policy the core applies its default. */
type HostSources = Omit<ConfigSources, 'policy'> & { policy?: HostPolicy };

export class LazyHost {
  readonly driver: EngineDriver;
  readonly gateway: HttpGateway | undefined;
  readonly gatewayToken: string;
  private readonly watcher: ConfigWatcher | undefined;
  private sources: HostSources;
  private lastConfig: ConfigReport | undefined;
  /** Waiting for the next finished config load. */
  private loadWaiters: ((report: ConfigReport) => void)[] = [];
  /** Waiting for the core's next `catalogueSettled`. */
  private settledWaiters: (() => void)[] = [];
  private endpoints: EndpointInfo[] = [];
  /** Every log line of this host passes here: floods of similar lines are summarized. */
  private readonly logThrottle: LogThrottle;
  /** Stops listening for the core's traps. */
  private readonly untrap: () => void;

  constructor(private readonly opts: LazyHostOptions) {
    this.logThrottle = new LogThrottle((level, message, server) => opts.log(level, message, server), opts.core.limits().logThrottle);
    const log = this.logThrottle.log;
    this.sources = {
      discovery: opts.discovery,
      explicitFiles: opts.explicitFiles ?? [],
      policy: opts.policy,
      approvedDefinitionsFile: opts.approvedDefinitionsFile ?? null,
    };
    // Edits apply without a restart: the watcher reports changes of exactly the paths the core asked for.
    const { configPollMs, configDebounceMs } = opts.core.limits();
    this.watcher = opts.watchConfig ? new ConfigWatcher((paths) => this.driver.handle({ type: 'configFilesChanged', paths }), configPollMs, configDebounceMs) : undefined;
    this.gatewayToken = opts.gateway?.token ?? randomBytes(32).toString('base64url');
    this.gateway = opts.gateway
      ? new HttpGateway(
          {
            hasEndpoint: (endpoint) => endpoint === '' || this.endpoints.some((e) => e.server === endpoint),
            takeBody: (session, inSession, body, headers) =>
              this.driver.clientPost(session.id, session.endpoint === '' ? undefined : session.endpoint, body, headers, inSession),
            onSessionClosed: (session) => this.driver.handle({ type: 'clientDisconnected', client: session.id }),
            onStreamChanged: (session, open) => this.driver.handle({ type: open ? 'clientStreamOpened' : 'clientStreamClosed', client: session.id }),
          },
          {
            token: this.gatewayToken,
            port: opts.gateway.port,
            requireToken: opts.gateway.requireToken,
            limits: opts.core.limits().gateway,
            log: (level, message) => log(level, message),
          },
        )
      : undefined;
    this.driver = new EngineDriver({
      core: opts.core,
      settingsJson: JSON.stringify({ workspaceFolders: opts.discovery.workspaceFolders, ...(opts.settings ?? {}) }),
      deliverToClient: (client, message, route) =>
        this.gateway ? this.gateway.deliver(client, message, route) : opts.deliverToClient?.(client, message, route),
      closeClient: (client) => this.gateway?.closeSession(client),
      onClientSettled: (client) => opts.onClientSettled?.(client),
      ...(opts.definitions ? { definitions: opts.definitions } : {}),
      store: opts.store,
      ...(opts.sharedCatalogue ? { sharedCatalogue: opts.sharedCatalogue } : {}),
      log,
      onEndpointsChanged: (endpoints, aggregate) => {
        // An endpoint the core removed (server disabled or gone) ends its sessions: a client
        // such as VS Code drops its connection without a DELETE when the definition goes.
        const kept = new Set(endpoints.map((e) => e.server));
        for (const gone of this.endpoints) if (!kept.has(gone.server)) this.gateway?.closeEndpoint(gone.server);
        this.endpoints = endpoints;
        opts.onEndpointsChanged?.(endpoints, aggregate);
        opts.onChange?.();
      },
      onStateChanged: () => opts.onChange?.(),
      onCatalogueSettled: () => {
        for (const resolve of this.settledWaiters.splice(0)) resolve();
      },
      onWatchFiles: (paths) => this.watcher?.watch(paths),
      onConfigLoaded: (report) => this.configLoaded(report),
      onAnnounce: opts.onAnnounce && ((announcement) => opts.onAnnounce!(announcement)),
      resolveTransport: opts.resolveTransport && ((server, transport, interactive) => opts.resolveTransport!(server, transport, interactive)),
      measureRss: opts.measureRss && ((pid) => opts.measureRss!(pid)),
      cwdFallback: opts.discovery.workspaceFolders[0] ?? opts.discovery.home,
      ...(opts.auth ? { auth: opts.auth } : {}),
      ...(opts.sharedOwner ? { sharedOwner: opts.sharedOwner } : {}),
    });
    this.untrap = opts.core.onTrap((error) => this.recoverFromTrap(error));
  }

  /**
   * The core trapped: the engine lived in the dead instance. The driver starts over from its
   * last inputs, and the gateway ends the sessions that engine knew (their clients start new ones).
   */
  private recoverFromTrap(error: Error): void {
    this.driver.recoverFromTrap();
    this.gateway?.endSessions(`${error.message}; start a new session`);
  }

  /** Load the catalogue, start the gateway, then load the config (the core asks for its files). */
  async start(): Promise<void> {
    if (this.gateway) await this.gateway.start();
    await this.driver.start();
    await this.nextLoad(() => this.driver.configure(this.sources));
  }

  /** Re-read every config file; resolves with the load that includes them. */
  reload(): Promise<ConfigReport> {
    return this.nextLoad(() => this.driver.handle({ type: 'configFilesChanged', paths: [] }));
  }

  /** New folders, settings or trust: the core plans and reads the files again and re-applies its policy. */
  reconfigure(discovery: DiscoveryInput, policy: HostPolicy): Promise<ConfigReport> {
    this.sources = { ...this.sources, discovery, policy };
    return this.nextLoad(() => this.driver.configure(this.sources));
  }

  /** The engine waits for every outstanding read before it loads, so the next load includes this request's. */
  private nextLoad(request: () => void): Promise<ConfigReport> {
    const loaded = new Promise<ConfigReport>((resolve) => this.loadWaiters.push(resolve));
    request();
    return loaded;
  }

  private configLoaded(report: ConfigReport): void {
    this.lastConfig = report;
    for (const resolve of this.loadWaiters.splice(0)) resolve(report);
    this.opts.onConfigLoaded?.(report);
    this.opts.onChange?.();
  }

  /**
   * Resolves once no server is busy (PENDING, CATALOGUING, CONNECTING): at once when none is
   * now, else on the core's next `catalogueSettled` effect (no polling).
   */
  whenSettled(): Promise<void> {
    if ((this.snapshot() as DiagnosticsSnapshot).totals.inProgress === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.settledWaiters.push(resolve));
  }

  /** A client's message(s) as the core reads them: routing, ids, the error it will answer. */
  readClientBody(body: string | Uint8Array, headers: RequestHeaders = {}): ClientBody {
    // See EngineDriver.cross: bytes cross faster than a string.
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    return JSON.parse(this.opts.core.call((c) => c.clientBodyBytes(bytes, JSON.stringify(headers)))) as ClientBody;
  }

  get configResult(): ConfigReport | undefined {
    return this.lastConfig;
  }

  /** The config paths the core asked to watch. */
  get watchedPaths(): readonly string[] {
    return this.watcher?.watchedPaths ?? [];
  }

  get exposedEndpoints(): readonly EndpointInfo[] {
    return this.endpoints;
  }

  endpointUrl(server = ''): string {
    if (!this.gateway) throw new Error('this host runs no gateway');
    return this.gateway.url(server);
  }

  snapshot(opts?: { withMemory?: boolean }): unknown {
    return JSON.parse(this.driver.snapshotJson(opts));
  }

  async stop(): Promise<void> {
    this.untrap();
    this.watcher?.dispose();
    await this.gateway?.stop();
    await this.driver.shutdown();
    this.logThrottle.dispose();
  }
}
