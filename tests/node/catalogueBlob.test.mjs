// The persisted catalogue crosses into the WASM engine as UTF-8 bytes of its own
// (`catalogueLoaded`), not escaped inside an event's JSON: the tools a client is
// offered from it are exactly those of the JSON crossing, non-ASCII text included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { builtCoreModule } from './helpers/bundle.mjs';
import { loadServers } from '../../bench/lib/engineConfig.mjs';

const core = createRequire(import.meta.url)(builtCoreModule);
const mcpServers = { s: { command: 'x' } };
const handleSplit = (engine) => (json) => JSON.parse(engine.handleSplit(Date.now(), json)[0]);
/** The fingerprint the engine gives server `s` (the catalogue entry must carry it). */
function fingerprint() {
  const engine = new core.Engine('{}');
  const loaded = loadServers(handleSplit(engine), mcpServers).find((e) => e.type === 'configLoaded');
  engine.free();
  return loaded.report.servers[0].fingerprint;
}
const description = 'héllo 😀 "quoted" \\ back\nslash — ünïcödé';
const blob = JSON.stringify({
  format: 'lazy-mcp-catalogue',
  version: 1,
  entries: {
    s: {
      fingerprint: fingerprint(),
      cataloguedAtMs: Date.now(),
      initialize: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } },
      tools: [{ name: 'echo', description, inputSchema: { type: 'object' } }],
    },
  },
});

/** The tools a client of endpoint `s` lists after the catalogue was handed over by `load`. */
function toolsAfter(load) {
  const engine = new core.Engine('{}');
  load(engine);
  loadServers(handleSplit(engine), mcpServers);
  const state = JSON.parse(engine.snapshot()).servers[0].state.kind;
  const send = (message) => engine.clientMessage(Date.now(), 'c', 's', Buffer.from(JSON.stringify(message)));
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const out = send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  engine.free();
  // The parts joined by U+001E: the answer is the last.
  return { state, tools: JSON.parse(out.split('\u001e').at(-1)).result.tools };
}

test('a catalogue handed over as bytes offers the same tools as one inside the event JSON', () => {
  const asBytes = toolsAfter((e) => e.catalogueLoaded(Date.now(), Buffer.from(blob, 'utf8')));
  const asJson = toolsAfter((e) => e.handleSplit(Date.now(), JSON.stringify({ type: 'catalogueLoaded', blob })));
  assert.equal(asBytes.state, 'CATALOGUED');
  assert.equal(asBytes.tools[0].description, description);
  assert.deepEqual(asBytes, asJson);
});
