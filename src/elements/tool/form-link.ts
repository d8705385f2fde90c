/**
 * What every `<pedelec-tool>` carries of `form`: loading the form binding (form-binding.ts, a lazy
 * chunk) the first time a tool with a `form` attribute is read. A page without one downloads nothing.
 */
import { lazyModule } from '../../core/lazy-module.js';
import { track } from '../arriving.js';
import { memberChanged } from '../registration.js';
import type { SchemaSource } from './declaration.js';
import type { PedelecToolElement } from './pedelec-tool.element.js';

/** The form binding, once loaded: the tools' schemas and handlers (form-binding.ts). */
export let binding: typeof import('./form-binding.js') | undefined;
const loadBinding = lazyModule(() => import('./form-binding.js').then((chunk) => (binding = chunk)));

/**
 * The schema a tool's `form` gives it, once the binding is loaded; undefined before (the load, which
 * starts wait for, reads the tool again) and without `form`.
 */
export function formSchema(tool: PedelecToolElement): SchemaSource | undefined {
  if (binding) return binding.schemaOf(tool);
  // Not fetched (offline, say): the next reading tries again.
  if (tool.hasAttribute('form'))
    track(
      tool.getRootNode(),
      loadBinding().then(() => memberChanged(tool)),
    );
}
