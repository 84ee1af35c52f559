// VS Code `envFile`: dotenv-style KEY=VALUE lines.

/**
 * Parse dotenv text. Blank lines and `#` comments are ignored; `export KEY=...`
 * is accepted; values may be single-quoted (literal) or double-quoted (with
 * `\n`, `\r`, `\t`, `\"`, `\\` escapes); an unquoted value ends at ` #`.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('export ')) line = line.slice('export '.length).trimStart();
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(key)) continue;
    out[key] = parseValue(line.slice(eq + 1).trim());
  }
  return out;
}

function parseValue(value: string): string {
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1);
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\([nrt"\\])/g, (_m, c: string) => {
      switch (c) {
        case 'n':
          return '\n';
        case 'r':
          return '\r';
        case 't':
          return '\t';
        default:
          return c;
      }
    });
  }
  const comment = value.search(/\s#/);
  return (comment === -1 ? value : value.slice(0, comment)).trimEnd();
}
