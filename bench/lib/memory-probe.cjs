// Preload for memory benches (`node --require bench/lib/memory-probe.cjs --expose-gc`), set
// only by a bench through NODE_OPTIONS: no product code knows of it. When
// LAZY_MCP_MEMORY_PROBE_DIR is set, SIGUSR2 makes this process run a full GC and write
// <dir>/<pid>.json: process.memoryUsage() (rss, heapTotal, heapUsed, external,
// arrayBuffers) and the bytes of every live WebAssembly.Memory its instances export, so a
// bench can tell which part of a process's RSS grows between rounds (the JS heap, buffers
// outside it, or the WASM core's linear memory, which only ever grows).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const dir = process.env.LAZY_MCP_MEMORY_PROBE_DIR;
if (dir) {
  /** Weak: a core recreated after a trap must not be kept alive by the probe. */
  const memories = [];
  WebAssembly.Instance = new Proxy(WebAssembly.Instance, {
    construct(target, args, newTarget) {
      const instance = Reflect.construct(target, args, newTarget);
      for (const value of Object.values(instance.exports)) {
        if (value instanceof WebAssembly.Memory) memories.push(new WeakRef(value));
      }
      return instance;
    },
  });
  process.on('SIGUSR2', () => {
    globalThis.gc?.();
    const wasm = memories.map((m) => m.deref()?.buffer.byteLength).filter((n) => n !== undefined);
    const report = { pid: process.pid, argv: process.argv.slice(1, 3), gc: typeof globalThis.gc === 'function', ...process.memoryUsage(), wasm };
    const file = path.join(dir, `${process.pid}.json`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(report));
    fs.renameSync(`${file}.tmp`, file);
  });
}
