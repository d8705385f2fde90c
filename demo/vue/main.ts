// Entry of the Vue demo page (bundled by scripts/build-demos.mjs; `npm start` serves it at /vue/).
import 'pedelec-elements/define.js';
import { createCounterApp, createInDomCounterApp } from './app.js';

// Served by pedelec-dev: its bridge is on this host. `?bridge=extension` uses the Pedelec extension.
const params = new URLSearchParams(location.search);
const bridge = params.get('bridge') === 'extension' ? undefined : `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/bridge`;
const root = document.getElementById('app')!;
if (params.has('compiled')) {
  root.replaceChildren();
  createCounterApp({ bridge }).mount(root);
} else {
  createInDomCounterApp({ bridge }).mount(root);
}
