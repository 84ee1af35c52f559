// An event through the WASM engine's `handleSplit`, its effects read back whole:
// element 0 is the effects' JSON with the messages of `send`, `reply` and
// `notifyClient` left empty, then one string per such effect, in order (what the
// host's driver reads). Tests and benches that look at whole effects use this.
const carriers = new Set(['send', 'reply', 'notifyClient']);

export function handled(engine, nowMs, eventJson) {
  const [json, ...messages] = engine.handleSplit(nowMs, eventJson);
  const effects = JSON.parse(json);
  let next = 0;
  for (const effect of effects) if (carriers.has(effect.type)) effect.message = messages[next++];
  return effects;
}
