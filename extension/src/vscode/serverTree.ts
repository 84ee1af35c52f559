// "MCP Servers" tree: one item per managed server, with its state as an icon.
import * as vscode from 'vscode';
import type { DiagnosticsSnapshot, ServerDiagnostics, StateKind } from '../host/snapshotTypes';

const icons: Record<StateKind, [string, string?]> = {
  CONNECTED: ['pass-filled', 'testing.iconPassed'],
  CATALOGUED: ['circle-outline'],
  DORMANT: ['debug-pause'],
  DISABLED: ['circle-slash', 'disabledForeground'],
  PENDING: ['watch'],
  CATALOGUING: ['sync~spin'],
  CONNECTING: ['sync~spin'],
  FAILED: ['error', 'errorForeground'],
  NEEDS_AUTH: ['key', 'editorWarning.foreground'],
};

export class ServerTree implements vscode.TreeDataProvider<ServerDiagnostics> {
  private servers: ServerDiagnostics[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  update(snapshot: DiagnosticsSnapshot): void {
    this.servers = snapshot.servers;
    this.changed.fire();
  }

  getChildren(element?: ServerDiagnostics): ServerDiagnostics[] {
    return element ? [] : this.servers;
  }

  getTreeItem(s: ServerDiagnostics): vscode.TreeItem {
    const item = new vscode.TreeItem(s.name, vscode.TreeItemCollapsibleState.None);
    item.id = s.name;
    const [icon, color] = icons[s.state.kind] ?? ['circle-outline'];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    const indexed = s.exposedAs === 'index' ? ` · in the tool index${s.loadedTools.length ? `, ${s.loadedTools.length} loaded` : ''}` : '';
    item.description = `${s.stateLabel} · ${s.tools} tools${indexed}`;
    item.tooltip = new vscode.MarkdownString(
      [`**${s.name}** — ${s.stateLabel}`, `${s.transport} · ${s.source.file}:${s.source.line}`, s.lastError ? `Last error: ${s.lastError}` : '']
        .filter(Boolean)
        .join('\n\n'),
    );
    // Menus in package.json key inline actions off this.
    item.contextValue = `server-${s.state.kind.toLowerCase()}`;
    item.command = { command: 'lazyMcp.openSource', title: 'Open Source', arguments: [s] };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
