// One interactive sign-in with the official SDK's `auth()`: the loopback
// listener, the browser, the code exchange. It asks for the union of the
// scopes granted before, those a 403 `insufficient_scope` required and the
// configured ones, and never refreshes instead (the provider hides the refresh
// token). It registers again when the registration no longer fits: another
// redirect URI (a changed `oauth.callbackPort`, the registration's port taken,
// another asExternalUri mapping) or fewer scopes than asked. Discovery starts
// at the resource metadata URL the server's 401 advertised (RFC 9728).
import { randomBytes } from 'node:crypto';
import { auth, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthBinding, SignInOutcome } from '../../core/contract.generated';
import { bounded, CancelledError, describe, type FetchFn } from './authHttp';
import { listenForRedirect, PortInUseError, type RedirectListener } from './loopbackRedirect';
import { covers, scopeParam, scopeSet } from './scopes';
import { loadRecord, StoredOAuthProvider, type ServerRecord } from './storedOAuthProvider';
import type { TokenStore } from './tokenStore';

export interface Finished<T> {
  outcome: T;
  message: string;
}

export interface SignInPrompt {
  server: string;
  reason: string;
  toolName?: string;
}

export interface FlowDeps {
  store: TokenStore;
  fetchFn: FetchFn;
  signInTimeoutMs: number;
  openUrl(url: string, prompt: SignInPrompt, cancelled: AbortSignal): Promise<void>;
  /** The core's verdict on an authorization URL: why it must not be opened, or undefined. */
  refusedUrl(url: string): string | undefined;
  externalUri?(url: string): Promise<string>;
  configuredDiscovery(): Promise<OAuthDiscoveryState | undefined>;
}

/** The core refused to open the authorization URL: the sign-in fails with its reason, nothing is opened. */
class SignInUrlRefused extends Error {}

/** Thrown by `openUrl` when the user declines the prompt: the sign-in ends `cancelled`. */
export class SignInCancelled extends Error {
  constructor() {
    super('sign-in cancelled');
  }
}

export async function runSignInFlow(
  deps: FlowDeps,
  binding: OAuthBinding,
  prompt: SignInPrompt,
  stepUpScope: string | undefined,
  cancelled: AbortSignal,
): Promise<Finished<SignInOutcome> & { provider?: StoredOAuthProvider }> {
  const before = await loadRecord(deps.store, binding.url);
  const wanted = scopeSet(before.scopes, before.tokens?.scope, stepUpScope, binding.config.scopes);
  const scope = scopeParam(wanted);
  const state = randomBytes(24).toString('base64url');
  let provider: StoredOAuthProvider | undefined;
  const issuer = () => provider?.redirectIssuer() ?? { issuer: undefined, required: false };
  const configuredPort = binding.config.callbackPort ?? undefined;
  let listener: RedirectListener;
  try {
    listener = await listenForRedirect(configuredPort ?? before.callbackPort ?? 0, state, issuer);
  } catch (err) {
    if (!(err instanceof PortInUseError) || configuredPort !== undefined) {
      const hint = err instanceof PortInUseError ? '; close the program using it, or set another "oauth.callbackPort"' : '';
      return { outcome: 'failed', message: `${describe(err)}${hint}` };
    }
    // The registration's port is taken by another program: another port, registered again.
    try {
      listener = await listenForRedirect(0, state, issuer);
    } catch (again) {
      return { outcome: 'failed', message: describe(again) };
    }
  }
  try {
    // The browser must reach the listener: in a remote window the loopback URL is mapped
    // (asExternalUri); the authorization URL itself is the authorization server's, as is.
    const redirectUrl = deps.externalUri ? await deps.externalUri(listener.redirectUrl) : listener.redirectUrl;
    provider = new StoredOAuthProvider(
      deps.store,
      binding,
      before,
      {
        redirectUrl,
        port: listener.port,
        state,
        openAuthorizationUrl: (url) => {
          // The URL comes from the authorization server's metadata (the remote server's choice).
          const refused = deps.refusedUrl(url.toString());
          if (refused !== undefined) throw new SignInUrlRefused(refused);
          return deps.openUrl(url.toString(), prompt, cancelled);
        },
      },
      await deps.configuredDiscovery(),
    );
    if (registrationNoLongerFits(binding, before, redirectUrl, wanted)) provider.forgetRegistration();
    const options = {
      serverUrl: binding.url,
      fetchFn: deps.fetchFn,
      ...(scope !== undefined ? { scope } : {}),
      ...(binding.resourceMetadataUrl ? { resourceMetadataUrl: new URL(binding.resourceMetadataUrl) } : {}),
    };
    const first = await auth(provider, options);
    if (first === 'AUTHORIZED') return { outcome: 'ok', message: '', provider };
    const redirect = await bounded(listener.result, deps.signInTimeoutMs, `no answer from the browser within ${Math.round(deps.signInTimeoutMs / 1000)} s`, cancelled);
    if (redirect.kind === 'cancelled') return { outcome: 'cancelled', message: `the authorization server answered ${redirect.error}` };
    if (redirect.kind === 'failed') return { outcome: 'failed', message: redirect.message };
    await auth(provider, { ...options, authorizationCode: redirect.code });
    return { outcome: 'ok', message: '', provider };
  } catch (err) {
    if (err instanceof SignInUrlRefused) return { outcome: 'failed', message: err.message };
    if (err instanceof SignInCancelled) return { outcome: 'cancelled', message: 'the user declined to sign in' };
    if (err instanceof CancelledError || cancelled.aborted) return { outcome: 'cancelled', message: 'the sign-in was cancelled' };
    return { outcome: 'failed', message: describe(err) };
  } finally {
    await listener.close();
  }
}

/**
 * A dynamic registration whose redirect URIs do not include this sign-in's, or whose
 * scopes do not cover what it asks for, is replaced by a new one (a configured
 * `clientId` is used as is; a Client ID Metadata Document has no registration).
 */
function registrationNoLongerFits(binding: OAuthBinding, before: ServerRecord, redirectUrl: string, wanted: Set<string>): boolean {
  if (binding.config.clientId || before.client === undefined) return false;
  const client = before.client as { redirect_uris?: unknown; scope?: unknown };
  const redirects = Array.isArray(client.redirect_uris) ? (client.redirect_uris as unknown[]) : undefined;
  if (redirects !== undefined && !redirects.includes(redirectUrl)) return true;
  return typeof client.scope === 'string' && !covers(client.scope, wanted);
}
