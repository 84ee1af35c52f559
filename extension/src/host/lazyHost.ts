// The Node host both front ends share (VS Code extension and CLI): config files →
// core normalization → engine driver → upstream connections, plus the optional
// loopback gateway for clients. Front ends add only their UI.
import { randomBytes } from 'node:crypto';
import type { WasmCore } from '../core/wasmCore';
import type { AuthHost } from './auth/authHost';
import type { Transport } from './connections';
import { ConfigWatcher } from './config/configFiles';
import { ConfigSession } from './config/configSession';
import type { DiscoveryInput, NormalizeResult, ServerConfig } from './config/configTypes';
import { EngineDriver, type Announcement, type EndpointInfo } from './engineDriver';
import { HttpGateway, type GatewaySession } from './gateway/httpGateway';
import { LogThrottle } from './logThrottle';
import type { ClientBody } from './gateway/jsonRpcShape';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LazyHostOptions {
  core: WasmCore;
  discovery: DiscoveryInput;
  explicitFiles?: { path: string; format?: string }[];
  /** Engine settings (see docs/engine-events-effects.md); the workspace folders come from discovery. */
  settings?: Record<string, unknown>;
  store: { read(): Promise<string | undefined>; write(blob: string): Promise<void> };
  log(level: LogLevel, message: string, server?: string): void;
  /** Start the loopback gateway (VS Code, `serve --http`). */
  gateway?: { token?: string; port?: number; requireToken?: boolean; sessionIdleMs?: number; maxSessions?: number };
  /** Where client messages go when there is no gateway (`serve --stdio`). */
  deliverToClient?(client: string, message: string): void;
  /** Pick the servers to hand to the engine (host policy computed by the core). */
  selectServers?(result: NormalizeResult): ServerConfig[];
  watchConfig?: boolean;
  onChange?(): void;
  onEndpointsChanged?(endpoints: EndpointInfo[], aggregate: string | undefined): void;
  onConfigLoaded?(result: NormalizeResult): void;
  /** Show what the engine announces (VS Code: a notification); logged when absent. */
  onAnnounce?(announcement: Announcement): void;
  resolveTransport?(server: string, transport: Transport, interactive: boolean): Promise<Transport>;
  measureRss?(pid: number): number | undefined;
  /** Runs OAuth sign-in and refresh for remote servers (the front end supplies the store and browser). */
  auth?: AuthHost;
}

export class LazyHost {
  readonly driver: EngineDriver;
  readonly config: ConfigSession;
  readonly gateway: HttpGateway | undefined;
  readonly gatewayToken: string;
  private watcher: ConfigWatcher | undefined;
  private lastConfig: NormalizeResult | undefined;
  private endpoints: EndpointInfo[] = [];
  private reloading: Promise<NormalizeResult> | undefined;
  /** When a client last asked an endpoint for `tools/list` ('' = aggregate). */
  private readonly listedAt = new Map<string, number>();
  /** Every log line of this host passes here: floods of similar lines are summarized. */
  private readonly logThrottle: LogThrottle;

