// README "TypeScript": `import 'pedelec-elements/define.js'` alone (or one tag's define entry) types
// the tags and the events — on elements, on the document and on shadow roots.
import 'pedelec-elements/define.js';

export function defineOnly(): void {
  const session = document.querySelector('pedelec-session')!;
  session.addEventListener('pedelec-ready', (event) => console.log(event.detail.sessionId));
  document.querySelector('pedelec-tool')!.addEventListener('pedelec-tool-call', (event) => event.respondWith(1));
  document.addEventListener('pedelec-error', (event) => console.log(event.detail.error.code));
  // @ts-expect-error a known event's detail is typed: `pedelec-ready` has no `nope`
  session.addEventListener('pedelec-ready', (event) => event.detail.nope);
}
