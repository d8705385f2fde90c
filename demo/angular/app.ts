// The Angular demo: a counter an agent can read, change and (while allowed) reset. A standalone
// component, compiled just in time, with CUSTOM_ELEMENTS_SCHEMA so Angular lets the pedelec-* tags
// through: `[handler]` sets the property, `(pedelec-tool-call)` listens to the event, `@if` adds and
// removes a tool. Zoneless: signals drive change detection.
import {
  ChangeDetectionStrategy,
  Component,
  CUSTOM_ELEMENTS_SCHEMA,
  InjectionToken,
  inject,
  provideZonelessChangeDetection,
  signal,
  type ApplicationRef,
} from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import type { PedelecChatDeltaEvent, PedelecErrorEvent, PedelecSessionElement, PedelecStatusEvent, PedelecToolCallEvent } from 'pedelec-elements';

/** The bridge URL for `<pedelec-session [bridge]>`; undefined: the Pedelec extension. */
export const PEDELEC_BRIDGE = new InjectionToken<string | undefined>('PEDELEC_BRIDGE', { factory: () => undefined });

@Component({
  selector: 'counter-app',
  schemas: [CUSTOM_ELEMENTS_SCHEMA],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <pedelec-session #session provider="scripted"
        guidance="Read the counter with get_counter before changing it with update_counter."
        [bridge]="bridge"
        (pedelec-status)="onStatus($event)"
        (pedelec-chat-delta)="onChatDelta($event)"
        (pedelec-error)="onError($event)"
        (pedelec-tools-changed)="stale.set(true)"
        (pedelec-ready)="stale.set(false)">
      <pedelec-tool name="update_counter" description="Change the counter by delta. Returns the new value." [handler]="updateCounter">
        <pedelec-arg name="delta" type="integer" required minimum="-100" maximum="100" description="How much to add."></pedelec-arg>
      </pedelec-tool>
      <pedelec-tool name="get_counter" description="Read the counter." (pedelec-tool-call)="onGetCounter($event)"></pedelec-tool>
      @if (allowReset()) {
        <pedelec-tool name="reset_counter" description="Set the counter back to zero." [handler]="resetCounter"></pedelec-tool>
      }

      <p>Counter: <output class="counter">{{ count() }}</output> · session <output class="status">{{ status() }}</output></p>
      <label><input #box type="checkbox" [checked]="allowReset()" (change)="allowReset.set(box.checked)"> Let the agent reset the counter</label>
      @if (stale()) {
        <p class="stale">The agent's tools changed: your next message restarts its session (a new conversation) to apply them.</p>
      }
      <form (submit)="ask($event, session, message)">
        <input #message autocomplete="off" placeholder='/call update_counter {"delta": 2}' aria-label="Message">
        <button>Send</button>
      </form>
      <pre class="reply">{{ reply() }}</pre>
    </pedelec-session>
  `,
})
export class CounterApp {
  readonly bridge = inject(PEDELEC_BRIDGE);
  readonly count = signal(0);
  readonly allowReset = signal(true);
  readonly status = signal('inactive');
  readonly reply = signal('');
  /** The tool set changed since the session started: the agent gets it at the next restart. */
  readonly stale = signal(false);

  // A handler by property ([handler])…
  readonly updateCounter = ({ delta }: { delta: number }) => ({ value: this.set(this.count() + delta) });
  readonly resetCounter = () => ({ value: this.set(0) });
  // …and one by the pedelec-tool-call event ((pedelec-tool-call)).
  onGetCounter(event: PedelecToolCallEvent): void {
    event.respondWith({ value: this.count() });
  }

  onStatus(event: PedelecStatusEvent): void {
    this.status.set(event.detail.status);
  }
  onChatDelta(event: PedelecChatDeltaEvent): void {
    this.reply.update((text) => text + event.detail.text);
  }
  onError(event: PedelecErrorEvent): void {
    this.reply.update((text) => `${text}\n[${event.detail.error.code}] ${event.detail.error.message}`);
  }

  ask(event: Event, session: PedelecSessionElement, input: HTMLInputElement): void {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    this.reply.set('');
    // On the user's send, a restart reconnects a bridge that went away (pedelec-dev restarted) and gives
    // the agent the tools as they are now (the box was ticked or unticked).
    const restart = session.client?.unavailableReason || session.toolsStale;
    (restart ? session.restart().then(() => session.sendText(text)) : session.sendText(text)).catch(() => {});
    input.value = '';
  }

  private set(value: number): number {
    this.count.set(value);
    return value;
  }
}

/** Bootstraps the demo on the page's `<counter-app>` element; resolves to the application (`destroy()` it to unmount). */
export function bootstrapCounterApp(options: { bridge?: string } = {}): Promise<ApplicationRef> {
  return bootstrapApplication(CounterApp, {
    providers: [provideZonelessChangeDetection(), { provide: PEDELEC_BRIDGE, useValue: options.bridge }],
  });
}
