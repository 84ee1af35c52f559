// Runs the OAuth client for the engine's effects, with the official SDK's
// `auth()` (discovery RFC 9728 / RFC 8414, dynamic registration RFC 7591 or a
// Client ID Metadata Document, PKCE S256 + state, `resource` RFC 8707, refresh).
// No OAuth protocol code of its own: it wires the SDK to the token store, the
// loopback redirect and the front end's browser hooks, bounds every
// authorization-server request, and keeps to one sign-in per server across
// processes (signInLock.ts). Decides nothing about servers: the engine says when
// to sign in, refresh, cancel or keep scopes.
import { auth, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthBinding, RefreshOutcome, SignInLimits, SignInOutcome } from '../../core/contract.generated';
import type { WasmCore } from '../../core/wasmCore';
import { boundedFetch, describe, type FetchFn } from './authHttp';
import { lookUntilDone, nextTryOf, type NextTry } from '../coreWaits';
import { runSignInFlow, type Finished, type SignInPrompt } from './signInFlow';
import { signInLock } from './signInLock';
import { scopeParam, scopeSet } from './scopes';
import { loadRecord, saveRecord, SignInRequired, StoredOAuthProvider, type ServerRecord } from './storedOAuthProvider';
import { recordKey, urlOfRecordKey, type TokenStore } from './tokenStore';

export { SignInCancelled, type Finished, type SignInPrompt } from './signInFlow';

export interface BrowserHooks {
  /**
   * Show the authorization URL to the user (VS Code: ask non-modally naming the server and
   * `prompt.toolName`, then `env.openExternal`; throw `SignInCancelled` when declined, and
   * withdraw the ask when `cancelled` fires. CLI: print it, open it on a desktop).
   */
  openUrl(url: string, prompt: SignInPrompt, cancelled: AbortSignal): Promise<void>;
  /**
   * The URL a browser on the user's machine reaches for the loopback redirect URL (VS Code:
   * `env.asExternalUri`, e.g. a remote window's port proxy); it becomes the registered redirect URI.
   */
  externalUri?(url: string): Promise<string>;
  /** Another process (window or `lazy-mcp auth login`) is signing in to the server; this one waits for its tokens. */
  waitingForOtherSignIn?(prompt: SignInPrompt): void;
}

export interface AuthHostOptions {
  store: TokenStore;
  /** The core: it says which authorization URLs may be opened (sign_in_url.rs) and how long a sign-in may take (`limits().signIn`). */
  core: Pick<WasmCore, 'call' | 'limits'>;
  browser: BrowserHooks;
}

interface Running {
  flow: Promise<Finished<SignInOutcome>>;
  abort: AbortController;
}

export class AuthHost {
  private readonly tokens = new Map<string, string | undefined>();
  private readonly signIns = new Map<string, Running>();
  /** Discovery results of the last successful sign-in or refresh per server URL (this process only): a refresh then costs one token request. */
  private readonly discoveries = new Map<string, OAuthDiscoveryState>();
  /** The core's bounds on requests, the browser's redirect and the cross-process lock (host_limits.rs). */
  private readonly limits: SignInLimits;
  /** When to look at another process's sign-in lock again, and when to give up (host_waits.rs). */
  private readonly nextTry: NextTry;

  constructor(private readonly opts: AuthHostOptions) {
    this.limits = opts.core.limits().signIn;
    this.nextTry = nextTryOf(opts.core);
  }

  /** Reads the stored access token of a server (before a connection opens). */
  async load(binding: OAuthBinding): Promise<void> {
    const record = await loadRecord(this.opts.store, binding.url);
    this.tokens.set(binding.url, record.tokens?.access_token);
  }

  /** The access token a connection sends now (only to this server's URL). */
  accessToken(url: string): string | undefined {
    return this.tokens.get(url);
  }

  async hasTokens(binding: OAuthBinding): Promise<boolean> {
    return (await loadRecord(this.opts.store, binding.url)).tokens !== undefined;
  }

