/**
 * A cell a spreadsheet would run as a formula: one starting with `=`, `+`, `-` or `@` (or their
 * full-width forms), also after leading whitespace, or with a tab or CR.
 */
const FORMULA_START = /^(?:\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]|[\t\r])/;

/**
 * One CSV field, after OWASP's CSV injection guidance: every field is quoted (quotes doubled), so
 * no separator inside it (`,`, or `;` in the locales that split on it, a tab, a line break) can
 * start a new cell; and a field that would start as a formula gets a leading `'`. User agents and
 * names are caller-controlled: `Mozilla;=cmd|' /C calc'!A0` stays one text cell.
 */
export function csvField(value: string | null): string {
  if (value === null) return '""';
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** A CSV document with a header row and CRLF line ends. */
export function toCsv(header: string[], rows: (string | null)[][]): string {
  return [header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}
