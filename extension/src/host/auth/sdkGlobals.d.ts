// The MCP SDK's type declarations name the DOM's `HeadersInit`; this project
// compiles without the DOM lib (Node's fetch types come from @types/node).
type HeadersInit = ConstructorParameters<typeof Headers>[0];
