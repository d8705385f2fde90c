/**
 * What a `<pedelec-session>` declares, as a Lit reactive controller: its members (`<pedelec-tool>`,
 * `<pedelec-guidance>`) in shadow-including tree order, plus the JS `tools`, built into normalized
 * tools at most once per update of the session element (a batch of changes costs one build); each problem and warning
 * reported once (not once per build); the guidance resolved; the manifest it would send now.
 */
import { speakUp } from '../speak-up.js';
import type { ReactiveController, ReactiveElement } from '@lit/reactive-element';
import { type PedelecError, type SerializableSkillsManifest, type ToolDefinition } from '../../core/index.js';
import { pedelecError } from '../../core/errors.js';
import { PedelecErrorEvent } from '../../events/error.event.js';
import { PedelecGuidanceElement } from '../guidance/pedelec-guidance.element.js';
import { anyMemberConnected, flushChanges, reregister, type SessionOwner } from '../registration.js';
import { updateNow } from '../update-now.js';
import { PedelecToolElement, setInvalid } from '../tool/pedelec-tool.element.js';
import type { ToolSource } from '../foreign-agents/host.js';
import { ToolRegistry, type ToolBuild } from './tool-registry.js';

/** What the declarations need from their session element, and tell it. */
export interface DeclarationsHost {
  /** The session element: its subtree holds the members. */
  readonly element: ReactiveElement;
  /** Extra JS-defined tools, merged after the declared ones. */
  tools(): ToolDefinition[];
  /** How long a consequential tool's call waits for a person unless the tool says (`toolApprovalTimeoutMs`). */
  approvalTimeoutMs(): number | undefined;
  /** The `guidance` attribute (null when absent). */
  guidance(): string | null;
  /** Dispatches one of the session's events: a declaration problem (`pedelec-error`, its element on `event.element`). */
  emit(event: Event): void;
  /** A non-fatal finding (`pedelec-warning`). */
  warn(warning: PedelecError): void;
  /** A build ran: the declarations may have changed. */
  rebuilt(): void;
  /** A member left; a microtask later it has not come back. */
  memberGone(member: Element): void;
}

const EMPTY_BUILD: ToolBuild = { tools: [], byName: new Map(), invalid: [], disabled: new Set() };

export class SessionDeclarations implements ReactiveController, SessionOwner {
  readonly #registry = new ToolRegistry();
  /** Registered `<pedelec-tool>` and `<pedelec-guidance>` elements. */
  readonly #members = new Set<Element>();
  /** A build waits for the session element's next update. */
  #queued = false;
  #built: ToolBuild = EMPTY_BUILD;
  #manifest: SerializableSkillsManifest | undefined;
  #guidanceError: PedelecError | null = null;
  /** The problems of the last build, by element (or JS tool name), so each is reported once. */
  #reported = new Map<Element | string, string>();
  /** The warnings of the last build, so each is reported once while it lasts. */
  #warned = new Set<string>();

  /**
   * Sources of tools besides the declared ones, each given the definitions so far (`webmcp="import"`
   * adds the page's WebMCP tools that no declared tool shadows).
   */
  readonly #sources: ToolSource[] = [];

  constructor(private readonly host: DeclarationsHost) {
    host.element.addController(this);
  }

  /** Adds a source of tools to the builds from the next one on; it asks for a build when its tools change. */
  addToolSource(source: ToolSource): void {
    this.#sources.push(source);
  }

  /** The tools as built by the last build (see {@link upToDate}). */
  get built(): ToolBuild {
    return this.#built;
  }

  /** The skills manifest the session would send now (undefined: no tools and no guidance). */
  get manifest(): SerializableSkillsManifest | undefined {
    return this.#manifest;
  }

  /** Guidance given twice (attribute and child): a start fails with it. */
  get guidanceError(): PedelecError | null {
    return this.#guidanceError;
  }

  /** How many builds ran (one per batch of changes). */
  get builds(): number {
    return this.#registry.builds;
  }

  get memberCount(): number {
    return this.#members.size;
  }

  get cachedDefinitions(): number {
    return this.#registry.cached;
  }

  /** How many declaration problems are remembered as reported (one per invalid declaration now). */
  get reportedProblems(): number {
    return this.#reported.size;
  }

  hostConnected(): void {
    // A session defined after its members: ask them to announce themselves again, so the nearest
    // session (maybe this one, maybe a nested one) takes each. Members connect after their session
    // when both arrive together, so with none connected yet there is no one to ask.
    if (anyMemberConnected()) {
      const members = this.#below((el) => el instanceof PedelecToolElement || el instanceof PedelecGuidanceElement);
      members.forEach(reregister);
    }
    this.queue();
  }

  adopt(member: Element): void {
    this.#members.add(member);
    this.queue();
  }

