// The routing and effects of a warm call as the hot path's crossings return them
// (`clientPost`, `clientMessage` for `serve --stdio`, `messageReceived`): in a compact
// form when the core has one for them
// (engine/effects_json.rs `compact_effects`, engine/wire.rs `compact_routing`), read
// here with string slices instead of `JSON.parse`; any other part is JSON.
import type { ClientBody, ClientEnvelope, Effect } from '../core/contract.generated';

/** `#` opens a compact part (JSON text never starts with it). */
const MARK = 0x23;
/** Between a compact part's fields (no JSON text holds it raw, nor the plain strings in them). */
const FIELD = '\u001f';

/** A crossing's effects: the compact part (`#`, then per effect two fields), else JSON. */
export function effectsOf(part: string): Effect[] {
  if (part.charCodeAt(0) !== MARK) return JSON.parse(part) as Effect[];
  const effects: Effect[] = [];
  for (let at = 1; at < part.length; ) {
    const cut = part.indexOf(FIELD, at);
    const next = part.indexOf(FIELD, cut + 1);
    const end = next === -1 ? part.length : next;
    if (part.charCodeAt(at) === 0x73) {
      // `s<conn>`, then the request id (empty for none).
      const send: Extract<Effect, { type: 'send' }> = { type: 'send', conn: Number(part.slice(at + 1, cut)), message: '' };
      if (end > cut + 1) send.requestId = Number(part.slice(cut + 1, end));
      effects.push(send);
    } else {
      // `r<client>`, then the id.
      effects.push({ type: 'reply', client: part.slice(at + 1, cut), id: idOf(part, cut + 1, end), message: '' });
    }
    at = end + 1;
  }
  return effects;
}

/** A POST's routing: the compact part (`#`, bits, the id, a progress token) of the usual body, else JSON. */
export function routingOf(part: string): ClientBody {
  if (part.charCodeAt(0) !== MARK) return JSON.parse(part) as ClientBody;
  // `@` + bits: 1 expects a reply, 2 the message is sessionless, 4 opens a session, 8 the body is
  // sessionless, 16 a progress token follows the id.
  const bits = part.charCodeAt(1) - 0x40;
  const cut = (bits & 16) !== 0 ? part.indexOf(FIELD, 2) : part.length;
  const message: ClientEnvelope = { expectsReply: (bits & 1) !== 0, id: idOf(part, 2, cut) };
  if ((bits & 16) !== 0) message.progressToken = idOf(part, cut + 1, part.length) ?? undefined;
  if ((bits & 2) !== 0) message.sessionless = true;
  return { batch: false, messages: [message], opensSession: (bits & 4) !== 0, sessionless: (bits & 8) !== 0 };
}

/** An id in a compact part: `n` and an unsigned integer, `s` and a string, `z` null. */
function idOf(part: string, from: number, to: number): string | number | null {
  const kind = part.charCodeAt(from);
  if (kind === 0x6e) return Number(part.slice(from + 1, to));
  if (kind === 0x73) return part.slice(from + 1, to);
  return null;
}
