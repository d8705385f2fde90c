/**
 * Who asks a person about the Pedelec agent's call of a consequential tool, on the page: the page's own
 * answer to `pedelec-tool-approval` first, else a chat's card (approval-surfaces.ts); with neither,
 * nobody can be asked, and the developer is told how to give the tool a surface.
 *
 * A chunk of its own, loaded with the approval step at the first consequential call: pages without
 * one never download it.
 */
import type { ToolboxHooks } from '../../core/toolbox.js';
import type { ToolApprovalRequest } from '../../core/types.js';
import { PedelecToolApprovalEvent } from '../../events/tool-approval.event.js';
import { approvalSurfaceOf } from '../approval-surfaces.js';
import { speakUp } from '../speak-up.js';
import type { ElementToolboxHost } from './element-toolbox.js';

type Asked = Awaited<ReturnType<NonNullable<ToolboxHooks['ask']>>>;

/** @internal The session's `ask` hook (see above). */
export function ask(host: ElementToolboxHost, request: ToolApprovalRequest): Asked {
  const { tool } = request;
  const built = host.built().byName.get(tool);
  const target = built?.element ?? host.element;
  const event = new PedelecToolApprovalEvent({ ...request });
  target.dispatchEvent(event);
  const answered = PedelecToolApprovalEvent.close(event);
  if (answered) return { decidedBy: 'page', answer: answered.value };
  const surface = approvalSurfaceOf(host.element);
  if (surface) return { decidedBy: 'chat', answer: surface({ ...request, declared: built?.tool }) };
  speakUp('unapprovable', tool, target);
  return null;
}
