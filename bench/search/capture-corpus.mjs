// `node bench/search/capture-corpus.mjs INSTALL_DIR [--only name,name]`: the
// held-out corpus of issue 27's search benchmark. INSTALL_DIR holds the MCP
// server packages of `servers` below, installed from npm with
// `npm install --ignore-scripts <package>...` (the list is in this file). Each
// server is started with the official SDK client over stdio, with placeholder
// credentials (nothing is called; listing tools needs none for these
// servers), and its `tools/list` is written to bench/search/corpus.json with
// the package, version, licence and sha512 integrity of what ran.
// Servers that do not answer within 20 s (they need a real account, a
// database or a browser to start) are reported and left out.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const installDir = path.resolve(process.argv[2] ?? '/tmp/corpus');
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1].split(',') : null;

/** [server name, npm package, extra args]. */
const servers = [
  ['playwright', '@playwright/mcp', []],
  ['chrome-devtools', 'chrome-devtools-mcp', []],
  ['context7', '@upstash/context7-mcp', []],
  ['supabase', '@supabase/mcp-server-supabase', ['--access-token', 'placeholder']],
  ['notion', '@notionhq/notion-mcp-server', []],
  ['circleci', '@circleci/mcp-server-circleci', []],
  ['next-devtools', 'next-devtools-mcp', []],
  ['mongodb', 'mongodb-mcp-server', []],
  ['tavily', 'tavily-mcp', []],
  ['gitlab', '@zereight/mcp-gitlab', []],
  ['firecrawl', 'firecrawl-mcp', []],
  ['figma', 'figma-developer-mcp', ['--stdio', '--figma-api-key', 'placeholder']],
  ['playwright-ea', '@executeautomation/playwright-mcp-server', []],
  ['eslint', '@eslint/mcp', []],
  ['datadog', '@winor30/mcp-server-datadog', []],
  ['chart', '@antv/mcp-server-chart', []],
  ['google-calendar', '@cocal/google-calendar-mcp', []],
  ['perplexity', '@perplexity-ai/mcp-server', []],
  ['shortcut', '@shortcut/mcp', []],
  ['drawio', '@drawio/mcp', []],
  ['mobile', '@mobilenext/mobile-mcp', []],
  ['brave', '@brave/brave-search-mcp-server', []],
  ['code-runner', 'mcp-server-code-runner', []],
  ['jira', '@aashari/mcp-server-atlassian-jira', []],
  ['browsermcp', '@browsermcp/mcp', []],
  ['exa', 'exa-mcp-server', []],
  ['backlog', 'backlog-mcp-server', []],
  ['mysql', '@benborla29/mcp-server-mysql', []],
  ['google-docs', '@a-bonus/google-docs-mcp', []],
  ['monday', '@mondaydotcomorg/monday-api-mcp', ['-t', 'placeholder']],
  ['mapbox', '@mapbox/mcp-server', []],
  ['argocd', 'argocd-mcp', ['stdio']],
  ['kubernetes', 'mcp-server-kubernetes', []],
  ['brightdata', '@brightdata/mcp', []],
  ['mermaid', 'mcp-mermaid', []],
  ['amap', '@amap/amap-maps-mcp-server', []],
  ['airbnb', '@openbnb/mcp-server-airbnb', []],
  ['heroku', '@heroku/mcp-server', []],
  ['git-cyanheads', '@cyanheads/git-mcp-server', []],
  ['pinecone', '@pinecone-database/mcp', []],
  ['airtable', 'airtable-mcp-server', []],
  ['asana', '@roychri/mcp-server-asana', []],
  ['fetcher', 'fetcher-mcp', []],
  ['replicate', 'replicate-mcp', []],
  ['deepwiki', 'mcp-deepwiki', []],
  ['ios-simulator', 'ios-simulator-mcp', []],
  ['reddit', 'reddit-mcp-buddy', []],
  ['bitbucket', '@nexus2520/bitbucket-mcp-server', []],
  ['flightradar', 'flightradar-mcp-server', []],
  ['excel', '@negokaz/excel-mcp-server', []],
  ['line', '@line/line-bot-mcp-server', []],
  ['pdf-reader', '@sylphx/pdf-reader-mcp', []],
  ['searxng', 'mcp-searxng', []],
  ['azure-devops', '@tiberriver256/mcp-server-azure-devops', []],
  ['bitbucket-aashari', '@aashari/mcp-server-atlassian-bitbucket', []],
  ['bigquery', '@ergut/mcp-bigquery-server', ['--project-id', 'placeholder']],
  ['serper', 'serper-search-scrape-mcp-server', []],
  ['travel-planner', '@gongrzhe/server-travelplanner-mcp', []],
  ['redis', '@modelcontextprotocol/server-redis', ['redis://127.0.0.1:1']],
  ['gdrive', '@modelcontextprotocol/server-gdrive', []],
  ['github', '@modelcontextprotocol/server-github', []],
  ['slack', '@modelcontextprotocol/server-slack', []],
  ['brave-search', '@modelcontextprotocol/server-brave-search', []],
  ['google-maps', '@modelcontextprotocol/server-google-maps', []],
  ['puppeteer', '@modelcontextprotocol/server-puppeteer', []],
  ['postgres', '@modelcontextprotocol/server-postgres', ['postgresql://127.0.0.1:1/db']],
  ['gitlab-mcp', '@modelcontextprotocol/server-gitlab', []],
  ['everart', '@modelcontextprotocol/server-everart', []],
  ['aws-kb', '@modelcontextprotocol/server-aws-kb-retrieval', []],
  ['howtocook', 'howtocook-mcp', []],
  ['shadcn', '@jpisnice/shadcn-ui-mcp-server', []],
  ['elasticsearch', '@elastic/mcp-server-elasticsearch', []],
  ['trello', '@delorenj/mcp-server-trello', []],
  ['metabase', '@cognitionai/metabase-mcp-server', []],
  ['variflight', '@variflight-ai/variflight-mcp', []],
  ['apple-docs', '@kimsungwhee/apple-docs-mcp', []],
  ['puppeteer-mcp', 'puppeteer-mcp-server', []],
  ['send-email', '@skanda-yutori/mcp-send-email', []],
  ['dataforseo', 'dataforseo-mcp-server', []],
  ['coolify', '@masonator/coolify-mcp', []],
];

