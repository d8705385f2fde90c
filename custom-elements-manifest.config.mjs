// How custom-elements.json is made (`cem analyze`, run by `npm run build` and `npm run docs`): the
// elements and the events, read with Lit's conventions, from their JSDoc.
/**
 * An attribute linked to a field by that field's own JSDoc (`@attr min-length` on `minLength`) is
 * listed before the class's `@attr` tags: put them back in the order the class's JSDoc gives them.
 */
function attributesInWrittenOrder() {
  const written = new Map(); // class name → its @attr names, in order
  return {
    name: 'pedelec-attributes-in-written-order',
    analyzePhase({ ts, node }) {
      if (!ts.isClassDeclaration(node) || !node.name) return;
      const names = ts
        .getJSDocTags(node)
        .filter((tag) => tag.tagName.text === 'attr' || tag.tagName.text === 'attribute')
        .map((tag) => /^\s*(?:\{[^}]*\}\s*)?\[?([\w-]+)/.exec(ts.getTextOfJSDocComment(tag.comment) ?? '')?.[1]);
      if (names.length > 0) written.set(node.name.text, names);
    },
    packageLinkPhase({ customElementsManifest }) {
      for (const module of customElementsManifest.modules) {
        for (const declaration of module.declarations ?? []) {
          const order = written.get(declaration.name);
          if (!order || !declaration.attributes) continue;
          const rank = (attribute) => (order.includes(attribute.name) ? order.indexOf(attribute.name) : order.length);
          declaration.attributes.sort((a, b) => rank(a) - rank(b));
        }
      }
    },
  };
}

export default {
  globs: ['src/elements/**/*.ts', 'src/events/**/*.ts'],
  litelement: true,
  quiet: true,
  // package.json already names the manifest; the analyzer would otherwise rewrite it on every run.
  packagejson: false,
  plugins: [
    {
      name: 'pedelec-own-detail-types',
      // `PedelecEvent<TDetail>` types `detail` by its type parameter, and the analyzer copies a base
      // class's member type over the subclass's own (`declare readonly detail: PedelecStatusDetail`):
      // every event would say `TDetail`. A member typed by a type parameter of its class leaves the type
      // to the subclasses, which declare it.
      analyzePhase({ ts, node, moduleDoc }) {
        if (!ts.isClassDeclaration(node) || !node.name || !node.typeParameters) return;
        const parameters = new Set(node.typeParameters.map((parameter) => parameter.name.text));
        const declaration = moduleDoc.declarations?.find((d) => d.name === node.name.text);
        for (const member of declaration?.members ?? []) {
          if (parameters.has(member.type?.text)) delete member.type;
        }
      },
    },
    attributesInWrittenOrder(),
    {
      name: 'pedelec-sorted-modules',
      // The analyzer lists modules in the order the file system gives them: sorted by path, the manifest
      // is the same on every machine, and a build leaves the committed file unchanged.
      packageLinkPhase({ customElementsManifest }) {
        customElementsManifest.modules.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      },
    },
  ],
};
