/**
 * The fields of Core's events and snapshots that the session reads, checked as the public SDK checks
 * them (docs/design/sdk-0.4.md): a snapshot's status in either spelling, the tool call a snapshot says
 * Core waits for, a published artifact. What is malformed is refused here, before the session acts.
 */
import { isFilled, isObject, isText } from './json.js';
import { isAssetPath } from './asset-path.js';
import type { PedelecSessionStatus, ProviderArtifact } from './types.js';

/** The session statuses, in the SDK's spelling. */
export const STATUSES: readonly string[] = ['idle', 'running', 'waiting_tool_result', 'ended', 'error'];
/** Core's spelling of the statuses a snapshot may carry, in the SDK's. */
const CORE_STATUSES: Readonly<Record<string, PedelecSessionStatus>> = {
  waitingToolResult: 'waiting_tool_result',
  starting: 'running',
  stopping: 'running',
};

/** A count: an integer, zero or more (token usage, a file's size). */
export const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;

/** A snapshot's status in the SDK's spelling: Core's names mapped, anything unknown an error. */
export function snapshotStatus(status: unknown): PedelecSessionStatus | undefined {
  if (status === undefined) return undefined;
  if (STATUSES.includes(status as string)) return status as PedelecSessionStatus;
  return CORE_STATUSES[status as string] ?? 'error';
}

/**
 * A snapshot's `pendingToolRequest` when it names a call: in Core's field names (`requestId`,
 * `toolName`) or the development Core's (`toolRequestId`, `tool`).
 */
export function readPendingCall(
  value: unknown,
): { toolRequestId: string; tool: string; args: unknown; operationId: string | undefined } | null {
  if (!isObject(value)) return null;
  const toolRequestId = value.requestId ?? value.toolRequestId;
  const tool = value.toolName ?? value.tool;
  if (!isText(toolRequestId) || typeof tool !== 'string') return null;
  return {
    toolRequestId,
    tool,
    args: value.args,
    operationId: isText(value.operationId) ? value.operationId : undefined,
  };
}

const ARTIFACT_KINDS: readonly string[] = ['image', 'audio', 'video', 'file'];
const ARTIFACT_SOURCES: readonly string[] = ['image_generation', 'tool_result', 'provider_artifact'];
/** A file name on its own: not empty, no separator, not `.` or `..`. */
const isFileName = (value: unknown): value is string =>
  isFilled(value) && !/[/\\]/.test(value) && value !== '.' && value !== '..';

/**
 * A `provider_artifact`'s artifact, checked as the public SDK checks it (any provider code is taken:
 * the kit accepts codes it does not know), and rebuilt with its known fields only; or what is wrong.
 */
export function readArtifact(value: unknown): ProviderArtifact | string {
  if (!isObject(value)) return 'event had an invalid artifact object';
  const { id, provider, path, name, mimeType, sizeBytes, kind, source, providerArtifactId, toolCallId } = value;
  const optional = (field: unknown) => field === undefined || isFilled(field);
  const valid =
    isFilled(id) &&
    isFilled(provider) &&
    isAssetPath(path) &&
    isFileName(name) &&
    isFilled(mimeType) &&
    isCount(sizeBytes) &&
    ARTIFACT_KINDS.includes(kind as string) &&
    ARTIFACT_SOURCES.includes(source as string) &&
    optional(providerArtifactId) &&
    optional(toolCallId);
  if (!valid) return 'event had an invalid artifact payload';
  return {
    id,
    provider,
    path,
    name,
    mimeType,
    sizeBytes,
    kind,
    source,
    ...(providerArtifactId !== undefined && { providerArtifactId }),
    ...(toolCallId !== undefined && { toolCallId }),
  } as ProviderArtifact;
}