  /**
   * Calls `onStored(url)` when the store holds new tokens for a server URL, whoever
   * wrote them (another VS Code window, `lazy-mcp auth login` in another terminal);
   * the engine decides whether that matters.
   */
  watchStored(onStored: (url: string) => void): { dispose(): void } {
    const watching = this.opts.store.watch?.((key) => {
      const url = urlOfRecordKey(key);
      if (url === undefined) return;
      void loadRecord(this.opts.store, url).then(
        (record) => {
          if (record.tokens === undefined) return;
          this.tokens.set(url, record.tokens.access_token);
          onStored(url);
        },
        () => undefined,
      );
    }, this.limits.tokenFilePollMs);
    return watching ?? { dispose: () => undefined };
  }

  async refresh(binding: OAuthBinding): Promise<Finished<RefreshOutcome>> {
    const record = await loadRecord(this.opts.store, binding.url);
    if (record.tokens?.refresh_token === undefined) return { outcome: 'failed', message: 'no refresh token is stored' };
    const fetchFn = boundedFetch(this.limits.requestTimeoutMs);
    const cached = this.discoveries.get(binding.url) ?? (await this.configuredDiscovery(binding, fetchFn));
    const provider = new StoredOAuthProvider(this.opts.store, binding, record, undefined, cached);
    try {
      await auth(provider, {
        serverUrl: binding.url,
        fetchFn,
        ...(binding.resourceMetadataUrl ? { resourceMetadataUrl: new URL(binding.resourceMetadataUrl) } : {}),
      });
      this.remember(binding, provider);
      await this.load(binding);
      return { outcome: 'ok', message: '' };
    } catch (err) {
      this.discoveries.delete(binding.url);
      if (provider.invalidGrant) return { outcome: 'invalidGrant', message: '' };
      if (err instanceof SignInRequired) return { outcome: 'failed', message: 'the authorization server did not renew the sign-in' };
      return { outcome: 'failed', message: describe(err) };
    }
  }

  /**
   * One interactive sign-in per server at a time; a second request joins the first.
   * One that was cancelled is let finish (its listener closes) before a new one starts.
   */
  signIn(binding: OAuthBinding, prompt: SignInPrompt, stepUpScope?: string): Promise<Finished<SignInOutcome>> {
    const running = this.signIns.get(binding.url);
    if (running && !running.abort.signal.aborted) return running.flow;
    const abort = new AbortController();
    const ending = running?.flow;
    const flow: Promise<Finished<SignInOutcome>> = (async () => {
      if (ending) await ending.catch(() => undefined);
      return this.runSignIn(binding, prompt, stepUpScope, abort.signal);
    })().finally(() => {
      if (this.signIns.get(binding.url)?.flow === flow) this.signIns.delete(binding.url);
    });
    this.signIns.set(binding.url, { flow, abort });
    return flow;
  }

  /** Ends the sign-in under way for this URL: it finishes `cancelled`, its listener closed. */
  cancel(url: string): void {
    this.signIns.get(url)?.abort.abort();
  }

  /** A 403 `insufficient_scope` named `scope`: the next sign-in (here or in another process) asks for it too. */
  async requireScopes(binding: OAuthBinding, scope: string): Promise<void> {
    const record = await loadRecord(this.opts.store, binding.url);
    const scopes = scopeParam(scopeSet(record.scopes ?? record.tokens?.scope, scope));
    await saveRecord(this.opts.store, binding.url, { ...record, ...(scopes !== undefined ? { scopes } : {}) });
  }

  async deleteTokens(binding: OAuthBinding, forgetClient: boolean): Promise<void> {
    this.tokens.delete(binding.url);
    this.discoveries.delete(binding.url);
    if (forgetClient) {
      await this.opts.store.delete(recordKey(binding.url));
      return;
    }
    const record = await loadRecord(this.opts.store, binding.url);
    await saveRecord(this.opts.store, binding.url, { ...record, tokens: undefined });
  }

  private remember(binding: OAuthBinding, provider: StoredOAuthProvider): void {
    const state = provider.discoveryState();
    if (state !== undefined) this.discoveries.set(binding.url, state);
  }

