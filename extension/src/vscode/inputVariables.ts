// VS Code `${input:id}` variables: asked for only when that server connects,
// remembered in SecretStorage, never written to logs.
import * as vscode from 'vscode';
import type { Transport } from '../host/connections';

const inputPattern = /\$\{input:([^}]+)\}/g;

function inputIds(transport: Transport): string[] {
  const ids = new Set<string>();
  const scan = (s: string | null | undefined): void => {
    for (const m of (s ?? '').matchAll(inputPattern)) if (m[1]) ids.add(m[1]);
  };
  if (transport.type === 'stdio') {
    scan(transport.command);
    transport.args?.forEach(scan);
    Object.values(transport.env ?? {}).forEach(scan);
    scan(transport.cwd);
  } else {
    scan(transport.url);
    Object.values(transport.headers ?? {}).forEach(scan);
  }
  return [...ids];
}

function substitute(transport: Transport, values: Map<string, string>): Transport {
  const sub = (s: string): string => s.replace(inputPattern, (_, id: string) => values.get(id) ?? '');
  const subRecord = (r: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, sub(v)]));
  if (transport.type === 'stdio') {
    return { ...transport, command: sub(transport.command), args: transport.args.map(sub), env: subRecord(transport.env), cwd: transport.cwd && sub(transport.cwd) };
  }
  return { ...transport, url: sub(transport.url), headers: subRecord(transport.headers) };
}

export function inputResolver(secrets: vscode.SecretStorage) {
  return async (server: string, transport: Transport, interactive: boolean): Promise<Transport> => {
    const ids = inputIds(transport);
    if (ids.length === 0) return transport;
    const values = new Map<string, string>();
    for (const id of ids) {
      const key = `lazyMcp.input.${id}`;
      let value = await secrets.get(key);
      if (value === undefined) {
        if (!interactive) {
          throw new Error(`server "${server}" needs the input "${id}"; run "Lazy MCP: Connect Now" to enter it`);
        }
        value = await vscode.window.showInputBox({
          title: `Lazy MCP: ${server}`,
          prompt: `Value for \${input:${id}} (stored in VS Code's secret storage)`,
          password: true,
          ignoreFocusOut: true,
        });
        if (value === undefined) throw new Error(`no value entered for input "${id}" of server "${server}"`);
        await secrets.store(key, value);
      }
      values.set(id, value);
    }
    return substitute(transport, values);
  };
}
