// A one-tool JSON file whose tool is named like the file (`capabilities/search.json` holding `search`), in each of the
// seed's JSON shapes: it builds, the function keeps its name as a member of the capability object (`search.search()`),
// agent code calls it through a space, and what truly collides (two functions, one identifier) still fails, saying why.
import { describe, expect, it } from 'vitest';
import type { BuildReport } from '../src/index.js';
import { makeProject } from '../../../test/fixtures/project.js';

const PARAMS = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };

/** The seed's JSON tool shapes, each a one-tool file whose tool is named like the file (in every case and spelling). */
const SHAPES: Record<string, [file: string, definition: unknown, object: string]> = {
  'an OpenAI tool': ['search.json', { name: 'search', description: 'Search the web', parameters: PARAMS }, 'search'],
  'an OpenAI tool wrapped in { type: function }': ['search.json', { type: 'function', function: { name: 'search', parameters: PARAMS } }, 'search'],
  'the capability format with one function': ['search.json', { name: 'search', functions: [{ name: 'search', parameters: PARAMS }] }, 'search'],
  'a snake_case tool in a snake_case file': ['web_search.json', { name: 'web_search', parameters: PARAMS }, 'webSearch'],
  'a kebab-case file, snake_case tool': ['web-search.json', { name: 'web_search', parameters: PARAMS }, 'webSearch'],
  'a capitalised file and tool': ['Search.json', { name: 'SEARCH', parameters: PARAMS }, 'search'],
};

const entry = (report: BuildReport) => report.capabilities[0]!;

describe('a one-tool JSON file named like its tool', () => {
  for (const [label, [file, definition, object]] of Object.entries(SHAPES)) {
    it(`builds ${label} (${file}), and agent code calls ${object}.${object}()`, async () => {
      const project = await makeProject({ [`capabilities/${file}`]: definition });
      const report = await project.build({ sources: ['capabilities/*'] });
      expect(entry(report)).toMatchObject({ status: 'built', diagnostics: [] });
      const id = entry(report).id;
      const declarations = await project.read(`.agent-spaces/capabilities/${id}/index.d.ts`);
      expect(declarations).toMatch(new RegExp(`export const ${object}: \\{[^}]*${object}\\(params: ${object[0]!.toUpperCase()}${object.slice(1)}Params\\)`, 's'));
      expect(declarations).not.toContain(`export function ${object}(`);
      const proxy = await project.read(`.agent-spaces/capabilities/${id}/index.js`);
      expect(proxy.match(new RegExp(`export const ${object}\\b`, 'g'))).toHaveLength(1);

      const seen: unknown[] = [];
      const handler = async (params: unknown) => (seen.push(params), [`result for ${(params as { q: string }).q}`]);
      const space = await project.space({ isolation: 'in-process', handlers: { [id]: { [object]: handler } } });
      const result = await space.run(`import { ${object} } from '@capabilities/${id}';\nexport default await ${object}.${object}({ q: 'trains' });`);
      expect(result).toMatchObject({ ok: true, result: ['result for trains'] });
      expect(seen).toEqual([{ q: 'trains' }]);
      // The object is no function: calling it as one is a type error on its line, before anything runs.
      const misuse = await space.run(`import { ${object} } from '@capabilities/${id}';\n\nexport default await ${object}({ q: 'trains' });`);
      expect(misuse).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR' } });
      expect(JSON.stringify(misuse)).toMatch(/:3:/);
      expect(seen).toHaveLength(1);
    });
  }

  it('keeps the other functions of a capability exported alone beside the object', async () => {
    const definition = { name: 'search', functions: [{ name: 'search', parameters: PARAMS }, { name: 'suggest', parameters: PARAMS }] };
    const project = await makeProject({ 'capabilities/search.json': definition });
    const report = await project.build({ sources: ['capabilities/*'] });
    expect(entry(report)).toMatchObject({ status: 'built', diagnostics: [] });
    const proxy = await project.read('.agent-spaces/capabilities/search/index.js');
    expect(proxy).toContain('export const suggest = search.suggest;');
    expect(proxy).not.toContain('export const search = search.search');
    const space = await project.space({ isolation: 'in-process', handlers: { search: { search: async () => 1, suggest: async () => 2 } } });
    const result = await space.run(`import { search, suggest } from '@capabilities/search';\nexport default [await search.search({ q: 'a' }), await suggest({ q: 'b' })];`);
    expect(result).toMatchObject({ ok: true, result: [1, 2] });
  });

  const COLLIDING: Record<string, unknown[]> = {
    'search and SEARCH': [{ name: 'search' }, { name: 'SEARCH' }],
    'get_item and getItem': [{ name: 'get_item' }, { name: 'getItem' }],
    'web-search and web_search': [{ name: 'web-search' }, { name: 'web_search' }],
  };
  for (const [label, functions] of Object.entries(COLLIDING)) {
    it(`still refuses two functions that become one identifier (${label}), saying why`, async () => {
      const project = await makeProject({ 'capabilities/search.json': { name: 'search', functions } });
      const failed = entry(await project.build({ sources: ['capabilities/*'] }));
      expect(failed.status).toBe('failed');
      expect(failed.diagnostics).toEqual([
        expect.objectContaining({
          code: 'NAME_COLLISION',
          severity: 'error',
          pointer: '/functions/1',
          message: expect.stringMatching(/both become \w+: the module has one member and one export per name, so one of them could not be called; rename one$/),
        }),
      ]);
    });
  }
});
