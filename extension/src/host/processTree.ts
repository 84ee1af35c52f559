// Resident memory of a process and its descendants, for Diagnostics. Linux
// reads /proc; elsewhere memory is simply not reported.
import * as fs from 'node:fs';

export function treeRssBytes(rootPid: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // the process ended while we looked
    }
  }
  let total = 0;
  let found = false;
  const stack = [rootPid];
  for (let pid = stack.pop(); pid !== undefined; pid = stack.pop()) {
    try {
      const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
      if (m?.[1]) total += Number(m[1]) * 1024;
      found = true;
    } catch {
      continue;
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return found ? total : undefined;
}
