// Runs the OAuth client for the engine's effects, with the official SDK's
// `auth()` (discovery RFC 9728 / RFC 8414, dynamic registration RFC 7591,
// PKCE S256 + state, `resource` RFC 8707, refresh). No OAuth protocol code of
// its own: it wires the SDK to the token store, the loopback redirect and the
// front end's browser hooks, and bounds every authorization-server request.
// Decides nothing about servers: the engine says when to sign in or refresh.
import { randomBytes } from 'node:crypto';
import { auth, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthBinding, RefreshOutcome, SignInOutcome } from '../../core/contract.generated';
import { listenForRedirect, PortInUseError, type RedirectListener } from './loopbackRedirect';
import { loadRecord, saveRecord, SignInRequired, StoredOAuthProvider, type ServerRecord } from './storedOAuthProvider';
import { recordKey, type TokenStore } from './tokenStore';

/** Thrown by `openUrl` when the user declines the prompt: the sign-in ends `cancelled`. */
export class SignInCancelled extends Error {
  constructor() {
    super('sign-in cancelled');
  }
}

export interface BrowserHooks {
  /**
   * Show the authorization URL to the user (VS Code: ask non-modally naming the server and
   * `prompt.toolName`, then `env.openExternal`; throw `SignInCancelled` when declined.
   * CLI: print it, open it on a desktop).
   */
  openUrl(url: string, prompt: { server: string; reason: string; toolName?: string }): Promise<void>;
  /**
   * The URL a browser on the user's machine reaches for the loopback redirect URL (VS Code:
   * `env.asExternalUri`, e.g. a remote window's port proxy); it becomes the registered redirect URI.
   */
  externalUri?(url: string): Promise<string>;
}

export interface AuthHostOptions {
  store: TokenStore;
  browser: BrowserHooks;
  /** Bound on every request to the authorization server (default 10 s). */
  requestTimeoutMs?: number;
  /** How long a sign-in waits for the browser's redirect (default 5 min). */
  signInTimeoutMs?: number;
}

export interface Finished<T> {
  outcome: T;
  message: string;
}

export class AuthHost {
  private readonly tokens = new Map<string, string | undefined>();
  private readonly signIns = new Map<string, Promise<Finished<SignInOutcome>>>();
  /** Discovery results of the last successful sign-in or refresh per server URL (this process only): a refresh then costs one token request. */
  private readonly discoveries = new Map<string, OAuthDiscoveryState>();
  private readonly requestTimeoutMs: number;
  private readonly signInTimeoutMs: number;

