/**
 * What custom-elements.json documents for the four elements: each with a summary, and every attribute,
 * property, method and event elements.md gives them, with pedelec- prefixed event names only.
 */
import { expect } from '@open-wc/testing';
import '../../../src/define.js';
import { declarationHooks } from './harness.js';

describe('declarations', () => {
  declarationHooks();

  describe('custom-elements.json', () => {
    type Declaration = {
      tagName?: string;
      summary?: string;
      attributes?: Array<{ name: string }>;
      members?: Array<{ kind: string; name: string; privacy?: string; static?: boolean }>;
      events?: Array<{ name?: string }>;
    };
    let declarations: Map<string, Declaration>;

    before(async () => {
      const response = await fetch('/custom-elements.json');
      const manifest = (await response.json()) as { modules: Array<{ declarations?: Declaration[] }> };
      declarations = new Map();
      for (const module of manifest.modules)
        for (const d of module.declarations ?? []) if (d.tagName) declarations.set(d.tagName, d);
    });

    const attributes = (tag: string) => (declarations.get(tag)?.attributes ?? []).map((a) => a.name);
    const members = (tag: string, kind: string) =>
      (declarations.get(tag)?.members ?? [])
        .filter((m) => m.kind === kind && !m.static && m.privacy !== 'private' && m.privacy !== 'protected')
        .map((m) => m.name);
    const events = (tag: string) => (declarations.get(tag)?.events ?? []).map((e) => e.name);

    it('declares the four elements, each with a summary', () => {
      for (const tag of ['pedelec-session', 'pedelec-tool', 'pedelec-arg', 'pedelec-guidance']) {
        expect(declarations.has(tag), tag).to.equal(true);
        expect(declarations.get(tag)!.summary, `${tag} summary`).to.be.a('string').and.not.equal('');
      }
    });

    it('<pedelec-session>: every attribute, property, method and event of elements.md', () => {
      expect(attributes('pedelec-session')).to.include.members([
        'provider',
        'model',
        'guidance',
        'bridge',
        'bridge-timeout-ms',
        'extension-id',
        'autostart',
        'persist',
        'resume-id',
        'novalidate',
        'webmcp',
      ]);
      expect(attributes('pedelec-session')).to.not.include('session-id');
      // A property only: markup can never expose tools to another origin.
      expect(attributes('pedelec-session')).to.not.include.members(['exposedto', 'exposed-to']);
      expect(members('pedelec-session', 'field')).to.include.members([
        'session',
        'client',
        'manifest',
        'tools',
        'fallback',
        'toolsStale',
        'status',
        'sessionId',
        'bridge',
        'resumeId',
        'noValidate',
        'webmcp',
        'exposedTo',
        'webmcpTools',
      ]);
      expect(members('pedelec-session', 'method')).to.include.members([
        'start',
        'sendText',
        'prepare',
        'end',
        'restart',
        'checkAvailability',
        'onTool',
        'invoke',
      ]);
      expect(events('pedelec-session')).to.include.members([
        'pedelec-tool-start',
        'pedelec-tool-result',
        'pedelec-turn',
        'pedelec-ready',
        'pedelec-status',
        'pedelec-chat-delta',
        'pedelec-error',
        'pedelec-ended',
        'pedelec-tools-changed',
        'pedelec-warning',
      ]);
    });

    it('<pedelec-tool>: attributes, properties and its event', () => {
      expect(attributes('pedelec-tool')).to.include.members([
        'name',
        'description',
        'timeout-ms',
        'schema',
        'disabled',
        'title',
        'read-only',
        'untrusted-content',
        'private',
        'form',
        'autosubmit',
      ]);
      expect(members('pedelec-tool', 'field')).to.include.members([
        'readOnly',
        'untrustedContent',
        'private',
        'timeoutMs',
        'handler',
        'argsSchema',
        'definition',
        'invalidReason',
      ]);
      expect(events('pedelec-tool')).to.include.members(['pedelec-tool-call']);
    });

    it('<pedelec-arg>: every attribute of elements.md', () => {
      expect(attributes('pedelec-arg')).to.include.members([
        'name',
        'type',
        'required',
        'description',
        'enum',
        'minimum',
        'maximum',
        'min-length',
        'max-length',
        'pattern',
        'min-items',
        'max-items',
        'unique-items',
        'default',
        'examples',
        'items',
      ]);
    });

    it('<pedelec-chat>: `for` with its properties htmlFor and forElement', () => {
      expect(attributes('pedelec-chat')).to.include.members(['for', 'markdown']);
      expect(attributes('pedelec-chat')).to.not.include('session');
      expect(members('pedelec-chat', 'field')).to.include.members(['htmlFor', 'forElement', 'renderMarkdown']);
      expect(members('pedelec-chat', 'field')).to.not.include.members(['session', 'sessionElement']);
    });

    it('declares only pedelec- prefixed event names (no unnamed or analyzer-guessed events)', () => {
      for (const tag of ['pedelec-session', 'pedelec-tool', 'pedelec-arg', 'pedelec-guidance']) {
        const names = events(tag);
        for (const name of names)
          expect(name, `events of ${tag}: ${JSON.stringify(names)}`)
            .to.be.a('string')
            .and.match(/^pedelec-[a-z]+(-[a-z]+)*$/);
      }
    });
  });
});