const placeholder = 'placeholder-not-a-real-credential';
const env = {
  PATH: process.env.PATH,
  HOME: fs.mkdtempSync('/tmp/corpus-home-'),
  NODE_ENV: 'production',
  PUPPETEER_SKIP_DOWNLOAD: '1',
  ...Object.fromEntries(
    [
      'GITHUB_PERSONAL_ACCESS_TOKEN', 'GITLAB_PERSONAL_ACCESS_TOKEN', 'SLACK_BOT_TOKEN', 'BRAVE_API_KEY', 'GOOGLE_MAPS_API_KEY',
      'TAVILY_API_KEY', 'FIRECRAWL_API_KEY', 'EXA_API_KEY', 'PERPLEXITY_API_KEY', 'NOTION_TOKEN', 'CIRCLECI_TOKEN',
      'SENTRY_ACCESS_TOKEN', 'FIGMA_API_KEY', 'DATADOG_API_KEY', 'DATADOG_APP_KEY', 'SHORTCUT_API_TOKEN', 'ATLASSIAN_API_TOKEN',
      'BACKLOG_API_KEY', 'MONDAY_TOKEN', 'MAPBOX_ACCESS_TOKEN', 'ARGOCD_API_TOKEN', 'API_TOKEN', 'AMAP_MAPS_API_KEY',
      'HEROKU_API_KEY', 'PINECONE_API_KEY', 'AIRTABLE_API_KEY', 'ASANA_ACCESS_TOKEN', 'REPLICATE_API_TOKEN', 'LINEAR_API_KEY',
      'CHANNEL_ACCESS_TOKEN', 'AZURE_DEVOPS_PAT', 'SERPER_API_KEY', 'EVERART_API_KEY', 'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY', 'ES_API_KEY', 'TRELLO_API_KEY', 'TRELLO_TOKEN', 'METABASE_API_KEY', 'VARIFLIGHT_API_KEY',
      'RESEND_API_KEY', 'DATAFORSEO_PASSWORD', 'COOLIFY_ACCESS_TOKEN', 'SUPABASE_ACCESS_TOKEN', 'BITBUCKET_APP_PASSWORD',
      'BITBUCKET_TOKEN', 'ATLASSIAN_BITBUCKET_APP_PASSWORD', 'JIRA_API_TOKEN', 'OPENAI_API_KEY', 'STRIPE_SECRET_KEY',
      'TRELLO_BOARD_ID', 'DESTINATION_USER_ID', 'MYSQL_PASS',
    ].map((k) => [k, placeholder]),
  ),
  SLACK_TEAM_ID: 'T00000000',
  ATLASSIAN_SITE_NAME: 'example',
  ATLASSIAN_USER_EMAIL: 'user@example.com',
  ATLASSIAN_BITBUCKET_USERNAME: 'user',
  BITBUCKET_USERNAME: 'user',
  BITBUCKET_BASE_URL: 'http://127.0.0.1:1',
  BACKLOG_DOMAIN: 'example.backlog.com',
  ARGOCD_BASE_URL: 'http://127.0.0.1:1',
  AZURE_DEVOPS_ORG_URL: 'http://127.0.0.1:1/org',
  AZURE_DEVOPS_AUTH_METHOD: 'pat',
  SEARXNG_URL: 'http://127.0.0.1:1',
  ES_URL: 'http://127.0.0.1:1',
  METABASE_URL: 'http://127.0.0.1:1',
  COOLIFY_BASE_URL: 'http://127.0.0.1:1',
  DATAFORSEO_USERNAME: 'user',
  AWS_REGION: 'us-east-1',
  MYSQL_HOST: '127.0.0.1',
  MYSQL_PORT: '1',
  MYSQL_USER: 'user',
  MYSQL_DB: 'db',
  REDIS_URL: 'redis://127.0.0.1:1',
  MDB_MCP_CONNECTION_STRING: 'mongodb://127.0.0.1:1',
};

