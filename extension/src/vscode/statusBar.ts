// Status bar: connected of enabled servers; click opens MCP Diagnostics.
import * as vscode from 'vscode';
import type { DiagnosticsSnapshot } from '../host/snapshotTypes';
import { count } from '../host/wording';

export class StatusBar {
  private readonly item = vscode.window.createStatusBarItem('lazyMcp.status', vscode.StatusBarAlignment.Right, 100);
  /** Shown only while servers need sign-in (or one is under way): click to sign in. */
  private readonly signIn = vscode.window.createStatusBarItem('lazyMcp.signIn', vscode.StatusBarAlignment.Right, 99);
  private signInVisible = false;

  constructor() {
    this.item.name = 'Lazy MCP';
    this.item.command = 'lazyMcp.showDiagnostics';
    this.item.text = '$(plug) MCP';
    this.item.show();
    this.signIn.name = 'Lazy MCP Sign-in';
    this.signIn.command = 'lazyMcp.signIn';
  }

  /** "connected/enabled": disabled and dormant servers are not counted as ones that could run. */
  update(s: DiagnosticsSnapshot): void {
    const t = s.totals;
    const problems = t.failed + t.needsAuth;
    const held = t.heldDefinitions;
    this.item.text = `$(plug) ${t.connected}/${t.enabled}${t.inProgress > 0 ? ' $(sync~spin)' : ''}${problems > 0 ? ` $(warning) ${problems}` : ''}${held > 0 ? ` $(shield) ${held} held` : ''}`;
    this.item.tooltip =
      `Lazy MCP: ${t.connected} of ${count(t.enabled, 'enabled server')} connected (running now)` +
      `${problems > 0 ? `, ${problems} with a problem` : ''}.\n${s.summary}. ${count(t.tools, 'tool')} exposed.` +
      `${held > 0 ? `\n${held} changed tool definition${held === 1 ? ' is' : 's are'} held until you review ${held === 1 ? 'it' : 'them'}.` : ''}\nClick for MCP Diagnostics.`;
    this.item.backgroundColor = problems > 0 || held > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.updateSignIn(s);
  }

  private updateSignIn(s: DiagnosticsSnapshot): void {
    // The servers the core offers Sign In for now (engine/server_actions.rs).
    const needing = s.servers.filter((x) => x.actions.includes('signIn')).map((x) => x.name);
    const signingIn = s.servers.filter((x) => x.auth?.signingIn).map((x) => x.name);
    this.signInVisible = needing.length > 0 || signingIn.length > 0;
    if (!this.signInVisible) {
      this.signIn.hide();
      return;
    }
    this.signIn.text = signingIn.length > 0 ? `$(sync~spin) Signing in${needing.length ? ` $(key) ${needing.length}` : ''}` : `$(key) Sign in (${needing.length})`;
    this.signIn.tooltip = [
      needing.length ? `Lazy MCP: ${needing.join(', ')} need${needing.length === 1 ? 's' : ''} you to sign in. Click to sign in.` : '',
      signingIn.length ? `Signing in to ${signingIn.join(', ')}: finish in your browser.` : '',
    ]
      .filter(Boolean)
      .join('\n');
    this.signIn.show();
  }

  /** What the sign-in item shows now (for tests); empty while hidden. */
  get signInShown(): { text: string; tooltip: string } {
    if (!this.signInVisible) return { text: '', tooltip: '' };
    return { text: this.signIn.text, tooltip: typeof this.signIn.tooltip === 'string' ? this.signIn.tooltip : '' };
  }

  /** What the item shows now (for tests). */
  get shown(): { text: string; tooltip: string } {
    return { text: this.item.text, tooltip: typeof this.item.tooltip === 'string' ? this.item.tooltip : '' };
  }

  dispose(): void {
    this.item.dispose();
    this.signIn.dispose();
  }
}
