// The static embedding table for hybrid tool search (issue 27): a file shipped
// beside the WASM core (dist/model/tool-embeddings.bin, copied there by
// scripts/build.mjs after its checksum is checked). The host only reads the
// bytes; the core parses them, judges them and logs what it did.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Where the table is for a core loaded from `coreModulePath` (dist/core/lazy_mcp_wasm.js). */
export const embeddingTablePath = (coreModulePath: string): string =>
  process.env.LAZY_MCP_EMBEDDINGS ?? path.join(path.dirname(coreModulePath), '..', 'model', 'tool-embeddings.bin');

export interface EmbeddingTable {
  /** The file, for the core's log line. */
  source: string;
  /** Its bytes; empty when it could not be read (the core then searches by words only). */
  bytes: Uint8Array;
}

/** Reads the table (4 MB, once per process; an engine recreated after a trap reuses it). */
export function readEmbeddingTable(file: string): EmbeddingTable {
  try {
    return { source: file, bytes: fs.readFileSync(file) };
  } catch {
    return { source: file, bytes: new Uint8Array() };
  }
}
