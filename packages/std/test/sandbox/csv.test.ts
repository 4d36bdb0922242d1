import { describe, expect, it } from 'vitest';
import { csv } from '../../src/sandbox/csv.js';
import { thrown } from '../helpers.js';

describe('csv.parse', () => {
  it('parses RFC 4180 quoting: delimiters, line breaks and doubled quotes inside quotes', () => {
    const text = 'id,text\r\n1,"a, b"\r\n2,"line one\r\nline two"\r\n3,"say ""hi"""\r\n4,\r\n';
    expect(csv.parse(text)).toEqual([
      ['id', 'text'],
      ['1', 'a, b'],
      ['2', 'line one\r\nline two'],
      ['3', 'say "hi"'],
      ['4', ''],
    ]);
  });

  it('accepts LF and CR line endings and a missing final line break', () => {
    expect(csv.parse('a,b\nc,d')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(csv.parse('a\rb\r')).toEqual([['a'], ['b']]);
    expect(csv.parse('')).toEqual([]);
  });

  it('skips empty lines unless told not to, and keeps a quoted empty field', () => {
    expect(csv.parse('a\n\nb\n')).toEqual([['a'], ['b']]);
    expect(csv.parse('a\n\nb\n', { skipEmptyLines: false })).toEqual([['a'], [''], ['b']]);
    expect(csv.parse('""\n')).toEqual([['']]);
  });

  it('returns objects keyed by the header row', () => {
    expect(csv.parse('name;age\nAda;36\n"Grace; H";85', { header: true, delimiter: ';' })).toEqual([
      { name: 'Ada', age: '36' },
      { name: 'Grace; H', age: '85' },
    ]);
    expect(csv.parse('', { header: true })).toEqual([]);
  });

  it('makes a __proto__ column an own property, not a prototype', () => {
    const [row] = csv.parse('__proto__,b\nx,y', { header: true });
    expect(Object.hasOwn(row!, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
  });

  it.each([
    ['a,b\n1,"open', 2, 'never ends'],
    ['a,b\n"x"y,1', 2, 'after a closing quote'],
  ])('fails with INVALID_CSV naming the line of %j', (text, line, words) => {
    const error = thrown(() => csv.parse(text));
    expect(error.code).toBe('INVALID_CSV');
    expect(error.data).toMatchObject({ line });
    expect(error.message).toContain(words);
  });

  it('fails when a row does not match the header, or the header repeats a name', () => {
    const short = thrown(() => csv.parse('a,b\n1,2\n"multi\nline",x\n3', { header: true }));
    expect(short).toMatchObject({ code: 'INVALID_CSV', data: { line: 5 } });
    expect(thrown(() => csv.parse('a,a\n1,2', { header: true })).code).toBe('INVALID_CSV');
  });

  it('refuses a delimiter that is not one plain character', () => {
    for (const delimiter of ['', ';;', '"', '\n']) expect(thrown(() => csv.parse('a', { delimiter })).code).toBe('INVALID_ARGUMENT');
  });
});

describe('csv.stringify', () => {
  it('quotes cells holding the delimiter, quotes or line breaks, and joins rows with CRLF', () => {
    expect(csv.stringify([['a', 'b,c'], ['say "hi"', 'two\nlines'], [null, 3]])).toBe('a,"b,c"\r\n"say ""hi""","two\nlines"\r\n,3');
  });

  it('writes objects under a header of every key in order of first appearance', () => {
    const rows = [{ name: 'Ada', age: 36 }, { name: 'Grace', born: new Date(Date.UTC(1906, 11, 9)) }];
    expect(csv.stringify(rows, { newline: '\n' })).toBe('name,age,born\nAda,36,\nGrace,,1906-12-09T00:00:00.000Z');
    expect(csv.stringify(rows, { columns: ['age', 'name'], header: false, delimiter: ';' })).toBe('36;Ada\r\n;Grace');
  });

  it('round-trips through parse', () => {
    const rows = [['x', 'a"b', 'c,d', 'e\r\nf', '']];
    expect(csv.parse(csv.stringify(rows), { skipEmptyLines: false })).toEqual(rows);
  });

  it('refuses rows that mix arrays and objects or are not rows at all', () => {
    expect(thrown(() => csv.stringify([{ a: 1 }, ['x']])).message).toContain('row 1');
    expect(thrown(() => csv.stringify('a,b' as unknown as unknown[])).code).toBe('INVALID_ARGUMENT');
  });
});
