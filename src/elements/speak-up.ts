/**
 * Says a developer's mistake on the console through developer-console.ts, loaded the first time one
 * is made: the line comes a moment later, and a page without mistakes downloads none of the words.
 */
import { lazyModule } from '../core/lazy-module.js';

type Lines = typeof import('./developer-console.js').lines;

const developerConsole = lazyModule(() => import('./developer-console.js'));

export function speakUp<K extends keyof Lines>(line: K, ...args: Parameters<Lines[K]>): void {
  developerConsole().then(
    ({ lines }) => (lines[line] as (...said: Parameters<Lines[K]>) => void)(...args),
    () => {}, // not loaded: there is no console line to give
  );
}
