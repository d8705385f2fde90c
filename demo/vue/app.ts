// The Vue 3 demo: a counter an agent can read, change and (while allowed) reset.
// One setup() serves two templates: the page's own HTML (in-DOM, as a CDN user writes it: see
// index.html) and the string template below (compiled by Vue, as in a bundled app).
import { createApp, ref, type App } from 'vue';
import type { PedelecSessionElement, PedelecToolCallEvent } from 'pedelec-elements';
import type {} from 'pedelec-elements/vue';

export function counterSetup(options: { bridge?: string } = {}) {
  const session = ref<PedelecSessionElement | null>(null);
  const count = ref(0);
  const allowReset = ref(true);
  const status = ref('inactive');
  const reply = ref('');
  const message = ref('');
  /** The tool set changed since the session started: the agent gets it at the next restart. */
  const stale = ref(false);

  // A handler by property (:handler.prop)…
  const updateCounter = ({ delta }: { delta: number }) => ({ value: (count.value += delta) });
  const resetCounter = () => ({ value: (count.value = 0) });
  // …and one by the pedelec-tool-call event (@pedelec-tool-call).
  const onGetCounter = (event: PedelecToolCallEvent) => event.respondWith({ value: count.value });

  const ask = () => {
    const text = message.value.trim();
    const s = session.value;
    if (!text || !s) return;
    reply.value = '';
    // On the user's send, a restart reconnects a bridge that went away (pedelec-dev restarted) and gives
    // the agent the tools as they are now (the box was ticked or unticked).
    const restart = s.client?.unavailableReason || s.toolsStale;
    (restart ? s.restart().then(() => s.sendText(text)) : s.sendText(text)).catch(() => {});
    message.value = '';
  };
  return { bridge: options.bridge, session, count, allowReset, status, reply, message, stale, updateCounter, resetCounter, onGetCounter, ask };
}

/** The same markup as index.html's in-DOM template, as a string template Vue compiles. */
export const counterTemplate = `
  <pedelec-session ref="session" provider="scripted"
      guidance="Read the counter with get_counter before changing it with update_counter."
      :bridge.prop="bridge"
      @pedelec-status="status = $event.detail.status"
      @pedelec-chat-delta="reply += $event.detail.text"
      @pedelec-error="reply += '\\n[' + $event.detail.error.code + '] ' + $event.detail.error.message"
      @pedelec-tools-changed="stale = true"
      @pedelec-ready="stale = false">
    <pedelec-tool name="update_counter" description="Change the counter by delta. Returns the new value." :handler.prop="updateCounter">
      <pedelec-arg name="delta" type="integer" required minimum="-100" maximum="100" description="How much to add."></pedelec-arg>
    </pedelec-tool>
    <pedelec-tool name="get_counter" description="Read the counter." @pedelec-tool-call="onGetCounter"></pedelec-tool>
    <pedelec-tool v-if="allowReset" name="reset_counter" description="Set the counter back to zero." :handler.prop="resetCounter"></pedelec-tool>

    <p>Counter: <output class="counter">{{ count }}</output> · session <output class="status">{{ status }}</output></p>
    <label><input type="checkbox" v-model="allowReset"> Let the agent reset the counter</label>
    <p class="stale" v-show="stale">The agent's tools changed: your next message restarts its session (a new conversation) to apply them.</p>
    <form @submit.prevent="ask">
      <input v-model="message" autocomplete="off" placeholder='/call update_counter {"delta": 2}' aria-label="Message">
      <button>Send</button>
    </form>
    <pre class="reply">{{ reply }}</pre>
  </pedelec-session>
`;

/** Tells Vue's template compiler that pedelec-* tags are custom elements, not components. */
function configure(app: App): App {
  app.config.compilerOptions.isCustomElement = (tag) => tag.startsWith('pedelec-');
  return app;
}

/** The app with the compiled string template: mount it on any element. */
export function createCounterApp(options: { bridge?: string } = {}): App {
  return configure(createApp({ template: counterTemplate, setup: () => counterSetup(options) }));
}

/** The app whose template is the mount point's own HTML (in-DOM, as on index.html). */
export function createInDomCounterApp(options: { bridge?: string } = {}): App {
  return configure(createApp({ setup: () => counterSetup(options) }));
}
