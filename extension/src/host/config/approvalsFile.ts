// Writes the approvals file (project servers the user approved) with the text the
// core computes (`trustEdit`, config/project_approval.rs) from the file as it is
// now: I/O only. The CLI's `trust` and VS Code's Allow/Approve share it; every
// running host watches the file (the core reads it in its config load), so an
// approval applies in every window and `serve` at once.
import * as fs from 'node:fs/promises';
import type { ConfigReport, TrustEdit, TrustRequest } from '../../core/contract.generated';
import type { WasmCore } from '../../core/wasmCore';
import { BlobFile } from '../storage/blobFile';

export type ApprovalAsk = Pick<TrustRequest, 'all' | 'names' | 'revoke'>;

/** Approves (or revokes) project servers of `report`; returns what the core decided. */
export async function editApprovals(core: WasmCore, report: ConfigReport, ask: ApprovalAsk): Promise<TrustEdit> {
  const file = report.approvalsFile;
  const current = await fs.readFile(file, 'utf8').catch(() => null);
  const request: TrustRequest = { current, projectServers: report.projectServers, ...ask };
  const edit = JSON.parse(core.call((c) => c.trustEdit(JSON.stringify(request)))) as TrustEdit;
  if (edit.content != null) await new BlobFile(file).write(edit.content);
  return edit;
}
