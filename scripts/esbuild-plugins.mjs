// esbuild plugins shared by scripts/build.mjs (ESM bundle) and scripts/build-binary.mjs (CJS for the SEA),
// and the ESM bundle's settings, shared by scripts/build.mjs and the tests that run the CLI as a process.
import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';

/**
 * Ink's React-devtools hook (ink/build/devtools.js) statically imports `react-devtools-core`, an
 * optional package that is not installed. Ink loads the hook only when DEV=true, which the bundles
 * define as "false". If the hook stayed in the bundle, its static import would still be resolved when
 * dist/cli.js loads, and it would fail (ERR_MODULE_NOT_FOUND), so the hook is emptied.
 * `cjs: true` also drops the DEV-only top-level awaits in ink/build/reconciler.js, which CommonJS
 * cannot express. If an Ink upgrade adds another top-level await, esbuild fails loudly rather than
 * shipping it.
 */
export function inkWithoutDevtools({ cjs = false } = {}) {
  return {
    name: 'ink-without-devtools',
    setup(b) {
      b.onLoad({ filter: /[\\/]ink[\\/]build[\\/]devtools\.js$/ }, () => ({
        loader: 'js',
        contents: 'export {};',
      }));
      if (!cjs) return;
      b.onLoad({ filter: /[\\/]ink[\\/]build[\\/]reconciler\.js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const patched = source
          .replace("await import('./devtools.js')", "import('./devtools.js')")
          .replace('await loadPackageJson()', '{}');
        return { loader: 'js', contents: patched };
      });
    },
  };
}

/**
 * yoga-layout (Ink's layout engine) awaits its wasm at top level, which CommonJS cannot express.
 * This replaces its index with one that exports a Proxy plus a `yogaReady` promise. The SEA main
 * awaits that promise before it loads the CLI; Ink only touches Yoga when it renders.
 */
export function yogaWithoutTopLevelAwait() {
  return {
    name: 'yoga-without-top-level-await',
    setup(b) {
      b.onLoad({ filter: /yoga-layout[\\/]dist[\\/]src[\\/]index\.js$/ }, () => ({
        loader: 'js',
        contents: `
import loadYoga from '../binaries/yoga-wasm-base64-esm.js';
import wrapAssembly from './wrapAssembly.js';
let yoga;
export const yogaReady = loadYoga().then((assembly) => { yoga = wrapAssembly(assembly); });
const Yoga = new Proxy({}, {
  get(_target, key) {
    if (yoga === undefined) throw new Error('yoga-layout used before yogaReady resolved');
    return yoga[key];
  },
});
export default Yoga;
export * from './generated/YGEnums.js';
`,
      }));
    },
  };
}

/**
 * yoga-layout's Emscripten loader fetches its own wasm from a data: URL whenever `fetch` exists,
 * which in Node loads undici (Node's fetch) at start-up just to decode base64: ~70–90 ms of CPU
 * before the console's first frame (bench/README.md profile; bare `loadYoga()` 100–145 ms vs 40–55 ms).
 * Its fallback decodes the same data: URL synchronously, so the patch takes that branch. Added by
 * the console start-up work; the build fails if a yoga-layout upgrade changes the code.
 */
export function yogaWithoutFetch() {
  const from = '"function"!=typeof fetch?Promise.resolve()';
  return {
    name: 'yoga-without-fetch',
    setup(b) {
      b.onLoad({ filter: /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes(from))
          throw new Error(`yoga-without-fetch: "${from}" not found in ${args.path}`);
        return { loader: 'js', contents: source.replace(from, '!0?Promise.resolve()') };
      });
    },
  };
}

/**
 * Ink draws every frame from scratch: each text on screen is tokenized into one styled-character
 * object per cell (ink/build/output.js, `OutputCaches`), and those caches die with the frame. A
 * cursor move changes two lines of the 1,000-session table, yet all ~50 lines were tokenized again:
 * ~a third of a key's frame and most of its garbage (bench/README.md, console). The results are
 * pure functions of the text (the cells are never mutated: a cut wide character becomes a new
 * cell), so a frame here starts from the entries the previous frame used, and keeps only those it
 * uses itself: the cache holds at most two frames' texts. The console renders no `<Static>` (the
 * only other Output, which would hand the next frame an empty cache: correct, only slower). The
 * build fails if an Ink upgrade changes the lines patched.
 */
