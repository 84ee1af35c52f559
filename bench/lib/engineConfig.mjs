// Servers into a WASM engine the way every host does it: `configSources` with a
// host policy, then `filesRead` answering each `readFiles` round from one
// in-memory project `.mcp.json` (every other file missing). Benches and tests
// that only need some servers use this; the engine has no event that skips it.

/** The project folder the in-memory `.mcp.json` lives in. */
export const projectFolder = '/lazy-mcp-in-memory/project';

/**
 * Loads `mcpServers` (a `.mcp.json`'s `mcpServers` object) into an engine.
 * `send(eventJson)` hands one event to the engine and returns its effects as a
 * list (each caller crosses its own way: `handle`, `handleSplit`, …).
 * Returns the effects of every round, in order (`configLoaded`'s report names
 * the servers with their fingerprints; `open` effects are there too).
 */
export function loadServers(send, mcpServers) {
  const projectFile = `${projectFolder}/.mcp.json`;
  const sources = {
    discovery: { home: '/lazy-mcp-in-memory/home', workspaceFolders: [projectFolder], platform: 'linux', env: {} },
    explicitFiles: [],
    policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' },
  };
  const all = [];
  let effects = send(JSON.stringify({ type: 'configSources', sources }));
  for (let rounds = 0; rounds < 10; rounds++) {
    all.push(...effects);
    const read = effects.find((e) => e.type === 'readFiles');
    if (!read) break;
    const files = read.paths.map((path) => ({ path, content: path === projectFile ? JSON.stringify({ mcpServers }) : null }));
    effects = send(JSON.stringify({ type: 'filesRead', round: read.round, files }));
  }
  if (!all.some((e) => e.type === 'configLoaded')) throw new Error(`the engine did not load the in-memory config: ${JSON.stringify(all).slice(0, 400)}`);
  return all;
}
