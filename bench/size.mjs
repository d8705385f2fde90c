// What a user downloads, measured one way everywhere: shared by `npm run bench` (the `bundle`
// benchmark) and by the size budget in `npm test` (test/node/size-budget.test.mjs).
//
// - cdn: the CDN main file as built (`npm run build`); lazily loaded chunks are not counted.
// - core: the core entry bundled alone, as `esbuild dist/core/index.js --bundle --minify --format=esm
//   --splitting`: what a page that imports the core loads at once; the parts it loads on first use
//   (asset transfers, Deno module checks) are reported beside it, not counted.
// - lit: bare Lit (LitElement + html + css) bundled the same way: the yardstick — twice, since "the
//   same way" differs: with esbuild for the core entry (`lit`), and through the CDN build's own rollup
//   plugins (node-resolve, terser) for the CDN main file (`litCdn`).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { rollup } from 'rollup';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Ceilings in bytes, gzip -9 (issue 8). Ceilings, not goals. Not met yet: `npm run bench` reports them. */
export const SIZE_BUDGET = Object.freeze({ cdn: 18_432, core: 8_704 });

/**
 * What `npm test` enforces until the kit fits {@link SIZE_BUDGET}: ceilings the kit must not exceed,
 * so it cannot grow unnoticed while it is still over budget. The core entry is measured with code
 * splitting on. Lower them whenever the kit shrinks; raise one only in a commit of its own whose body
 * names the user-visible feature that needs the bytes.
 */
export const SIZE_RATCHET = Object.freeze({ cdn: 31_488, core: 16_416 });

/**
 * Each lazy chunk of the CDN build has its own ceiling, gzip -9, by the chunk's name (its file name
 * without the `pedelec-elements-` prefix and the hash). A product decision (docs/performance.md):
 * what a page downloads the first time it uses a feature. A new chunk needs its line here, or
 * `npm test` fails; raising one is a commit of its own naming the user-visible feature.
 */
export const CHUNK_BUDGETS = Object.freeze({
  'pedelec-chat': 11_008,
  markdown: 28_672,
  webmcp: 4_480,
  'mcp-page-link': 2_048,
  'foreign-agents-host': 1_280,
  'form-binding': 3_328,
  'file-transfers': 1_024,
  'deno-module-setup': 1_536,
  'session-reactivation': 512,
  'workspace-calls': 2_048,
  websocket: 1_024,
  'tool-approval': 1_280,
  'approval-asker': 512,
  'approval-surfaces': 256,
  'approval-card': 2_048,
  'near-miss': 512,
  'developer-console': 512,
  'artifact-row': 1_024,
});

export const CDN_FILE = 'cdn/pedelec-elements.js';
export const CORE_ENTRY = 'dist/core/index.js';
const BARE_LIT = "export { LitElement, html, css } from 'lit';";

/** Raw, gzip -9 and brotli (quality 11) byte counts of one piece of code. */
export function compressedSizes(code) {
  const bytes = Buffer.isBuffer(code) ? code : Buffer.from(code);
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }).length,
  };
}

/** `esbuild <entry> --bundle --minify --format=esm`, in memory. `entry` is a path or `{ contents }`. */
async function minifiedBundle(entry, root) {
  const common = { bundle: true, minify: true, format: 'esm', write: false, logLevel: 'silent', absWorkingDir: root };
  const result =
    typeof entry === 'string'
      ? await build({ ...common, entryPoints: [join(root, entry)] })
      : await build({ ...common, stdin: { contents: entry.contents, resolveDir: root, loader: 'js' } });
  return result.outputFiles[0].contents;
}

/**
 * The core entry as a bundler splits it (`--splitting`), in memory: the entry itself, and the chunks it
 * imports on first use.
 */
async function splitCoreBundle(root) {
  const result = await build({
    entryPoints: [join(root, CORE_ENTRY)],
    bundle: true,
    minify: true,
    format: 'esm',
    splitting: true,
    outdir: join(root, '.core-size'),
    write: false,
    logLevel: 'silent',
    absWorkingDir: root,
  });
  // What the entry imports statically (the code it shares with its lazy chunks) loads with it.
  const byName = new Map(result.outputFiles.map((file) => [file.path.slice(file.path.lastIndexOf('/') + 1), file]));
  const eager = new Set([byName.get('index.js')]);
  for (const file of eager) {
    for (const imported of staticImports(file.text))
      eager.add(byName.get(imported.slice(imported.lastIndexOf('/') + 1)));
  }
  const lazy = result.outputFiles.filter((file) => !eager.has(file));
  return { entry: Buffer.concat([...eager].map((file) => file.contents)), chunks: lazy.map((file) => file.contents) };
}

/** `contents` built as the CDN main file is: rollup with rollup.config.mjs's plugins, in memory. */
async function cdnPipelineBundle(contents, root) {
  const { default: config } = await import(pathToFileURL(join(root, 'rollup.config.mjs')).href);
  const id = 'virtual:bare-lit';
  const bundle = await rollup({
    input: id,
    plugins: [
      {
        name: 'bare-lit',
        resolveId: (source) => (source === id ? id : null),
        load: (source) => (source === id ? contents : null),
      },
      ...config.plugins,
    ],
    onwarn(warning) {
      throw new Error(`rollup: ${warning.message}`);
    },
  });
  const { output } = await bundle.generate({ format: 'es' });
  await bundle.close();
  return output[0].code;
}

