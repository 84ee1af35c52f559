// Entry point: loads the WASM core and hands over to the Controller. If the core
// cannot load, the extension stays inert and says so once.
import * as vscode from 'vscode';
import { CoreLoadError, WasmCore, defaultCoreModulePath } from './core/wasmCore';
import { Controller, type LazyMcpApi } from './vscode/controller';

let controller: Controller | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<LazyMcpApi | undefined> {
  const log = vscode.window.createOutputChannel('Lazy MCP', { log: true });
  context.subscriptions.push(log);

  let lastTrapNotice = 0;
  /** How often a trap is shown (every one is logged): the core's, read once it loaded. */
  let trapNoticeIntervalMs = 0;
  const core = new WasmCore(
    defaultCoreModulePath(context.asAbsolutePath('dist')),
    (level, message) => log[level](message),
    (error) => {
      // The host rebuilds its engine itself (LazyHost listens for traps): here the user is told.
      const now = Date.now();
      if (now - lastTrapNotice > trapNoticeIntervalMs) {
        lastTrapNotice = now;
        void vscode.window.showErrorMessage(`${error.message}. Details are in Output › Lazy MCP.`);
      }
    },
  );

  try {
    core.load();
  } catch (err) {
    if (!(err instanceof CoreLoadError)) throw err;
    log.error(err.message);
    void vscode.window.showErrorMessage(`${err.message}. Lazy MCP is inactive; see Output › Lazy MCP.`);
    context.subscriptions.push(vscode.commands.registerCommand('lazyMcp.showDiagnostics', () => void vscode.window.showErrorMessage(err.message)));
    return undefined;
  }
  log.info(`Lazy MCP core ${core.call((c) => c.coreVersion())} loaded`);
  trapNoticeIntervalMs = core.limits().trapNoticeIntervalMs;
  controller = new Controller(context, core, log);
  return controller.start();
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}
