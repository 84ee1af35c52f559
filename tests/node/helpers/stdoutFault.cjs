// Preloaded into `lazy-mcp serve --stdio` (`node -r THIS …`): the first stdout
// write of a message containing $LAZY_MCP_TEST_STDOUT_FAULT throws, once, as a
// bug in the host's delivery would: the stdin line being served meets the
// host's internal-error path (-32603).
const marker = process.env.LAZY_MCP_TEST_STDOUT_FAULT;
const write = process.stdout.write.bind(process.stdout);
let thrown = false;
process.stdout.write = (chunk, ...rest) => {
  if (!thrown && marker && String(chunk).includes(marker) && !String(chunk).includes('-32603')) {
    thrown = true;
    throw new Error('test fault: this answer could not be written');
  }
  return write(chunk, ...rest);
};
