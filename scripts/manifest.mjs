// The Custom Elements Manifest of the sources, made in memory by the analyzer with the project's own
// configuration (custom-elements-manifest.config.mjs): what `npm run build` writes to
// custom-elements.json, for the scripts and tests that generate or check files from it.
import { cli } from '@custom-elements-manifest/analyzer/cli.js';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** The manifest as the analyzer makes it from src/ now. */
export function analyzeManifest() {
  return cli({ argv: ['analyze'], cwd: root, noWrite: true });
}

/** The text of custom-elements.json for `manifest` (as the analyzer writes it). */
export const manifestText = (manifest) => `${JSON.stringify(manifest, null, 2)}\n`;
