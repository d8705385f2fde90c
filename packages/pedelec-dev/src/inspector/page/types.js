// @ts-check
// The inspector socket's messages, as this page reads and sends them: JSDoc types only. The server declares
// them in ../inspector.ts, ../message-log.ts (LogEntry), ../approval.ts (ApprovalPrompt, ApprovalEvent), ../folder-picks.ts (FolderPick, FolderPickEvent),
// ../../agents/operator.ts (OpenTurnInfo, DeskEvent) and ../../bridge/session.ts (SessionSummary); they
// are restated here because importing them would bring Node's types into a browser script.

/**
 * @typedef {{ code: string, message: string, details?: unknown }} WireError
 * @typedef {{
 *   type?: string | string[], description?: string, enum?: unknown[], maxLength?: number, minimum?: number,
 *   maximum?: number, properties?: Record<string, SchemaNode | undefined>, required?: string[]
 * }} SchemaNode A tool's args schema or one of its nodes: any JSON Schema, of which the page reads these.
 * @typedef {{ name: string, description: string, argsSchema: SchemaNode, timeoutMs?: number }} ToolManifest
 * @typedef {{ guidance: string, tools: ToolManifest[] }} SkillsManifest
 * @typedef {{
 *   version: string, agent: string, approval: string, strictProviders: boolean, protocol?: string,
 *   fragments?: boolean, coreStatuses?: boolean, bridgeUrl: string
 * }} ServerInfo The Core's facts; one from before the protocol option sends no protocol, fragments, coreStatuses.
 * @typedef {{
 *   sessionId: string, origin: string | null, provider: string, agent: string, model?: string,
 *   explicitModel?: boolean, effortLevel?: string, effort?: string, workspaceId?: string, workspacePath?: string | null,
 *   autoEndOnDisconnect: boolean, status: string, routes: number, createdAt: number, skills?: SkillsManifest
 * }} SessionSummary Updates leave `skills` out; a Core from before explicitModel sends none.
 * @typedef {{ sessionId: string, text: string, openedAt: number }} OpenTurn
 * @typedef {{ client: string, tool: string, page: string, url: string, args: string }} CallInQuestion
 * @typedef {{ id: string, origin: string | null, askedAt: number, call?: CallInQuestion }} ApprovalPrompt
 * @typedef {{ id: string, origin: string | null, askedAt: number }} FolderPick
 * @typedef {{
 *   id: number, at: number, dir: 'in' | 'out' | 'info', connectionId: string, origin: string | null,
 *   type: string | null, sessionId: string | null, text: string, truncated: boolean
 * }} LogEntry
 * @typedef {{ ok: true, result: unknown, durationMs: number } | { ok: false, error: WireError }} CallOutcome
 *   What an operator's tool call came to: `result` is whatever the agent got, the page's JSON or the Core's
 *   error result `{ error }`.
 */

/**
 * @typedef {(
 *   | { type: 'hello', server: ServerInfo, sessions: SessionSummary[], turns: OpenTurn[],
 *       approvals: ApprovalPrompt[], picks?: FolderPick[], log: LogEntry[] }
 *   | { type: 'session_created' | 'session_updated', session: SessionSummary }
 *   | { type: 'session_ended', sessionId: string }
 *   | { type: 'turn_opened', turn: OpenTurn }
 *   | { type: 'turn_closed', sessionId: string }
 *   | { type: 'approval_requested', prompt: ApprovalPrompt }
 *   | { type: 'approval_resolved', id: string, origin: string | null, approved: boolean, reason: string }
 *   | { type: 'folder_pick_requested', pick: FolderPick }
 *   | { type: 'folder_pick_resolved', id: string, picked: boolean }
 *   | { type: 'log', entry: LogEntry }
 *   | ({ type: 'operator_result', callId: unknown } & CallOutcome)
 *   | { type: 'error', error: WireError, for?: unknown }
 * )} InspectorMessage What the Core sends this page.
 */

/**
 * @typedef {(
 *   | { type: 'approve', id: string, approved: boolean }
 *   | { type: 'pick_folder', id: string, path: string | null }
 *   | { type: 'operator_say', sessionId: string | null, text: string }
 *   | { type: 'operator_end_turn', sessionId: string | null }
 *   | { type: 'operator_call', callId: number, sessionId: string | null, tool: string, args: unknown }
 * )} OperatorMessage What this page sends the Core: `sessionId` is the selected one's, null while none is.
 */

export {};
