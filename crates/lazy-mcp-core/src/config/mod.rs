//! Config discovery and normalization: every MCP config format users have,
//! read with the semantics of its own tool, merged into one list of servers.

pub mod model;
