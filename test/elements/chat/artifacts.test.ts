/**
 * Artifacts in <pedelec-chat>, where they arrived: a raster image inline (its name as alt text), any
 * other file — HTML, SVG with a script — a download link typed as bytes that runs nothing in the page,
 * and a page's `renderArtifact` used before the chat's own view (null falls back to it).
 */
import { expect } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecChatElement, PedelecSessionElement } from '../../../src/index.js';
import { until } from '../../support/waits.js';
import { available, start, core, fake, pageTurn, mountChat, shadow, update, chatHooks } from './harness.js';

declare global {
  interface Window {
    __artifactRan?: number;
  }
}

const SCRIPTED_HTML = '<!doctype html><p>report</p><script>window.__artifactRan = 1</script>';
const SCRIPTED_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" onload="window.__artifactRan = 2"><script>window.__artifactRan = 3</script></svg>';

/** A 2×2 PNG, drawn here rather than embedded. */
async function png(): Promise<Blob> {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 2;
  canvas.getContext('2d')!.fillRect(0, 0, 2, 2);
  return new Promise((resolve) => canvas.toBlob((blob) => resolve(blob!), 'image/png'));
}

/** The chat in a started session, in a user turn (artifacts belong to user turns). */
async function inTurn(): Promise<{ session: PedelecSessionElement; chat: PedelecChatElement }> {
  const mounted = await mountChat();
  await available();
  await start(mounted.session);
  await pageTurn(mounted.session, 'make something');
  return mounted;
}

/**
 * The agent publishes `name` (`mimeType`) holding `content`; the page's read of it is answered with a
 * download ticket whose URL serves those bytes.
 */
async function publish(name: string, mimeType: string, content: Blob): Promise<void> {
  const path = `/artifacts/${name}`;
  const artifact = { id: `artifact_${name}`, provider: 'codex', path, name, mimeType, sizeBytes: content.size };
  core('provider_artifact', {
    artifact: { ...artifact, kind: mimeType.startsWith('image/') ? 'image' : 'file', source: 'provider_artifact' },
  });
  const served = URL.createObjectURL(content);
  await fake.answer(
    'create_asset_download',
    { downloadUrl: served, token: 't', name, mimeType, path },
    (m) => m.path === path,
  );
}

const artifactRow = (chat: Element) =>
  until(() => shadow(chat).querySelector<HTMLElement>('[part~=artifact]'), 'the artifact row');

describe('<pedelec-chat>: artifacts', () => {
  chatHooks();
  afterEach(() => {
    delete window.__artifactRan;
  });

  it('shows a PNG inline where it arrived, its name as alt text, sized to fit the chat', async () => {
    const { chat } = await inTurn();
    core('chat_delta', { text: 'Here is the chart:' });
    await publish('chart.png', 'image/png', await png());
    core('chat_delta', { text: 'Anything else?' });
    const image = await until(
      () => shadow(chat).querySelector<HTMLImageElement>('[part~=artifact] img[src^="blob:"]'),
      'the image',
    );
    await image.decode();
    expect(image.alt).to.equal('chart.png');
    expect(image.naturalWidth).to.be.greaterThan(0);
    expect(getComputedStyle(image).maxWidth).to.equal('100%');
    await update(chat);
    const order = [...shadow(chat).querySelectorAll('[part~=agent],[part~=artifact]')].map((row) =>
      row.getAttribute('part'),
    );
    expect(order).to.deep.equal(['message agent', 'artifact', 'message agent']);
  });

  for (const [name, mimeType, content] of [
    ['report.html', 'text/html', SCRIPTED_HTML],
    ['logo.svg', 'image/svg+xml', SCRIPTED_SVG],
  ] as const) {
    it(`offers ${name} as a download typed as bytes: opening it runs nothing in the page`, async () => {
      const { chat } = await inTurn();
      await publish(name, mimeType, new Blob([content], { type: mimeType }));
      const row = await artifactRow(chat);
      expect(row.querySelector('img, iframe, object, embed')).to.equal(null);
      const link = await until(() => row.querySelector<HTMLAnchorElement>('a[href^="blob:"]'), 'the link');
      expect(link.getAttribute('download')).to.equal(name);
      expect(link.textContent).to.equal(name);
      const blob = await (await fetch(link.href)).blob();
      expect(blob.type).to.equal('application/octet-stream');
      expect(await blob.text()).to.equal(content);
      // Opened as a user would: the browser saves it rather than render it here. (Not in Firefox, whose
      // download panel takes the window's keyboard focus from the tests that follow.)
      if (!navigator.userAgent.includes('Firefox')) {
        const clicked = new Promise<void>((resolve) => link.addEventListener('click', () => resolve(), { once: true }));
        link.click();
        await clicked;
        await update(chat);
      }
      expect(window.__artifactRan).to.equal(undefined);
    });
  }

  it("revokes the file's URL when its row leaves the transcript", async () => {
    const { session, chat } = await inTurn();
    chat.maxMessages = 2;
    await publish('notes.txt', 'text/plain', new Blob(['hello']));
    const link = await until(
      () => shadow(chat).querySelector<HTMLAnchorElement>('[part~=artifact] a[href^="blob:"]'),
      'the link',
    );
    const url = link.href;
    expect(await (await fetch(url)).text()).to.equal('hello');
    core('status_changed', { status: 'idle' });
    await pageTurn(session, 'again');
    core('chat_delta', { text: 'more' });
    await until(() => !link.isConnected, 'the row to be trimmed');
    const read = await fetch(url).then(
      () => 'served',
      () => 'refused',
    );
    expect(read, 'the revoked URL serves nothing').to.equal('refused');
  });

  it("uses the page's renderArtifact, and the chat's own view when it returns null", async () => {
    const { chat } = await inTurn();
    const seen: string[] = [];
    chat.renderArtifact = (artifact, { read }) => {
      seen.push(artifact.name);
      if (!artifact.name.endsWith('.csv')) return null;
      const table = document.createElement('table');
      table.className = 'own';
      void read().then((file) => file.text().then((text) => (table.textContent = text)));
      return table;
    };
    await publish('data.csv', 'text/csv', new Blob(['a,b']));
    const own = await until(() => shadow(chat).querySelector<HTMLElement>('[part~=artifact] table.own'), 'the table');
    await until(() => own.textContent === 'a,b', 'the renderer to read the file');
    await publish('photo.png', 'image/png', await png());
    await until(() => shadow(chat).querySelector('[part~=artifact] img[alt="photo.png"]'), 'the default image');
    expect(seen).to.deep.equal(['data.csv', 'photo.png']);
  });

  it("shows the artifact itself when the page's renderArtifact throws, and says so once", async () => {
    const { chat } = await inTurn();
    chat.renderArtifact = () => {
      throw new Error('broken view');
    };
    const logged: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      await publish('a.png', 'image/png', await png());
      await publish('b.png', 'image/png', await png());
      await until(() => shadow(chat).querySelector('[part~=artifact] img[alt="b.png"]'), 'the second image');
      await until(() => logged.length > 0, 'the report');
    } finally {
      console.error = original;
    }
    expect(shadow(chat).querySelector('[part~=artifact] img[alt="a.png"]')).to.not.equal(null);
    expect(logged, 'one report for the chat, not one per artifact').to.have.length(1);
    expect(String(logged[0][0])).to.contain('renderArtifact failed');
    expect(logged[0][1]).to.have.property('message', 'broken view');
  });
});