  release(member: Element): void {
    if (!this.#members.delete(member)) return;
    // After a microtask, and not if the member came back (a framework moving it, or its session).
    queueMicrotask(() => {
      if (!this.#members.has(member)) this.host.memberGone(member);
    });
    this.queue();
  }

  memberChanged(): void {
    this.queue();
  }

  /**
   * Queues one build. It runs in the session element's next update ({@link hostUpdate}): Lit updates an
   * element once for all the changes of a task, a microtask later, so a batch of changes costs one
   * build, and an element a framework moves (out and back within the task) costs none.
   */
  queue(): void {
    this.#queued = true;
    this.host.element.requestUpdate();
  }

  /** The session element updates (after its `willUpdate`, which queues a build when an input changed): the queued build runs. */
  hostUpdate(): void {
    if (this.#queued) this.#rebuild();
  }

  /**
   * Runs the queued build now, after the session's and its members' pending updates and undelivered
   * mutations (a property set, an arg's attribute or the guidance text changed in this task): start(),
   * invoke() and `manifest` use what the page just wrote.
   */
  upToDate(): void {
    updateNow(this.host.element);
    this.#members.forEach(flushChanges);
    this.hostUpdate();
  }

  /** One build per batch: order the members, normalize (cached), judge validity, report. */
  #rebuild(): void {
    this.#queued = false;
    const members = this.#orderedMembers();
    const toolElements = members.filter((member) => member instanceof PedelecToolElement);
    let definitions = this.host.tools();
    definitions = Array.isArray(definitions) ? definitions : [];
    for (const source of this.#sources) definitions = source(toolElements, definitions);
    const built = this.#registry.build(toolElements, definitions, this.host.approvalTimeoutMs());
    this.#built = built;

    const key = (problem: ToolBuild['invalid'][number]) => problem.element ?? `js:${problem.name}`;
    const reported = this.#reported;
    this.#reported = new Map(built.invalid.map((problem) => [key(problem), problem.error.message]));
    for (const element of toolElements) setInvalid(element, this.#reported.get(element) ?? null);
    for (const problem of built.invalid) {
      if (problem.quiet || reported.get(key(problem)) === problem.error.message) continue;
      this.host.emit(new PedelecErrorEvent({ error: problem.error }, problem.element));
      // A developer's mistake speaks up, always (not only with `debug`): a tool missing from what the
      // agent sees is otherwise a silent mystery. Once per cause, with the element to click on.
      speakUp('leftOut', problem.error.message, problem.element ?? this.host.element);
    }

    // A warning the previous build gave already is not repeated, and one whose tool went is
    // forgotten (a session whose tools come and go keeps no key per name it ever saw).
    const warned = this.#warned;
    this.#warned = new Set();
    for (const { tool } of built.tools) for (const warning of tool.warnings) this.#warn(warning, warned);
    // A member this copy of the kit cannot read: another copy defined its tag (a page loading the kit
    // twice, one copy per tag). Said, not dropped silently.
    for (const member of members) {
      if (!(member instanceof PedelecToolElement || member instanceof PedelecGuidanceElement)) {
        const message = `<${member.localName}> is from another copy of pedelec-elements: ignored`;
        this.#warn(pedelecError('FOREIGN_ELEMENT', message), warned);
      }
    }

    const guidance = this.#resolveGuidance(members.filter((member) => member instanceof PedelecGuidanceElement));
    const tools = built.tools.map((t) => t.tool.manifest);
    this.#manifest = tools.length > 0 || guidance !== '' ? { guidance, tools } : undefined;
    this.host.rebuilt();
  }

  #warn(warning: PedelecError, before: Set<string>): void {
    const key = `${warning.code}:${warning.message}`;
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    if (!before.has(key)) this.host.warn(warning);
  }

  #resolveGuidance(children: PedelecGuidanceElement[]): string {
    const attribute = this.host.guidance();
    if (attribute != null && children.length > 0) {
      // The attribute wins; the conflict is reported once, until it is resolved.
      const error = pedelecError(
        'INVALID_INPUT',
        'guidance is given both as the guidance attribute and as <pedelec-guidance>',
        {
          reason: 'guidance given twice',
        },
      );
      if (!this.#guidanceError) this.host.emit(new PedelecErrorEvent({ error }, children[0]));
      this.#guidanceError = error;
    } else this.#guidanceError = null;
    return (
      attribute ??
      children
        .map((g) => g.text)
        .filter(Boolean)
        .join('\n\n')
    );
  }

  /** Registered members in shadow-including tree order; any the walk cannot see (closed roots) last. */
  #orderedMembers(): Element[] {
    const members = this.#members;
    if (members.size === 0) return [];
    const ordered = this.#below((el) => members.has(el));
    if (ordered.length < members.size) {
      const seen = new Set(ordered);
      for (const el of members) if (!seen.has(el)) ordered.push(el);
    }
    return ordered;
  }

  /** The elements below the session that pass `test`, in shadow-including tree order (open roots only). */
  #below(test: (el: Element) => boolean): Element[] {
    const found: Element[] = [];
    const visit = (root: Element | ShadowRoot) => {
      for (const el of root.querySelectorAll('*')) {
        if (test(el)) found.push(el);
        if (el.shadowRoot) visit(el.shadowRoot);
      }
    };
    visit(this.host.element);
    return found;
  }
}
