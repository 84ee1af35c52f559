// The VS Code face of a sign-in the core started (`startSignIn`): the browser hooks the host's
// auth module calls. UI only — the core decides when a sign-in starts and why; this opens the
// browser with `env.openExternal` (through `env.asExternalUri`, so a remote window's loopback
// URL reaches the user's browser), asks first when the sign-in is for a waiting call (the core
// names its tool), and shows progress until the core's snapshot says the sign-in ended.
// Cancel on the progress and a sign-in the core ended (its call gave up) are the core's
// business: `cancelUserSignIn` sends the user's Cancel, `cancelled` says the core ended it.
import * as vscode from 'vscode';
import { SignInCancelled, type SignInPrompt } from '../host/auth/authHost';
import type { DiagnosticsSnapshot } from '../host/snapshotTypes';
import type { Notifier } from './notifier';

export interface SignInCommands {
  /** The user pressed Cancel on a sign-in's progress notification. */
  cancel(server: string): void;
  /** The user chose "Sign in" on an ask whose sign-in had already ended: a new sign-in. */
  signIn(server: string): void;
}

export class SignInUi {
  /** Every URL handed to the browser, oldest first (tests count browser openings with it). */
  readonly opened: string[] = [];
  /**
   * Servers whose progress notification is up: ended when the snapshot says the sign-in ended,
   * or replaced when a sign-in that waited for another window's moves on to the browser.
   */
  private readonly underWay = new Map<string, { end: () => void; waiting: boolean }>();

  constructor(
    private readonly notifier: Notifier,
    private readonly commands: SignInCommands,
  ) {}

  /** The host's `openUrl` hook. */
  async openUrl(url: string, prompt: SignInPrompt, cancelled: AbortSignal): Promise<void> {
    if (prompt.toolName) await this.ask(prompt.server, prompt.toolName, cancelled);
    if (cancelled.aborted) throw new SignInCancelled();
    this.opened.push(url);
    // A string, not Uri.parse(url): VS Code opens a string as is, while a Uri's query is
    // decoded and re-encoded (an encoded `&` or `=` in a parameter would change its meaning).
    const opened = await vscode.env.openExternal(url as unknown as vscode.Uri);
    if (!opened) throw new Error('VS Code did not open the browser for the sign-in');
    this.showProgress(prompt.server, false);
  }

  /** The host's `waitingForOtherSignIn` hook: another window (or `lazy-mcp auth login`) is signing in to the server. */
  waitingForOtherSignIn(prompt: SignInPrompt): void {
    this.showProgress(prompt.server, true);
  }

  /** The host's `externalUri` hook: the URL a browser on the user's machine reaches. */
  async externalUri(url: string): Promise<string> {
    const local = vscode.Uri.parse(url);
    const external = await vscode.env.asExternalUri(local);
    // VS Code 1.103's web workbench maps http://127.0.0.1:P/callback to …/proxy/P/ and drops
    // the path (1.139 keeps it): put the listener's path back.
    const kept = local.path === '/' || external.path.endsWith(local.path) ? external : external.with({ path: external.path.replace(/\/$/, '') + local.path });
    return kept.toString(true);
  }

  /** Ends progress notifications of sign-ins the core no longer has under way. */
  update(snapshot: DiagnosticsSnapshot): void {
    for (const [server, shown] of this.underWay) {
      const s = snapshot.servers.find((x) => x.name === server);
      if (!s?.auth?.signingIn) {
        this.underWay.delete(server);
        shown.end();
      }
    }
  }

  dispose(): void {
    for (const shown of this.underWay.values()) shown.end();
    this.underWay.clear();
  }

  /**
   * The call-time ask: non-modal, naming the server and the tool; resolves on "Sign in",
   * closing it cancels. When the core ends the sign-in first (the call gave up), the ask
   * rejects at once; its toast may stay up, and "Sign in" on it then starts a new sign-in.
   */
  private ask(server: string, toolName: string, cancelled: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const ended = (): void => reject(new SignInCancelled());
      if (cancelled.aborted) return ended();
      cancelled.addEventListener('abort', ended, { once: true });
      const settle = (then: () => void) => () => {
        cancelled.removeEventListener('abort', ended);
        if (cancelled.aborted) return;
        then();
      };
      this.notifier.show(
        'info',
        `${server} needs you to sign in to run ${toolName}`,
        [['Sign in', () => (cancelled.aborted ? this.commands.signIn(server) : settle(resolve)())]],
        settle(() => reject(new SignInCancelled())),
      );
    });
  }

  private showProgress(server: string, waiting: boolean): void {
    const shown = this.underWay.get(server);
    if (shown && (waiting || !shown.waiting)) return;
    shown?.end();
    const ended = new Promise<void>((resolve) => this.underWay.set(server, { end: resolve, waiting }));
    const message = waiting ? 'another VS Code window or lazy-mcp is signing in to it; waiting for that sign-in…' : 'finish the sign-in in your browser…';
    this.notifier.progress(`Lazy MCP: signing in to ${server}`, message, ended, () => this.commands.cancel(server));
  }
}
