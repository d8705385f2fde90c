/**
 * What changed since a session was created: the tools sent to Core (by name, compared as canonical
 * JSON) and the configuration it was created with. Plain data in, a change report out — the element
 * turns a new report into one `pedelec-tools-changed` event.
 */
import type { SerializableSkillsManifest } from '../../core/index.js';
import { canonicalJson } from '../../core/json.js';

/** The attributes (and the `workspace` property) whose change after start makes a running session stale. */
export const CONFIG_KEYS = [
  'provider',
  'model',
  'effort-level',
  'effort',
  'guidance',
  'bridge',
  'novalidate',
  'workspace',
] as const;
export type SessionConfig = Record<(typeof CONFIG_KEYS)[number], string>;

/** Tool names added, removed or changed since the snapshot, and configuration keys that changed. */
export type StaleChange = { added: string[]; removed: string[]; changed: string[]; config: string[] };

const toolTexts = (manifest: SerializableSkillsManifest | undefined) =>
  new Map((manifest?.tools ?? []).map((t) => [t.name, canonicalJson(t)]));

export class Staleness {
  #snapshot: { tools: Map<string, string>; config: SessionConfig } | null = null;
  /** The last change reported, so the same change is reported once however many builds see it. */
  #reported = '';
  /** Whether anything differs from the snapshot now. */
  stale = false;

  /** Remembers what a session was just created (or resumed) with. */
  take(manifest: SerializableSkillsManifest | undefined, config: SessionConfig): void {
    this.#snapshot = { tools: toolTexts(manifest), config };
    this.#reported = '';
    this.stale = false;
  }

  /** No session: nothing to compare with. */
  clear(): void {
    this.#snapshot = null;
    this.stale = false;
  }

  /** Whether this tool was in the manifest sent to Core. */
  sent(tool: string): boolean {
    return !!this.#snapshot?.tools.has(tool);
  }

  /** Compares the current manifest and configuration with the snapshot; returns a change not reported yet (or null). */
  check(manifest: SerializableSkillsManifest | undefined, config: SessionConfig): StaleChange | null {
    const snapshot = this.#snapshot;
    if (!snapshot) return null;
    const now = toolTexts(manifest);
    // Sorted: the same difference in another tool order is the same report.
    const added = [...now.keys()].filter((n) => !snapshot.tools.has(n)).sort();
    const removed = [...snapshot.tools.keys()].filter((n) => !now.has(n)).sort();
    const changed = [...now.keys()].filter((n) => snapshot.tools.has(n) && snapshot.tools.get(n) !== now.get(n)).sort();
    const configChanged = CONFIG_KEYS.filter((k) => config[k] !== snapshot.config[k]);
    const signature = JSON.stringify([added, removed, changed, configChanged]);
    if (signature === this.#reported) return null;
    this.#reported = signature;
    this.stale = added.length + removed.length + changed.length + configChanged.length > 0;
    return this.stale ? { added, removed, changed, config: configChanged } : null;
  }
}
