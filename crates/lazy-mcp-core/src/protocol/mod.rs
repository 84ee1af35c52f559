//! MCP protocol pieces (JSON-RPC framing, client handshake, gateway side).
