// `lazy-mcp` against the OAuth test world (tests/fixtures/oauth): a throwaway user whose
// project configures servers of a world, `auth login` with the consent given in headless
// Chromium from the URL it prints, `serve --stdio` with the SDK client, and every output kept
// for the planted-token check (oauthLeaks.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { approveInBrowser, requireChromium } from '../../fixtures/oauth/index.mjs';
import { cliJs, runCli, startCli, tempWorld, writeJson } from './cliRun.mjs';

// Consent is given in headless Chromium: without it these tests fail now, not after a timeout.
requireChromium();

/**
 * What a running `auth login SERVER` (`startCli`) says: `url` resolves with the authorization
 * URL it prints, `waiting` when it says it waits for another process's sign-in (each or never).
 */
export function loginSignals(run, server) {
  const seen = (re) =>
    new Promise((resolve) => {
      const check = () => {
        const m = re.exec(run.out.stderr);
        if (m) resolve(m[1] ?? m[0]);
      };
      run.child.stderr.on('data', check);
      check();
    });
  return { url: seen(/open this URL in a browser:\n\s+(\S+)/), waiting: seen(new RegExp(`another sign-in to '${server}' is in progress`)) };
}

/**
 * The authorization URL of two `auth login` runs started together, once one prints it and the
 * other says it waits for that sign-in (having read the store before it): approving only then
 * keeps "two at once" from becoming "one after the other", where the second rightly signs in anew.
 */
export async function urlOfTwoLogins(a, b, timeoutMs = 60_000) {
  // A login that exits (or both still silent after timeoutMs) fails the test with what each
  // printed, instead of leaving it waiting for a signal that cannot come.
  let timer;
  const gaveUp = (why) => new Error(`${why}\n--- first login:\n${a.run.out.stderr}\n--- second login:\n${b.run.out.stderr}`);
  const exitedEarly = Promise.race([a.run.exited, b.run.exited]).then(() => Promise.reject(gaveUp('a login exited before one showed the URL and the other said it waits')));
  const silent = new Promise((_, reject) => {
    timer = setTimeout(() => reject(gaveUp(`no URL plus "waiting" from the two logins within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const [url] = await Promise.race([Promise.all([a.url, b.waiting]), Promise.all([b.url, a.waiting]), exitedEarly, silent]);
    return url;
  } finally {
    clearTimeout(timer);
    exitedEarly.catch(() => undefined);
  }
}

/** A user with its own home (token file) whose project has `mcpServers` (a .mcp.json). */
export function oauthUser(prefix, mcpServers, outputs) {
  const w = tempWorld(prefix);
  const env = { ...w.env, LAZY_MCP_NO_BROWSER: '1' };
  const file = path.join(w.home, '.config', 'lazy-mcp', 'oauth.json');
  const user = {
    w,
    env,
    file,
    outputs,
    setServers(servers) {
      writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: servers });
    },
    /** The stored record of a server URL (undefined: none). */
    record(url) {
      if (!fs.existsSync(file)) return undefined;
      const text = JSON.parse(fs.readFileSync(file, 'utf8'))[`lazy-mcp.oauth:${url}`];
      return text === undefined ? undefined : JSON.parse(text);
    },
    async cli(args, opts = {}) {
      const r = await runCli([...args, '--cwd', w.ws], { env, timeoutMs: 90_000, ...opts });
      outputs.push(r.stdout, r.stderr);
      return r;
    },
    /** Starts `auth login SERVER`; `url` resolves with the authorization URL it prints (or never). */
    startLogin(server) {
      const run = startCli(['auth', '--trust-project', 'login', server, '--verbose', '--cwd', w.ws], { env, ready: /$^/, timeoutMs: 120_000 });
      run.started.catch(() => undefined);
      const exited = run.exited.then((r) => {
        outputs.push(run.out.stdout, run.out.stderr);
        return { ...r, stderr: run.out.stderr };
      });
      return { run, ...loginSignals(run, server), exited };
    },
    /** `auth login SERVER` with the consent given in the browser. */
    async login(server) {
      const { url, exited } = user.startLogin(server);
      const authUrl = await Promise.race([url, exited.then((r) => Promise.reject(new Error(`auth login exited without a URL:\n${r.stderr}`)))]);
      const callback = await approveInBrowser(authUrl);
      outputs.push(authUrl, callback);
      return { ...(await exited), url: authUrl };
    },
    /** `serve --stdio` with the SDK client; `notifications` collects the methods of what it was told. */
    async serve() {
      const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--trust-project', '--stdio', '--verbose', '--cwd', w.ws], env, stderr: 'pipe' });
      let stderr = '';
      transport.stderr?.on('data', (d) => (stderr += d));
      const client = new Client({ name: 'cli-oauth-test', version: '1' });
      const notifications = [];
      client.fallbackNotificationHandler = async (n) => void notifications.push(n.method);
      await client.connect(transport);
      return {
        client,
        notifications,
        pid: transport.pid,
        stderr: () => stderr,
        async close() {
          await client.close();
          outputs.push(stderr);
        },
      };
    },
  };
  user.setServers(mcpServers);
  return user;
}

/** A call's result, or an error result with the error's message (a client sees either). */
export async function callOrError(client, name, args = {}) {
  try {
    return await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
  } catch (err) {
    return { isError: true, content: [{ type: 'text', text: String(err.message) }] };
  }
}

export const textOf = (result) => result.content.map((c) => c.text).join('\n');
