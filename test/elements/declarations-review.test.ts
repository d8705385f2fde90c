/**
 * Markup → manifest, found in review (spec/elements.md: "Whatever the source, the resulting argsSchema
 * is identical to the equivalent JSON"; a bad timeout-ms leaves the tool out); each test failed before
 * its fix: nested args and `items` on an arg of another type are kept and warned about, as in JSON;
 * an empty timeout-ms is refused.
 */
import { expect } from '@open-wc/testing';
import '../../src/define.js';
import type {
  PedelecErrorEvent,
  PedelecSessionElement,
  PedelecToolElement,
  PedelecWarningEvent,
} from '../../src/index.js';
import { installFakeChrome, manifestTool, mountHost, nextTask, record, uninstallFakeChrome } from './helpers.js';

const warningPaths = (events: PedelecWarningEvent[], tool: string) =>
  events
    .map((e) => e.detail.warning.details as { tool: string; path: string })
    .filter((d) => d.tool === tool)
    .map((d) => d.path);

describe('declarations: markup kept as the equivalent JSON', () => {
  beforeEach(() => installFakeChrome());
  afterEach(() => uninstallFakeChrome());

  it('an items attribute on a non-array arg is kept (and warned about) exactly as the equivalent JSON', async () => {
    const host = await mountHost();
    const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
    host.innerHTML = `<pedelec-session>
      <pedelec-tool name="by_args" description="d"><pedelec-arg name="tags" items="string"></pedelec-arg></pedelec-tool>
      <pedelec-tool name="by_json" description="d"
        schema='{"type":"object","properties":{"tags":{"type":"string","items":{"type":"string"}}}}'></pedelec-tool>
    </pedelec-session>`;
    await nextTask();
    const session = host.querySelector('pedelec-session') as PedelecSessionElement;
    expect(warningPaths(warnings, 'by_json')).to.deep.equal(['argsSchema.properties.tags.items']);
    // Markup: `items` silently vanishes, no warning (whereas minimum="3" on a string is kept and warned).
    expect(manifestTool(session, 'by_args').argsSchema).to.deep.equal(manifestTool(session, 'by_json').argsSchema);
    expect(warningPaths(warnings, 'by_args')).to.deep.equal(['argsSchema.properties.tags.items']);
  });

  it('nested args under an arg that is not an object/array are not dropped without a word', async () => {
    const host = await mountHost();
    const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
    // type="object" forgotten on the parent: the agent is told `filter` is a plain string.
    host.innerHTML = `<pedelec-session>
      <pedelec-tool name="by_args" description="d">
        <pedelec-arg name="filter"><pedelec-arg name="field" required></pedelec-arg></pedelec-arg>
      </pedelec-tool>
      <pedelec-tool name="by_json" description="d"
        schema='{"type":"object","properties":{"filter":{"type":"string","properties":{"field":{"type":"string"}},"required":["field"]}}}'></pedelec-tool>
    </pedelec-session>`;
    await nextTask();
    const session = host.querySelector('pedelec-session') as PedelecSessionElement;
    expect(warningPaths(warnings, 'by_json')).to.include('argsSchema.properties.filter.properties');
    expect(manifestTool(session, 'by_args').argsSchema).to.deep.equal(manifestTool(session, 'by_json').argsSchema);
    expect(warningPaths(warnings, 'by_args')).to.include('argsSchema.properties.filter.properties');
  });

  it('an enum that starts like a JSON array but is not JSON is malformed (INVALID_INPUT at its path), not split on commas', async () => {
    const host = await mountHost();
    const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
    host.innerHTML = `<pedelec-session>
      <pedelec-tool name="t" description="d"><pedelec-arg name="mode" enum="['fast','exact']"></pedelec-arg></pedelec-tool>
    </pedelec-session>`;
    await nextTask();
    const tool = host.querySelector('pedelec-tool') as PedelecToolElement;
    expect(tool.invalidReason ?? '(null: accepted)').to.contain('argsSchema.properties.mode.enum');
    expect(errors.map((e) => (e.detail.error.details as { path?: string }).path)).to.deep.equal([
      'argsSchema.properties.mode.enum',
    ]);
  });

  it('timeout-ms="" (or a bare timeout-ms) is a bad timeout-ms, not "no timeout"', async () => {
    const host = await mountHost();
    const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
    host.innerHTML = `<pedelec-session>
      <pedelec-tool name="empty" description="d" timeout-ms=""></pedelec-tool>
      <pedelec-tool name="bare" description="d" timeout-ms></pedelec-tool>
      <pedelec-tool name="blank" description="d" timeout-ms=" "></pedelec-tool>
    </pedelec-session>`;
    await nextTask();
    const session = host.querySelector('pedelec-session') as PedelecSessionElement;
    // " " is already refused ("tool timeoutMs must be a positive integer"); "" is silently accepted.
    expect((host.querySelector('[name=blank]') as PedelecToolElement).invalidReason ?? '').to.match(
      /timeoutMs must be a positive integer/,
    );
    for (const name of ['empty', 'bare']) {
      const tool = host.querySelector(`[name=${name}]`) as PedelecToolElement;
      expect(tool.invalidReason ?? '(null: accepted)', name).to.match(/timeoutMs must be a positive integer/);
      expect(
        errors.filter((e) => e.element === tool),
        name,
      ).to.have.length(1);
    }
    expect(session.manifest === undefined, 'no tool in the manifest').to.equal(true);
  });
});
