// Config I/O for the core's config load (crates/lazy-mcp-core/src/config/load.rs):
// the engine asks for files (`readFiles`, whose paths are also the watch set) and
// gets their contents back (`filesRead`). Which files, `{file:}` references, last
// good versions of half-typed files and host policy are all the core's.
import type { ConfigReport, ConfigSources, Effect, Event } from '../../core/contract.generated';
import type { WasmCore } from '../../core/wasmCore';
import { readFiles } from './configFiles';

type ReadFiles = Extract<Effect, { type: 'readFiles' }>;
type FilesRead = Extract<Event, { type: 'filesRead' }>;

/** The `filesRead` event answering one `readFiles` effect. */
export async function answerReadFiles(effect: ReadFiles): Promise<FilesRead> {
  return { type: 'filesRead', round: effect.round, files: await readFiles(effect.paths) };
}

interface ConfigEngine {
  handle(nowMs: number, eventJson: string): string;
  free(): void;
}

/**
 * A config load without running any server (`lazy-mcp config`): the core's config
 * rounds in an engine of its own whose other effects are not carried out.
 */
export class ConfigSession {
  private engine: ConfigEngine | undefined;
  private watched: string[] = [];

  constructor(
    private readonly core: WasmCore,
    private readonly sources: ConfigSources,
  ) {}

  /** The paths the core asked to watch (found or not). */
  get watchedPaths(): readonly string[] {
    return this.watched;
  }

  /** Reads what the core asks for until it has loaded the config; again: re-reads every file. */
  async load(): Promise<ConfigReport> {
    const started = this.engine !== undefined;
    const engine = (this.engine ??= this.core.call((c) => new c.Engine('{}') as ConfigEngine));
    const queue: Event[] = [started ? { type: 'configFilesChanged', paths: [] } : { type: 'configSources', sources: this.sources }];
    for (let event = queue.shift(); event; event = queue.shift()) {
      const json = JSON.stringify(event);
      const effects = JSON.parse(this.core.call(() => engine.handle(Date.now(), json))) as Effect[];
      const reads: Promise<FilesRead>[] = [];
      for (const effect of effects) {
        if (effect.type === 'readFiles') reads.push(answerReadFiles(effect));
        else if (effect.type === 'watchFiles') this.watched = effect.paths;
        else if (effect.type === 'configLoaded') return effect.report;
      }
      queue.push(...(await Promise.all(reads)));
    }
    throw new Error('the core asked for no files and loaded no config');
  }

  dispose(): void {
    this.engine?.free();
    this.engine = undefined;
  }
}

/** The environment as the core wants it: defined values only. */
export function processEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
