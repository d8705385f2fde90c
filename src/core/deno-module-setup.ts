/**
 * Deno modules on their way to Desktop (deno-modules.ts): the checks of `skills.denoModules` and of a
 * workspace run's `denoModules`, and the upload of each module's prepared artifact — for a session in
 * the setup transaction that follows `create_session`, for a run the modules its workspace lacks.
 * Loaded on first use, by the pages that give Desktop Deno modules.
 */
import type { BridgeRequestType } from './bridge-messages.js';
import { ARTIFACT, type DenoModuleSources, type PreparedDenoModule } from './deno-modules.js';
import { invalidInput, normalizeError, pedelecError, protocolError } from './errors.js';
import { fetchTicket } from './file-transfers.js';
import { fieldsOf, isFilled, isPlainObject, isText } from './json.js';
import { isModuleName } from './workspace-names.js';

/** A request to the bridge, as the client makes it (`waitMs`: a wait longer than the bridge timeout). */
export type BridgeRequest = (
  type: BridgeRequestType,
  payload: Record<string, unknown>,
  waitMs?: number,
) => Promise<unknown>;

/** A module a run imports: its name and the sources Desktop materializes. */
export type RunModule = { name: string; sources: DenoModuleSources };

const MAX_ARTIFACT_BYTES = 100 * 1024 * 1024;

/** A module's prepared artifact, when it carries one. */
function sourcesOf(module: Record<string, unknown>): DenoModuleSources | null {
  const artifact = module[ARTIFACT];
  if (!isPlainObject(artifact) || artifact.format !== 'esm') return null;
  const { runtimeSource, typesSource } = artifact;
  return isFilled(runtimeSource) && isFilled(typesSource) ? { runtimeSource, typesSource } : null;
}

/**
 * The checks both lists share, in the public SDK's order: every entry an object (`list` names the
 * list in the message) with a valid, unique name; `forAgent` adds a description, a usage and, when
 * given, an entry; then `preferStdinExecution` and the prepared artifact. Throws the first problem.
 */
function readModules(entries: readonly unknown[], list: string, forAgent: boolean): PreparedDenoModule[] {
  const names = new Set<string>();
  return Array.from(entries, (entry: unknown, index) => {
    if (!isPlainObject(entry)) throw invalidInput(`${list} entries must be objects`, { index });
    const { name, description, usage, entry: source, preferStdinExecution } = entry;
    if (!isModuleName(name)) throw invalidInput('Deno Module name is invalid', { index, moduleName: name });
    if (names.has(name)) throw invalidInput('duplicate Deno Module name', { moduleName: name });
    names.add(name);
    const fail = (message: string) => invalidInput(message, { moduleName: name });
    if (forAgent) {
      if (!isFilled(description)) throw fail('Deno Module description must be a non-empty string');
      if (!isFilled(usage)) throw fail('Deno Module usage must be a non-empty string');
      if (source !== undefined && !isFilled(source)) throw fail('Deno Module entry must be a non-empty string');
    }
    if (preferStdinExecution !== undefined && typeof preferStdinExecution !== 'boolean')
      throw fail('Deno Module preferStdinExecution must be a boolean');
    const sources = sourcesOf(entry);
    if (!sources)
      throw fail(
        `Deno module "${name}" was not prepared: attach its sources with attachDenoModuleSources() ` +
          '(or prepare it with a build plugin that does)',
      );
    const manifest = {
      name,
      description: description as string,
      usage: usage as string,
      ...(preferStdinExecution === true && { preferStdinExecution }),
    };
    return { name, manifest, sources };
  });
}

/** `skills.denoModules` (already known to be an array): modules the agent may use. */
export const readDenoModules = (entries: readonly unknown[]): PreparedDenoModule[] =>
  readModules(entries, 'skills.denoModules', true);

/** A workspace run's `denoModules`: modules its script may import. */
export function readRunModules(entries: unknown): RunModule[] {
  if (entries === undefined) return [];
  if (!Array.isArray(entries)) throw invalidInput('options.denoModules must be an array');
  return readModules(entries, 'options.denoModules', false).map(({ name, sources }) => ({ name, sources }));
}

/**
 * Uploads one module's artifact: a ticket (`ticketType` with `payload` and the artifact's size), then
 * the artifact PUT as JSON; Desktop answers `{ ready: true }` once the module is materialized.
 */
export async function uploadModule(
  request: BridgeRequest,
  ticketType: 'create_deno_module_upload' | 'create_workspace_deno_module_upload',
  payload: Record<string, unknown>,
  { name, sources }: RunModule,
): Promise<void> {
  const artifact = new Blob([JSON.stringify({ version: 1, format: 'esm', ...sources })], { type: 'application/json' });
  const expectedSizeBytes = artifact.size;
  if (expectedSizeBytes > MAX_ARTIFACT_BYTES)
    throw pedelecError('DENO_MODULE_ARTIFACT_TOO_LARGE', `Deno Module "${name}" artifact exceeds the 100 MiB limit`, {
      moduleName: name,
      expectedSizeBytes,
      maxSizeBytes: MAX_ARTIFACT_BYTES,
    });
  const { uploadUrl, token } = fieldsOf(await request(ticketType, { ...payload, expectedSizeBytes }));
  if (!isText(uploadUrl) || !isText(token))
    throw protocolError('Deno Module upload ticket was invalid', { moduleName: name });
  const failure = { code: 'DENO_MODULE_UPLOAD_FAILED', message: `Deno Module "${name}" upload failed` };
  const response = await fetchTicket(token, uploadUrl, failure, artifact);
  const answer = (await response.json().catch(() => undefined)) as { ready?: unknown } | undefined;
  if (answer?.ready !== true)
    throw pedelecError('DENO_MODULE_SETUP_FAILED', `Deno Module "${name}" was not materialized`, { moduleName: name });
}

/**
 * The session-setup transaction: the new session's modules uploaded one by one, then the setup
 * completed. Any failure aborts the setup (best effort: the first failure is what the page sees) and
 * rejects; the session is never handed to the page half set up.
 */
export async function setUpSession(
  request: BridgeRequest,
  sessionId: string,
  modules: readonly PreparedDenoModule[],
): Promise<void> {
  try {
    for (const module of modules)
      await uploadModule(request, 'create_deno_module_upload', { sessionId, moduleName: module.name }, module);
    await request('complete_session_setup', { sessionId });
  } catch (failure) {
    await request('abort_session_setup', { sessionId }).catch(() => {});
    throw normalizeError(failure, 'DENO_MODULE_UPLOAD_FAILED', 'Deno Module setup failed');
  }
}
