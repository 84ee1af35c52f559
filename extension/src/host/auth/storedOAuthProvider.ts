// The official SDK's `OAuthClientProvider`, backed by a TokenStore record per
// server URL. Interactive only when constructed for a sign-in (a redirect
// listener exists): then it never offers the stored refresh token (a sign-in
// is asked for because a refresh cannot help, e.g. a step-up to more scopes).
// For a refresh, asking for the browser throws instead.
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthBinding } from '../../core/contract.generated';
import { recordKey, type TokenStore } from './tokenStore';

/** What is kept per server URL. */
export interface ServerRecord {
  tokens?: OAuthTokens;
  client?: OAuthClientInformationMixed;
  /** The redirect port the registration was made with (kept stable). */
  callbackPort?: number;
  /**
   * The scopes the last sign-in was granted (else asked for), plus those a 403
   * `insufficient_scope` required since: the next sign-in asks for them all.
   */
  scopes?: string;
}

export async function loadRecord(store: TokenStore, url: string): Promise<ServerRecord> {
  const text = await store.get(recordKey(url));
  if (text === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed) : {};
  } catch {
    return {};
  }
}

export async function saveRecord(store: TokenStore, url: string, record: ServerRecord): Promise<void> {
  await store.set(recordKey(url), JSON.stringify(record));
}

function trimSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}

/** Thrown by a refresh that would need the browser. */
export class SignInRequired extends Error {
  constructor() {
    super('sign-in required');
  }
}

export interface Interactive {
  redirectUrl: string;
  port: number;
  state: string;
  openAuthorizationUrl(url: URL): Promise<void>;
}

export class StoredOAuthProvider implements OAuthClientProvider {
  /** The authorization server refused the refresh token (`invalid_grant`). */
  invalidGrant = false;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  /** The `scope` of the authorization request this sign-in sent. */
  private askedScope: string | undefined;

  constructor(
    private readonly store: TokenStore,
    private readonly binding: OAuthBinding,
    private record: ServerRecord,
    private readonly interactive: Interactive | undefined,
    discovery?: OAuthDiscoveryState,
  ) {
    this.discovery = discovery;
  }

  get redirectUrl(): string {
    if (this.interactive) return this.interactive.redirectUrl;
    return `http://127.0.0.1:${this.record.callbackPort ?? this.binding.config.callbackPort ?? 0}/callback`;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scopes = this.binding.config.scopes ?? [];
    return {
      client_name: 'Lazy MCP',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.binding.config.clientSecret ? 'client_secret_post' : 'none',
      ...(scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
    };
  }

  /** `oauth.clientMetadataUrl`: the client id, where the authorization server supports such documents. */
  get clientMetadataUrl(): string | undefined {
    return this.binding.config.clientMetadataUrl ?? undefined;
  }

  state(): string {
    return this.interactive?.state ?? '';
  }

  /** Forget the registration so the sign-in registers again (its redirect URI or scopes no longer fit). */
  forgetRegistration(): void {
    this.record = { ...this.record, client: undefined };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const { clientId, clientSecret } = this.binding.config;
    if (clientId) return { client_id: clientId, ...(clientSecret ? { client_secret: clientSecret } : {}) };
    return this.record.client;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    if (this.binding.config.clientId) return; // configured, not ours to store
    this.record = { ...this.record, client: info, callbackPort: this.interactive?.port ?? this.record.callbackPort };
    await saveRecord(this.store, this.binding.url, this.record);
  }

  tokens(): OAuthTokens | undefined {
    if (this.interactive) return undefined;
    return this.invalidGrant ? undefined : this.record.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.record = { ...this.record, tokens };
    if (this.interactive) {
      this.record.callbackPort ??= this.interactive.port;
      this.record.scopes = tokens.scope ?? this.askedScope ?? this.record.scopes;
    }
    await saveRecord(this.store, this.binding.url, this.record);
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.interactive) throw new SignInRequired();
    this.askedScope = url.searchParams.get('scope') ?? undefined;
    await this.interactive.openAuthorizationUrl(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no sign-in is under way');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'tokens') {
      // The engine decides what to delete (`deleteTokens`); here it is only no longer used.
      this.invalidGrant = true;
      return;
    }
    if (scope === 'all' || scope === 'client') {
      // The registration was refused: register again on the next sign-in.
      this.record = { ...this.record, client: undefined };
      if (scope === 'all') this.invalidGrant = true;
      await saveRecord(this.store, this.binding.url, this.record);
    }
    if (scope === 'verifier') this.verifier = undefined;
    if (scope === 'discovery') this.discovery = undefined;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    // RFC 8414 §3.3: the metadata must name the authorization server it was fetched for; the SDK
    // does not check it. A mismatch ends the sign-in before anything is sent to that server.
    const issuer = (state.authorizationServerMetadata as { issuer?: string } | undefined)?.issuer;
    if (issuer !== undefined && trimSlash(issuer) !== trimSlash(String(state.authorizationServerUrl))) {
      throw new Error(`issuer mismatch: the authorization server ${String(state.authorizationServerUrl)} sent metadata naming ${issuer}`);
    }
    this.discovery = state;
  }

  /**
   * What the redirect must carry (RFC 9207): the issuer the discovery found, and whether
   * the authorization server promised to send `iss` (then a redirect without it is refused).
   */
  redirectIssuer(): { issuer: string | undefined; required: boolean } {
    const meta = this.discovery?.authorizationServerMetadata as { issuer?: string; authorization_response_iss_parameter_supported?: boolean } | undefined;
    return { issuer: meta?.issuer, required: meta?.authorization_response_iss_parameter_supported === true };
  }
}
