// "MCP Servers" tree: one item per managed server, with its state as an icon, and
// one per project server that waits for approval (NEEDS APPROVAL, with Approve).
import * as vscode from 'vscode';
import type { ApprovalRequest } from '../core/contract.generated';
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

/** A row: a managed server, or a project server waiting for approval. */
export type ServerRow = ServerDiagnostics | ApprovalRequest;

export class ServerTree implements vscode.TreeDataProvider<ServerRow> {
  private servers: ServerDiagnostics[] = [];
  private waiting: ApprovalRequest[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  private countdown: ReturnType<typeof setInterval> | undefined;

  update(snapshot: DiagnosticsSnapshot): void {
    this.servers = snapshot.servers;
    this.waiting = snapshot.needsApproval ?? [];
    this.changed.fire();
    // "next retry in N s" counts down between state changes.
    clearInterval(this.countdown);
    this.countdown = hasCountdown(this.servers) ? setInterval(() => this.changed.fire(), 1000) : undefined;
  }

  getChildren(element?: ServerRow): ServerRow[] {
    return element ? [] : [...this.waiting, ...this.servers];
  }

  getTreeItem(row: ServerRow): vscode.TreeItem {
    if ('commandLine' in row) return approvalItem(row);
    const s = row;
    const item = new vscode.TreeItem(s.name, vscode.TreeItemCollapsibleState.None);
    item.id = s.name;
    const [icon, color] = icons[s.state.kind] ?? ['circle-outline'];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    const indexed = s.exposedAs === 'index' ? ` · in the tool index${s.loadedTools.length ? `, ${s.loadedTools.length} loaded` : ''}` : '';
    const retry = retryText(s, Date.now());
    const signIn = signInText(s);
    item.description = `${s.stateLabel}${retry ? ` (${retry})` : ''}${signIn ? ` · ${signIn}` : ''} · ${s.tools} tools${indexed}`;
    item.tooltip = new vscode.MarkdownString(
      [
        `**${s.name}** — ${s.stateLabel}${retry ? ` (${retry})` : ''}`,
        `${s.transport} · ${s.source.file}:${s.source.line}`,
        s.auth?.needsSignIn ? `Sign-in needed (${s.auth.reason ?? 'not signed in'}): ${s.auth.nextStep ?? ''}` : '',
        s.lastError ? `Last error: ${s.lastError}` : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
    // Menus in package.json show the actions the core allows now (` connect `, ` disable `, …).
    item.contextValue = ` ${s.actions.join(' ')} `;
    item.command = { command: 'lazyMcp.openSource', title: 'Open Source', arguments: [s] };
    return item;
  }

  dispose(): void {
    clearInterval(this.countdown);
    this.changed.dispose();
  }
}

/** A project server that runs nothing until approved: what it would run, and Approve. */
function approvalItem(r: ApprovalRequest): vscode.TreeItem {
  const item = new vscode.TreeItem(r.name, vscode.TreeItemCollapsibleState.None);
  item.id = `approval:${r.name}`;
  item.iconPath = new vscode.ThemeIcon('shield', new vscode.ThemeColor('editorWarning.foreground'));
  item.description = `NEEDS APPROVAL${r.changed ? ' (launch changed)' : ''} · ${r.commandLine}`;
  item.tooltip = new vscode.MarkdownString(
    [
      `**${r.name}** — NEEDS APPROVAL${r.changed ? ' (its launch changed since you approved it)' : ''}`,
      `Defined in ${r.source.file}:${r.source.line}; nothing of it runs until you approve it.`,
      `Would run: \`${r.commandLine.replace(/`/g, "'")}\``,
      r.readsOutsideProject.length > 0 ? `Reads outside the project: ${r.readsOutsideProject.join(', ')}` : '',
      `To approve: ${r.action}`,
    ]
      .filter(Boolean)
      .join('\n\n'),
  );
  item.contextValue = ' approve ';
  item.command = { command: 'lazyMcp.openSource', title: 'Open Source', arguments: [r] };
  return item;
}

/** The sign-in part of a server's row, as the core's snapshot states it. */
function signInText(s: ServerDiagnostics): string {
  if (!s.auth) return '';
  if (s.auth.signingIn) return 'signing in…';
  if (s.auth.refreshing) return 'refreshing sign-in…';
  return s.auth.needsSignIn ? 'sign-in needed' : '';
}
