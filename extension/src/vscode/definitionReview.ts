// Reviewing a server's held definitions in VS Code's diff editor: the core's
// review (approved and current text of each held tool, prompt or template,
// and its warnings) as two virtual documents, approved on the left. The
// editor's title offers Approve (lazyMcp.approveDefinitions).
import * as vscode from 'vscode';
import type { DefinitionsReview } from '../core/contract.generated';

export const reviewScheme = 'lazy-mcp-definitions';

const warningLabels = { invisibleUnicode: 'invisible Unicode', instructionLike: 'instruction-like text', newParameter: 'new parameter' } as const;

export class DefinitionReviewDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(reviewScheme, this);
  /** Diffs opened so far (server names), for tests. */
  readonly opened: string[] = [];

  constructor(private readonly review: (server: string) => DefinitionsReview) {}

  /** `lazy-mcp-definitions:/SERVER/approved.json` or `.../current.json`. */
  provideTextDocumentContent(uri: vscode.Uri): string {
    const [, server = '', side = ''] = uri.path.split('/');
    const review = this.review(decodeURIComponent(server));
    if (review.note) return `// ${review.note}\n`;
    return review.items.map((item) => (side === 'approved.json' ? approvedText(item) : currentText(item))).join('\n');
  }

  /** Opens the diff of `server`'s held definitions (approved ↔ current). */
  async open(server: string): Promise<void> {
    const base = `/${encodeURIComponent(server)}`;
    const left = vscode.Uri.from({ scheme: reviewScheme, path: `${base}/approved.json` });
    const right = vscode.Uri.from({ scheme: reviewScheme, path: `${base}/current.json` });
    // Fresh content each time it is opened.
    this.changed.fire(left);
    this.changed.fire(right);
    this.opened.push(server);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${server}: approved ↔ current tool definitions (held until you approve)`, { preview: true });
  }

  /** The server a review document belongs to (the editor title's Approve). */
  static serverOf(uri: vscode.Uri | undefined): string | undefined {
    if (uri?.scheme !== reviewScheme) return undefined;
    const [, server] = uri.path.split('/');
    return server ? decodeURIComponent(server) : undefined;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}

type Item = DefinitionsReview['items'][number];

function header(item: Item): string {
  return `// ${item.kind} ${item.name}: ${item.change}\n`;
}

function approvedText(item: Item): string {
  return `${header(item)}${item.approved || '// (not approved before: new)'}\n`;
}

/** The current side carries the warnings above the definition: the parts that deserve a second look. */
function currentText(item: Item): string {
  const warnings = item.warnings.map((w) => `// WARNING ${warningLabels[w.kind]} in ${w.field}: ${w.detail}\n`).join('');
  return `${header(item)}${warnings}${item.current}\n`;
}
