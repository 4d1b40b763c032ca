/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break, quotes doubled.
 * Cells a spreadsheet would run as a formula (leading `=`, `+`, `-`, `@`, tab, CR) get a leading `'`
 * (OWASP CSV injection): user agents are caller-controlled.
 */
export function csvField(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A CSV document with a header row and CRLF line ends. */
export function toCsv(header: string[], rows: (string | null)[][]): string {
  return [header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}
