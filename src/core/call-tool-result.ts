/**
 * A tool call's answer as an MCP `CallToolResult` (spec every-agent.md §2): what a page's WebMCP tools
 * resolve, and — with the error whole besides — what pedelec-dev's MCP endpoint answers its clients.
 * One definition for both (pedelec-elements/protocol); no DOM.
 */
import { isPlainObject, type JsonValue } from './json.js';
import type { CallAnswer } from './page-link-contract.js';

export type CallToolResult = {
  content: { type: 'text'; text: string }[];
  structuredContent?: { [key: string]: JsonValue };
  isError?: true;
};

/**
 * The result as JSON text (and as structured content when it is a plain object), or the error as
 * `CODE: message` with `isError` — and whole as structured content (`{ error: { code, message,
 * details } }`), so that an agent reads its details (the failing arguments) as data.
 */
export function callToolResult(answer: CallAnswer): CallToolResult {
  if (!answer.ok) {
    const { code, message, details } = answer.error;
    return {
      isError: true,
      content: [{ type: 'text', text: `${code}: ${message}` }],
      structuredContent: {
        error: (details === undefined ? { code, message } : { code, message, details }) as JsonValue,
      },
    };
  }
  const { result } = answer;
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(result) }];
  return isPlainObject(result) ? { content, structuredContent: result } : { content };
}
