import { checkAttributes } from '../unknown-attributes.js';
import { ReactiveElement, type PropertyValues } from '@lit/reactive-element';
import { hideDeclaration } from '../hidden.js';
import type { RenderToolResult, ToolArgsSchema, ToolDefinition, ToolSpecificHandler } from '../../core/index.js';
import { Membership } from '../registration.js';
import { DECLARATION_ATTRIBUTES, readSchema } from './declaration.js';
import { formSchema } from './form-link.js';
import { defineElement } from '../define-element.js';
import { TOOL_TAG } from '../tags.js';

/** The declaration a tool element makes now: a definition to normalize, or why it cannot be read. */
export type ToolDeclaration =
  | { ok: true; definition: ToolDefinition; owned: boolean }
  | { ok: false; name: string | null; reason: string; path?: string };

/**
 * The declaration a tool makes now (without the handler: handlers are looked up at call time); the
 * same object as last time while nothing it is read from has changed. For the session, not a member
 * of the element: the session↔tool protocol is the kit's own (docs/design/elements.md).
 */
export let declarationOf!: (tool: PedelecToolElement) => ToolDeclaration;
/** Set by the session after each build: why the tool is left out, or null. */
export let setInvalid!: (tool: PedelecToolElement, reason: string | null) => void;

/**
 * One tool the agent can call, declared in markup. Changes to its attributes and children are seen as
 * they happen; to change `argsSchema`, assign a new object.
 *
 * For each call, the first of these answers: a handler registered with the session's
 * `onTool(name, fn)`; a `pedelec-tool-call` listener that calls `respondWith()` or `deny()` during
 * dispatch (an answer after an `await` is too late: `TOOL_RESPOND_LATE`); the `handler` property; the
 * tool's `form`, if it has one; the session's `fallback`; otherwise the agent gets
 * `TOOL_HANDLER_NOT_FOUND`. A call to a tool that is
 * gone, `disabled`, or declared but not sent to Core (invalid, or added after start) gets
 * `TOOL_UNAVAILABLE` before any handler runs.
 *
 * An invalid tool is left out and gets the `invalid` attribute; its session fires one `pedelec-error`
 * `INVALID_INPUT` (`details: { tool, reason, path? }`, `event.element`), and the other tools keep
 * working. A name declared twice in one session leaves every tool of that name out, with one
 * "duplicate tool name" error: markup added to a page can at worst remove a tool, never replace it. A
 * readable schema the kit cannot fully validate is offered, with one `pedelec-warning`
 * `SCHEMA_NOT_VALIDATED` naming those parts.
 *
 * @summary Declares one agent tool: name, description, args schema; the handler attaches by property or event.
 * @tag pedelec-tool
 *
 * @attr {string} name - The tool's name: a letter, then letters, digits, `_`, `.`, `-`. Unique in its session.
 * @attr {string} description - What the tool does, its side effects, and when the agent should pick it.
 * @attr {number} timeout-ms - How long Core waits for the result, in ms: a positive integer (unset: Core's default, 60 000). One that is not (`timeout-ms="abc"` reads as NaN, a bare `timeout-ms` as 0) leaves the tool out, with the reason in `invalidReason`.
 * @attr {string} schema - The args schema as JSON text. Exactly one of four ways to declare it: this attribute, an inline `<script type="application/json">`, `<pedelec-arg>` children, or the `argsSchema` property.
 * @attr {boolean} disabled - Leaves the tool out of the manifest; calls to it get `TOOL_UNAVAILABLE`.
 * @attr {string} title - A human-readable name, for foreign agents that show one (WebMCP, MCP). Not sent to Pedelec.
 * @attr {boolean} read-only - Tells foreign agents (WebMCP, MCP) that the tool changes nothing (property `readOnly`).
 * @attr {boolean} untrusted-content - Tells foreign agents that results may hold content the page does not vouch for (property `untrustedContent`).
 * @attr {boolean} private - Offered to the Pedelec agent only, never to foreign agents (WebMCP, MCP).
 * @attr {boolean} consequential - A person approves each agent's call before the handler runs (the page's `pedelec-tool-approval` answer, else the chat's card); foreign agents are told (WebMCP `consequentialHint`, MCP `destructiveHint`). `invoke()` needs no approval.
 * @attr {boolean} approval-editable - With `consequential`: the person approving may edit the arguments (property `approvalEditable`).
 * @attr {number} approval-timeout-ms - With `consequential`: how long a call waits for a person, in ms (property `approvalTimeoutMs`; unset: the session's `approval-timeout-ms`, else 300 000). Then `TOOL_APPROVAL_TIMEOUT`.
 * @attr {string} form - The id of a `<form>` (in the tool's document or shadow root) that is the tool: its schema (unless declared otherwise) and its inline handler, which fills, checks and submits it.
 * @attr {boolean} autosubmit - With `form`: a call submits the form; without, it waits for the user to submit it (`:state(awaiting-submit)`).
 * @attr {boolean} invalid - Reflected (output): the declaration is invalid and left out of the manifest; see `invalidReason`.
 *
 * @prop {ToolSpecificHandler | undefined} handler - The handler (JS only). Changing it is never a tool change.
 * @prop {RenderToolResult | undefined} renderResult - How `<pedelec-chat>` shows a result in the call's row (JS only): `(result, { args, tool, error }) => Node | string | null`; a string is text, never HTML; null (or a throw) shows the JSON.
 * @prop {ToolArgsSchema | undefined} argsSchema - The args schema as an object (JS only). Assign a new object to change it.
 * @prop {ToolDefinition | null} definition - Read-only: the definition built from all of the above (null when its args schema cannot be read; other problems show in `invalidReason`).
 * @prop {string | null} invalidReason - Read-only: why the declaration is left out, or null.
 *
 * @fires {PedelecToolApprovalEvent} pedelec-tool-approval - A consequential call waits for a person: answer with `respondWith(true | false | { approved, reason?, args? })` (bubbles, composed, not cancelable).
 * @fires {PedelecToolCallEvent} pedelec-tool-call - A call to answer with `respondWith()` or `deny()` (bubbles, composed, not cancelable).
 * @cssstate awaiting-submit - A call filled the tool's `form` and waits for the user to submit it.
 * @slot - `<pedelec-arg>` children or one `<script type="application/json">` holding the schema.
 */
