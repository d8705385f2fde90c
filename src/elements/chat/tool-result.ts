/**
 * What a chat's tool row shows of a result: the tool's own `renderResult` (its element's property, or
 * its JS definition's), else the result as JSON. A renderer that throws or returns neither a Node nor
 * a string is reported once, and the JSON shown instead: the person still sees what the agent got.
 */
import type { PedelecError, RenderToolResult } from '../../core/index.js';
import type { PedelecToolResultDetail } from '../../events/tool-result.event.js';
import { toolsBuiltOf, type PedelecSessionElement } from '../session/pedelec-session.element.js';
import { speakUp } from '../speak-up.js';

/** What the row shows: the renderer's Node or text, or the result's JSON text. */
export type ResultView = { own: Node | string } | { json: string };

/** The JSON shown at most: a row stays readable, and the agent got the whole result anyway. */
const JSON_SHOWN_MAX = 4000;

/** Renderers already reported: a broken one speaks up once, not at every call. */
const reported = new WeakSet<RenderToolResult>();

export function resultView(session: PedelecSessionElement, detail: PedelecToolResultDetail): ResultView {
  const { tool, args, result, ok } = detail;
  const built = toolsBuiltOf(session).byName.get(tool);
  const render = built?.element?.renderResult ?? built?.definition?.renderResult;
  if (render) {
    try {
      const error = ok ? null : (result as { error: PedelecError }).error;
      const own = render(result, { args, tool, error });
      if (typeof own === 'string' || own instanceof Node) return { own };
      // Reported as a throw would be: the page's renderer got it wrong either way.
      if (own !== null) throw new TypeError(`it returned ${typeof own}: neither a Node, a string nor null`);
    } catch (thrown) {
      if (!reported.has(render)) {
        reported.add(render);
        speakUp(
          'rendererFailed',
          `renderResult of tool "${tool}"`,
          'its result as JSON',
          thrown,
          built?.element ?? session,
        );
      }
    }
  }
  // `undefined` (a handler that returned nothing) went to the agent as no result: nothing to show.
  const json = JSON.stringify(result, null, 2) ?? '';
  return { json: json.length > JSON_SHOWN_MAX ? `${json.slice(0, JSON_SHOWN_MAX)}…` : json };
}