  constructor(private readonly opts: LazyHostOptions) {
    this.logThrottle = new LogThrottle((level, message, server) => opts.log(level, message, server));
    const log = this.logThrottle.log;
    this.config = new ConfigSession(opts.core, opts.discovery, opts.explicitFiles);
    this.gatewayToken = opts.gateway?.token ?? randomBytes(32).toString('base64url');
    this.gateway = opts.gateway
      ? new HttpGateway(
          {
            hasEndpoint: (endpoint) => endpoint === '' || this.endpoints.some((e) => e.server === endpoint),
            readBody: (body) => this.readClientBody(body),
            onClientMessage: (session, message) => {
              if (message.includes('"tools/list"')) this.listedAt.set(session.endpoint, Date.now());
              this.driver.handle({ type: 'clientMessage', client: session.id, endpoint: endpointOf(session), message });
            },
            onSessionClosed: (session) => this.driver.handle({ type: 'clientDisconnected', client: session.id }),
          },
          {
            token: this.gatewayToken,
            port: opts.gateway.port,
            requireToken: opts.gateway.requireToken,
            sessionIdleMs: opts.gateway.sessionIdleMs,
            maxSessions: opts.gateway.maxSessions,
            log: (level, message) => log(level, message),
          },
        )
      : undefined;
    this.driver = new EngineDriver({
      core: opts.core,
      settingsJson: JSON.stringify({ workspaceFolders: opts.discovery.workspaceFolders, ...(opts.settings ?? {}) }),
      deliverToClient: (client, message) => (this.gateway ? this.gateway.deliver(client, message) : opts.deliverToClient?.(client, message)),
      store: opts.store,
      log,
      onEndpointsChanged: (endpoints, aggregate) => {
        this.endpoints = endpoints;
        opts.onEndpointsChanged?.(endpoints, aggregate);
        opts.onChange?.();
      },
      onStateChanged: () => opts.onChange?.(),
      onAnnounce: opts.onAnnounce && ((announcement) => opts.onAnnounce!(announcement)),
      resolveTransport: opts.resolveTransport && ((server, transport, interactive) => opts.resolveTransport!(server, transport, interactive)),
      measureRss: opts.measureRss && ((pid) => opts.measureRss!(pid)),
      cwdFallback: opts.discovery.workspaceFolders[0] ?? opts.discovery.home,
      ...(opts.auth ? { auth: opts.auth } : {}),
    });
  }

  /** Load the catalogue, read config, start the gateway and the watcher. */
  async start(): Promise<void> {
    if (this.gateway) await this.gateway.start();
    await this.driver.start();
    await this.reload();
    if (this.opts.watchConfig) {
      this.watcher = new ConfigWatcher(() => void this.reload());
      this.watcher.watch(this.config.watchedPaths);
    }
  }

  /** Re-read every config file and apply the differences (one reload at a time). */
  async reload(): Promise<NormalizeResult> {
    while (this.reloading) await this.reloading.catch(() => undefined);
    this.reloading = (async () => {
      const result = await this.config.load();
      this.lastConfig = result;
      this.driver.applyConfig(this.opts.selectServers ? this.opts.selectServers(result) : result.servers);
      this.watcher?.watch(this.config.watchedPaths);
      this.opts.onConfigLoaded?.(result);
      this.opts.onChange?.();
      return result;
    })();
    try {
      return await this.reloading;
    } finally {
      this.reloading = undefined;
    }
  }

  /** A client's message(s) as the core reads them: routing, ids, the error it will answer. */
  readClientBody(body: string): ClientBody {
    return JSON.parse(this.opts.core.call((c) => c.clientBody(body))) as ClientBody;
  }

  get configResult(): NormalizeResult | undefined {
    return this.lastConfig;
  }

  get exposedEndpoints(): readonly EndpointInfo[] {
    return this.endpoints;
  }

  /** When a gateway client last listed an endpoint's tools (VS Code picking a definition up). */
  toolsListedAt(endpoint: string): number | undefined {
    return this.listedAt.get(endpoint);
  }

  endpointUrl(server = ''): string {
    if (!this.gateway) throw new Error('this host runs no gateway');
    return this.gateway.url(server);
  }

  snapshot(opts?: { withMemory?: boolean }): unknown {
    return JSON.parse(this.driver.snapshotJson(opts));
  }

  async stop(): Promise<void> {
    this.watcher?.dispose();
    await this.gateway?.stop();
    await this.driver.shutdown();
    this.logThrottle.dispose();
  }
}

function endpointOf(session: GatewaySession): { kind: 'server'; name: string } | { kind: 'aggregate' } {
  return session.endpoint === '' ? { kind: 'aggregate' } : { kind: 'server', name: session.endpoint };
}
