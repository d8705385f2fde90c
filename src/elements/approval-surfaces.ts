/**
 * The surfaces that can ask a person about a consequential tool's call for a session, besides the
 * page's own `pedelec-tool-approval` answer: the `<pedelec-chat>`s showing that session offer their
 * card here while bound to it. A private channel between the chat and the session (a module map, not
 * a member of either class); a chat still loading its card counts as present.
 */
import type { ToolApprovalAnswer, ToolApprovalRequest } from '../core/index.js';
import type { NormalizedTool } from '../core/tools.js';

/** What a card shows besides the request: the tool as declared (its description and schema). */
export type ApprovalQuestion = ToolApprovalRequest & { readonly declared: NormalizedTool | undefined };

/** Asks a person, and resolves with their answer (or never, if `request.signal` withdraws it first). */
export type ApprovalSurface = (question: ApprovalQuestion) => Promise<ToolApprovalAnswer>;

const surfaces = new WeakMap<Element, ApprovalSurface[]>();

/** Offers `surface` for `session`'s calls until the returned function is called. */
export function offerApprovalSurface(session: Element, surface: ApprovalSurface): () => void {
  const offered = surfaces.get(session) ?? [];
  surfaces.set(session, [...offered, surface]);
  return () =>
    surfaces.set(
      session,
      (surfaces.get(session) ?? []).filter((s) => s !== surface),
    );
}

/** The surface that asks for `session`: the first offered that is still there. */
export const approvalSurfaceOf = (session: Element): ApprovalSurface | undefined => surfaces.get(session)?.[0];
