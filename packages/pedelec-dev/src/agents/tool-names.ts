/**
 * Tool names as an OpenAI-compatible endpoint accepts them. Function names there must match
 * `^[a-zA-Z0-9_-]{1,64}$`; a page's tool may be called `page.read` or be longer than 64 characters.
 * Such names are mapped reversibly: other characters become `_`, and a `_<n>` suffix (n = 1, 2, …)
 * is added when the result collides with another tool's name or has to be shortened to fit 64.
 * Names that are already valid always keep themselves, so they never move because of another tool.
 */

export const WIRE_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_LENGTH = 64;

export class ToolNameMap {
  private readonly wireOf = new Map<string, string>();
  private readonly originalOf = new Map<string, string>();

  constructor(names: readonly string[]) {
    // Valid names first: they are taken as they are.
    for (const name of names) if (WIRE_TOOL_NAME.test(name)) this.add(name, name);
    // The next suffix to try for each candidate stem: names that share a stem (long names alike in
    // their first 62 characters, say) do not each try every suffix taken before them — linear, not
    // quadratic in the number of tools (a page may declare thousands).
    const next = new Map<string, number>();
    for (const name of names) {
      if (this.wireOf.has(name)) continue;
      const base = name.replace(/[^a-zA-Z0-9_-]/g, '_') || '_';
      let wire = base.length <= MAX_LENGTH && !this.originalOf.has(base) ? base : '';
      for (let digits = 1; wire === ''; digits++) {
        // Suffixes with this many digits leave the same stem: `_1`…`_9`, then `_10`…`_99`, …
        const stem = base.slice(0, MAX_LENGTH - 1 - digits);
        const key = `${digits}:${stem}`;
        const last = 10 ** digits;
        for (let n = next.get(key) ?? 10 ** (digits - 1); n < last; n++) {
          const candidate = `${stem}_${n}`;
          if (this.originalOf.has(candidate)) continue;
          wire = candidate;
          next.set(key, n + 1);
          break;
        }
        if (wire === '') next.set(key, last);
      }
      this.add(name, wire);
    }
  }

  private add(original: string, wire: string): void {
    this.wireOf.set(original, wire);
    this.originalOf.set(wire, original);
  }

  /** The name the endpoint sees for a page tool. */
  toWire(original: string): string {
    return this.wireOf.get(original) ?? original;
  }

  /** The page tool for a name the model called; an unknown name is returned as is (Core then answers `TOOL_NOT_FOUND`). */
  toOriginal(wire: string): string {
    return this.originalOf.get(wire) ?? wire;
  }

  /** Whether `wire` is one of the names the endpoint was given. */
  has(wire: string): boolean {
    return this.originalOf.has(wire);
  }
}
