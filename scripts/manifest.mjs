// The Custom Elements Manifest of the sources, made in memory by the analyzer with the project's own
// configuration (custom-elements-manifest.config.mjs): what `npm run build` writes to
// custom-elements.json, for the scripts and tests that generate or check files from it, and what those
// read of it: the elements and events a page can use.
import { cli } from '@custom-elements-manifest/analyzer/cli.js';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** The manifest as the analyzer makes it from src/ now. */
export function analyzeManifest() {
  return cli({ argv: ['analyze'], cwd: root, noWrite: true });
}

/** The text of custom-elements.json for `manifest` (as the analyzer writes it). */
export const manifestText = (manifest) => `${JSON.stringify(manifest, null, 2)}\n`;

export const COMMAND = 'npm run docs';
/** What every file generated from the manifest says of itself. */
export const NOTICE = `Generated from custom-elements.json by \`${COMMAND}\`: change the JSDoc in src/, then run it again.`;

// ───────────────────────────── reading the manifest ─────────────────────────────

const isPublic = (member) => !member.static && member.privacy !== 'private' && member.privacy !== 'protected';
/** An attribute the element writes (its JSDoc says "Reflected (output)…"): shown, never bound. */
const isOutput = (attribute) => /^Reflected\b/.test(attribute.description ?? '');
export const oneLine = (text) => (text ?? '').replace(/\s*\n\s*/g, ' ').trim();

/** The custom elements, by tag, each with what a page can use of it. */
export function readElements(manifest) {
  const found = [];
  for (const module of manifest.modules) {
    for (const declaration of module.declarations ?? []) {
      if (!declaration.customElement || !declaration.tagName) continue;
      const members = declaration.members ?? [];
      const fields = members.filter((m) => m.kind === 'field' && isPublic(m) && !m.name.startsWith('#'));
      // An attribute's property: the field it reflects, or a writable field of the same name.
      const attributes = (declaration.attributes ?? []).map((attribute) => {
        const field = fields.find((f) => f.name === (attribute.fieldName ?? attribute.name));
        const linked = field && (attribute.fieldName || !field.readonly) ? field : null;
        return { ...attribute, output: isOutput(attribute), field: linked };
      });
      // A property with its own description (`bridge` from script) is listed again with it.
      const told = (field) =>
        attributes.some((a) => a.field === field && (!field.description || a.description === field.description));
      found.push({
        tag: declaration.tagName,
        className: declaration.name,
        summary: oneLine(declaration.summary),
        description: declaration.description ?? '',
        attributes,
        properties: fields.filter((f) => !told(f)),
        methods: methodsOf(members),
        events: declaration.events ?? [],
        slots: declaration.slots ?? [],
        cssProperties: declaration.cssProperties ?? [],
        cssParts: declaration.cssParts ?? [],
        cssStates: declaration.cssStates ?? [],
      });
    }
  }
  return found.sort((a, b) => a.tag.localeCompare(b.tag));
}

/**
 * Public methods, statics first, each name once with its signatures. A name listed more than once is
 * overloaded: the last entry is the implementation's signature, which callers never see.
 */
function methodsOf(members) {
  const byName = new Map();
  for (const member of members) {
    if (member.kind !== 'method' || member.privacy === 'private' || member.privacy === 'protected') continue;
    if (member.name.startsWith('#')) continue;
    const key = `${member.static ? 'static ' : ''}${member.name}`;
    if (!byName.has(key)) byName.set(key, []);
    byName.get(key).push(member);
  }
  return [...byName.values()]
    .map((entries) => {
      const signatures = entries.length > 1 ? entries.slice(0, -1) : entries;
      return {
        name: entries[0].name,
        static: Boolean(entries[0].static),
        signatures,
        description: entries.find((e) => e.description)?.description ?? '',
      };
    })
    .sort((a, b) => Number(b.static) - Number(a.static));
}

/** The kit's event classes (those derived from `PedelecEvent`), with the elements that fire each. */
export function readEvents(manifest, elements = readElements(manifest)) {
  const classes = manifest.modules.flatMap((m) => m.declarations ?? []).filter((d) => d.kind === 'class');
  const superOf = new Map(classes.map((c) => [c.name, c.superclass?.name]));
  const isEvent = (name) => {
    for (let seen = 0; name && seen < classes.length; seen++, name = superOf.get(name)) {
      if (name === 'PedelecEvent') return true;
    }
    return false;
  };
  const events = [];
  const intro = classes.find((c) => c.name === 'PedelecEvent')?.description ?? '';
  for (const declaration of classes) {
    const members = declaration.members ?? [];
    const eventName = members.find((m) => m.name === 'eventName' && m.static)?.default;
    if (!eventName || !isEvent(declaration.name)) continue;
    const name = eventName.replace(/^['"]|['"]$/g, '');
    const detail = members.find((m) => m.name === 'detail');
    events.push({
      name,
      className: declaration.name,
      description: declaration.description ?? '',
      detail: { type: detail?.type?.text ?? 'unknown', description: detail?.description ?? '' },
      members: members.filter(
        (m) => isPublic(m) && !m.name.startsWith('#') && m.name !== 'detail' && m.name !== 'eventName',
      ),
      firedOn: elements.flatMap((element) =>
        element.events.filter((e) => e.name === name).map((e) => ({ tag: element.tag, description: e.description })),
      ),
    });
  }
  return { intro, events: events.sort((a, b) => a.name.localeCompare(b.name)) };
}
