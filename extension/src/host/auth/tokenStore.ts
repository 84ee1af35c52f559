// Where sign-in results are kept: tokens, the client registration and its
// redirect port, per remote server. One string value per key; VS Code backs it
// with SecretStorage, the CLI with a 0600 file (fileTokenStore.ts).

export interface TokenStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** A store in memory (tests, and a fallback when nothing persistent is available). */
export class MemoryTokenStore implements TokenStore {
  private readonly values = new Map<string, string>();
  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.values.get(key));
  }
  set(key: string, value: string): Promise<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }
  delete(key: string): Promise<void> {
    this.values.delete(key);
    return Promise.resolve();
  }
}

/**
 * The key of a server's record: its URL (tokens are bound to it by RFC 8707).
 * The record remembers the issuer it was obtained from, and the SDK discards
 * tokens and registrations stamped for another issuer: one record per URL and
 * issuer in effect.
 */
export function recordKey(serverUrl: string): string {
  return `lazy-mcp.oauth:${serverUrl}`;
}
