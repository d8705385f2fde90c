// README "React 19": the JSX typings (`import type {} from 'pedelec-elements/react'`). The demo app,
// demo/react/app.tsx, is compiled with this configuration too.
import type {} from 'pedelec-elements/react';
import type { PedelecStatusEvent, PedelecToolCallEvent } from 'pedelec-elements';

export function Tools({ onCall }: { onCall: (event: PedelecToolCallEvent) => void }) {
  return (
    <pedelec-session provider="codex" guidance="Use the tools." bridge-timeout-ms={5000} onpedelec-ready={(e) => console.log(e.detail.sessionId)}>
      <pedelec-tool name="update_counter" description="Change the counter." timeout-ms={5000} handler={({ delta }: { delta: number }) => ({ value: delta })}>
        <pedelec-arg name="delta" type="integer" required minimum={-10} maximum={10}></pedelec-arg>
      </pedelec-tool>
      <pedelec-tool name="get_counter" description="Read the counter." onpedelec-tool-call={onCall}></pedelec-tool>
      <pedelec-tool name="get_page" description="Read the page." onpedelec-tool-call={(e) => e.respondWith({ title: document.title, tool: e.detail.tool })}></pedelec-tool>
      <pedelec-guidance>Read before you write.</pedelec-guidance>
      <pedelec-chat markdown className="panel" onpedelec-error={(e) => console.warn(e.detail.error.code)}></pedelec-chat>
    </pedelec-session>
  );
}

// The typings are generated from the elements' JSDoc (custom-elements.json): each line below fails to
// compile if the generator stopped typing an attribute, a property or an event.
export function Generated({ onCall }: { onCall: (event: PedelecToolCallEvent) => void }) {
  return (
    <pedelec-session webmcp persist resume-id="s1" onpedelec-tool-call={onCall} onpedelec-usage={(e) => e.detail.usage.totalTokens} onpedelec-artifact={(e) => e.detail.artifact.path}>
      <pedelec-tool name="get_counter" read-only untrustedContent timeoutMs={5000} title="Read the counter"></pedelec-tool>
      <pedelec-chat for="main" maxMessages={200} max-messages="200"></pedelec-chat>
      {/* @ts-expect-error `max-messages` is typed (a number, or its text): a boolean is refused */}
      <pedelec-chat max-messages={true}></pedelec-chat>
      <pedelec-arg name="tags" type="array" items="string" min-items={1} unique-items></pedelec-arg>
    </pedelec-session>
  );
}

export function Mistakes() {
  return (
    <>
      <pedelec-tool
        name="x"
        // @ts-expect-error a handler is a function, not a number
        handler={42}
      />
      <pedelec-tool
        // @ts-expect-error an unknown event prop: its event cannot be used
        onpedelec-nope={(e) => e.detail.x}
      />
      <pedelec-tool
        // @ts-expect-error a known event's detail is typed: `pedelec-tool-call` has no `nope`
        onpedelec-tool-call={(e) => e.detail.nope}
      />
      {/* @ts-expect-error pedelec-ready gives a PedelecReadyEvent, not a status event */}
      <pedelec-session onpedelec-ready={(e: PedelecStatusEvent) => e.detail.status} />
      <pedelec-arg
        // @ts-expect-error not a type the schema knows
        type="date"
      />
      {/* @ts-expect-error no such element */}
      <pedelec-nope />
    </>
  );
}
