// The least an HTTP→stdio MCP gateway can do in Node, for a floor row: one HTTP
// POST in, its body written to the server's stdin with a fresh id, the answer's
// line read, the client's id put back (string splice, no JSON parse of the
// payload), one JSON reply out. No sessions, no checks, no engine. Run as a
// process of its own: `node minimalProxy.mjs <server command> [args…]`; prints its
// port on stdout.
import http from 'node:http';
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
const waiting = new Map();
let nextId = 1;
let chunks = [];
child.stdout.on('data', (d) => {
  let start = 0;
  for (let nl = d.indexOf(10); nl !== -1; nl = d.indexOf(10, start)) {
    chunks.push(d.subarray(start, nl));
    const line = Buffer.concat(chunks).toString('utf8');
    chunks = [];
    start = nl + 1;
    // The SDK server writes the id last: `…,"jsonrpc":"2.0","id":7}`.
    const at = line.lastIndexOf('"id":');
    const id = Number(line.slice(at + 5, -1));
    const w = at >= 0 ? waiting.get(id) : undefined;
    if (w) {
      waiting.delete(id);
      w(`${line.slice(0, at + 5)}${w.clientId}}`);
    }
  }
  if (start < d.length) chunks.push(d.subarray(start));
});
const server = http.createServer((req, res) => {
  const body = [];
  req.on('data', (c) => body.push(c));
  req.on('end', () => {
    const text = Buffer.concat(body).toString('utf8');
    const clientId = /"id":("[^"]*"|\d+)/.exec(text)?.[1];
    if (clientId === undefined) return void res.writeHead(202).end();
    const id = nextId++;
    const answer = (line) => res.writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': 'floor' }).end(line);
    answer.clientId = clientId;
    waiting.set(id, answer);
    child.stdin.write(`${text.replace(/"id":("[^"]*"|\d+)/, `"id":${id}`)}\n`);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => {
  child.kill();
  process.exit(0);
});
