/**
 * Locates the first syntax error of a JSON text, for the `INVALID_JSON` diagnostic: `JSON.parse` does the parsing,
 * but its messages do not always say where the error is. Only run after `JSON.parse` has failed.
 */

/** Where a JSON text stops being valid, 1-based, and what was expected there. */
export interface JsonSyntaxError {
  line: number;
  column: number;
  message: string;
}

class Stop extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** The first syntax error in `text` with its line and column; undefined when `text` is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let i = 0;
  const fail = (reason: string): never => {
    throw new Stop(i, i >= text.length ? `unexpected end of input, ${reason}` : `unexpected ${JSON.stringify(text[i])}, ${reason}`);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const expect = (char: string, reason: string) => {
    space();
    if (text[i] !== char) fail(reason);
    i++;
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      const code = text.charCodeAt(i);
      if (code < 0x20) fail('expected a character or \'"\' (control characters must be escaped)');
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('expected 4 hex digits after \\u');
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) {
          fail('expected an escape character');
        }
      }
      i++;
    }
    if (i >= text.length) fail('expected \'"\' to close the string');
    i++;
  };
  const value = (): void => {
    space();
    const char = text[i];
    if (char === '{') {
      i++;
      space();
      if (text[i] === '}') return void i++;
      for (;;) {
        space();
        if (text[i] !== '"') fail('expected a property name in double quotes');
        string();
        expect(':', "expected ':' after the property name");
        value();
        space();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail("expected ',' or '}'");
      }
    }
    if (char === '[') {
      i++;
      space();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        space();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail("expected ',' or ']'");
      }
    }
    if (char === '"') return string();
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (!literal) fail('expected a value');
    i += literal![0].length;
  };
  try {
    value();
    space();
    if (i < text.length) fail('expected the end of the input');
    return undefined;
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    const before = text.slice(0, error.offset).split('\n');
    return { line: before.length, column: before[before.length - 1]!.length + 1, message: error.reason };
  }
}
