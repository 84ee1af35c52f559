// The core's config JSON, as generated from the Rust types (crates/lazy-mcp-core/src/config
// → core/contract.generated.ts).
export type {
  ConfigReport,
  ConfigSources,
  DiscoveryInput,
  ExplicitFile,
  FileReport,
  HostPolicy,
  Problem,
  ServerConfig,
  SourceRef,
} from '../../core/contract.generated';
