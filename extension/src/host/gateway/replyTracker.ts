// Which requests read from a stdio client still wait for their answer, so that
// `serve --stdio` can answer everything it read before it exits on stdin EOF.
// Bookkeeping of ids only: the core decided which messages get an answer, and
// says which requests get none after all (`noReply`: the client cancelled them).
import type { ClientEnvelope, ClientRoute, JsonRpcId } from './jsonRpcShape';

export class ReplyTracker {
  private readonly pending = new Map<string, number>();
  /** Error answers due with `id: null` (messages whose id could not be read). */
  private anonymous = 0;
  private waiters: (() => void)[] = [];

  /** A message was handed to the engine. */
  expect(envelope: Pick<ClientEnvelope, 'expectsReply' | 'id'>): void {
    if (!envelope.expectsReply) return;
    if (envelope.id === null) this.anonymous += 1;
    else this.pending.set(key(envelope.id), (this.pending.get(key(envelope.id)) ?? 0) + 1);
  }

  /** A message went to the client, routed as `how` (as the engine said): an answer settles its request. */
  delivered(how: ClientRoute): void {
    if (how.reply) this.settle(how.id);
  }

  /** The engine will send no answer to request `id` (the client cancelled it): it is settled too. */
  noReply(id: JsonRpcId | null): void {
    this.settle(id);
  }

  private settle(id: JsonRpcId | null): void {
    if (id === null) this.anonymous = Math.max(0, this.anonymous - 1);
    else {
      const k = key(id);
      const left = (this.pending.get(k) ?? 0) - 1;
      if (left > 0) this.pending.set(k, left);
      else this.pending.delete(k);
    }
    if (this.idle) for (const w of this.waiters.splice(0)) w();
  }

  get idle(): boolean {
    return this.pending.size === 0 && this.anonymous === 0;
  }

  /** Resolves once every expected answer went out, or after `ms` (true = all answered). */
  async drained(ms: number): Promise<boolean> {
    if (this.idle) return true;
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      new Promise<true>((resolve) => this.waiters.push(() => resolve(true))),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
    ]);
    clearTimeout(timer);
    return done;
  }
}

function key(id: JsonRpcId): string {
  return `${typeof id}:${String(id)}`;
}
