// "MCP Diagnostics": shows the core's Markdown report as a read-only virtual document.
import * as vscode from 'vscode';

export const diagnosticsScheme = 'lazy-mcp';
export const diagnosticsUri = vscode.Uri.parse(`${diagnosticsScheme}:/MCP%20Diagnostics.md`);

export class DiagnosticsDocument implements vscode.TextDocumentContentProvider {
  private text = '';
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(): string {
    return this.text;
  }

  update(markdown: string): void {
    this.text = markdown;
    this.changed.fire(diagnosticsUri);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** Render, show, and return the report (tests and scripts read the return value). */
export async function showDiagnostics(doc: DiagnosticsDocument, render: () => string): Promise<string> {
  const markdown = render();
  doc.update(markdown);
  const textDoc = await vscode.workspace.openTextDocument(diagnosticsUri);
  await vscode.languages.setTextDocumentLanguage(textDoc, 'markdown');
  await vscode.window.showTextDocument(textDoc, { preview: true });
  return markdown;
}
