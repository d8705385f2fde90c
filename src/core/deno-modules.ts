/**
 * Deno modules (spec/sdk-0.4.md, "Deno modules"): TypeScript the agent, or a workspace run, may
 * import in Pedelec Desktop's Deno runtime. A module is defined in the page with `defineDenoModule`;
 * what Desktop runs is its prepared artifact — the module's compiled runtime source and its types
 * source — attached to the definition by a build step, or by {@link attachDenoModuleSources}.
 */
import { invalidInput } from './errors.js';
import { isPlainObject } from './json.js';

/**
 * A Deno module as the page defines it. `entry` names its source file for the build step that
 * prepares it. A module the agent may use (in `skills.denoModules`) also needs `description` (what it
 * is for) and `usage` (how to call it); `preferStdinExecution` asks Desktop to run it with its input
 * on stdin.
 */
export type DenoModuleDefinition<TName extends string = string> = {
  name: TName;
  description?: string;
  entry: string;
  usage?: string;
  preferStdinExecution?: boolean;
};

/** A module the agent may use: one that says what it is for and how to call it. */
export type AgentDenoModuleDefinition<TName extends string = string> = DenoModuleDefinition<TName> & {
  description: string;
  usage: string;
};

/**
 * Returns the very module it was given; it exists to keep the literal types (`name` above all). It
 * prepares nothing: see {@link attachDenoModuleSources}.
 */
export function defineDenoModule<const TModule extends DenoModuleDefinition>(module: TModule): TModule {
  return module;
}

/** What Desktop runs of a module: its compiled ES module source and its TypeScript declarations. */
export type DenoModuleSources = { runtimeSource: string; typesSource: string };

/**
 * Where a prepared module carries its artifact: the property the public SDK's build plugin defines
 * (a plain, non-enumerable property, so it never reaches JSON).
 */
const ARTIFACT = '__pedelecArtifact';

/**
 * Attaches prebuilt sources to a module, as the public SDK's build plugin does at build time — for
 * pages with no build step (a CDN `<script>`): compile the module yourself (or take the files a
 * build produced) and attach them here. Returns the module.
 */
export function attachDenoModuleSources<TModule extends DenoModuleDefinition>(
  module: TModule,
  sources: DenoModuleSources,
): TModule {
  const { runtimeSource, typesSource } = sources ?? ({} as DenoModuleSources);
  if (!isFilled(runtimeSource) || !isFilled(typesSource))
    throw invalidInput('Deno Module sources need a non-empty runtimeSource and typesSource', {
      moduleName: module?.name,
    });
  Object.defineProperty(module, ARTIFACT, {
    value: Object.freeze({ format: 'esm', runtimeSource, typesSource }),
    enumerable: false,
    configurable: true,
  });
  return module;
}

/** A module read for a session or a run: what goes in a manifest, and the sources to upload. */
export type PreparedDenoModule = {
  name: string;
  manifest: { name: string; description: string; usage: string; preferStdinExecution?: true };
  sources: DenoModuleSources;
};

const isFilled = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** `name` or `@scope/name`, each part a plain segment. */
function isModuleName(name: unknown): name is string {
  if (typeof name !== 'string' || name !== name.trim()) return false;
  const scoped = /^@([^/]+)\/([^/]+)$/.exec(name);
  return scoped ? SEGMENT.test(scoped[1]!) && SEGMENT.test(scoped[2]!) : SEGMENT.test(name);
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
    return { name, manifest, sources } as PreparedDenoModule;
  });
}
