/**
 * The chat's row for a decision on a consequential tool's call: what was decided, and who decided — in
 * the words of the person chatting. Plain functions, tested without a DOM.
 */
import type { ToolApprovalDecision } from '../../core/index.js';

/** Who decided, as the row names them (`browser-hint` has a sentence of its own: nobody is said to have decided). */
const DECIDERS = {
  chat: 'by you in the chat',
  page: 'by the page',
  'mcp-client': 'by the MCP client',
  operator: 'by the operator',
};

/** "Approved update_counter (by you in the chat)", "Rejected clear (by the page): not today"… */
export function decisionText({ tool, decidedBy, approved, reason }: ToolApprovalDecision): string {
  // The kit cannot see whether the browser asked anyone: the row says where it was left, not what happened.
  if (decidedBy === 'browser-hint') return `${tool}: left to the browser's confirmation (WebMCP)`;
  return `${approved ? 'Approved' : 'Rejected'} ${tool} (${DECIDERS[decidedBy]})${reason ? `: ${reason}` : ''}`;
}
