// "MCP Servers" tree: one item per project server that waits for approval (NEEDS
// APPROVAL, with Approve), one per managed server with its state as an icon, then
// one group per kind of configured server Lazy MCP leaves alone ("Managed by VS
// Code (3)"), as the core's snapshot lists them, with why and how to change it.
import * as vscode from 'vscode';
import type { ApprovalRequest, Unmanaged, UnmanagedView } from '../core/contract.generated';
import type { DiagnosticsSnapshot, ServerDiagnostics } from '../host/snapshotTypes';
import { hasCountdown, retryText } from './retryText';
import { stateIcons } from './stateIcons';

/** A row: a managed server, a project server waiting for approval, or an unmanaged group or server. */
export type ServerRow = ServerDiagnostics | ApprovalRequest | { group: UnmanagedView } | { unmanaged: Unmanaged; explanation: string };

export class ServerTree implements vscode.TreeDataProvider<ServerRow> {
  private servers: ServerDiagnostics[] = [];
  private waiting: ApprovalRequest[] = [];
  private unmanaged: UnmanagedView[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  private countdown: ReturnType<typeof setInterval> | undefined;

  update(snapshot: DiagnosticsSnapshot): void {
    this.servers = snapshot.servers;
    this.unmanaged = snapshot.unmanaged;
    this.waiting = snapshot.needsApproval ?? [];
    this.changed.fire();
    // "next retry in N s" counts down between state changes.
    clearInterval(this.countdown);
    this.countdown = hasCountdown(this.servers) ? setInterval(() => this.changed.fire(), 1000) : undefined;
  }

  getChildren(element?: ServerRow): ServerRow[] {
    if (!element) return [...this.waiting, ...this.servers, ...this.unmanaged.map((group) => ({ group }))];
    if ('group' in element) return element.group.servers.map((unmanaged) => ({ unmanaged, explanation: element.group.explanation }));
    return [];
  }

  getTreeItem(row: ServerRow): vscode.TreeItem {
    if ('commandLine' in row) return approvalItem(row);
    if ('group' in row) {
      const item = new vscode.TreeItem(row.group.title, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `unmanaged:${row.group.group}`;
      item.iconPath = new vscode.ThemeIcon('info');
      item.tooltip = row.group.explanation;
      item.contextValue = 'unmanagedGroup';
      return item;
    }
    if ('unmanaged' in row) {
      const u = row.unmanaged;
      const item = new vscode.TreeItem(u.name, vscode.TreeItemCollapsibleState.None);
      item.id = `unmanaged:${u.group}:${u.name}`;
      item.iconPath = new vscode.ThemeIcon('circle-small');
      item.description = `${shortPath(u.source.file)}:${u.source.line}`;
      item.tooltip = new vscode.MarkdownString().appendText(`${u.name}: ${u.reason}\n\n${row.explanation}`);
      item.contextValue = 'unmanaged';
      item.command = { command: 'lazyMcp.openSource', title: 'Open Source', arguments: [u] };
      return item;
    }
    const s = row;
    const item = new vscode.TreeItem(s.name, vscode.TreeItemCollapsibleState.None);
    item.id = s.name;
    const [icon, color] = stateIcons[s.state.kind] ?? ['circle-outline'];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    const indexed = s.exposedAs === 'index' ? ` · in the tool index${s.loadedTools.length ? `, ${s.loadedTools.length} loaded` : ''}` : '';
    const retry = retryText(s, Date.now());
    const signIn = signInText(s);
    const held = s.definitions?.held.length ?? 0;
    item.description = `${s.stateLabel}${retry ? ` (${retry})` : ''}${signIn ? ` · ${signIn}` : ''} · ${s.toolsText}${indexed}${held ? ` · ${held} held for review` : ''}`;
    item.tooltip = new vscode.MarkdownString(
      [
        `**${s.name}** — ${s.stateLabel}${retry ? ` (${retry})` : ''}`,
        `${s.transport} · ${s.sourceLabel}`,
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

/** A file under the home folder as `~/…`. */
function shortPath(file: string): string {
  const home = process.env.HOME ?? '';
  return home && file.startsWith(`${home}/`) ? `~${file.slice(home.length)}` : file;
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
