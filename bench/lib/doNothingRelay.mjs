// The floor of any owner process: a relay that speaks the owner's socket frames
// (`A` attach → spawn, `M` messages) and passes lines between the socket and the
// server's stdio as they come, reading nothing. bench/owner-hop.mjs.
// Usage: node doNothingRelay.mjs SOCKET_DIR [--detach]
// --detach: the server in its own session, as the owner starts its servers (bench/shared-hop.mjs --relay).
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const lines = (onLine) => {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (let nl = pending.indexOf(10); nl !== -1; nl = pending.indexOf(10)) {
      onLine(pending.subarray(0, nl + 1));
      pending = pending.subarray(nl + 1);
    }
  };
};
const server = net.createServer((socket) => {
  let child;
  socket.on(
    'data',
    lines((line) => {
      if (line[0] === 0x41) {
        const { transport } = JSON.parse(line.subarray(1).toString('utf8'));
        child = spawn(transport.command, transport.args ?? [], { env: { ...process.env, ...transport.env }, stdio: ['pipe', 'pipe', 'ignore'], detached: process.argv.includes('--detach') });
        child.stdout.on('data', lines((out) => socket.write(Buffer.concat([Buffer.from('M'), out]))));
        socket.write('O{}\n');
      } else if (line[0] === 0x4d) child?.stdin.write(line.subarray(1));
    }),
  );
  socket.on('close', () => {
    child?.kill();
    server.close();
  });
});
server.listen(path.join(process.argv[2], 'relay.sock'));
