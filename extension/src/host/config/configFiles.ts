// Reads the config files the core asked for and watches them (including files
// that do not exist yet) so edits apply without a restart. Polling with
// fs.watchFile works the same for files, missing files, and files outside any
// workspace, in VS Code and in the CLI.
import * as fs from 'node:fs';
import type { Effect, Event } from '../../core/contract.generated';
import { type ReadResult, readConfigFile } from './readConfigFile';

export type FileInput = ReadResult;

/** Each path read as a config file (at most `maxBytes`, the core's `configFileMaxBytes`): content, null when missing, or what it is when unreadable. */
export async function readFiles(paths: readonly string[], maxBytes: number): Promise<FileInput[]> {
  return Promise.all(paths.map((p) => readConfigFile(p, maxBytes)));
}

/** The `filesRead` event answering one `readFiles` effect. */
export async function answerReadFiles(effect: Extract<Effect, { type: 'readFiles' }>, maxBytes: number): Promise<Extract<Event, { type: 'filesRead' }>> {
  return { type: 'filesRead', round: effect.round, files: await readFiles(effect.paths, maxBytes) };
}

export class ConfigWatcher {
  private readonly listeners = new Map<string, () => void>();
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly onChange: (changed: string[]) => void,
    /** The core's `configPollMs` and `configDebounceMs` (host_limits.rs). */
    private readonly intervalMs: number,
    private readonly debounceMs: number,
  ) {}

  /** Watch exactly these paths (adds new ones, stops watching the rest). */
  watch(paths: readonly string[]): void {
    const next = new Set(paths);
    for (const [p, listener] of this.listeners) {
      if (next.has(p)) continue;
      fs.unwatchFile(p, listener);
      this.listeners.delete(p);
    }
    for (const p of next) {
      if (this.listeners.has(p)) continue;
      const listener = (): void => this.changed(p);
      fs.watchFile(p, { interval: this.intervalMs, persistent: false }, listener);
      this.listeners.set(p, listener);
    }
  }

  get watchedPaths(): string[] {
    return [...this.listeners.keys()];
  }

  dispose(): void {
    for (const [p, listener] of this.listeners) fs.unwatchFile(p, listener);
    this.listeners.clear();
    if (this.timer) clearTimeout(this.timer);
  }

  private changed(file: string): void {
    this.pending.add(file);
    if (this.timer) clearTimeout(this.timer);
    // Editors save in several writes; one batch per burst.
    this.timer = setTimeout(() => {
      const batch = [...this.pending];
      this.pending.clear();
      this.onChange(batch);
    }, this.debounceMs);
  }
}
