// Where sign-in results are kept: tokens, the client registration and its
// redirect port, per remote server. One string value per key; VS Code backs it
// with SecretStorage, the CLI with a 0600 file (fileTokenStore.ts).

export interface TokenStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Calls `onChange` with the key of every value that changed, by this process or
   * another one (VS Code: SecretStorage's onDidChange; CLI: the token file, looked at
   * every `pollMs`, the core's `limits().signIn.tokenFilePollMs`).
   */
  watch?(onChange: (key: string) => void, pollMs: number): { dispose(): void };
  /** A folder shared by every process using this store: sign-in locks live there (signInLock.ts). */
  readonly lockDir?: string;
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
  return `${recordPrefix}${serverUrl}`;
}

const recordPrefix = 'lazy-mcp.oauth:';

/** The server URL of a record key (undefined: not a record). */
export function urlOfRecordKey(key: string): string | undefined {
  return key.startsWith(recordPrefix) ? key.slice(recordPrefix.length) : undefined;
}