function packageInfo(pkg) {
  const dir = path.join(installDir, 'node_modules', pkg);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  const lock = JSON.parse(fs.readFileSync(path.join(installDir, 'package-lock.json'), 'utf8'));
  const locked = lock.packages?.[`node_modules/${pkg}`] ?? {};
  return { dir, bin, version: manifest.version, license: manifest.license ?? null, integrity: locked.integrity ?? null };
}

async function capture([name, pkg, args]) {
  const info = packageInfo(pkg);
  if (!info.bin) throw new Error('no bin');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(info.dir, info.bin), ...args],
    env,
    cwd: env.HOME,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'lazy-mcp-corpus', version: '0.1.0' });
  const work = (async () => {
    await client.connect(transport);
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  })();
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('no tools/list answer in 20 s')), 20_000));
  try {
    const tools = await Promise.race([work, timeout]);
    return {
      server: name,
      package: pkg,
      version: info.version,
      license: info.license,
      integrity: info.integrity,
      tools: tools.map(({ name, title, description, inputSchema, annotations }) => ({ name, title, description, inputSchema, annotations })),
    };
  } finally {
    await client.close().catch(() => {});
  }
}

const out = path.join(here, 'corpus.json');
const previous = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')).servers : [];
const result = new Map(previous.map((s) => [s.server, s]));
const queue = servers.filter(([name]) => !only || only.includes(name));
const failed = [];
async function worker() {
  for (let next = queue.shift(); next; next = queue.shift()) {
    try {
      const captured = await capture(next);
      if (captured.tools.length === 0) throw new Error('0 tools');
      result.set(next[0], captured);
      console.error(`• ${next[0]} (${next[1]} ${captured.version}): ${captured.tools.length} tools`);
    } catch (err) {
      failed.push(`${next[0]} (${next[1]}): ${err.message}`);
      console.error(`✗ ${next[0]} (${next[1]}): ${err.message}`);
    }
  }
}
await Promise.all([worker(), worker(), worker()]);
const list = [...result.values()].sort((a, b) => a.server.localeCompare(b.server));
fs.writeFileSync(
  out,
  JSON.stringify(
    {
      about:
        'Held-out corpus for `npm run bench:search` (issue 27): real tools/list output of MCP servers from npm, captured by bench/search/capture-corpus.mjs. None of these servers is in the six-server set the lexical index was tuned on.',
      servers: list,
    },
    null,
    1,
  ) + '\n',
);
console.error(`wrote ${list.length} servers, ${list.reduce((n, s) => n + s.tools.length, 0)} tools; not captured: ${failed.length}`);
for (const f of failed) console.error(`  ${f}`);
process.exit(0);
