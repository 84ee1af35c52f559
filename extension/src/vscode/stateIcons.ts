// The one table of server-state icons (codicon id, theme colour) that every view renders from
// the snapshot's state kind: the Lazy MCP view and the server pickers.
import type { StateKind } from '../host/snapshotTypes';

export const stateIcons: Record<StateKind, readonly [icon: string, color?: string]> = {
  CONNECTED: ['pass-filled', 'testing.iconPassed'],
  CATALOGUED: ['circle-outline'],
  DORMANT: ['debug-pause'],
  DISABLED: ['circle-slash', 'disabledForeground'],
  PENDING: ['watch'],
  CATALOGUING: ['sync~spin'],
  CONNECTING: ['sync~spin'],
  FAILED: ['error', 'errorForeground'],
  NEEDS_AUTH: ['key', 'editorWarning.foreground'],
};
