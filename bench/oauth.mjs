// Remote servers behind OAuth, measured with real parts: oidc-provider (tests/fixtures/oauth) as
// the authorization server, the SDK v1 server behind requireBearerAuth, the built `lazy-mcp` CLI,
// the SDK client as the MCP client, consent given in headless Chromium.
//
// 5 OAuth servers configured (5 entries for the protected server, each its own sign-in), 1 used:
//   - browser openings / authorization requests at startup (catalogue), warm start and reload;
//   - sign-ins over a simulated day of 1-hour access tokens (24 expiries, a call each hour);
//   - latency of a call that needs a silent refresh vs a call with a valid token (ratio), and the
//     token-endpoint round trips per refreshing call.
//
// Usage: node scripts/build.mjs && node bench/oauth.mjs [--calls N]   (writes bench/results/oauth.json)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { approveInBrowser, startOAuthWorld } from '../tests/fixtures/oauth/index.mjs';
import { cliJs, runCli, startCli, tempWorld, writeJson } from '../tests/node/helpers/cliRun.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const callsArg = process.argv.indexOf('--calls');
const N = callsArg > 0 ? Number(process.argv[callsArg + 1]) : 20;
const SERVERS = ['linear', 'notion', 'sentry', 'stripe', 'internal'];
const USED = 'linear';

const world = await startOAuthWorld({ accessTokenTtlSec: 3600 });
const w = tempWorld('lazy-mcp-bench-oauth-');
const env = { ...w.env, LAZY_MCP_NO_BROWSER: '1' };
const configFile = path.join(w.ws, '.mcp.json');
// Distinct URLs for the same protected server (the fragment never reaches it): 5 sign-ins to keep apart.
const config = { mcpServers: Object.fromEntries(SERVERS.map((s) => [s, { type: 'http', url: `${world.mcpUrl}#${s}` }])) };
writeJson(configFile, config);

const openings = (text) => (text.match(/open this URL in a browser/g) ?? []).length;
const counters = () => world.counters();
const results = {};

try {
  // 1. Startup: cataloguing 5 servers with no tokens.
  let before = await counters();
  const startup = await runCli(['catalogue', '--cwd', w.ws], { env, timeoutMs: 120_000 });
  let after = await counters();
  results.startup = { browserOpenings: openings(startup.stderr), authorizationRequests: after.authorizationRequests - before.authorizationRequests, needsAuthServers: (startup.stderr.match(/NEEDS AUTH/g) ?? []).length };

  // Sign in to the one server used.
  const login = startCli(['auth', 'login', USED, '--cwd', w.ws], { env, ready: /$^/, timeoutMs: 120_000 });
  login.started.catch(() => undefined);
  const url = await new Promise((resolve) => {
    const check = () => {
      const m = /open this URL in a browser:\n\s+(\S+)/.exec(login.out.stderr);
      if (m) resolve(m[1]);
    };
    login.child.stderr.on('data', check);
  });
  await approveInBrowser(url);
  if ((await login.exited).code !== 0) throw new Error(`auth login failed:\n${login.out.stderr}`);

  // 2. Warm start + 3. reload, in one `serve`.
  before = await counters();
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--stdio', '--cwd', w.ws], env, stderr: 'pipe' });
  let serveErr = '';
  transport.stderr?.on('data', (d) => (serveErr += d));
  const client = new Client({ name: 'bench-oauth', version: '1' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  after = await counters();
  results.warmStart = { browserOpenings: openings(serveErr), authorizationRequests: after.authorizationRequests - before.authorizationRequests, toolsListed: tools.length };

  before = await counters();
  const errBefore = serveErr.length;
  // An edit: a 6th OAuth server added. The reload is seen when serve says the new one needs sign-in.
  writeJson(configFile, { mcpServers: { ...config.mcpServers, extra: { type: 'http', url: `${world.mcpUrl}#extra` } } });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && !/'extra' needs you to sign in/.test(serveErr.slice(errBefore))) await new Promise((r) => setTimeout(r, 100));
  if (!/'extra' needs you to sign in/.test(serveErr.slice(errBefore))) throw new Error(`no reload seen:\n${serveErr}`);
  after = await counters();
  results.reload = { browserOpenings: openings(serveErr.slice(errBefore)), authorizationRequests: after.authorizationRequests - before.authorizationRequests, newServerNeedsSignIn: true };

  const call = async (text) => {
    const t0 = performance.now();
    const r = await client.callTool({ name: `${USED}__guarded_echo`, arguments: { text } });
    const ms = performance.now() - t0;
    if (r.isError || r.content?.[0]?.text !== `guarded-notes echo: ${text}`) throw new Error(`call failed: ${JSON.stringify(r)}`);
    return ms;
  };
  await call('connect'); // the first call connects; not part of either side

  // 4. A simulated day: the access token expires every hour (24 times), a call each hour.
  before = await counters();
  for (let hour = 0; hour < 24; hour++) {
    await world.expireAccessTokens();
    await call(`hour ${hour}`);
  }
  after = await counters();
  results.simulatedDay = {
    hours: 24,
    signIns: (after.tokens.authorization_code ?? 0) - (before.tokens.authorization_code ?? 0),
    authorizationRequests: after.authorizationRequests - before.authorizationRequests,
    refreshes: (after.tokenRequests.refresh_token ?? 0) - (before.tokenRequests.refresh_token ?? 0),
    browserOpenings: openings(serveErr),
  };

  // 5. Latency: valid token vs silent refresh, interleaved, N each.
  const valid = [];
  const refreshing = [];
  before = await counters();
  for (let i = 0; i < N; i++) {
    valid.push(await call(`valid ${i}`));
    await world.expireAccessTokens();
    refreshing.push(await call(`refresh ${i}`));
  }
  after = await counters();
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  results.latency = {
    calls: N,
    validMedianMs: Number(median(valid).toFixed(1)),
    refreshMedianMs: Number(median(refreshing).toFixed(1)),
    ratio: Number((median(refreshing) / median(valid)).toFixed(2)),
    tokenEndpointRoundTripsPerRefreshingCall: ((after.tokenRequests.refresh_token ?? 0) - (before.tokenRequests.refresh_token ?? 0)) / N,
    unauthorizedPerRefreshingCall: (after.mcp.unauthorized - before.mcp.unauthorized) / N,
  };
  await client.close();
} finally {
  await world.stop();
}

results.servers = { configured: SERVERS.length, used: 1 };
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(path.join(here, 'results', 'oauth.json'), `${JSON.stringify(results, null, 2)}\n`);
const r = results;
console.log(`| 5 OAuth servers, 1 used | browser openings | authorization requests |
|---|---|---|
| startup (catalogue, no tokens) | ${r.startup.browserOpenings} | ${r.startup.authorizationRequests} |
| warm start (serve) | ${r.warmStart.browserOpenings} | ${r.warmStart.authorizationRequests} |
| config reload (a 6th OAuth server added) | ${r.reload.browserOpenings} | ${r.reload.authorizationRequests} |

Simulated day (24 one-hour access tokens, a call each hour): ${r.simulatedDay.signIns} sign-ins, ${r.simulatedDay.refreshes} silent refreshes, ${r.simulatedDay.authorizationRequests} authorization requests.
Call latency (median of ${r.latency.calls}): valid token ${r.latency.validMedianMs} ms, needing a silent refresh ${r.latency.refreshMedianMs} ms, ratio ${r.latency.ratio}; token-endpoint round trips per refreshing call: ${r.latency.tokenEndpointRoundTripsPerRefreshingCall}; 401s per refreshing call: ${r.latency.unauthorizedPerRefreshingCall}.`);
