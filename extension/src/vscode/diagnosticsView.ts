// "MCP Diagnostics": the core's Markdown report in a themed webview, with
// clickable sources and per-server actions (links of the form lazy-mcp://verb?...).
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

export type DiagnosticsAction = { verb: string; params: URLSearchParams };

export class DiagnosticsView {
  private panel: vscode.WebviewPanel | undefined;
  /** The page's script is listening: later reports replace the body in place (the scroll position stays). */
  private ready = false;
  private pending: string | undefined;
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly render: (links: boolean) => string,
    private readonly onAction: (action: DiagnosticsAction) => void,
  ) {}

  /** Open (or reveal) the view; returns the report as plain Markdown. */
  async show(): Promise<string> {
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('lazyMcp.diagnostics', 'MCP Diagnostics', vscode.ViewColumn.Active, {
        enableScripts: true,
        localResourceRoots: [],
      });
      this.ready = false;
      this.panel.onDidDispose(() => {
        this.panel = undefined;
        this.ready = false;
      });
      this.panel.webview.onDidReceiveMessage((msg: { href?: string; ready?: boolean }) => {
        if (msg.ready) {
          this.ready = true;
          if (this.pending !== undefined) void this.panel?.webview.postMessage({ body: this.pending });
          this.pending = undefined;
          return;
        }
        if (typeof msg.href !== 'string' || !msg.href.startsWith('lazy-mcp://')) return;
        const url = new URL(msg.href);
        this.onAction({ verb: url.hostname, params: url.searchParams });
      });
      this.panel.webview.html = page(await this.body());
    } else {
      this.panel.reveal();
      await this.refresh();
    }
    return this.render(false);
  }

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  /**
   * Re-renders every second while `active` (a retry is due: its "next retry in N s" counts
   * down, as the servers view's does), else only when something changed.
   */
  tick(active: boolean): void {
    if (active && !this.ticker) this.ticker = setInterval(() => void this.refresh(), 1000);
    if (!active && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  async refresh(): Promise<void> {
    if (!this.panel) return;
    const body = await this.body();
    if (!this.panel) return;
    if (this.ready) void this.panel.webview.postMessage({ body });
    else this.pending = body;
  }

  private async body(): Promise<string> {
    const markdown = this.render(true);
    try {
      // The built-in Markdown extension renders (and sanitizes) for us.
      return await vscode.commands.executeCommand<string>('markdown.api.render', markdown);
    } catch {
      return `<pre>${escapeHtml(markdown)}</pre>`;
    }
  }

  dispose(): void {
    clearInterval(this.ticker);
    this.panel?.dispose();
  }
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

/**
 * Styles are allowed inline: VS Code injects its theme into every webview as a `<style>`
 * element and `style` attributes, which a nonce-only `style-src` blocks (one console error
 * each). Scripts stay nonce-only.
 */
function page(body: string): string {
  const nonce = randomBytes(16).toString('base64');
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}';">
<style>
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 20px 20px; line-height: 1.5; }
h1 { font-size: 1.6em; font-weight: 600; border-bottom: 1px solid var(--vscode-panel-border); padding-bottom: .3em; }
h2 { font-size: 1.2em; font-weight: 600; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0; font-size: .95em; max-width: 100%; }
th, td { border: 1px solid var(--vscode-panel-border, #8884); padding: 3px 8px; text-align: left; vertical-align: top; }
td.long { overflow-wrap: anywhere; min-width: 16em; }
td.long a { overflow-wrap: normal; }
table.cards, table.cards tbody, table.cards tr, table.cards td { display: block; }
table.cards thead { display: none; }
table.cards tr { border: 1px solid var(--vscode-panel-border, #8884); margin: .6em 0; padding: 3px 0; }
table.cards td { border: none; padding: 1px 8px; overflow-wrap: anywhere; min-width: 0; }
table.cards td::before { content: attr(data-label); font-weight: 600; margin-right: .6em; }
table.cards td:first-child { font-weight: 600; }
table.cards td:first-child::before { content: none; }
th { background: var(--vscode-editorWidget-background); font-weight: 600; }
tr:nth-child(even) td { background: var(--vscode-list-hoverBackground); }
a { color: var(--vscode-textLink-foreground); text-decoration: none; cursor: pointer; }
a:hover { text-decoration: underline; }
code { font-family: var(--vscode-editor-font-family); background: var(--vscode-textCodeBlock-background); padding: 0 3px; border-radius: 3px; }
strong { font-weight: 600; }
</style></head><body><main id="report">${body}</main>
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
const report = document.getElementById('report');
// Only a cell holding a long unbroken token (a path, a URL, a command line) may break
// anywhere, and it keeps at least 16em; every other word (a state, a pid, a date) never
// breaks mid-word. Breaking anywhere in every cell let the table squeeze short columns
// ("CATALOG/UED").
// A table too wide for the window becomes one card per row ("label value" lines), so
// that no word breaks mid-word and nothing needs horizontal scrolling.
const layOut = () => {
  for (const td of report.querySelectorAll('td')) if (/\\S{33,}/.test(td.textContent)) td.classList.add('long');
  const width = document.documentElement.clientWidth;
  for (const table of report.querySelectorAll('table')) {
    const labels = [...table.querySelectorAll('th')].map((th) => th.textContent.trim());
    for (const tr of table.querySelectorAll('tbody tr')) [...tr.children].forEach((td, i) => (td.dataset.label = labels[i] ?? ''));
    table.classList.remove('cards');
    if (table.getBoundingClientRect().right > width + 0.5) table.classList.add('cards');
  }
};
layOut();
window.addEventListener('resize', layOut);
// A new report replaces the body in place, so the scroll position stays.
window.addEventListener('message', (e) => {
  if (typeof e.data?.body !== 'string') return;
  report.innerHTML = e.data.body;
  layOut();
});
vscode.postMessage({ ready: true });
document.addEventListener('click', (e) => {
  const a = e.target.closest('a');
  if (!a) return;
  const href = a.getAttribute('href') || '';
  if (href.startsWith('lazy-mcp://')) { e.preventDefault(); vscode.postMessage({ href }); }
});
</script></body></html>`;
}
