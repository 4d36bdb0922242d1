/**
 * A TypeScript language service plugin (tsserver loads it by the name in the generated tsconfig's `plugins`) that
 * makes an editor judge an agent script as `agent-spaces check` does. TypeScript reports a top-level `return`, which
 * the sandbox runs, as TS1108 and then leaves the returned expression unchecked; so the semantic diagnostics of a
 * script with one are those of the script as `check` sees it — wrapped into an async function by the compiler's own
 * `prepareScript` — checked by a second language service over the same project, and mapped back to the script's
 * offsets. Every other request, and every file without a top-level `return`, is the project's own.
 */
import type ts from 'typescript';
// tsserver require()s a plugin, so this package is CommonJS: TypeScript's CommonJS import (esbuild bundles it in).
// eslint-disable-next-line @typescript-eslint/no-require-imports
import script = require('@agent-spaces/compiler/script');

interface Wrapped {
  version: string;
  /** The script as `check` sees it; `undefined` when the file is checked as it is. */
  prepared: script.PreparedScript | undefined;
  snapshot: ts.IScriptSnapshot | undefined;
}

function init({ typescript }: { typescript: typeof ts }): ts.server.PluginModule {
  return { create: (info) => acceptTopLevelReturns(typescript, info) };
}

/** The project's language service with the semantic diagnostics of scripts that have a top-level `return` taken from their wrapped form. */
function acceptTopLevelReturns(typescript: typeof ts, info: ts.server.PluginCreateInfo): ts.LanguageService {
  const { languageService: service, languageServiceHost: host } = info;
  const files = new Map<string, Wrapped>();
  const wrapped = (fileName: string): Wrapped | undefined => {
    if (!/\.[cm]?ts$/.test(fileName) || /\.d\.[cm]?ts$/.test(fileName)) return undefined;
    const version = host.getScriptVersion(fileName);
    const known = files.get(fileName);
    if (known?.version === version) return known;
    const snapshot = host.getScriptSnapshot(fileName);
    if (!snapshot) return undefined;
    const code = snapshot.getText(0, snapshot.getLength());
    const prepared = script.prepareScript(typescript, code);
    const entry: Wrapped =
      prepared.text === code ? { version, prepared: undefined, snapshot: undefined } : { version, prepared, snapshot: typescript.ScriptSnapshot.fromString(prepared.text) };
    files.set(fileName, entry);
    return entry;
  };

  // The project's host, serving wrapped scripts in place of their text: created on the first such script. It keeps
  // its own program up to date (tsserver's `updateFromProject` updates the project's service, not this one).
  let shadow: ts.LanguageService | undefined;
  const shadowHost = new Proxy(host, {
    get(target, key) {
      if (key === 'updateFromProject') return undefined;
      if (key === 'getScriptSnapshot') return (fileName: string) => wrapped(fileName)?.snapshot ?? target.getScriptSnapshot(fileName);
      if (key === 'getScriptVersion') {
        return (fileName: string) => `${target.getScriptVersion(fileName)}${wrapped(fileName)?.snapshot ? '+wrapped' : ''}`;
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });

  const semanticDiagnostics = (fileName: string): ts.Diagnostic[] => {
    const prepared = wrapped(fileName)?.prepared;
    if (!prepared) return service.getSemanticDiagnostics(fileName);
    try {
      return wrappedDiagnostics(fileName, prepared);
    } catch (error) {
      // The editor keeps TypeScript's own diagnostics rather than none.
      info.project.projectService.logger.info(`@agent-spaces/ts-plugin: ${(error as Error).stack ?? error}`);
      return service.getSemanticDiagnostics(fileName);
    }
  };

  const wrappedDiagnostics = (fileName: string, prepared: script.PreparedScript): ts.Diagnostic[] => {
    const file = service.getProgram()?.getSourceFile(fileName);
    shadow ??= typescript.createLanguageService(shadowHost, typescript.createDocumentRegistry(host.useCaseSensitiveFileNames?.()));
    const at = (start: number, length: number) => {
      const from = prepared.offset(start);
      const to = prepared.offset(start + length);
      return from === undefined ? undefined : { start: from, length: Math.max(0, (to ?? from) - from) };
    };
    const mixed: ts.Diagnostic[] = prepared.mixedExportDefaults.flatMap((position) => {
      const start = prepared.offset(position);
      return start === undefined
        ? []
        : [{ file, start, length: 'export'.length, code: script.MIXED_RESULT_CODE, category: typescript.DiagnosticCategory.Error, messageText: script.MIXED_RESULT_MESSAGE, source: 'agent-spaces' }];
    });
    const inScript = <D extends ts.Diagnostic | ts.DiagnosticRelatedInformation>(d: D): D | undefined => {
      if (d.file?.fileName !== fileName) return d;
      // A problem of the wrapper's own text (an option such as noUnusedLocals on `__main__`) is not the script's.
      const span = at(d.start ?? 0, d.length ?? 0);
      return span && { ...d, file, ...span };
    };
    const own = shadow.getSemanticDiagnostics(fileName).flatMap((d) => {
      const mapped = inScript(d);
      return mapped ? [{ ...mapped, relatedInformation: d.relatedInformation?.flatMap((r) => inScript(r) ?? []) }] : [];
    });
    return [...mixed, ...own].sort((a, b) => (a.start ?? 0) - (b.start ?? 0));
  };

  const decorated = Object.create(null) as ts.LanguageService;
  for (const key of Object.keys(service) as (keyof ts.LanguageService)[]) {
    const member = service[key];
    (decorated as unknown as Record<string, unknown>)[key] = typeof member === 'function' ? member.bind(service) : member;
  }
  decorated.getSemanticDiagnostics = semanticDiagnostics;
  decorated.dispose = () => {
    shadow?.dispose();
    service.dispose();
  };
  return decorated;
}

export = init;
