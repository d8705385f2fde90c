/**
 * An artifact in the chat's transcript, where it arrived: a raster image inline, any other file a
 * download link, or what the page's `renderArtifact` makes of it. A chunk of its own, loaded when a
 * chat sees its first artifact: most conversations have none.
 */
import { css } from 'lit';
import type { PedelecSession, ProviderArtifact } from '../../core/index.js';
import { speakUp } from '../speak-up.js';

/** What a page's renderer gets besides the artifact: `read()` resolves the file's contents. */
export type ArtifactTools = { read(): Promise<File> };

/** A page's own artifact view: a Node to show, or null for the chat's default. */
export type RenderArtifact = (artifact: ProviderArtifact, tools: ArtifactTools) => Node | null;

/** The chat, as the row reads it when the artifact arrives. */
type ArtifactHost = HTMLElement & { renderArtifact?: RenderArtifact | undefined };

/**
 * The only types shown in the page: raster images run no script. SVG can, HTML and PDF are documents:
 * those, and every other file, are downloaded, never opened in the page's origin.
 */
const INLINE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** Adopted by the chat's shadow root (a style sheet, not a `<style>`: a page's CSP may forbid inline styles). */
const artifactStyles = css`
  [part~='artifact'] {
    display: block;
  }
  [part~='artifact'] img {
    display: block;
    max-width: 100%;
    max-height: 20rem;
    border-radius: var(--_radius);
  }
`;

/** Chats whose renderer's throw was reported: once per chat is enough to find it. */
const reported = new WeakSet<HTMLElement>();

/**
 * The row's element. It holds a blob URL only while it is in the document: a row trimmed, a
 * conversation reset or a chat removed revokes it, and a row shown again gets a fresh one. Part of the
 * chat's rendering, not of the kit's API.
 * @internal
 */
class ArtifactView extends HTMLElement {
  #blob: Blob | null = null;
  #target: HTMLImageElement | HTMLAnchorElement | null = null;
  #url = '';

  /** Shows `blob` in `target` (its `src` or `href`) for as long as the row is in the document. */
  hold(target: HTMLImageElement | HTMLAnchorElement, blob: Blob): void {
    this.#target = target;
    this.#blob = blob;
    if (this.isConnected) this.connectedCallback();
  }

  connectedCallback(): void {
    const root = this.getRootNode();
    const sheet = artifactStyles.styleSheet;
    if (root instanceof ShadowRoot && sheet && !root.adoptedStyleSheets.includes(sheet))
      root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
    const target = this.#target;
    if (!target || !this.#blob || this.#url) return;
    this.#url = URL.createObjectURL(this.#blob);
    if (target instanceof HTMLImageElement) target.src = this.#url;
    else target.href = this.#url;
  }

  disconnectedCallback(): void {
    if (!this.#url) return;
    URL.revokeObjectURL(this.#url);
    this.#url = '';
  }
}

const ARTIFACT_VIEW_TAG = 'pedelec-chat-artifact';
if (!customElements.get(ARTIFACT_VIEW_TAG)) customElements.define(ARTIFACT_VIEW_TAG, ArtifactView);

/**
 * Fills the row the chat placed for `artifact`: the page's renderer's Node, or (null, a throw) the
 * chat's own view. The file is read from `session`, the one it arrived on.
 */
export function fillArtifactRow(
  row: HTMLElement,
  artifact: ProviderArtifact,
  session: Pick<PedelecSession, 'readAsset'> | null | undefined,
  chat: ArtifactHost,
): void {
  // Async: a session already gone is a read that failed, not a throw.
  const read = async () => session!.readAsset(artifact.path, 'file');
  const view = new ArtifactView();
  view.setAttribute('part', 'artifact');
  let own: Node | null = null;
  try {
    own = chat.renderArtifact?.(artifact, { read }) ?? null;
  } catch (thrown) {
    if (!reported.has(chat)) speakUp('rendererFailed', 'renderArtifact', 'the artifact itself', thrown, chat);
    reported.add(chat);
  }
  if (own) view.append(own);
  else if (INLINE_TYPES.includes(artifact.mimeType)) showImage(view, artifact, read);
  else showDownload(view, artifact, read);
  row.append(view);
}

function showImage(view: ArtifactView, artifact: ProviderArtifact, read: () => Promise<File>): void {
  const image = document.createElement('img');
  image.alt = artifact.name;
  view.append(image);
  read().then(
    (file) => view.hold(image, new Blob([file], { type: artifact.mimeType })),
    () => unreadable(view, artifact),
  );
}

/** A link that saves the file: typed as bytes, so no browser renders it in the page's origin. */
function showDownload(view: ArtifactView, artifact: ProviderArtifact, read: () => Promise<File>): void {
  const link = document.createElement('a');
  link.download = artifact.name;
  link.textContent = artifact.name;
  view.append(link);
  read().then(
    (file) => view.hold(link, new Blob([file], { type: 'application/octet-stream' })),
    () => unreadable(view, artifact),
  );
}

function unreadable(view: ArtifactView, artifact: ProviderArtifact): void {
  view.textContent = `${artifact.name} (could not be read)`;
}
