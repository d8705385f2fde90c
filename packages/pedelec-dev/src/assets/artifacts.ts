/**
 * The files an agent publishes during a turn (`TurnContext.publishArtifact`): what it gave is checked
 * (a plain file name, text content), given a Content-Type, and written to the session's asset folder,
 * where the page lists and downloads it like any asset. Apart from the bridge's turn-runner.ts, which
 * keeps the turn's order around a write, and session-events.ts, which tells the page (`provider_artifact`).
 *
 * The artifact is described the way today's Core describes one, so that SDK 0.4.6's strict check of
 * `provider_artifact` takes it: `kind` from the Content-Type, and `source: "provider_artifact"` — the
 * agent published a file of its own; nothing here generates images or keeps a tool's result as a file,
 * so `image_generation` and `tool_result` are never claimed (an SVG is still `kind: "image"`).
 */
import { randomUUID } from 'node:crypto';
import { extname } from 'node:path';
import type { ArtifactKind, PublishedArtifact } from '../agents/types.js';
import type { AssetEntry } from './asset-store.js';
import { DevCoreError } from '../errors.js';

/** Stores a file in a session's asset folder (the Core's asset store). */
export type AssetWriter = (sessionId: string, path: string, content: Buffer, mimeType: string) => Promise<AssetEntry>;

/** The folder of the asset store where published artifacts go. */
const ARTIFACT_FOLDER = '/artifacts';
/** A Content-Type for the common kinds of text an agent writes; anything else is plain text. */
const ARTIFACT_TYPES: Readonly<Record<string, string>> = {
  '.json': 'application/json',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.svg': 'image/svg+xml',
};

/** A plain file name: no folder, nothing a path could misread, not blank (SDK 0.4.6 refuses a blank name). */
function isArtifactName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.trim() !== '' &&
    name !== '.' &&
    name !== '..' &&
    name.length <= 255 &&
    // eslint-disable-next-line no-control-regex -- control characters are exactly what a path must not hold
    !/[/\\\x00-\x1f]/.test(name)
  );
}

/** The artifact's kind, from the top-level type of its Content-Type. */
export function artifactKind(mimeType: string): ArtifactKind {
  const top = mimeType.split('/', 1)[0].trim().toLowerCase();
  return top === 'image' || top === 'audio' || top === 'video' ? top : 'file';
}

/**
 * Checks what the agent gave and writes the file; the artifact as the page is told of it. Without
 * `writeAsset` (a session with no asset folder), publishing fails `ARTIFACTS_UNAVAILABLE`.
 */
export async function storeArtifact(
  session: { id: string; provider: string; writeAsset: AssetWriter | undefined },
  name: unknown,
  content: unknown,
  mimeType: unknown,
): Promise<PublishedArtifact> {
  if (!isArtifactName(name))
    throw new DevCoreError('INVALID_INPUT', 'An artifact name must be a plain file name (no "/")', { name });
  if (typeof content !== 'string' && !(content instanceof Uint8Array))
    throw new DevCoreError('INVALID_INPUT', "An artifact's content must be a string or bytes");
  if (mimeType !== undefined && typeof mimeType !== 'string')
    throw new DevCoreError('INVALID_INPUT', 'mimeType must be a string');
  if (!session.writeAsset)
    throw new DevCoreError('ARTIFACTS_UNAVAILABLE', 'This session has no asset folder to publish into');
  const type = mimeType || ARTIFACT_TYPES[extname(name).toLowerCase()] || 'text/plain';
  const path = `${ARTIFACT_FOLDER}/${name}`;
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
  const entry = await session.writeAsset(session.id, path, bytes, type);
  return {
    id: `artifact_${randomUUID()}`,
    provider: session.provider,
    path,
    name,
    mimeType: type,
    sizeBytes: entry.sizeBytes,
    kind: artifactKind(type),
    source: 'provider_artifact',
  };
}
