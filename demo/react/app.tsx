// The React 19 demo: a counter an agent can read, change and (while allowed) reset.
// React 19 sets `handler={fn}` as a property on a defined custom element and binds
// `onpedelec-tool-call={fn}` to the `pedelec-tool-call` event: define the elements before rendering
// (main.tsx imports 'pedelec-elements/define.js' first).
import { useRef, useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import type { PedelecSessionElement, PedelecToolCallEvent } from 'pedelec-elements';
import type {} from 'pedelec-elements/react';

export function CounterApp({ bridge }: { bridge?: string }) {
  const session = useRef<PedelecSessionElement>(null);
  // The agent may call twice before React renders again: tools read and write a ref, the page shows state.
  const value = useRef(0);
  const [count, setCount] = useState(0);
  const [allowReset, setAllowReset] = useState(true);
  const [status, setStatus] = useState('inactive');
  const [reply, setReply] = useState('');
  /** The tool set changed since the session started: the agent gets it at the next restart. */
  const [stale, setStale] = useState(false);

  const show = (next: number) => {
    value.current = next;
    setCount(next);
    return { value: next };
  };
  // A handler by property…
  const updateCounter = ({ delta }: { delta: number }) => show(value.current + delta);
  const resetCounter = () => show(0);
  // …and one by the pedelec-tool-call event.
  const onGetCounter = (event: PedelecToolCallEvent) => event.respondWith({ value: value.current });

  const ask = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const input = event.currentTarget.elements.namedItem('message') as HTMLInputElement;
    const text = input.value.trim();
    const s = session.current;
    if (!text || !s) return;
    setReply('');
    // On the user's send, a restart reconnects a bridge that went away (pedelec-dev restarted) and gives
    // the agent the tools as they are now (the box was ticked or unticked).
    const restart = s.client?.unavailableReason || s.toolsStale;
    (restart ? s.restart().then(() => s.sendText(text)) : s.sendText(text)).catch(() => {});
    input.value = '';
  };

  return (
    <pedelec-session
      ref={session}
      provider="scripted"
      guidance="Read the counter with get_counter before changing it with update_counter."
      bridge={bridge}
      onpedelec-status={(e) => setStatus(e.detail.status)}
      onpedelec-chat-delta={(e) => setReply((text) => text + e.detail.text)}
      onpedelec-error={(e) => setReply((text) => `${text}\n[${e.detail.error.code}] ${e.detail.error.message}`)}
      onpedelec-tools-changed={() => setStale(true)}
      onpedelec-ready={() => setStale(false)}
    >
      <pedelec-tool name="update_counter" description="Change the counter by delta. Returns the new value." handler={updateCounter}>
        <pedelec-arg name="delta" type="integer" required minimum="-100" maximum="100" description="How much to add."></pedelec-arg>
      </pedelec-tool>
      <pedelec-tool name="get_counter" description="Read the counter." onpedelec-tool-call={onGetCounter}></pedelec-tool>
      {allowReset && <pedelec-tool name="reset_counter" description="Set the counter back to zero." handler={resetCounter}></pedelec-tool>}

      <p>
        Counter: <output className="counter">{count}</output> · session <output className="status">{status}</output>
      </p>
      <label>
        <input type="checkbox" name="allow-reset" checked={allowReset} onChange={(e) => setAllowReset(e.currentTarget.checked)} /> Let the
        agent reset the counter
      </label>
      {stale && <p className="stale">The agent's tools changed: your next message restarts its session (a new conversation) to apply them.</p>}
      <form onSubmit={ask}>
        <input name="message" autoComplete="off" placeholder='/call update_counter {"delta": 2}' aria-label="Message" />
        <button>Send</button>
      </form>
      <pre className="reply">{reply}</pre>
    </pedelec-session>
  );
}

/** Renders the demo into `container`; returns a function that unmounts it. */
export function mountCounterApp(container: Element, options: { bridge?: string } = {}): () => void {
  const root = createRoot(container);
  root.render(<CounterApp bridge={options.bridge} />);
  return () => root.unmount();
}
