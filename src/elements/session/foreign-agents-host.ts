/**
 * The session's side of its foreign agents' host (foreign-agents/host.ts): the element's inputs they
 * read, the tools as built, and their calls on the session's one path. The only place the session
 * meets them: the foreign agents are given this host and nothing of the session's parts.
 *
 * A lazy chunk with the foreign agents' entry, which the session loads the first time it sets
 * `webmcp` or `mcp` (lazy-part.ts): the host is built there, so the main file carries neither.
 */
import { partOf as foreignAgentsOf, type ForeignAgents } from '../foreign-agents/foreign-agents.js';
import { foreignTools, type ForeignAgentHost } from '../foreign-agents/host.js';
import { track } from '../arriving.js';
import type { SessionElementPort, SessionParts } from './session-parts.js';

/** The chunk's entry (lazy-part.ts): the foreign agents of a session element, through their host. */
export const partOf = (parts: SessionParts): ForeignAgents => foreignAgentsOf(foreignAgentHost(parts.element, parts));

function foreignAgentHost(element: SessionElementPort, parts: SessionParts): ForeignAgentHost {
  const { declarations } = parts;
  // Private tools are never handed to foreign agents' code.
  const tools = () => {
    declarations.upToDate();
    return foreignTools(declarations.built.tools);
  };
  return {
    connected: () => element.isConnected,
    arriving: (promise) => track(element, promise),
    inputs: () => ({
      webmcp: element.getAttribute('webmcp'),
      exposedTo: element.exposedTo,
      mcp: { url: element.mcp, scripted: parts.scripted('mcp'), key: element.mcpKey },
      label: element.getAttribute('mcp-label') || element.id || null,
      window: element.ownerDocument.defaultView,
      allowFramed: element.allowFramed === true,
    }),
    tools,
    call: (via, offered, tool, args, signal, approvedBy) => {
      // The running session, or none: before start() no provider or model either (elements.md: `''`),
      // where invoke()'s context names the element's.
      const session = parts.lifecycle.session;
      const byName = () =>
        new Map(offered(foreignTools(declarations.built.tools)).map((declared) => [declared.tool.name, declared.tool]));
      return parts.call(
        via,
        tool,
        args,
        signal,
        byName,
        {
          sessionId: session?.sessionId ?? '',
          provider: session?.provider ?? '',
          model: session?.model,
          sessionCreatedAt: session?.sessionCreatedAt ?? Date.now(),
        },
        approvedBy,
      );
    },
    addToolSource: (source) => declarations.addToolSource(source),
    rebuild: () => declarations.queue(),
    warn: parts.warn,
  };
}
