/**
 * The checks of `skills.denoModules` (deno-modules.ts): loaded on first use, by the pages that give the
 * agent Deno modules.
 */
import { ARTIFACT, type DenoModuleSources, type PreparedDenoModule } from './deno-modules.js';
import { invalidInput } from './errors.js';
import { isPlainObject } from './json.js';

const isFilled = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** `name` or `@scope/name`, each part a plain segment. */
function isModuleName(name: unknown): name is string {
  if (typeof name !== 'string' || name !== name.trim()) return false;
  const scoped = /^@([^/]+)\/([^/]+)$/.exec(name);
  return scoped ? SEGMENT.test(scoped[1]) && SEGMENT.test(scoped[2]) : SEGMENT.test(name);
}

/** A module's prepared artifact, when it carries one. */
function sourcesOf(module: Record<string, unknown>): DenoModuleSources | null {
  const artifact = module[ARTIFACT];
  if (!isPlainObject(artifact) || artifact.format !== 'esm') return null;
  const { runtimeSource, typesSource } = artifact;
  return isFilled(runtimeSource) && isFilled(typesSource) ? { runtimeSource, typesSource } : null;
}

/**
 * `skills.denoModules`, checked in the public SDK's order and words (after the tools): every entry an
 * object with a valid, unique name, a description and a usage, prepared. Throws the first problem.
 */
export function readDenoModules(entries: unknown): PreparedDenoModule[] {
  if (entries === undefined) return [];
  if (!Array.isArray(entries)) throw invalidInput('skills.denoModules must be an array');
  const names = new Set<string>();
  return Array.from(entries, (entry: unknown, index) => {
    if (!isPlainObject(entry)) throw invalidInput('skills.denoModules entries must be objects', { index });
    const { name, description, usage, entry: source, preferStdinExecution } = entry;
    if (!isModuleName(name)) throw invalidInput('Deno Module name is invalid', { index, moduleName: name });
    if (names.has(name)) throw invalidInput('duplicate Deno Module name', { moduleName: name });
    names.add(name);
    const fail = (message: string) => invalidInput(message, { moduleName: name });
    if (!isFilled(description)) throw fail('Deno Module description must be a non-empty string');
    if (!isFilled(usage)) throw fail('Deno Module usage must be a non-empty string');
    if (source !== undefined && !isFilled(source)) throw fail('Deno Module entry must be a non-empty string');
    if (preferStdinExecution !== undefined && typeof preferStdinExecution !== 'boolean')
      throw fail('Deno Module preferStdinExecution must be a boolean');
    const sources = sourcesOf(entry);
    if (!sources)
      throw fail(
        `Deno module "${name}" was not prepared: attach its sources with attachDenoModuleSources() ` +
          '(or prepare it with a build plugin that does)',
      );
    const manifest = { name, description, usage, ...(preferStdinExecution === true && { preferStdinExecution }) };
    return { name, manifest, sources };
  });
}
