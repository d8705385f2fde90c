// README "Vue 3": the template typings (`import type {} from 'pedelec-elements/vue'`) that Vue's
// language tools read through `GlobalComponents`. Checked here at the type level: what a template may
// bind on each tag (vue-tsc itself is not part of this project's toolchain).
import type { GlobalComponents } from 'vue';
import type {} from 'pedelec-elements/vue';

type PropsOf<Tag extends keyof GlobalComponents> = InstanceType<GlobalComponents[Tag]>['$props'];

export const tool: PropsOf<'pedelec-tool'> = {
  name: 'update_counter',
  description: 'Change the counter.',
  timeoutMs: 5000,
  handler: ({ delta }: { delta: number }) => ({ value: delta }),
  onPedelecToolCall: (event) => event.respondWith({ tool: event.detail.tool }),
};
export const session: PropsOf<'pedelec-session'> = {
  provider: 'codex',
  autostart: false,
  onPedelecToolsChanged: (event) => console.log(event.detail.removed),
  onPedelecStatus: (event) => console.log(event.detail.status),
};
export const arg: PropsOf<'pedelec-arg'> = { name: 'delta', type: 'integer', required: true, minLength: 1 };
export const chat: PropsOf<'pedelec-chat'> = { for: 'main', markdown: true, onPedelecError: (event) => console.warn(event.detail.error.code) };
// Generated from the elements' JSDoc: each fails to compile if an attribute, property or event went missing.
export const generatedChat: PropsOf<'pedelec-chat'> = { maxMessages: 200, htmlFor: 'main', renderMarkdown: (text) => document.createTextNode(text) };
export const generatedSession: PropsOf<'pedelec-session'> = { webmcp: true, resumeId: 's1', onPedelecArtifact: (event) => event.detail.artifact.path, onPedelecUsage: (event) => event.detail.usage.totalTokens };
export const generatedTool: PropsOf<'pedelec-tool'> = { readOnly: true, untrustedContent: true, private: true, title: 'Read' };
export const element: InstanceType<GlobalComponents['pedelec-session']>['start'] = () => Promise.reject(new Error('typed as the element'));

// @ts-expect-error the chat names its session with `for`, as `<label for>` does
export const oldChatName: PropsOf<'pedelec-chat'> = { session: 'main' };
// @ts-expect-error a handler is a function, not a number
export const badHandler: PropsOf<'pedelec-tool'> = { handler: 42 };
// @ts-expect-error a known event's detail is typed: `pedelec-tool-call` has no `nope`
export const badDetail: PropsOf<'pedelec-tool'> = { onPedelecToolCall: (event) => event.detail.nope };
// @ts-expect-error pedelec-ready gives a PedelecReadyEvent
export const badEvent: PropsOf<'pedelec-session'> = { onPedelecReady: (event: { detail: { status: string } }) => event.detail.status };
