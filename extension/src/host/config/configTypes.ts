// The core's config JSON, as generated from the Rust types (crates/lazy-mcp-core/src/config
// → core/contract.generated.ts), plus what the host adds to a file report.
import type { FileReport as CoreFileReport, NormalizeResult as CoreNormalizeResult } from '../../core/contract.generated';

export type { DiscoveryInput, FileInput, Problem, ServerConfig, SourceRef } from '../../core/contract.generated';

/** A file report plus what the host adds: the file is broken right now and its last good version was used. */
export type FileReport = CoreFileReport & { usingLastGood?: boolean };
export type NormalizeResult = Omit<CoreNormalizeResult, 'files'> & { files: FileReport[] };
