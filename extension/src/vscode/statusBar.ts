// Status bar: connected/catalogued counts; click opens MCP Diagnostics.
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

  update(s: DiagnosticsSnapshot): void {
    const t = s.totals;
    const problems = t.failed + t.needsAuth;
    this.item.text = `$(plug) ${t.connected}/${t.servers}${t.inProgress > 0 ? ' $(sync~spin)' : ''}${problems > 0 ? ` $(warning) ${problems}` : ''}`;
    this.item.tooltip = `Lazy MCP: ${t.connected} connected, ${t.catalogued} catalogued only, ${t.dormant} dormant, ${t.failed} failed, ${t.needsAuth} need auth — ${t.tools} tools exposed. Click for MCP Diagnostics.`;
    this.item.backgroundColor = problems > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
