/**
 * The `index.js` the sandbox loads for `@capabilities/<id>`: a frozen object of functions that each forward to
 * `call(capabilityId, functionName, params)` of the in-sandbox bridge module, plus every function exported alone (all but
 * one named like the object).
 */
import { BRIDGE_MODULE, type CapabilityIR } from '@agent-spaces/capabilities';
import { exportsAlone } from '../ir/normalize.js';
import { stringLiteral } from './escape.js';

/** Generates the proxy module of `capability`. Names are the sanitized identifiers of the IR. */
export function emitProxy(capability: CapabilityIR): string {
  const { id, exportName, functions } = capability;
  const members = functions.map(
    (fn) => `  ${fn.name}: (params) => call(${stringLiteral(id)}, ${stringLiteral(fn.name)}, params),\n`,
  );
  const aliases = functions.filter((fn) => exportsAlone(capability, fn)).map((fn) => `export const ${fn.name} = ${exportName}.${fn.name};\n`);
  return (
    `import { call } from '${BRIDGE_MODULE}';\n` +
    `export const ${exportName} = Object.freeze({\n${members.join('')}});\n` +
    aliases.join('')
  );
}
