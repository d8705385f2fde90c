/**
 * `persist`: the session survives reloads of this tab. The record lives in `sessionStorage` (per tab)
 * and names the manifest it was created with, so a page whose tools changed starts fresh.
 */
export type PersistRecord = {
  sessionId: string;
  provider: string;
  model?: string;
  effortLevel?: string;
  manifestHash: string;
};

export function persistKey(bridgeOrExtension: string, scope: string): string {
  return `pedelec-elements:v1:${bridgeOrExtension}:${scope}`;
}

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null; // e.g. storage disabled for this origin
  }
}

/** The record under `key`, or null: none, not ours (any field of the wrong type), or storage that throws. */
export function readRecord(key: string): PersistRecord | null {
  try {
    const record = JSON.parse(storage()?.getItem(key) ?? 'null') as PersistRecord | null;
    const { sessionId, provider, model, effortLevel, manifestHash } = record ?? ({} as PersistRecord);
    const text = (value: unknown) => typeof value === 'string';
    const optional = (value: unknown) => value === undefined || text(value);
    return text(sessionId) && text(manifestHash) && optional(provider) && optional(model) && optional(effortLevel)
      ? record
      : null;
  } catch {
    return null; // corrupt JSON, or a storage method that throws (a SecurityError, say)
  }
}

export function writeRecord(key: string, record: PersistRecord): void {
  try {
    storage()?.setItem(key, JSON.stringify(record));
  } catch {
    // Quota or privacy mode: the session still works, it just will not survive a reload.
  }
}

export function deleteRecord(key: string): void {
  try {
    storage()?.removeItem(key);
  } catch {
    // Storage that throws: there is nothing to delete that a later read could find either.
  }
}

/** A short, stable hash of a manifest's canonical JSON (FNV-1a, two 32-bit lanes). */
export function hashText(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/**
 * The records of one session element: where its held session is recorded (under the key it was
 * written with), and forgetting them. A recorded session the element does not hold — made by an
 * earlier page and never resumed — is ended as it is forgotten: it was made to outlive its page, and
 * nothing else would end it.
 */
export class SessionRecords {
  #key: string | null = null;

  /** Records the session just created or resumed under `key` (null: `persist` is off). */
  hold(key: string | null, record: PersistRecord): void {
    if (key) writeRecord(key, record);
    this.#key = key;
  }

  /** Deletes the held record and the one under `currentKey`; `end` ends a recorded session other than `heldSessionId`. */
  forget(currentKey: string | null, heldSessionId: string | undefined, end: (sessionId: string) => void): void {
    for (const key of new Set([this.#key, currentKey])) {
      if (!key) continue;
      const record = readRecord(key);
      if (record && record.sessionId !== heldSessionId) end(record.sessionId);
      deleteRecord(key);
    }
    this.#key = null;
  }
}
