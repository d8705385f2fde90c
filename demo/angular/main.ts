// Entry of the Angular demo page (bundled by scripts/build-demos.mjs; `npm start` serves it at /angular/).
// Just-in-time compilation: the compiler is loaded before the component is declared.
import '@angular/compiler';
import 'pedelec-elements/define.js';
import { bootstrapCounterApp } from './app.js';

// Served by pedelec-dev: its bridge is on this host. `?bridge=extension` uses the Pedelec extension.
const bridge = new URLSearchParams(location.search).get('bridge') === 'extension' ? undefined : `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/bridge`;
bootstrapCounterApp({ bridge }).catch((error) => console.error(error));