export function inkOutputCachesAcrossFrames() {
  const edits = [
    // The previous frame's caches, looked up on a miss (and the link cut, so only two live).
    [
      'class OutputCaches {\n    widths = new Map();\n    blockWidths = new Map();\n    styledChars = new Map();\n',
      'let lastFrameCaches;\nfunction carried(caches, kind, key) {\n    return caches.previous?.[kind].get(key);\n}\nclass OutputCaches {\n    widths = new Map();\n    blockWidths = new Map();\n    styledChars = new Map();\n    previous = lastFrameCaches;\n    constructor() {\n        if (this.previous)\n            this.previous.previous = undefined;\n        lastFrameCaches = this;\n    }\n',
    ],
    [
      'let cached = this.styledChars.get(line);\n        if (cached === undefined) {\n',
      "let cached = this.styledChars.get(line) ?? carried(this, 'styledChars', line);\n        if (cached !== undefined)\n            this.styledChars.set(line, cached);\n        else {\n",
    ],
    [
      'let cached = this.widths.get(text);\n        if (cached === undefined) {\n',
      "let cached = this.widths.get(text) ?? carried(this, 'widths', text);\n        if (cached !== undefined)\n            this.widths.set(text, cached);\n        else {\n",
    ],
    [
      'let cached = this.blockWidths.get(text);\n        if (cached === undefined) {\n',
      "let cached = this.blockWidths.get(text) ?? carried(this, 'blockWidths', text);\n        if (cached !== undefined)\n            this.blockWidths.set(text, cached);\n        else {\n",
    ],
  ];
  return sourceEdits('ink-output-caches-across-frames', /[\\/]ink[\\/]build[\\/]output\.js$/, edits);
}

/**
 * Ink measures each text node's width twice: for the layout (ink/build/measure-text.js, cached by
 * text in an LRU of 4,096) and again, uncached, when it draws the node (render-node-to-output.js
 * `widestLine(text)`, a string-width scan of every text on screen each frame). The drawing asks the
 * layout's cache instead: the same function of the same text (measureText is widestLine for a
 * non-empty text, the only case drawn), found there since the layout of that frame measured it.
 * Profiled in-process at 1,000 sessions: string-width was the largest item of a cursor move's frame.
 * The build fails if an Ink upgrade changes the lines patched.
 */
export function inkTextWidthsMeasuredOnce() {
  return sourceEdits('ink-text-widths-measured-once', /[\\/]ink[\\/]build[\\/]render-node-to-output\.js$/, [
    ["import widestLine from 'widest-line';\n", "import measureText from './measure-text.js';\n"],
    ['const currentWidth = widestLine(text);', 'const currentWidth = measureText(text).width;'],
  ]);
}

/** A plugin that applies `edits` (exact text → replacement) to the files `filter` matches, or fails the build. */
function sourceEdits(name, filter, edits) {
  return {
    name,
    setup(b) {
      b.onLoad({ filter }, (args) => {
        let source = readFileSync(args.path, 'utf8');
        for (const [from, to] of edits) {
          if (!source.includes(from))
            throw new Error(`${name}: ${JSON.stringify(from)} not found in ${args.path}`);
          source = source.replace(from, to);
        }
        return { loader: 'js', contents: source };
      });
    },
  };
}

/**
 * zod's `z.locales` re-exports every translation of its error messages (46 files, 368 KB of the
 * 755 KB zod bundles), and the console loads zod before its first frame (the journal and manifest
 * schemas, src/engine/actions/). The product sets no locale: zod's schemas use English
 * (zod/v4/classic/schemas.js imports locales/en.js itself), so the index keeps English only.
 * Measured on the bundled zod import alone: ~90 → ~60 ms of CPU and ~4 MB less resident memory
 * (bench/README.md, console). The build fails if a zod upgrade changes the index's English line.
 */
