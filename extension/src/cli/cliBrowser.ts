// How the CLI shows an authorization URL: printed on stderr (the user opens it
// anywhere), and opened in the desktop's browser when there is a desktop.
import { spawn } from 'node:child_process';
import type { BrowserHooks } from '../host/auth/authHost';
import { say } from './cliContext';

export const cliBrowser: BrowserHooks = {
  openUrl(url, prompt) {
    const why = prompt.toolName ? ` to run ${prompt.toolName}` : '';
    say(`lazy-mcp: sign in to '${prompt.server}'${why}: open this URL in a browser:\n  ${url}`);
    const opener = desktopOpener();
    if (opener !== undefined) {
      try {
        const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
        child.on('error', () => undefined);
        child.unref();
      } catch {
        // Printed above: the user opens it.
      }
    }
    return Promise.resolve();
  },
  waitingForOtherSignIn(prompt) {
    say(`lazy-mcp: another sign-in to '${prompt.server}' is in progress (a VS Code window or another lazy-mcp process); waiting for it to finish`);
  },
};

/** The desktop's URL opener, when there is a desktop (elsewhere the printed URL is the way). */
function desktopOpener(): string | undefined {
  if (process.env['LAZY_MCP_NO_BROWSER']) return undefined;
  if (process.platform === 'darwin') return 'open';
  if (process.platform === 'win32') return undefined;
  return process.env['DISPLAY'] || process.env['WAYLAND_DISPLAY'] ? 'xdg-open' : undefined;
}
