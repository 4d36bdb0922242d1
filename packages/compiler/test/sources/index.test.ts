import { describe, expect, it } from 'vitest';
import { readDefineToolSource } from '../../src/sources/define-tool.js';
import { readerFor } from '../../src/sources/index.js';
import { readJsonSource } from '../../src/sources/json.js';

describe('readerFor', () => {
  it('picks the reader by file suffix, case-insensitively, and none for other files', () => {
    expect(readerFor('/p/capabilities/weather.json')).toBe(readJsonSource);
    expect(readerFor('/p/capabilities/Weather.JSON')).toBe(readJsonSource);
    expect(readerFor('/p/capabilities/train-schedule.ts')).toBe(readDefineToolSource);
    expect(readerFor('/p/capabilities/handlers.mjs')).toBe(readDefineToolSource);
    expect(readerFor('/p/capabilities/README.md')).toBeUndefined();
    expect(readerFor('/p/capabilities/.json')).toBeUndefined();
  });
});
