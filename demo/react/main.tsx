// Entry of the React demo page (bundled by scripts/build-demos.mjs; `npm start` serves it at /react/).
// The elements are defined before React renders, so React 19 sets `handler={fn}` as a property.
import 'pedelec-elements/define.js';
import { mountCounterApp } from './app.js';

// Served by pedelec-dev: its bridge is on this host. `?bridge=extension` uses the Pedelec extension.
const bridge = new URLSearchParams(location.search).get('bridge') === 'extension' ? undefined : `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/bridge`;
mountCounterApp(document.getElementById('app')!, { bridge });
