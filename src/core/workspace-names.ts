/**
 * What Desktop accepts as a path inside a workspace and as a Deno module's name: one rule for the
 * page's checks (workspace-calls.ts, deno-module-setup.ts) and for a Core beside the kit (`pedelec-dev`,
 * through pedelec-elements/protocol).
 */

/**
 * A path inside a workspace, from its root: segments joined by `/`, none empty, `.` or `..`, and no
 * backslash, colon or control character (so no absolute path on any system).
 */
export const isWorkspacePath = (path: unknown): path is string =>
  typeof path === 'string' &&
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a path must not hold
  /^[^/\\:\x00-\x1f]+(?:\/[^/\\:\x00-\x1f]+)*$/.test(path) &&
  path.split('/').every((segment) => segment !== '.' && segment !== '..');

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** A Deno module's name: `name` or `@scope/name`, each part a letter or digit, then letters, digits, `.`, `_`, `-`. */
export function isModuleName(name: unknown): name is string {
  if (typeof name !== 'string') return false;
  const scoped = /^@([^/]+)\/([^/]+)$/.exec(name);
  return scoped ? SEGMENT.test(scoped[1]) && SEGMENT.test(scoped[2]) : SEGMENT.test(name);
}