  private async runSignIn(binding: OAuthBinding, prompt: SignInPrompt, stepUpScope: string | undefined, cancelled: AbortSignal): Promise<Finished<SignInOutcome>> {
    const requested = await loadRecord(this.opts.store, binding.url);
    const lock = await this.takeTurn(binding, prompt, requested, cancelled);
    if ('outcome' in lock) return lock;
    try {
      const fetchFn = boundedFetch(this.limits.requestTimeoutMs, cancelled);
      const done = await runSignInFlow(
        {
          store: this.opts.store,
          fetchFn,
          signInTimeoutMs: this.limits.browserWaitMs,
          openUrl: (url, p, c) => this.opts.browser.openUrl(url, p, c),
          refusedUrl: (url) => {
            const verdict = JSON.parse(this.opts.core.call((core) => core.signInUrlVerdict(url))) as { open: boolean; error?: string };
            return verdict.open ? undefined : (verdict.error ?? 'the sign-in URL was refused');
          },
          ...(this.opts.browser.externalUri ? { externalUri: (url: string) => this.opts.browser.externalUri!(url) } : {}),
          configuredDiscovery: () => this.configuredDiscovery(binding, fetchFn),
        },
        binding,
        prompt,
        stepUpScope,
        cancelled,
      );
      if (done.outcome === 'ok' && done.provider) this.remember(binding, done.provider);
      if (done.outcome === 'ok') await this.load(binding);
      return { outcome: done.outcome, message: done.message };
    } finally {
      lock.release();
    }
  }

  /**
   * Waits for this process's turn to sign in to the server. While another process
   * holds it, its stored tokens are ours too once they appear (one registration,
   * one browser consent); a turn that comes after they appeared is not needed.
   */
  private async takeTurn(binding: OAuthBinding, prompt: SignInPrompt, requested: ServerRecord, cancelled: AbortSignal): Promise<{ release(): void } | Finished<SignInOutcome>> {
    const dir = this.opts.store.lockDir;
    if (dir === undefined) return { release: () => undefined };
    const lock = signInLock(dir, binding.url, this.limits.browserWaitMs + this.limits.lockStaleMarginMs, this.limits.lockUnwrittenGraceMs);
    const was = JSON.stringify(requested.tokens ?? null);
    const storedMeanwhile = async (): Promise<boolean> => {
      const now = await loadRecord(this.opts.store, binding.url);
      return now.tokens !== undefined && JSON.stringify(now.tokens) !== was;
    };
    let told = false;
    let looked = false;
    // The lock is a file (no event): looked at again as the core says (host_waits.rs `otherSignIn`).
    return lookUntilDone<{ release(): void } | Finished<SignInOutcome>>(
      this.nextTry,
      async () => {
        // Tokens the other process stored since the last look are ours too.
        if (looked && (await storedMeanwhile())) {
          await this.load(binding);
          return { done: { outcome: 'ok', message: '' } };
        }
        looked = true;
        const held = lock.tryAcquire();
        if (held) {
          if (!(await storedMeanwhile())) return { done: held };
          held.release();
          await this.load(binding);
          return { done: { outcome: 'ok', message: '' } };
        }
        if (cancelled.aborted) return { done: { outcome: 'cancelled', message: 'the sign-in was cancelled' } };
        if (!told) {
          told = true;
          this.opts.browser.waitingForOtherSignIn?.(prompt);
        }
        return { wait: 'otherSignIn' };
      },
      {
        cancelled,
        gaveUp: (elapsed) => ({
          outcome: 'failed',
          message: `another sign-in to this server (another window or lazy-mcp process) did not finish within ${Math.round(elapsed / 1000)} s`,
        }),
      },
    );
  }

  /** `oauth.authServerMetadataUrl`: the metadata document, when the server does not advertise one. */
  private async configuredDiscovery(binding: OAuthBinding, fetchFn: FetchFn): Promise<OAuthDiscoveryState | undefined> {
    const url = binding.config.authServerMetadataUrl;
    if (!url) return undefined;
    const res = await fetchFn(url);
    if (!res.ok) throw new Error(`the authorization server metadata at ${url} answered HTTP ${res.status}`);
    const metadata = (await res.json()) as { issuer?: string };
    if (typeof metadata.issuer !== 'string') throw new Error(`the authorization server metadata at ${url} has no issuer`);
    return { authorizationServerUrl: metadata.issuer, authorizationServerMetadata: metadata as OAuthDiscoveryState['authorizationServerMetadata'] };
  }
}
