/** Paths in a session's assets (docs/design/sdk-api.md "Assets"), checked wherever one arrives or is given. */
import type { AssetPath } from './types.js';

/**
 * A valid asset path: rooted, single slashes, no segment empty, `.` or `..`, no `\` and no control
 * characters.
 */
export const isAssetPath = (path: unknown): path is AssetPath =>
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a path must not hold
  typeof path === 'string' && /^(\/(?!\.\.?(\/|$))[^/\\\x00-\x1f]+)+$/.test(path);
