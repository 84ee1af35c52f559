// Non-modal notifications: shows what the core announces (and config errors),
// and keeps a record of what was shown so tests can read it through the
// extension's API (the smoke-test driver suppresses the toasts themselves).
import * as vscode from 'vscode';
import type { Announcement } from '../host/engineDriver';

export interface ShownNotification {
  level: 'info' | 'warn' | 'error';
  message: string;
  buttons: string[];
  /** The button the user chose (undefined while open or dismissed). */
  chosen?: string;
  /** A progress notification (shown until its work ends), not a message. */
  progress?: boolean;
  /** The progress notification's work has ended. */
  ended?: boolean;
}

/** A button label and what it does. */
export type Button = [label: string, run: () => unknown];

/** The record tests read (`shown`) keeps the last this many: its memory bound, not a limit a user meets. */
const recordLimit = 1000;

export class Notifier {
  readonly shown: ShownNotification[] = [];
  /** What choosing a button of a shown notification does (its toast cannot be clicked under the smoke-test driver). */
  private readonly answers = new WeakMap<ShownNotification, (choice: string | undefined) => void>();

  constructor(private readonly buttonsFor: (action: Announcement['actions'][number], announcement: Announcement) => Button | undefined) {}

  announce(a: Announcement): void {
    const buttons = a.actions.map((action) => this.buttonsFor(action, a)).filter((b): b is Button => b !== undefined);
    this.show(a.level === 'error' ? 'error' : a.level === 'warn' ? 'warn' : 'info', `Lazy MCP: ${a.message}`, buttons);
  }

  /** Shows a non-modal message; `onDismissed` runs when it is closed without a button. */
  show(level: ShownNotification['level'], message: string, buttons: Button[], onDismissed?: () => unknown): void {
    const record: ShownNotification = { level, message, buttons: buttons.map(([label]) => label) };
    this.record(record);
    const labels = buttons.map(([label]) => label);
    const shown =
      level === 'error'
        ? vscode.window.showErrorMessage(message, ...labels)
        : level === 'warn'
          ? vscode.window.showWarningMessage(message, ...labels)
          : vscode.window.showInformationMessage(message, ...labels);
    let answered = false;
    const answer = (choice: string | undefined): void => {
      if (answered) return;
      answered = true;
      record.chosen = choice;
      const button = buttons.find(([label]) => label === choice);
      if (button) button[1]();
      else onDismissed?.();
    };
    this.answers.set(record, answer);
    void shown.then(answer);
  }

  /**
   * A notification with progress (Lazy MCP: `title` — `message`) until `work` settles;
   * Cancel runs `cancel`.
   */
  progress(title: string, message: string, work: Promise<unknown>, cancel?: () => void): void {
    const record: ShownNotification = { level: 'info', message: `${title}: ${message}`, buttons: cancel ? ['Cancel'] : [], progress: true };
    this.record(record);
    const ended = work.then(
      () => undefined,
      () => undefined,
    );
    void ended.then(() => (record.ended = true));
    if (cancel) this.answers.set(record, (choice) => choice === 'Cancel' && cancel());
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: cancel !== undefined }, (progress, token) => {
      progress.report({ message });
      token.onCancellationRequested(() => {
        record.chosen = 'Cancel';
        cancel?.();
      });
      return ended;
    });
  }

  /**
   * Answers the `index`th shown notification as if the user chose `label` (undefined: closed it).
   * For tests: the smoke-test driver hides the toasts themselves. False if it was already answered.
   */
  choose(index: number, label: string | undefined): boolean {
    const record = this.shown[index];
    const answer = record && this.answers.get(record);
    if (!answer || record.chosen !== undefined) return false;
    answer(label);
    return true;
  }

  private record(record: ShownNotification): void {
    this.shown.push(record);
    if (this.shown.length > recordLimit) this.shown.shift();
  }
}
