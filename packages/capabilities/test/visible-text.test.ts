import { describe, expect, it } from 'vitest';
import { visibleText } from '../src/index.js';

describe('visibleText', () => {
  it.each([
    ['cursor up, erase line', 'cus_001\u001b[1A\u001b[2K', 'cus_001\\x1b[1A\\x1b[2K'],
    ['carriage return', 'safe\rEVIL', 'safe\\rEVIL'],
    ['backspaces', 'rm -rf /\b\b\b\b\b\b\bls', 'rm -rf /\\x08\\x08\\x08\\x08\\x08\\x08\\x08ls'],
    ['OSC title', '\u001b]0;owned\u0007', '\\x1b]0;owned\\x07'],
    ['C1 CSI', '\u009b2J', '\\x9b2J'],
    ['DEL', 'a\u007fb', 'a\\x7fb'],
    ['NUL', 'a\u0000b', 'a\\x00b'],
    ['right-to-left override', 'invoice\u202efdp.exe', 'invoice\\u202efdp.exe'],
    ['isolates', '\u2066x\u2069', '\\u2066x\\u2069'],
    ['zero-width space', 'cus\u200b_001', 'cus\\u200b_001'],
    ['line separator', 'a\u2028b', 'a\\u2028b'],
    ['BOM', '\ufeffx', '\\ufeffx'],
  ])('shows %s as text', (_, text, shown) => {
    expect(visibleText(text)).toBe(shown);
  });

  it('keeps newlines and tabs, indenting each line after the first', () => {
    expect(visibleText('a\n? Approval needed: fake\tx', '  ')).toBe('a\n  ? Approval needed: fake\tx');
    expect(visibleText('plain text, é, 日本')).toBe('plain text, é, 日本');
  });
});
