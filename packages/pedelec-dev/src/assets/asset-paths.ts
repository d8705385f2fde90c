/**
 * What an asset path may be, and the file name it ends with. Apart because both the asset store
 * (which checks the paths a page or an agent gives) and the HTTP handler (which names a download and
 * answers an upload) need them, and neither should import the other for it.
 */

/** `/`-rooted, single slashes, no empty/`.`/`..` segment, no `\` or control characters (sdk-api.md). */
export function isAssetPath(path: unknown): path is string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a path must not hold
  if (typeof path !== 'string' || !/^\/[^/\\\x00-\x1f]+(\/[^/\\\x00-\x1f]+)*$/.test(path)) return false;
  return !path.split('/').some((s) => s === '.' || s === '..');
}

/** The last segment of an asset path: the file's name. */
export function assetName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
