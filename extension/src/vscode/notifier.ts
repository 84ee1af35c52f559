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
}

/** A button label and what it does. */
export type Button = [label: string, run: () => unknown];

const recordLimit = 1000;

export class Notifier {
  readonly shown: ShownNotification[] = [];

  constructor(private readonly buttonsFor: (action: Announcement['actions'][number], server: string | undefined) => Button | undefined) {}

  announce(a: Announcement): void {
    const buttons = a.actions.map((action) => this.buttonsFor(action, a.server)).filter((b): b is Button => b !== undefined);
    this.show(a.level === 'error' ? 'error' : a.level === 'warn' ? 'warn' : 'info', `Lazy MCP: ${a.message}`, buttons);
  }

  show(level: ShownNotification['level'], message: string, buttons: Button[]): void {
    const record: ShownNotification = { level, message, buttons: buttons.map(([label]) => label) };
    this.shown.push(record);
    if (this.shown.length > recordLimit) this.shown.shift();
    const labels = buttons.map(([label]) => label);
    const shown =
      level === 'error'
        ? vscode.window.showErrorMessage(message, ...labels)
        : level === 'warn'
          ? vscode.window.showWarningMessage(message, ...labels)
          : vscode.window.showInformationMessage(message, ...labels);
    void shown.then((choice) => {
      record.chosen = choice;
      buttons.find(([label]) => label === choice)?.[1]();
    });
  }
}
