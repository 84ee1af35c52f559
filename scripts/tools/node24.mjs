// Ensures a Node 24 binary in <tools>/node24 (see node.mjs for the version table).
// Usage: node scripts/tools/node24.mjs   (prints the binary's path on the last line)

import { cliMain } from './common.mjs';
import { NODE_VERSIONS, ensureNode, nodePaths } from './node.mjs';

export const NODE24_VERSION = NODE_VERSIONS[24];
export const node24Paths = () => nodePaths(24);
export const ensureNode24 = () => ensureNode(24);

cliMain(import.meta.url, () => {
  console.log(ensureNode24().node);
});
