// @types/node 20 does not declare the WebAssembly global; we only need its trap error class.
declare namespace WebAssembly {
  class RuntimeError extends Error {}
}
