import { describe, expect, it } from 'vitest';
import { csvField, toCsv } from './csv.ts';

describe('CSV export fields', () => {
  it.each([
    ['plain', '"plain"'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    ['=SUM(A1)', `"'=SUM(A1)"`],
    ['+1', `"'+1"`],
    ['-1', `"'-1"`],
    ['@cmd', `"'@cmd"`],
    ['\t=1', `"'\t=1"`],
    ['\rx', `"'\rx"`],
    ['=A1,B1', `"'=A1,B1"`],
    ['', '""'],
  ])('%j → %j', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it('a formula after leading whitespace is neutralised too', () => {
    expect(csvField('  =1+1')).toBe(`"'  =1+1"`);
    expect(csvField('\u00a0@SUM(A1)')).toBe(`"'\u00a0@SUM(A1)"`);
    expect(csvField('\uFF1DSUM(A1)')).toBe(`"'\uFF1DSUM(A1)"`);
  });

  it("a user agent with ';' cannot become a formula cell: every field is one quoted cell in comma and semicolon locales", () => {
    const line = (ua: string) => toCsv(['ip', 'user_agent'], [['192.0.2.1', ua]]).split('\r\n')[1]!;
    expect(line(`Mozilla/5.0;=cmd|' /C calc'!A0`)).toBe(`"192.0.2.1","Mozilla/5.0;=cmd|' /C calc'!A0"`);
    for (const ua of [
      `Mozilla/5.0;=cmd|' /C calc'!A0`,
      'curl/8; @SUM(1+1)*cmd|calc!A0',
      `Mozilla/5.0;=cmd|' /C calc'!A0;+HYPERLINK("http://x","y"),@SUM(1)`,
      'x\n=1+1',
    ]) {
      // Split as a spreadsheet does (quotes respected) on either separator: every cell starts as text.
      for (const separator of [',', ';']) {
        for (const cell of splitCsvLine(line(ua), separator)) {
          expect(cell, `${separator}: ${cell}`).not.toMatch(/^\s*[=+\-@]/);
        }
      }
    }
  });

  it('writes null as an empty field and ends every row with CRLF', () => {
    expect(toCsv(['a', 'b'], [['1', null]])).toBe('"a","b"\r\n"1",""\r\n');
  });
});

/** A spreadsheet's reading of one CSV line with `separator`: quoted fields keep separators and quotes. */
function splitCsvLine(line: string, separator: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === separator) {
      cells.push(cell);
      cell = '';
    } else cell += c;
  }
  cells.push(cell);
  return cells;
}
