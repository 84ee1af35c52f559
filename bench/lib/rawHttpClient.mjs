// A bare Streamable HTTP MCP client (node:http with a keep-alive agent, no SDK):
// JSON-RPC POSTs, JSON or SSE replies. The benchmark uses it to separate what the
// gateway costs from what the SDK's HTTP client costs.
import http from 'node:http';

export async function rawSession(url, token) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const target = new URL(url);
  let sessionId;
  let nextId = 1;

  function post(message) {
    const body = JSON.stringify(message);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: {
            Authorization: `Bearer ${token}`,
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            'Content-Length': Buffer.byteLength(body),
            ...(sessionId ? { 'Mcp-Session-Id': sessionId } : {}),
          },
        },
        (res) => {
          sessionId ??= res.headers['mcp-session-id'];
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode === 202) return resolve(undefined);
            if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
            if (!String(res.headers['content-type']).includes('text/event-stream')) return resolve(JSON.parse(text));
            // SSE: the response is the data line whose message has our id.
            for (const line of text.split('\n')) {
              if (!line.startsWith('data:')) continue;
              const msg = JSON.parse(line.slice(5));
              if (msg.id === message.id) return resolve(msg);
            }
            reject(new Error(`no response for id ${message.id} in SSE reply`));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  async function request(method, params) {
    const res = await post({ jsonrpc: '2.0', id: nextId++, method, params });
    if (res.error) throw new Error(`${method}: ${res.error.message}`);
    return res.result;
  }

  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'lazy-mcp-bench-raw', version: '1' } });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    request,
    close: async () => {
      await new Promise((resolve) => {
        const req = http.request(
          { agent, host: target.hostname, port: target.port, path: target.pathname, method: 'DELETE', headers: { Authorization: `Bearer ${token}`, 'Mcp-Session-Id': sessionId } },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', resolve);
        req.end();
      });
      agent.destroy();
    },
  };
}
