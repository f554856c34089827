// Every public name of every package entry has JSDoc, and so has every field of an exported
// options interface, with `@default` when its docs speak of a default: what an editor shows an app
// developer on hover. Read with the TypeScript compiler's own API (`typescript/unstable/sync`, the
// native compiler over a pipe), so re-exports, `Omit<…>` and inherited fields count as they resolve.
import { fileURLToPath } from 'node:url';
import { API, type Checker, type Project, SymbolFlags } from 'typescript/unstable/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The package entries ("exports" of package.json), as sources. */
const entries = [
  'lib/index.ts',
  'lib/agent.ts',
  'lib/testing.ts',
  'adapters/ai-sdk/index.ts',
  'adapters/langchain/index.ts',
  'inspector/index.ts',
];
/** Interfaces whose fields are options an app passes, besides those named `…Options`. */
const optionObjects = new Set(['ContextBudget']);

let api: API;
let project: Project;

beforeAll(() => {
  api = new API({ cwd: root });
  const snapshot = api.updateSnapshot({ openProjects: [`${root}tsconfig.json`] });
  project = snapshot.getProjects()[0]!;
}, 120_000);

afterAll(() => api?.close());

interface Undocumented {
  names: string[];
  fields: string[];
  defaults: string[];
}

/** What an entry exports without docs: names, option fields, and option fields whose default is only in prose. */
function undocumented(checker: Checker, entry: string): Undocumented {
  const file = project.program.getSourceFile(`${root}${entry}`);
  if (file === undefined) throw new Error(`${entry} is not in tsconfig.json's program`);
  const module = checker.getSymbolAtLocation(file);
  if (module === undefined) throw new Error(`${entry} is not a module`);
  const found: Undocumented = { names: [], fields: [], defaults: [] };
  for (const exported of checker.getExportsOfModule(module)) {
    const symbol = exported.flags & SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const name = exported.name;
    if (checker.getDocumentationCommentOfSymbol(symbol).trim() === '') found.names.push(`${entry}: ${name}`);
    if (!(symbol.flags & SymbolFlags.Interface) || !(name.endsWith('Options') || optionObjects.has(name))) continue;
    for (const field of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))) {
      const docs = checker.getDocumentationCommentOfSymbol(field);
      if (docs.trim() === '') found.fields.push(`${entry}: ${name}.${field.name}`);
      const tagged = checker.getJsDocTagsOfSymbol(field).some((tag) => tag.name === 'default');
      if (/\bdefault\b/i.test(docs) && !tagged) found.defaults.push(`${entry}: ${name}.${field.name}`);
    }
  }
  return found;
}

describe('the public names of every entry', () => {
  it('have JSDoc, and so has every option field, with @default where it has one', () => {
    const checker = project.checker;
    const all = entries.map((entry) => undocumented(checker, entry));
    // The check sees what it should: an entry's names through re-exports, and inherited fields.
    expect(
      checker
        .getExportsOfModule(checker.getSymbolAtLocation(project.program.getSourceFile(`${root}lib/agent.ts`)!)!)
        .map((s) => s.name),
    ).toEqual(expect.arrayContaining(['createAgent', 'AgentOptions', 'Middleware', 'RunEvent']));
    expect({
      names: all.flatMap((found) => found.names),
      fields: all.flatMap((found) => found.fields),
      defaults: all.flatMap((found) => found.defaults),
    }).toEqual({ names: [], fields: [], defaults: [] });
  });
});
