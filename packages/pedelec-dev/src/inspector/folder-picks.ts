/**
 * The user's folder pick (`openWorkspace()` without a path), as pedelec-dev plays it: Desktop shows a
 * folder dialog; here the inspector asks the operator, who types a folder or cancels — or, started with
 * `--workspace DIR`, that folder is the answer at once (for scripted runs). A pick waits as long as the
 * operator takes, as a dialog does; a bounded number may wait at once.
 */
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { DevCoreError } from '../errors.js';

/** Picks that may wait for the operator at once; one more fails `DIRECTORY_PICKER_FAILED`. */
export const MAX_OPEN_PICKS = 16;

export type FolderPick = { id: string; origin: string | null; askedAt: number };
export type FolderPickEvent =
  { type: 'folder_pick_requested'; pick: FolderPick } | { type: 'folder_pick_resolved'; id: string; picked: boolean };

type OpenPick = { pick: FolderPick; settle(path: string | null): void; fail(error: DevCoreError): void };

export class FolderPicks {
  private readonly open = new Map<string, OpenPick>();
  private readonly listeners = new Set<(event: FolderPickEvent) => void>();

  /** `preset`: the `--workspace` folder, the answer to every pick. */
  constructor(private readonly preset: string | null) {}

  /** The folder the user picks for a page of `origin`, or null when the pick is cancelled. */
  ask(origin: string | null): Promise<string | null> {
    if (this.preset !== null) return Promise.resolve(this.preset);
    if (this.open.size >= MAX_OPEN_PICKS)
      return Promise.reject(
        new DevCoreError('DIRECTORY_PICKER_FAILED', `${MAX_OPEN_PICKS} folder picks already wait for the inspector`),
      );
    return new Promise((resolve, reject) => {
      const pick: FolderPick = { id: randomUUID(), origin, askedAt: Date.now() };
      this.open.set(pick.id, { pick, settle: resolve, fail: reject });
      this.emit({ type: 'folder_pick_requested', pick });
    });
  }

  /**
   * The operator's answer: an absolute path of an existing folder, or null to cancel. A path that is not
   * one throws (the pick stays open); an unknown id returns false.
   */
  answer(id: string, path: string | null): boolean {
    const open = this.open.get(id);
    if (!open) return false;
    if (path !== null) {
      const isFolder = isAbsolute(path) && (statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false);
      if (!isFolder) throw new DevCoreError('WORKSPACE_PATH_INVALID', `${path} is not an absolute path of a folder`);
    }
    this.open.delete(id);
    open.settle(path);
    this.emit({ type: 'folder_pick_resolved', id, picked: path !== null });
    return true;
  }

  pending(): FolderPick[] {
    return [...this.open.values()].map((open) => open.pick);
  }

  subscribe(listener: (event: FolderPickEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** The server stops: every waiting pick fails. */
  dispose(): void {
    for (const [id, open] of this.open) {
      open.fail(new DevCoreError('DIRECTORY_PICKER_FAILED', 'pedelec-dev stopped before the folder was picked'));
      this.emit({ type: 'folder_pick_resolved', id, picked: false });
    }
    this.open.clear();
  }

  private emit(event: FolderPickEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // An observer (the inspector) must never break a pick.
      }
    }
  }
}
