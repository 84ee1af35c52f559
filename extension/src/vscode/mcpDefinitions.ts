// Tells VS Code's own MCP client about our gateway: one HTTP definition per
// exposed upstream server, versioned by its catalogue fingerprint so VS Code's
// tool cache is invalidated exactly when ours changes, plus the "Lazy MCP tool
// index" definition (the gateway's /mcp) while some server is in index mode.
import * as vscode from 'vscode';
import type { Endpoint } from '../core/contract.generated';

export const providerId = 'lazyMcp.servers';

/** Label of the tool-index definition (meta-tools and loaded tools). */
export const toolIndexLabel = 'Lazy MCP tool index';

/** The label of an endpoint's definition: its server's name, or the tool index's. */
export function definitionLabel(endpoint: Endpoint): string {
  return endpoint.kind === 'server' ? endpoint.name : toolIndexLabel;
}

export interface ExposedServer {
  name: string;
  /** Changes whenever the server's catalogue (tool list) changes. */
  version: string;
}

export class GatewayDefinitions implements vscode.McpServerDefinitionProvider<vscode.McpHttpServerDefinition> {
  private servers: ExposedServer[] = [];
  private index: string | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.changed.event;

  constructor(
    /** The gateway URL of a server's endpoint ('' = the aggregate endpoint). */
    private readonly endpointUrl: (server: string) => string,
    private readonly secret: string,
  ) {}

  /** Replace the exposed set; fires a change only when something differs. */
  update(servers: ExposedServer[], indexVersion: string | undefined): boolean {
    const key = (list: ExposedServer[], index: string | undefined): string => JSON.stringify([list.map((s) => [s.name, s.version]), index]);
    if (key(servers, indexVersion) === key(this.servers, this.index)) return false;
    this.servers = servers;
    this.index = indexVersion;
    this.changed.fire();
    return true;
  }

  get exposed(): readonly ExposedServer[] {
    return this.servers;
  }

  /** Every definition as label, version and gateway endpoint ('' = /mcp), the tool index last. */
  get definitions(): (ExposedServer & { endpoint: string })[] {
    const servers = this.servers.map((s) => ({ ...s, endpoint: s.name }));
    return this.index === undefined ? servers : [...servers, { name: toolIndexLabel, version: this.index, endpoint: '' }];
  }

  provideMcpServerDefinitions(): vscode.McpHttpServerDefinition[] {
    const headers = { Authorization: `Bearer ${this.secret}` };
    return this.definitions.map((d) => new vscode.McpHttpServerDefinition(d.name, vscode.Uri.parse(this.endpointUrl(d.endpoint)), headers, d.version));
  }

  resolveMcpServerDefinition(def: vscode.McpHttpServerDefinition): vscode.McpHttpServerDefinition {
    return def;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
