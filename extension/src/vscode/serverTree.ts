// "MCP Servers" tree: one item per managed server, with its state as an icon.
import * as vscode from 'vscode';
import type { DiagnosticsSnapshot, ServerDiagnostics, StateKind } from '../host/snapshotTypes';
import { hasCountdown, retryText } from './retryText';

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

  private countdown: ReturnType<typeof setInterval> | undefined;

  update(snapshot: DiagnosticsSnapshot): void {
    this.servers = snapshot.servers;
    this.changed.fire();
    // "next retry in N s" counts down between state changes.
    clearInterval(this.countdown);
    this.countdown = hasCountdown(this.servers) ? setInterval(() => this.changed.fire(), 1000) : undefined;
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
    const retry = retryText(s, Date.now());
    const signIn = signInText(s);
    const held = s.definitions?.held.length ?? 0;
    item.description = `${s.stateLabel}${retry ? ` (${retry})` : ''}${signIn ? ` · ${signIn}` : ''} · ${s.tools} tools${indexed}${held ? ` · ${held} held for review` : ''}`;
    item.tooltip = new vscode.MarkdownString(
      [
        `**${s.name}** — ${s.stateLabel}${retry ? ` (${retry})` : ''}`,
        `${s.transport} · ${s.source.file}:${s.source.line}`,
        s.auth?.needsSignIn ? `Sign-in needed (${s.auth.reason ?? 'not signed in'}): ${s.auth.nextStep ?? ''}` : '',
        s.lastError ? `Last error: ${s.lastError}` : '',
        held ? `Held until you review them: ${s.definitions?.held.map((h) => `${h.kind} ${h.name} (${h.change})`).join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
    // Menus in package.json show the actions the core allows now (` connect `, ` disable `, …).
    item.contextValue = ` ${s.actions.join(' ')} ${held ? 'reviewDefinitions ' : ''}`;
    item.command = { command: 'lazyMcp.openSource', title: 'Open Source', arguments: [s] };
    return item;
  }

  dispose(): void {
    clearInterval(this.countdown);
    this.changed.dispose();
  }
}

/** The sign-in part of a server's row, as the core's snapshot states it. */
function signInText(s: ServerDiagnostics): string {
  if (!s.auth) return '';
  if (s.auth.signingIn) return 'signing in…';
  if (s.auth.refreshing) return 'refreshing sign-in…';
  return s.auth.needsSignIn ? 'sign-in needed' : '';
}
