// Loads the WASM core and keeps it alive: a trap (panic → abort) kills a wasm
// instance, so every call goes through `call()`, which recreates the instance.
import * as path from 'node:path';
import type { HostLimits, HttpExchange, HttpVerdict, LogLevel } from './contract.generated';
import type * as WasmSurface from './wasmSurface.generated';
import { embeddingTablePath, readEmbeddingTable } from './embeddingTable';
import type { EmbeddingTable } from './embeddingTable';

/**
 * What the wasm-bindgen facade exports (crates/lazy-mcp-wasm/src/lib.rs), typed
 * from wasm-bindgen's own declarations (wasmSurface.generated.d.ts, checked
 * against each build by tests/node/wasmSurface.test.mjs).
 */
export type CoreExports = typeof WasmSurface;

export type Log = (level: Exclude<LogLevel, 'debug'>, message: string) => void;

/** The core could not be loaded at all: the host stays inert and says so once. */
export class CoreLoadError extends Error {}

/** A call trapped; the instance was recreated and the call's effect is lost. */
export class CoreTrapError extends Error {}

export const defaultCoreModulePath = (distDir: string): string => path.join(distDir, 'core', 'lazy_mcp_wasm.js');

/** An upstream HTTP answer as the core's status rule reads it (http_status.rs `HttpAnswer`). */
export interface HttpAnswer {
  exchange: HttpExchange;
  status: number;
  /** The engine signs this server in with OAuth. */
  oauth: boolean;
  /** The server gave the connection an `Mcp-Session-Id`. */
  session: boolean;
}

export class WasmCore {
  private exports: CoreExports | undefined;
  private traps = 0;
  private table: EmbeddingTable | undefined;
  private hostLimits: HostLimits | undefined;
  /** Verdicts already given: the rule is pure, so a warm call never asks again. */
  private readonly verdicts = new Map<string, HttpVerdict>();
  /** Told after each trap, once the fresh instance is ready (`onTrap`). */
  private readonly trapListeners = new Set<(error: Error, trapCount: number) => void>();

  constructor(
    private readonly modulePath: string,
    private readonly log: Log,
    /** Called after a trap once the fresh instance is ready (e.g. to replay state). */
    private readonly onRecreated?: (error: Error, trapCount: number) => void,
  ) {}

  /** Load (or reload) the module; throws CoreLoadError with the cause. */
  load(): CoreExports {
    try {
      const resolved = require.resolve(this.modulePath);
      // A fresh require instantiates a fresh wasm instance (the glue instantiates at load).
      delete require.cache[resolved];
      const mod = require(resolved) as CoreExports;
      if (typeof mod.coreVersion !== 'function') {
        throw new Error(`${this.modulePath} does not export coreVersion()`);
      }
      this.exports = mod;
      return mod;
    } catch (err) {
      this.exports = undefined;
      const cause = err instanceof Error ? err.message : String(err);
      throw new CoreLoadError(`Lazy MCP could not load its WASM core from ${this.modulePath}: ${cause}`);
    }
  }

  /** The embedding table shipped beside this core (read on first use, then kept). */
  embeddingTable(): EmbeddingTable {
    return (this.table ??= readEmbeddingTable(embeddingTablePath(this.modulePath)));
  }

  /** The numbers the host's I/O runs by (host_limits.rs), read once. */
  limits(): HostLimits {
    return (this.hostLimits ??= JSON.parse(this.call((c) => c.hostLimits())) as HostLimits);
  }

  /** What an upstream HTTP answer's status means for its connection (http_status.rs). */
  httpStatusVerdict(a: HttpAnswer): HttpVerdict {
    const key = `${a.exchange} ${a.status} ${+a.oauth}${+a.session}`;
    let verdict = this.verdicts.get(key);
    if (verdict === undefined) {
      verdict = this.call((c) => c.httpStatusVerdict(a.exchange, a.status, a.oauth, a.session)) as HttpVerdict;
      this.verdicts.set(key, verdict);
    }
    return verdict;
  }

  /**
   * Whether an upstream HTTP request that failed without an answer ends its connection (else
   * it fails that request only; http_request_error.rs): `code` is Node's error code (else its
   * message), `first` whether it was the connection's first exchange. Rare: asked each time.
   */
  httpRequestErrorEndsConnection(code: string, first: boolean): boolean {
    return this.call((c) => c.httpRequestErrorEndsConnection(code, first));
  }

  /**
   * The rules and limits an upstream HTTP connection runs by (`ConnectionOptions.http`). Which
   * transport it speaks (the legacy fallback of a first POST) is the engine's (`httpTransport`).
   */
  httpPolicy(): {
    verdict: (a: HttpAnswer) => HttpVerdict;
    endsConnection: (code: string, first: boolean) => boolean;
    sessionEndTimeoutMs: number;
    errorBodyMaxChars: number;
  } {
    const limits = this.limits();
    return {
      verdict: (a) => this.httpStatusVerdict(a),
      endsConnection: (code, first) => this.httpRequestErrorEndsConnection(code, first),
      sessionEndTimeoutMs: limits.httpSessionEndTimeoutMs,
      errorBodyMaxChars: limits.httpErrorBodyMaxChars,
    };
  }

  /**
   * Call `listener` after each trap, once the fresh instance is ready: whatever lived in the dead
   * one (an engine) is gone. Returns the way to stop listening.
   */
  onTrap(listener: (error: Error, trapCount: number) => void): () => void {
    this.trapListeners.add(listener);
    return () => this.trapListeners.delete(listener);
  }

  get loaded(): boolean {
    return this.exports !== undefined;
  }

  get trapCount(): number {
    return this.traps;
  }

  /** Run `fn` against the core; on a trap, recreate the instance and throw CoreTrapError. */
  call<T>(fn: (core: CoreExports) => T): T {
    const core = this.exports ?? this.load();
    try {
      return fn(core);
    } catch (err) {
      if (!(err instanceof WebAssembly.RuntimeError)) throw err;
      this.traps += 1;
      this.log('error', `WASM core trapped (${err.message}); recreating the instance (trap #${this.traps})`);
      this.load();
      const trap = new CoreTrapError(`Lazy MCP's core failed and was restarted: ${err.message}`);
      this.onRecreated?.(trap, this.traps);
      for (const listener of [...this.trapListeners]) listener(trap, this.traps);
      throw trap;
    }
  }
}
