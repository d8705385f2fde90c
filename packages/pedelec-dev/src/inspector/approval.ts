/**
 * Origin approval, as the extension's popup does it: `auto` approves every origin that got past the
 * Origin allow-list, `deny` refuses, and `prompt` holds the request while the inspector asks the
 * operator (up to 60 s), so a page can test its "waiting for approval" UI. The same prompts ask about
 * single MCP calls under `--mcp-approval prompt` ({@link Approvals.askCall}): each is asked on its own,
 * and an answer holds for that call only.
 */
import { randomUUID } from 'node:crypto';
import { DevCoreError } from '../errors.js';

export type ApprovalMode = 'auto' | 'prompt' | 'deny';
export const APPROVAL_MODES: readonly ApprovalMode[] = ['auto', 'prompt', 'deny'];

/**
 * An MCP client's call to a page's tool, as an approval prompt shows it: the client, the page (its
 * title and label, its URL; the prompt's `origin` is the page's), the tool as the client named it and
 * the arguments as JSON text (shortened past {@link SHOWN_ARGS_CHARS} characters).
 */
export type CallInQuestion = { client: string; tool: string; page: string; url: string; args: string };
/** How much of a call's arguments a prompt shows. */
export const SHOWN_ARGS_CHARS = 2000;
export type ApprovalPrompt = { id: string; origin: string | null; askedAt: number; call?: CallInQuestion };
export type ApprovalEvent =
  | { type: 'approval_requested'; prompt: ApprovalPrompt }
  | {
      type: 'approval_resolved';
      id: string;
      origin: string | null;
      approved: boolean;
      reason: 'operator' | 'timeout' | 'stopped' | 'withdrawn';
    };

type Waiter = { resolve(): void; reject(error: DevCoreError): void };
type OpenPrompt = { prompt: ApprovalPrompt; waiters: Waiter[]; timer: ReturnType<typeof setTimeout> };

/**
 * Why a prompt's waiters are refused. An MCP call's refusal is a tool approval's
 * (`TOOL_APPROVAL_REJECTED`, as when the client's user rejects it); `APPROVAL_REJECTED` keeps meaning
 * an origin's, as the extension's popup answers it.
 */
function refusal(reason: 'operator' | 'timeout' | 'stopped' | 'withdrawn', origin: string | null, ofCall: boolean) {
  if (reason === 'timeout')
    return new DevCoreError('APPROVAL_TIMEOUT', 'Nobody answered the approval prompt in time', { origin });
  if (reason === 'withdrawn')
    return new DevCoreError('ABORTED', 'The client cancelled the call before it was approved', { origin });
  return ofCall
    ? new DevCoreError('TOOL_APPROVAL_REJECTED', 'The operator did not approve this call', { origin })
    : new DevCoreError('APPROVAL_REJECTED', 'The operator did not approve this origin', { origin });
}

/** A `null` origin (a non-browser client) is a key of its own. */
const keyOf = (origin: string | null) => origin ?? '\u0000null';

export class Approvals {
  private readonly approved = new Set<string>();
  private readonly open = new Map<string, OpenPrompt>();
  private readonly listeners = new Set<(event: ApprovalEvent) => void>();

  constructor(
    readonly mode: ApprovalMode,
    private readonly timeoutMs = 60_000,
  ) {}

  isApproved(origin: string | null): boolean {
    if (this.mode === 'auto') return true;
    if (this.mode === 'deny') return false;
    return this.approved.has(keyOf(origin));
  }

  /** Resolves once `origin` is approved; rejects `APPROVAL_REJECTED` or `APPROVAL_TIMEOUT`. */
  ensure(origin: string | null): Promise<void> {
    if (this.isApproved(origin)) return Promise.resolve();
    if (this.mode === 'deny') {
      return Promise.reject(
        new DevCoreError('APPROVAL_REJECTED', 'pedelec-dev runs with --approval deny: this origin is not approved', {
          origin,
        }),
      );
    }
    return new Promise<void>((resolve, reject) => {
      const key = keyOf(origin);
      const existing = this.open.get(key);
      if (existing) {
        existing.waiters.push({ resolve, reject });
        return;
      }
      const prompt: ApprovalPrompt = { id: `approval_${randomUUID()}`, origin, askedAt: Date.now() };
      const timer = setTimeout(() => this.settle(key, false, 'timeout'), this.timeoutMs);
      this.open.set(key, { prompt, waiters: [{ resolve, reject }], timer });
      this.notify({ type: 'approval_requested', prompt });
    });
  }

  /**
   * Resolves once the operator approves this one call (whatever the origin mode: the caller decides
   * to ask); rejects `TOOL_APPROVAL_REJECTED` (the `APPROVAL_*` codes name origin approval) or
   * `APPROVAL_TIMEOUT`. Never remembered: the next call asks again.
   */
  askCall(origin: string | null, call: CallInQuestion, signal?: AbortSignal): Promise<void> {
    const prompt: ApprovalPrompt = { id: `approval_${randomUUID()}`, origin, askedAt: Date.now(), call };
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => this.settle(prompt.id, false, 'timeout'), this.timeoutMs);
      // The client gave up on its call: the question is withdrawn, and nobody answers it any more.
      const withdraw = () => this.settle(prompt.id, false, 'withdrawn');
      const done = () => signal?.removeEventListener('abort', withdraw);
      const waiter = { resolve: () => (done(), resolve()), reject: (error: DevCoreError) => (done(), reject(error)) };
      this.open.set(prompt.id, { prompt, waiters: [waiter], timer });
      this.notify({ type: 'approval_requested', prompt });
      if (signal?.aborted) withdraw();
      else signal?.addEventListener('abort', withdraw, { once: true });
    });
  }

  /** The operator's answer from the inspector; false when no such prompt is open. */
  answer(id: string, approved: boolean): boolean {
    for (const [key, open] of this.open) {
      if (open.prompt.id === id) {
        this.settle(key, approved, 'operator');
        return true;
      }
    }
    return false;
  }

  pending(): ApprovalPrompt[] {
    return [...this.open.values()].map((o) => o.prompt);
  }

  subscribe(listener: (event: ApprovalEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Refuses every held request (server stop). */
  dispose(): void {
    for (const key of [...this.open.keys()]) this.settle(key, false, 'stopped');
  }

  private settle(key: string, approved: boolean, reason: 'operator' | 'timeout' | 'stopped' | 'withdrawn'): void {
    const open = this.open.get(key);
    if (!open) return;
    this.open.delete(key);
    clearTimeout(open.timer);
    const { origin, call } = open.prompt;
    if (approved && !call) this.approved.add(key);
    const error = refusal(reason, origin, call !== undefined);
    for (const waiter of open.waiters) {
      if (approved) waiter.resolve();
      else waiter.reject(error);
    }
    this.notify({ type: 'approval_resolved', id: open.prompt.id, origin, approved, reason });
  }

  private notify(event: ApprovalEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // Observers never break approval.
      }
    }
  }
}
