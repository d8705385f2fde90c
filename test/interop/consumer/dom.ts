// README "TypeScript" (plain DOM): one import registers the elements and brings their types —
// `HTMLElementTagNameMap` for the tags, `HTMLElementEventMap` (and the document's) for the events.
import 'pedelec-elements/define.js';
import type { InvokeResult, PedelecSessionElement, PedelecToolCallEvent, PedelecToolElement } from 'pedelec-elements';

export async function snippet(): Promise<void> {
  const session = document.querySelector('pedelec-session')!; // PedelecSessionElement
  const tool = document.querySelector('pedelec-tool')!; // PedelecToolElement
  let value = 0;

  // A handler by property: annotate its args with your type.
  tool.handler = ({ delta }: { delta: number }) => ({ value: (value += delta) });
  // An answer by event: the listener gets PedelecToolCallEvent.
  tool.addEventListener('pedelec-tool-call', (event) => event.respondWith({ value }));
  session.addEventListener('pedelec-tools-changed', (event) => console.log(event.detail.removed));
  session.addEventListener('pedelec-tool-result', (event) => console.log(event.detail.tool, event.detail.ok, event.detail.durationMs));
  // The events bubble: a listener on the document (or a shadow root) gets them typed too.
  document.addEventListener('pedelec-error', (event) => console.log(event.detail.error.code));
  const root = document.createElement('div').attachShadow({ mode: 'open' });
  root.addEventListener('pedelec-status', (event) => console.log(event.detail.status));

  const created = document.createElement('pedelec-tool');
  created.name = 'get_counter';
  created.description = 'Read the counter.';
  created.argsSchema = { type: 'object', properties: {} };
  session.append(created);

  const result: InvokeResult = await session.invoke('get_counter', {});
  if (result.ok) console.log(result.result);
  else console.log(result.error.code);
  await session.sendText('hello');
}

export function typedListener(event: PedelecToolCallEvent): void {
  event.deny(`not now: ${event.detail.tool}`);
}

export function mistakes(session: PedelecSessionElement, tool: PedelecToolElement): void {
  // @ts-expect-error a handler is a function, not a number
  tool.handler = 42;
  // @ts-expect-error an unknown event name gives a plain Event, which has no `detail`
  tool.addEventListener('pedelec-nope', (e) => e.detail.x);
  // @ts-expect-error a known event's detail is typed: `pedelec-tool-call` has no `nope`
  tool.addEventListener('pedelec-tool-call', (e) => e.detail.nope);
  // @ts-expect-error on the document too, a known event's detail is typed
  document.addEventListener('pedelec-tool-result', (e) => e.detail.nope);
  // @ts-expect-error `status` is read-only (an output)
  session.status = 'idle';
  // @ts-expect-error `sessionId` is read-only (use resumeId, or the resume-id attribute, to resume)
  session.sessionId = 's1';
  // @ts-expect-error `disabled` is a boolean
  tool.disabled = 'yes';
}