function missing(what, path) {
  return new Error(
    `${path} is missing: ${what} is measured after \`npm run build\` (npm test and npm run bench build first).`,
  );
}

/**
 * Measures the CDN main file, the core entry and (unless `lit: false`) bare Lit, and lists the CDN's
 * other files (lazy chunks) with their sizes ({@link checkChunkBudgets} holds them to theirs).
 */
export async function measureSizes({ root = ROOT, lit = true } = {}) {
  const cdnPath = join(root, CDN_FILE);
  const corePath = join(root, CORE_ENTRY);
  if (!existsSync(cdnPath)) throw missing('the CDN main file', CDN_FILE);
  if (!existsSync(corePath)) throw missing('the core entry', CORE_ENTRY);
  const core = await splitCoreBundle(root);
  const sizes = {
    cdn: compressedSizes(readFileSync(cdnPath)),
    core: compressedSizes(core.entry),
    coreChunks: core.chunks.map((chunk) => compressedSizes(chunk)),
  };
  sizes.cdn.staticImports = staticImports(readFileSync(cdnPath, 'utf8'));
  if (lit) {
    sizes.lit = compressedSizes(await minifiedBundle({ contents: BARE_LIT }, root));
    sizes.litCdn = compressedSizes(await cdnPipelineBundle(BARE_LIT, root));
  }
  sizes.chunks = readdirSync(join(root, 'cdn'))
    .filter((name) => name.endsWith('.js') && `cdn/${name}` !== CDN_FILE)
    .map((name) => ({ file: `cdn/${name}`, ...compressedSizes(readFileSync(join(root, 'cdn', name))) }));
  return sizes;
}

/**
 * The files a module imports statically (`import … from "./x.js"`, `import "./x.js"`), not the
 * `import("./x.js")` of a lazy chunk. The CDN main file must have none: what it needs on every page is
 * in it, so measuring it alone is measuring what every page downloads.
 */
export function staticImports(code) {
  const found = [];
  for (const match of code.matchAll(/\bimport\s*(?:[\w$*{][^;"'()]*?\bfrom\s*)?["']([^"']+)["']/g))
    found.push(match[1]);
  for (const match of code.matchAll(/\bexport\s*(?:\*|\{[^}]*\})\s*from\s*["']([^"']+)["']/g)) found.push(match[1]);
  return found;
}

const LABELS = {
  cdn: `${CDN_FILE} (CDN main file)`,
  core: `core entry (esbuild ${CORE_ENTRY} --bundle --minify --format=esm --splitting)`,
};

/**
 * Compares measured gzip -9 sizes with ceilings (`{ cdn?, core? }`, bytes). Returns `{ ok, lines,
 * failures, message }`; `message` names every measured size and ceiling, over or not.
 */
export function checkBudget(sizes, ceilings = SIZE_BUDGET) {
  const lines = [];
  const failures = [];
  for (const key of Object.keys(ceilings)) {
    const ceiling = ceilings[key];
    const measured = sizes[key]?.gzip;
    if (typeof measured !== 'number') throw new Error(`checkBudget: no measured size for "${key}"`);
    const over = measured > ceiling;
    const line = `${LABELS[key] ?? key}: ${measured} bytes gzip -9 ${over ? '>' : '≤'} ${ceiling} budget (${over ? `${measured - ceiling} over` : `${ceiling - measured} to spare`})`;
    lines.push(line);
    if (over) failures.push({ key, measured, ceiling });
  }
  const ok = failures.length === 0;
  const message = `${ok ? 'Size budget met' : 'Size budget exceeded'}:\n  ${lines.join('\n  ')}`;
  return { ok, lines, failures, message };
}

/** A CDN chunk's name: `cdn/pedelec-elements-webmcp-AbC123.js` → `webmcp`. */
export function chunkName(file) {
  return /^cdn\/pedelec-elements-(.+)-[\w-]{8}\.js$/.exec(file)?.[1] ?? file;
}

/**
 * Compares each lazy chunk with its ceiling in `budgets` (by {@link chunkName}). A chunk without a
 * budget fails too: a new chunk is a size decision to make, not to find out later.
 */
export function checkChunkBudgets(chunks, budgets = CHUNK_BUDGETS) {
  const lines = [];
  const failures = [];
  for (const chunk of chunks) {
    const name = chunkName(chunk.file);
    const ceiling = budgets[name];
    if (ceiling === undefined) {
      failures.push({ name, measured: chunk.gzip, ceiling: null });
      lines.push(`${name}: ${chunk.gzip} bytes gzip -9, no budget (add one to CHUNK_BUDGETS in bench/size.mjs)`);
      continue;
    }
    const over = chunk.gzip > ceiling;
    lines.push(`${name}: ${chunk.gzip} bytes gzip -9 ${over ? '>' : '≤'} ${ceiling}`);
    if (over) failures.push({ name, measured: chunk.gzip, ceiling });
  }
  const ok = failures.length === 0;
  return {
    ok,
    lines,
    failures,
    message: `${ok ? 'Chunk budgets met' : 'Chunk budget exceeded'}:\n  ${lines.join('\n  ')}`,
  };
}
