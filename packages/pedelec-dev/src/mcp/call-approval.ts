/**
 * Who lets an MCP client's call run (agents-2026.md §3). A consequential tool's call needs a person's
 * approval on a surface the calling agent does not drive:
 * - the MCP client's own UI, where the client declares form elicitation: the call is answered
 *   `input_required` (`2026-07-28`; on a 2025-era session the SDK turns it into `elicitation/create`),
 *   and the retry carrying the person's answer runs it, `approvedBy: 'mcp-client'`;
 * - else the operator in the inspector (`--mcp-approval prompt`), `approvedBy: 'operator'`;
 * - else nobody: `TOOL_APPROVAL_UNAVAILABLE`, and the page hears nothing of it.
 * Never the page: an agent that drives the browser can click the page's own buttons.
 * Other tools run at once, or after the operator's approval under `--mcp-approval prompt`.
 *
 * One approval runs one call. What the client's user is asked about — that page's tool, those
 * arguments — is kept here under a random `requestState`, taken by the first retry that carries it;
 * the retry runs what was asked about, and only if it names the same tool with the same arguments.
 */
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import {
  inputRequired,
  inputResponse,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type InputRequiredResult,
  type InputResponses,
} from '@modelcontextprotocol/server';
import { isPlainObject, pedelecError, type CallFrame } from 'pedelec-elements/protocol';
import type { PedelecError } from 'pedelec-elements/core';
import { toWireError } from '../errors.js';
import { SHOWN_ARGS_CHARS } from '../inspector/approval.js';
import type { CallTarget, PageSummary } from './page-directory.js';

/** How long a question put to a client's user stays answerable: a person may take their time. */
export const CLIENT_QUESTION_TTL_MS = 10 * 60_000;
/** Questions open at once; past it the oldest is forgotten, and its answer then runs nothing. */
export const MAX_CLIENT_QUESTIONS = 256;
/** The longest reason for a rejection passed on to the agent, in characters. */
const MAX_REASON_CHARS = 1000;
/** The key of the person's answer in the retry's `inputResponses`. */
const ANSWER_KEY = 'approval';

/** A call as it is asked about: the name the client called, the page's tool it stood for, the arguments. */
export type CallInQuestion = { client: string; name: string; target: CallTarget; args: unknown };
type AskedCall = CallInQuestion & { expiresAt: number };

/** The questions put to clients' users, each awaiting its one answer. */
export class ClientQuestions {
  /** In the order they were asked, which is the order they expire in. */
  readonly #asked = new Map<string, AskedCall>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Keeps `call` until its answer comes back; returns the `requestState` that names it. */
  ask(call: CallInQuestion): string {
    this.#forgetExpired();
    if (this.#asked.size >= MAX_CLIENT_QUESTIONS) this.#asked.delete(this.#asked.keys().next().value!);
    const state = randomBytes(24).toString('base64url');
    this.#asked.set(state, { ...call, expiresAt: this.now() + CLIENT_QUESTION_TTL_MS });
    return state;
  }

  /**
   * The call `state` names, taken, so that a second retry with it finds nothing; `undefined` when it
   * names no open question (never asked, answered already, expired).
   */
  take(state: string): CallInQuestion | undefined {
    this.#forgetExpired();
    const call = this.#asked.get(state);
    this.#asked.delete(state);
    return call;
  }

  /**
   * The SDK's `requestState.verify` hook: it runs before the handler, which then reads the call taken
   * here; a state that names no open question is refused, and the SDK answers the retry
   * `Invalid or expired requestState` without running the handler.
   */
  readonly verify = (state: string): Promise<CallInQuestion> => {
    const call = this.take(state);
    return call ? Promise.resolve(call) : Promise.reject(new Error('the requestState names no open question'));
  };

  #forgetExpired(): void {
    const now = this.now();
    for (const [state, call] of this.#asked) {
      if (call.expiresAt > now) break;
      this.#asked.delete(state);
    }
  }
}

/** What a call needs before it runs: nothing more, a question to the client's user, or nothing will do. */
export type CallApproval =
  | { run: { target: CallTarget; args: unknown; approvedBy?: CallFrame['approvedBy'] } }
  | { refused: PedelecError }
  | { ask: InputRequiredResult }
  /** The retry's answer belongs to another call (another tool, other arguments): it runs nothing. */
  | { mismatched: true };

export type ApprovalSurfaces = {
  questions: ClientQuestions;
  /** The operator (`--mcp-approval prompt`): resolves once they approve, rejects with why not. */
  operator?: (
    call: { client: string; tool: string; page: PageSummary; args: unknown },
    signal: AbortSignal,
  ) => Promise<void>;
};

