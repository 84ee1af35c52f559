// Entry point: wires the WASM core to VS Code. Decisions live in the core.
import * as vscode from 'vscode';
import { CoreLoadError, CoreTrapError, WasmCore, defaultCoreModulePath } from './core/wasmCore';
import { DiagnosticsDocument, diagnosticsScheme, showDiagnostics } from './vscode/diagnosticsView';

const trapNoticeIntervalMs = 60_000;

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Lazy MCP', { log: true });
  context.subscriptions.push(log);

  let lastTrapNotice = 0;
  const core = new WasmCore(
    defaultCoreModulePath(context.asAbsolutePath('dist')),
    (level, message) => log[level](message),
    (error) => {
      // One notice per burst, never a loop of dialogs.
      const now = Date.now();
      if (now - lastTrapNotice > trapNoticeIntervalMs) {
        lastTrapNotice = now;
        void vscode.window.showErrorMessage(`${error.message}. Details are in Output › Lazy MCP.`);
      }
    },
  );

  let loadError: CoreLoadError | undefined;
  try {
    core.load();
    log.info(`Lazy MCP core ${core.call((c) => c.coreVersion())} loaded`);
  } catch (err) {
    if (!(err instanceof CoreLoadError)) throw err;
    loadError = err;
    log.error(err.message);
    void vscode.window.showErrorMessage(`${err.message}. Lazy MCP is inactive; see Output › Lazy MCP.`);
  }

  const diagnosticsDoc = new DiagnosticsDocument();
  context.subscriptions.push(
    diagnosticsDoc,
    vscode.workspace.registerTextDocumentContentProvider(diagnosticsScheme, diagnosticsDoc),
    vscode.commands.registerCommand('lazyMcp.showDiagnostics', async () => {
      if (loadError) {
        void vscode.window.showErrorMessage(loadError.message);
        return undefined;
      }
      try {
        return await showDiagnostics(diagnosticsDoc, () =>
          core.call((c) =>
            c.diagnosticsReport(
              JSON.stringify({
                host: `${vscode.env.appName} ${vscode.version}`,
                workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
              }),
            ),
          ),
        );
      } catch (err) {
        if (err instanceof CoreTrapError) return undefined;
        throw err;
      }
    }),
  );
}

export function deactivate(): void {
  // Nothing is spawned yet; process shutdown lands with the lifecycle engine.
}