export function zodEnglishOnly() {
  const en = 'export { default as en } from "./en.js";';
  return {
    name: 'zod-english-only',
    setup(b) {
      b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes(en)) throw new Error(`zod-english-only: "${en}" not found in ${args.path}`);
        return { loader: 'js', contents: en };
      });
    },
  };
}

/**
 * Node's built-in modules, loaded when first used instead of through ESM imports. An ESM import of a
 * built-in builds its module namespace, which reads every export, lazy getters included: `node:fs`
 * alone then loads fs/promises, readline, streams and fs watchers, and the five built-ins a
 * `status --json` start imports cost ~17 ms of CPU over a bare start (~20 % of `node -e 0`;
 * bench/README.md "Start-up"). Here each built-in becomes a module of the bundle holding
 * `process.getBuiltinModule(id)` (Node >= 22.3; before that Node's `require`):
 * - for the project's own static imports, an ES module that exports the built-in's functions and
 *   values one by one, each read from the module object when that module runs and dropped by
 *   esbuild where nothing imports it; accessors (`fs.promises`, Node's lazy getters) are not
 *   exported, so importing one fails the build rather than loading it at start-up;
 * - for dependencies and for `import()` (whose namespace would read every export), a CommonJS module
 *   of the module object itself, as before.
 * Not a CommonJS module for both: esbuild's ESM interop gives every importing module its own copy of
 * a CommonJS module's exports, a getter per property (~100 for node:fs): ~190 kB of allocations and
 * ~3 ms of CPU in a `status --json` start, and a getter call on every `fs.readSync`.
 */
export function builtinsOnUse() {
  return {
    name: 'builtins-on-use',
    setup(b) {
      b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
        if (!isBuiltin(args.path) || args.namespace.startsWith('builtin')) return undefined;
        const id = args.path.startsWith('node:') ? args.path : `node:${args.path}`;
        const ours = args.kind === 'import-statement' && !/[\\/]node_modules[\\/]/.test(args.importer);
        return { path: id, namespace: ours ? 'builtin' : 'builtin-cjs' };
      });
      b.onLoad({ filter: /.*/, namespace: 'builtin-cjs' }, (args) => ({
        loader: 'js',
        contents: `module.exports = ${loadBuiltin(args.path)};`,
      }));
      b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
        loader: 'js',
        contents: builtinModule(args.path),
      }));
    },
  };
}

function loadBuiltin(id) {
  const quoted = JSON.stringify(id);
  return `(typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule(${quoted}) : require(${quoted}))`;
}

/**
 * The ES module for one built-in: its data properties as this Node has them (an export the running
 * Node lacks is undefined, as a property it lacks was). `pick` is pure, so unused exports go.
 */
function builtinModule(id) {
  const mod = process.getBuiltinModule(id);
  const names = Object.getOwnPropertyNames(mod).filter(
    (k) =>
      k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k) && 'value' in Object.getOwnPropertyDescriptor(mod, k),
  );

  return [
    `const m = ${loadBuiltin(id)};`,
    'const pick = (k) => m[k];',
    'export default m;',
    ...names.map(
      (k, i) => `const e${i} = /* @__PURE__ */ pick(${JSON.stringify(k)}); export { e${i} as ${k} };`,
    ),
  ].join('\n');
}

/**
 * How the CLI is bundled as ESM for Node: scripts/build.mjs (dist/, code-split) and the tests that
 * run the CLI as a real process (test/helpers/cli-bundle.ts, one file) both start from these, so a
 * test runs what ships. React's development build is several times slower per frame (measured by
 * the console bench): the product always ships the production build. Ink's devtools hook and Yoga's
 * fetch are removed by the plugins above. Bundled CJS dependencies call require(): ESM output gets
 * a real one from the banner.
 */
export function esmCliOptions(version) {
  return {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    jsx: 'automatic',
    define: {
      __VERSION__: JSON.stringify(version),
      'process.env.DEV': '"false"',
      'process.env.NODE_ENV': '"production"',
    },
    plugins: [
      inkWithoutDevtools(),
      inkOutputCachesAcrossFrames(),
      inkTextWidthsMeasuredOnce(),
      yogaWithoutFetch(),
      zodEnglishOnly(),
      builtinsOnUse(),
    ],
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  };
}
