import { describe, expect, it } from 'vitest';
import { csvField, toCsv } from './csv.ts';

describe('CSV export fields', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    ['=SUM(A1)', "'=SUM(A1)"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@cmd', "'@cmd"],
    ['=A1,B1', `"'=A1,B1"`],
    ['', ''],
  ])('%j → %j', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it('writes null as an empty field and ends every row with CRLF', () => {
    expect(toCsv(['a', 'b'], [['1', null]])).toBe('a,b\r\n1,\r\n');
  });
});
