// One host's view of the user's config files: asks the core which files to read,
// reads them, and asks the core to normalize them. While a file is half-typed
// (unparsable) its last good version keeps its servers alive.
import type { WasmCore } from '../../core/wasmCore';
import { readFiles } from './configFiles';
import type { DiscoveryInput, FileInput, NormalizeResult } from './configTypes';

/** OpenCode `{file:...}` references can nest; a few rounds settle every real config. */
const maxFileRounds = 4;

export class ConfigSession {
  private readonly lastGood = new Map<string, string>();
  private watched: string[] = [];

  constructor(
    private readonly core: WasmCore,
    private discovery: DiscoveryInput,
    /** Files named explicitly (CLI `--config`), with their format. */
    private readonly explicitFiles: { path: string; format?: string }[] = [],
  ) {}

  /** Every path whose change should trigger a reload (found or not). */
  get watchedPaths(): readonly string[] {
    return this.watched;
  }

  updateDiscovery(discovery: DiscoveryInput): void {
    this.discovery = discovery;
  }

  async load(): Promise<NormalizeResult> {
    const planJson = this.core.call((c) => c.discoveryPlan(JSON.stringify(this.discovery)));
    const plan = JSON.parse(planJson) as { path: string }[] | { error: { message: string } };
    if (!Array.isArray(plan)) throw new Error(`config discovery failed: ${plan.error.message}`);
    const planned = await readFiles(plan.map((p) => p.path));
    const explicit = (await readFiles(this.explicitFiles.map((f) => f.path))).map((f, i) => ({
      ...f,
      format: this.explicitFiles[i]?.format,
      scope: 'project',
    }));
    const files: FileInput[] = [...planned, ...explicit];
    const extraFiles: Record<string, string | null> = {};
    const unreadableFiles: Record<string, string> = {};

    let result = this.normalize(files, extraFiles, unreadableFiles);
    for (let round = 0; round < maxFileRounds && result.needsFiles.length > 0; round++) {
      for (const f of await readFiles(result.needsFiles)) {
        if (f.unreadable !== undefined) unreadableFiles[f.path] = f.unreadable;
        else extraFiles[f.path] = f.content;
      }
      result = this.normalize(files, extraFiles, unreadableFiles);
    }

    // A file that stopped parsing keeps contributing its last good version.
    const brokenReports = new Map(result.files.filter((f) => f.found && f.error && this.lastGood.has(f.path)).map((f) => [f.path, f]));
    if (brokenReports.size > 0) {
      const brokenProblems = [...brokenReports.values()].flatMap((f) => (f.error ? [f.error] : []));
      const patched = files.map((f) => (brokenReports.has(f.path) ? { ...f, unreadable: undefined, content: this.lastGood.get(f.path) ?? null } : f));
      result = this.normalize(patched, extraFiles, unreadableFiles);
      result.problems = [...brokenProblems, ...result.problems];
      // The report still says what is wrong with the saved file (and whether it is a syntax error).
      for (const f of result.files) {
        const broken = brokenReports.get(f.path);
        if (broken) Object.assign(f, { usingLastGood: true, error: broken.error, syntaxError: broken.syntaxError });
      }
    }
    const contentOf = new Map(files.map((f) => [f.path, f.content]));
    for (const f of result.files) {
      const content = contentOf.get(f.path);
      if (f.found && !f.error && !f.usingLastGood && typeof content === 'string') this.lastGood.set(f.path, content);
      if (!f.found) this.lastGood.delete(f.path);
    }
    this.watched = [...files.map((f) => f.path), ...Object.keys(extraFiles), ...Object.keys(unreadableFiles)];
    return result;
  }

  private normalize(files: FileInput[], extraFiles: Record<string, string | null>, unreadableFiles: Record<string, string>): NormalizeResult {
    const input = JSON.stringify({ ...this.discovery, files, extraFiles, unreadableFiles });
    return JSON.parse(this.core.call((c) => c.normalizeConfig(input))) as NormalizeResult;
  }
}

/** The environment as the core wants it: defined values only. */
export function processEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