export class PedelecToolElement extends ReactiveElement {
  /**
   * Registers the element as `tag` (default `pedelec-tool`) in `registry` (default the page's
   * `customElements`). A tag already taken there is left as it is.
   */
  static define(tag = TOOL_TAG, registry: CustomElementRegistry | undefined = globalThis.customElements): void {
    defineElement(tag, this, registry);
  }

  static override properties = {
    name: { type: String },
    description: { type: String },
    timeoutMs: { type: Number, attribute: 'timeout-ms' },
    schema: { type: String },
    disabled: { type: Boolean },
    readOnly: { type: Boolean, attribute: 'read-only' },
    untrustedContent: { type: Boolean, attribute: 'untrusted-content' },
    private: { type: Boolean },
    consequential: { type: Boolean },
    approvalEditable: { type: Boolean, attribute: 'approval-editable' },
    approvalTimeoutMs: { type: Number, attribute: 'approval-timeout-ms' },
    handler: { attribute: false },
    argsSchema: { attribute: false },
  };

  static {
    declarationOf = (tool) => {
      if (tool.#membership.takeChanges()) tool.#reading = null;
      return (tool.#reading ??= tool.#read());
    };
    setInvalid = (tool, reason) => {
      tool.#reason = reason;
      tool.toggleAttribute('invalid', reason !== null);
    };
  }

  declare name: string | null;
  declare description: string | null;
  declare timeoutMs: number | null;
  declare schema: string | null;
  declare disabled: boolean;
  declare readOnly: boolean;
  declare untrustedContent: boolean;
  declare private: boolean;
  declare consequential: boolean;
  declare approvalEditable: boolean;
  declare approvalTimeoutMs: number | null;
  declare handler: ToolSpecificHandler | undefined;
  declare argsSchema: ToolArgsSchema | undefined;
  /** A plain property, not a declaration input: read when a result arrives, as set then. */
  declare renderResult: RenderToolResult | undefined;

  // <pedelec-arg> children and an inline JSON script are part of the declaration, and so is `form`
  // (form-link.ts). `title` (the global attribute, with its native property) is not, but foreign
  // agents read it: its change is a change.
  readonly #membership = new Membership(this, {
    childList: true,
    subtree: true,
    attributeFilter: [...DECLARATION_ATTRIBUTES, 'title', 'form'],
    characterData: true,
  });
  #reason: string | null = null;
  /**
   * The last reading of the markup, until a property, an attribute or a child changes: a rebuild after
   * one change re-reads one tool, and the session can tell an unchanged tool by identity.
   */
  #reading: ToolDeclaration | null = null;

  constructor() {
    super();
    this.name = null;
    this.description = null;
    this.timeoutMs = null;
    this.schema = null;
    this.disabled = false;
    this.readOnly = false;
    this.untrustedContent = false;
    this.private = false;
    this.consequential = false;
    this.approvalEditable = false;
    this.approvalTimeoutMs = null;
  }

  /** Renders nothing: no render root of its own (hidden.ts adds a hidden shadow root where one is needed). */
  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    hideDeclaration(this);
  }

  /** Read-only: why this declaration is left out of the manifest, or null. */
  get invalidReason(): string | null {
    return this.#reason;
  }

  /** Read-only: the `ToolDefinition` this element declares now (with its handler), or null when unreadable. */
  get definition(): ToolDefinition | null {
    // A fresh reading: the caller may change what it gets without touching the cached one.
    const declared = this.#read();
    return declared.ok ? { ...declared.definition, ...(this.handler ? { handler: this.handler } : {}) } : null;
  }

  /**
   * Anything but a new handler changes the declaration (handlers are looked up at call time). The
   * first update is no change: nothing read the tool before it, and joining its session queued a build.
   */
  protected override willUpdate(changed: PropertyValues<this>): void {
    if (this.hasUpdated && [...changed.keys()].some((name) => name !== 'handler')) this.#membership.changed();
  }

  #read(): ToolDeclaration {
    checkAttributes(this, [...PedelecToolElement.observedAttributes, 'form', 'autosubmit', 'invalid']);
    const name = this.name;
    // `undefined` too is no schema attribute: a framework unbinding `schema` sets it.
    const source = readSchema(this, this.schema ?? null, this.argsSchema, formSchema(this));
    if (!source.ok) return { ...source, name };
    const definition: Record<string, unknown> = {
      name,
      description: this.description ?? '',
      argsSchema: source.schema,
    };
    // Checked with the rest of the definition, so a bad value is reported like any other.
    if (this.timeoutMs !== null && this.timeoutMs !== undefined) definition.timeoutMs = this.timeoutMs;
    if (this.consequential) {
      definition.consequential = true;
      if (this.approvalEditable) definition.approvalEditable = true;
      if (this.approvalTimeoutMs !== null && this.approvalTimeoutMs !== undefined)
        definition.approvalTimeoutMs = this.approvalTimeoutMs;
    }
    return { ok: true, definition: definition as ToolDefinition, owned: source.owned };
  }
}
