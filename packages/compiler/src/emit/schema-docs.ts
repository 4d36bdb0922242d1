/** JSDoc lines describing a JSON Schema: its description, then one tag per validation keyword an agent should know. */

/** Keywords printed as `@<keyword> <value>` in the order listed. */
const TAG_KEYWORDS = [
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
] as const;

/** JSDoc lines for `schema`: description, `@default`, validation tags, `@example`s and `@deprecated`. */
export function schemaDocLines(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const s = schema as Record<string, unknown>;
  const lines: string[] = [];
  if (typeof s.description === 'string' && s.description.trim() !== '') lines.push(s.description.trim());
  if ('default' in s) lines.push(`@default ${JSON.stringify(s.default)}`);
  for (const keyword of TAG_KEYWORDS) {
    const value = s[keyword];
    if (value === undefined || value === false) continue;
    // Draft 4 writes `exclusiveMinimum: true` beside `minimum`; `uniqueItems: true` is a flag.
    if (value === true) {
      if (keyword === 'uniqueItems') lines.push('@uniqueItems');
      continue;
    }
    lines.push(`@${keyword} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  if (Array.isArray(s.examples)) for (const example of s.examples) lines.push(`@example ${JSON.stringify(example)}`);
  if (s.deprecated === true) lines.push('@deprecated');
  return lines;
}