/** What the request says of its client: its capabilities, and the question it answers (a retry). */
export type CallRequest = {
  capabilities: ClientCapabilities | undefined;
  answered: CallInQuestion | undefined;
  responses: InputResponses | Record<string, unknown> | undefined;
  signal: AbortSignal;
};

/** Whether `call` may run now, and who approved it; or why not; or the question for the client's user first. */
export async function callApproval(
  call: CallInQuestion,
  request: CallRequest,
  { questions, operator }: ApprovalSurfaces,
): Promise<CallApproval> {
  if (request.answered) return clientDecision(call, request.answered, request.responses);
  const { target, args } = call;
  if (target.consequential && canAskForms(request.capabilities))
    return {
      ask: inputRequired({ inputRequests: { [ANSWER_KEY]: question(call) }, requestState: questions.ask(call) }),
    };
  if (operator) {
    try {
      await operator({ client: call.client, tool: call.name, page: target.page(), args }, request.signal);
    } catch (error) {
      return { refused: toWireError(error) };
    }
    return { run: { target, args, ...(target.consequential && { approvedBy: 'operator' as const }) } };
  }
  return target.consequential ? { refused: unavailable(call.name) } : { run: { target, args } };
}

/**
 * Whether the client shows its user a form (`elicitation.form`, or a bare `elicitation: {}`, which
 * meant forms before elicitation had modes): the SDK's own reading, so that a question it would
 * refuse to send is never asked.
 */
function canAskForms(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation: unknown = capabilities?.elicitation;
  if (!isPlainObject(elicitation)) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

const ANSWER_SCHEMA: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    decision: {
      type: 'string',
      title: 'Decision',
      enum: ['approve', 'reject'],
      description: 'Approve runs this one call, with exactly these arguments.',
    },
    reason: {
      type: 'string',
      title: 'Reason (optional)',
      description: 'Why you reject it: the agent is told.',
      maxLength: MAX_REASON_CHARS,
    },
  },
  required: ['decision'],
};

/** The form the client shows its user: the tool, the page it runs in (its origin as the link came), the arguments. */
function question({ name, target, args }: CallInQuestion) {
  const { title, origin, url } = target.page();
  const text = JSON.stringify(args);
  const shown = text.length > SHOWN_ARGS_CHARS ? `${text.slice(0, SHOWN_ARGS_CHARS)}…` : text;
  const page = `${origin ?? 'a page of unknown origin'}${title ? ` “${title}”` : ''} (${url})`;
  return inputRequired.elicit({
    mode: 'form',
    message: `A person must approve each call of ${name}, a tool of the web page ${page}. Approve this call, with the arguments ${shown}?`,
    requestedSchema: ANSWER_SCHEMA,
  });
}

/** The client's user answered: `approve` runs what they were asked about; anything else is a rejection. */
function clientDecision(
  call: CallInQuestion,
  asked: CallInQuestion,
  responses: CallRequest['responses'],
): CallApproval {
  if (call.name !== asked.name || !isDeepStrictEqual(call.args, asked.args)) return { mismatched: true };
  const answer = inputResponse(responses, ANSWER_KEY);
  const content = answer.kind === 'elicit' ? answer.content : undefined;
  if (answer.kind === 'elicit' && answer.action === 'accept' && content?.decision === 'approve')
    return { run: { target: asked.target, args: asked.args, approvedBy: 'mcp-client' } };
  const reason = typeof content?.reason === 'string' ? content.reason.trim().slice(0, MAX_REASON_CHARS) : '';
  const how = answer.kind === 'elicit' ? ANSWERED[answer.action] : 'the client sent no answer';
  const message = `The MCP client's user did not approve this call (${how})${reason ? `: ${reason}` : ''}`;
  return { refused: pedelecError('TOOL_APPROVAL_REJECTED', message, reason ? { reason } : undefined) };
}

/** How the client's user answered, as a rejection's message says it. */
const ANSWERED = { accept: 'rejected', decline: 'declined', cancel: 'dismissed the question' } as const;

function unavailable(name: string): PedelecError {
  return pedelecError(
    'TOOL_APPROVAL_UNAVAILABLE',
    `${name} needs a person's approval for each call, and nobody can be asked: use an MCP client that supports elicitation (it asks its user), or start pedelec-dev with --mcp-approval prompt (you approve in its inspector)`,
    { tool: name },
  );
}
