// OAuth tokens and client registrations in VS Code's SecretStorage (the OS keychain on
// desktop). The host's auth module chooses the keys (one record per server URL, stamped with
// its issuer); this store only namespaces them, so nothing else in SecretStorage is touched.
import type * as vscode from 'vscode';
import type { TokenStore } from '../host/auth/tokenStore';

const prefix = 'lazyMcp.oauth/';

export class SecretTokenStore implements TokenStore {
  /** `lockDir`: a folder every window of this profile shares (the extension's global storage). */
  constructor(
    private readonly secrets: vscode.SecretStorage,
    readonly lockDir?: string,
  ) {}

  /** Another window's (or this one's) writes: SecretStorage tells every window of the profile. */
  watch(onChange: (key: string) => void): { dispose(): void } {
    return this.secrets.onDidChange((e) => {
      if (e.key.startsWith(prefix)) onChange(e.key.slice(prefix.length));
    });
  }

  async get(key: string): Promise<string | undefined> {
    return this.secrets.get(prefix + key);
  }

  async set(key: string, value: string): Promise<void> {
    await this.secrets.store(prefix + key, value);
  }

  async delete(key: string): Promise<void> {
    await this.secrets.delete(prefix + key);
  }
}
