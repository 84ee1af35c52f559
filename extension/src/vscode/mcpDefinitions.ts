// Tells VS Code's own MCP client about our gateway: one HTTP definition per
// exposed upstream server, versioned by its catalogue fingerprint so VS Code's
// tool cache is invalidated exactly when ours changes.
import * as vscode from 'vscode';

export const providerId = 'lazyMcp.servers';

export interface ExposedServer {
  name: string;
  /** Changes whenever the server's catalogue (tool list) changes. */
  version: string;
}

export class GatewayDefinitions implements vscode.McpServerDefinitionProvider<vscode.McpHttpServerDefinition> {
  private servers: ExposedServer[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.changed.event;

  constructor(
    private readonly endpointUrl: (server: string) => string,
    private readonly secret: string,
  ) {}

  /** Replace the exposed set; fires a change only when something differs. */
  update(servers: ExposedServer[]): boolean {
    const key = (list: ExposedServer[]): string => JSON.stringify(list.map((s) => [s.name, s.version]));
    if (key(servers) === key(this.servers)) return false;
    this.servers = servers;
    this.changed.fire();
    return true;
  }

  get exposed(): readonly ExposedServer[] {
    return this.servers;
  }

  provideMcpServerDefinitions(): vscode.McpHttpServerDefinition[] {
    return this.servers.map(
      (s) =>
        new vscode.McpHttpServerDefinition(s.name, vscode.Uri.parse(this.endpointUrl(s.name)), { Authorization: `Bearer ${this.secret}` }, s.version),
    );
  }

  resolveMcpServerDefinition(def: vscode.McpHttpServerDefinition): vscode.McpHttpServerDefinition {
    return def;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
