/**
 * The console lines of a developer's mistakes (docs/errors.md; said always, not only with `debug`,
 * once per cause, with the element to click on). A chunk of its own: a healthy page never loads it,
 * and the sites that notice a mistake only name it (speak-up.ts).
 */
export const lines = {
  /** A tool left out for an invalid declaration. */
  leftOut(message: string, element: Element): void {
    console.error(`[pedelec] ${message}: left out until the declaration is fixed.`, element);
  },
  /** A handler threw: what it threw, so its stack shows; the agent got the message. */
  threw(tool: string, told: string, thrown: unknown): void {
    console.error(`[pedelec] The handler of ${tool} threw; the agent was told: ${told}`, thrown);
  },
  /** An answer after the deadline: Core told the agent `TOOL_TIMEOUT` already. */
  late(tool: string, lateMs: number, element: Element): void {
    console.warn(
      `[pedelec] ${tool} answered ${lateMs} ms after its deadline (its timeout-ms): the agent was told TOOL_TIMEOUT, and this answer is dropped.`,
      element,
    );
  },
  /** A consequential tool's call with nobody to ask (`TOOL_APPROVAL_UNAVAILABLE`): the two ways to give it one. */
  unapprovable(tool: string, element: Element): void {
    console.error(
      `[pedelec] ${tool} is consequential, and nobody could be asked to approve its call (TOOL_APPROVAL_UNAVAILABLE): ` +
        'put a <pedelec-chat> for this session on the page, or answer pedelec-tool-approval with event.respondWith().',
      element,
    );
  },
  /** A page's renderer threw, or returned what the chat cannot show: the chat shows its own view. */
  rendererFailed(renderer: string, instead: string, thrown: unknown, element: Element): void {
    console.error(`[pedelec] ${renderer} failed; the chat shows ${instead} instead.`, thrown, element);
  },
  /** `respondWith` or `deny` after dispatch (`TOOL_RESPOND_LATE`). */
  respondedLate(message: string, element: Element): void {
    console.warn(`[pedelec] ${message}`, element);
  },
};
