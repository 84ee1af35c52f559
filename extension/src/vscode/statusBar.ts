// Status bar: connected of enabled servers; click opens MCP Diagnostics.
import * as vscode from 'vscode';
import type { DiagnosticsSnapshot } from '../host/snapshotTypes';

export class StatusBar {
  private readonly item = vscode.window.createStatusBarItem('lazyMcp.status', vscode.StatusBarAlignment.Right, 100);

  constructor() {
    this.item.name = 'Lazy MCP';
    this.item.command = 'lazyMcp.showDiagnostics';
    this.item.text = '$(plug) MCP';
    this.item.show();
  }

  /** "connected/enabled": disabled and dormant servers are not counted as ones that could run. */
  update(s: DiagnosticsSnapshot): void {
    const t = s.totals;
    const problems = t.failed + t.needsAuth;
    this.item.text = `$(plug) ${t.connected}/${t.enabled}${t.inProgress > 0 ? ' $(sync~spin)' : ''}${problems > 0 ? ` $(warning) ${problems}` : ''}`;
    this.item.tooltip =
      `Lazy MCP: ${t.connected} of ${t.enabled} enabled server${t.enabled === 1 ? '' : 's'} connected (running now)` +
      `${problems > 0 ? `, ${problems} with a problem` : ''}.\n${s.summary}. ${t.tools} tools exposed.\nClick for MCP Diagnostics.`;
    this.item.backgroundColor = problems > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  /** What the item shows now (for tests). */
  get shown(): { text: string; tooltip: string } {
    return { text: this.item.text, tooltip: typeof this.item.tooltip === 'string' ? this.item.tooltip : '' };
  }

  dispose(): void {
    this.item.dispose();
  }
}
