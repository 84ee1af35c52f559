// A config load without running any server (`lazy-mcp config`, `lazy-mcp trust`):
// the core's config rounds (crates/lazy-mcp-core/src/config/load.rs) through the
// one engine driver (../engineDriver.ts), in an engine that manages no servers
// (setting `manageServers: false`), so it asks for files and reports, and starts
// nothing. Which files, `{file:}` references, last good versions of half-typed
// files and host policy are all the core's. A core trap ends its engine (it
// lived in the dead instance): the load under way fails saying so, and the next
// one starts a fresh engine.
import type { ConfigReport, ConfigSources } from '../../core/contract.generated';
import type { WasmCore } from '../../core/wasmCore';
import { EngineDriver } from '../engineDriver';

interface Waiter {
  resolve(report: ConfigReport): void;
  reject(error: Error): void;
}

export class ConfigSession {
  private driver: EngineDriver | undefined;
  private watched: string[] = [];
  private waiters: Waiter[] = [];
  private readonly untrap: () => void;

  constructor(
    private readonly core: WasmCore,
    private readonly sources: ConfigSources,
  ) {
    this.untrap = core.onTrap((error) => this.engineLost(error));
  }

  /** The core trapped: the engine is gone. The load under way fails; the next `load` starts over. */
  private engineLost(error: Error): void {
    void this.driver?.shutdown();
    this.driver = undefined;
    for (const w of this.waiters.splice(0)) w.reject(new Error(`the config load stopped: ${error.message}; run it again`));
  }

  /** The paths the core asked to watch (found or not). */
  get watchedPaths(): readonly string[] {
    return this.watched;
  }

  /** Reads what the core asks for until it has loaded the config; again: re-reads every file. */
  load(): Promise<ConfigReport> {
    const started = this.driver !== undefined;
    const driver = (this.driver ??= new EngineDriver({
      core: this.core,
      settingsJson: JSON.stringify({ manageServers: false }),
      // An engine that manages no servers has no clients, no catalogue and nothing to say but its report.
      deliverToClient: () => undefined,
      store: { read: () => Promise.resolve(undefined), write: () => Promise.resolve() },
      log: () => undefined,
      onWatchFiles: (paths) => {
        this.watched = paths;
      },
      onConfigLoaded: (report) => {
        for (const w of this.waiters.splice(0)) w.resolve(report);
      },
      onEngineFailed: (message) => {
        for (const w of this.waiters.splice(0)) w.reject(new Error(message));
      },
    }));
    const loaded = new Promise<ConfigReport>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (started) driver.handle({ type: 'configFilesChanged', paths: [] });
    else driver.configure(this.sources);
    return loaded;
  }

  dispose(): void {
    this.untrap();
    void this.driver?.shutdown();
    this.driver = undefined;
  }
}

/** The environment as the core wants it: defined values only. */
export function processEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