  constructor(private readonly opts: AuthHostOptions) {
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 10_000;
    this.signInTimeoutMs = opts.signInTimeoutMs ?? 300_000;
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

  async refresh(binding: OAuthBinding): Promise<Finished<RefreshOutcome>> {
    const record = await loadRecord(this.opts.store, binding.url);
    if (record.tokens?.refresh_token === undefined) return { outcome: 'failed', message: 'no refresh token is stored' };
    const cached = this.discoveries.get(binding.url) ?? (await this.configuredDiscovery(binding));
    const provider = new StoredOAuthProvider(this.opts.store, binding, record, undefined, cached);
    try {
      await auth(provider, { serverUrl: binding.url, fetchFn: this.boundedFetch() });
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

  /** One interactive sign-in per server at a time; a second request joins the first. */
  signIn(binding: OAuthBinding, prompt: { server: string; reason: string; toolName?: string }, stepUpScope?: string): Promise<Finished<SignInOutcome>> {
    const running = this.signIns.get(binding.url);
    if (running) return running;
    const flow = this.runSignIn(binding, prompt, stepUpScope).finally(() => this.signIns.delete(binding.url));
    this.signIns.set(binding.url, flow);
    return flow;
  }

  private remember(binding: OAuthBinding, provider: StoredOAuthProvider): void {
    const state = provider.discoveryState();
    if (state !== undefined) this.discoveries.set(binding.url, state);
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

  private async runSignIn(binding: OAuthBinding, prompt: { server: string; reason: string; toolName?: string }, stepUpScope?: string): Promise<Finished<SignInOutcome>> {
    // A 403 `insufficient_scope` named the scopes to ask for (step-up); else the configured ones.
    const scopes = stepUpScope !== undefined ? { scope: stepUpScope } : scope(binding);
    const before = await loadRecord(this.opts.store, binding.url);
    const port = before.callbackPort ?? binding.config.callbackPort ?? 0;
    const state = randomBytes(24).toString('base64url');
    let provider: StoredOAuthProvider | undefined;
    let listener: RedirectListener;
    try {
      listener = await listenForRedirect(port, state, () => provider?.issuer());
    } catch (err) {
      if (err instanceof PortInUseError) return this.waitForOtherSignIn(binding, before, err);
      return { outcome: 'failed', message: describe(err) };
    }
    try {
      // The browser must reach the listener: in a remote window the loopback URL is mapped
      // (asExternalUri); the authorization URL itself is the authorization server's, as is.
      const redirectUrl = this.opts.browser.externalUri ? await this.opts.browser.externalUri(listener.redirectUrl) : listener.redirectUrl;
      provider = new StoredOAuthProvider(
        this.opts.store,
        binding,
        before,
        {
          redirectUrl,
          port: listener.port,
          state,
          openAuthorizationUrl: (url) => this.opts.browser.openUrl(url.toString(), prompt),
        },
        await this.configuredDiscovery(binding),
      );
      const fetchFn = this.boundedFetch();
      const first = await auth(provider, { serverUrl: binding.url, fetchFn, ...scopes });
      if (first === 'AUTHORIZED') {
        this.remember(binding, provider);
        await this.load(binding);
        return { outcome: 'ok', message: '' };
      }
      const redirect = await withTimeout(listener.result, this.signInTimeoutMs, `no answer from the browser within ${Math.round(this.signInTimeoutMs / 1000)} s`);
      if (redirect.kind === 'cancelled') return { outcome: 'cancelled', message: `the authorization server answered ${redirect.error}` };
      if (redirect.kind === 'failed') return { outcome: 'failed', message: redirect.message };
      await auth(provider, { serverUrl: binding.url, authorizationCode: redirect.code, fetchFn, ...scopes });
      this.remember(binding, provider);
      await this.load(binding);
      return { outcome: 'ok', message: '' };
    } catch (err) {
      if (err instanceof SignInCancelled) return { outcome: 'cancelled', message: 'the user declined to sign in' };
      return { outcome: 'failed', message: describe(err) };
    } finally {
      await listener.close();
    }
  }

  /**
   * The registration's port is taken: another window or process may be signing
   * in to the same server. Wait for it to store new tokens (then they are ours
   * too), else say the port is in use.
   */
  private async waitForOtherSignIn(binding: OAuthBinding, before: ServerRecord, err: PortInUseError): Promise<Finished<SignInOutcome>> {
    const deadline = Date.now() + Math.min(this.signInTimeoutMs, 120_000);
    const was = JSON.stringify(before.tokens ?? null);
    while (Date.now() < deadline && before.client !== undefined) {
      await new Promise((r) => setTimeout(r, 500));
      const now = await loadRecord(this.opts.store, binding.url);
      if (now.tokens !== undefined && JSON.stringify(now.tokens) !== was) {
        await this.load(binding);
        return { outcome: 'ok', message: '' };
      }
    }
    return { outcome: 'failed', message: `${err.message}; close the program using it (or another sign-in to this server), or set another "oauth.callbackPort"` };
  }

  /** `oauth.authServerMetadataUrl`: the metadata document, when the server does not advertise one. */
  private async configuredDiscovery(binding: OAuthBinding): Promise<OAuthDiscoveryState | undefined> {
    const url = binding.config.authServerMetadataUrl;
    if (!url) return undefined;
    const res = await this.boundedFetch()(url);
    if (!res.ok) throw new Error(`the authorization server metadata at ${url} answered HTTP ${res.status}`);
    const metadata = (await res.json()) as { issuer?: string };
    if (typeof metadata.issuer !== 'string') throw new Error(`the authorization server metadata at ${url} has no issuer`);
    return { authorizationServerUrl: metadata.issuer, authorizationServerMetadata: metadata as OAuthDiscoveryState['authorizationServerMetadata'] };
  }

  private boundedFetch(): (url: string | URL, init?: RequestInit) => Promise<Response> {
    const timeout = this.requestTimeoutMs;
    return async (url, init) => {
      try {
        return await fetch(url, { ...init, signal: AbortSignal.timeout(timeout) });
      } catch (err) {
        const host = new URL(url.toString()).origin;
        if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
          throw new Error(`the authorization server ${host} did not answer within ${timeout} ms`);
        }
        const cause = (err as { cause?: { code?: string } }).cause?.code;
        throw new Error(`the authorization server ${host} cannot be reached${cause ? ` (${cause})` : ''}`);
      }
    };
  }
}

function scope(binding: OAuthBinding): { scope?: string } {
  const scopes = binding.config.scopes ?? [];
  return scopes.length > 0 ? { scope: scopes.join(' ') } : {};
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** One line, bounded; SDK errors can quote response bodies (never our tokens, which are not sent back). */
function describe(err: unknown): string {
  const text = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ');
  // The SDK's words for an error page that is not an OAuth error: say what the server answered.
  const page = /^HTTP (\d+): Invalid OAuth error response:.*Raw body: (.*)$/.exec(text);
  if (page) return `the authorization server answered HTTP ${page[1]} (${(page[2] ?? '').slice(0, 80)})`;
  return text.slice(0, 300);
}
