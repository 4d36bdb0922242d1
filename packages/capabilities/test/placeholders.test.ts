import { describe, expect, it } from 'vitest';
import { envValue, expandPlaceholders, isEnvName, placeholdersIn } from '../src/index.js';

const unset = (name: string): never => {
  throw new Error(`${name} is not set`);
};

describe('expandPlaceholders', () => {
  it('expands ${NAME} and ${NAME:-default} from env, reporting each value taken from env', () => {
    const found: [string, string][] = [];
    const text = expandPlaceholders('Bearer ${TOKEN} on ${HOST:-localhost}:${PORT:-80}', { TOKEN: 'tok-1', PORT: '8080' }, unset, (name, value) =>
      found.push([name, value]),
    );
    expect(text).toBe('Bearer tok-1 on localhost:8080');
    expect(found).toEqual([
      ['TOKEN', 'tok-1'],
      ['PORT', '8080'],
    ]);
  });

  it('treats an empty variable as unset: the default, else the caller’s error', () => {
    expect(expandPlaceholders('${A:-fallback}', { A: '' }, unset)).toBe('fallback');
    expect(expandPlaceholders('x${A:-}y', {}, unset)).toBe('xy');
    expect(() => expandPlaceholders('${A}', { A: '' }, unset)).toThrow('A is not set');
    expect(() => expandPlaceholders('${MISSING}', {}, unset)).toThrow('MISSING is not set');
  });

  it('leaves text that is not a placeholder as written', () => {
    const text = '$HOME ${} ${1ABC} ${A-B} {A} $${A}';
    expect(expandPlaceholders(text, { A: 'a' }, unset)).toBe('$HOME ${} ${1ABC} ${A-B} {A} $a');
  });

  it('reads no inherited property of env', () => {
    expect(() => expandPlaceholders('${toString}', {}, unset)).toThrow('toString is not set');
  });
});

describe('placeholdersIn', () => {
  it('lists the variable names in order, repeats and defaulted ones included', () => {
    expect(placeholdersIn('${A}/${B:-x}/${A} ${not-one} $C')).toEqual(['A', 'B', 'A']);
  });
});

describe('envValue', () => {
  it('is the value of a set, non-empty variable, else undefined', () => {
    expect(envValue({ A: 'a', B: '' }, 'A')).toBe('a');
    expect(envValue({ A: 'a', B: '' }, 'B')).toBeUndefined();
    expect(envValue({}, 'constructor')).toBeUndefined();
  });
});

describe('isEnvName', () => {
  it('accepts what a placeholder can name, and nothing else', () => {
    for (const name of ['A', '_a1', 'API_TOKEN']) expect(isEnvName(name)).toBe(true);
    for (const name of ['', '1A', 'A-B', 'A.B', ' A', 7]) expect(isEnvName(name)).toBe(false);
  });
});
