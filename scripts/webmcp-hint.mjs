// `npm start`: says how to see the demo's tools from the browser's own agent (WebMCP). The demo's
// session has `webmcp`; browsers ship WebMCP behind a switch, so nothing registers until it is on.
// Starts nothing: the server's own banner follows.
import { DEFAULT_PORT } from '../packages/pedelec-dev/dist/server.js';

console.log(
  [
    "WebMCP: the main demo also offers its tools to the browser's own agent (<pedelec-session webmcp>).",
    '  Open it in Chromium with WebMCP on:',
    `    chromium --enable-features=WebMCP http://127.0.0.1:${DEFAULT_PORT}/`,
    '  (Firefox: set dom.modelcontext.enabled in about:config.)',
  ].join('\n'),
);
