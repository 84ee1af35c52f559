//! The "MCP Diagnostics" report, built from what the core knows.
