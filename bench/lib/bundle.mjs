// Bundling of bench entries (TypeScript that imports production modules) into .cache/bench/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export const PROJECT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const OUT_DIR = join(PROJECT, '.cache', 'bench');

// The CLI build's own esbuild plugins (scripts/esbuild-plugins.mjs: Ink without its devtools hook),
// so the bench bundles load exactly what dist/cli.js loads.
const shared = [];
try {
  const m = await import(pathToFileURL(join(PROJECT, 'scripts', 'esbuild-plugins.mjs')).href);
  if (m.inkWithoutDevtools) shared.push(m.inkWithoutDevtools());
  // Ink's output caches kept across frames, as dist/ ships them (the in-process console frames).
  if (m.inkOutputCachesAcrossFrames) shared.push(m.inkOutputCachesAcrossFrames());
  // Text widths drawn from the layout's cache, as dist/ ships it.
  if (m.inkTextWidthsMeasuredOnce) shared.push(m.inkTextWidthsMeasuredOnce());
} catch {
  // Older trees: fall back to leaving react-devtools-core external (see `external` below).
}

/**
 * Test helpers find their fixtures through import.meta.dirname/url, which in a bundle would point
 * at .cache/bench/: give each test/ file its own source location back. src/ is bundled untouched,
 * as scripts/build.mjs does.
 */
const testHelperPaths = {
  name: 'test-helper-paths',
  setup(b) {
    b.onLoad({ filter: /\/test\/.*\.tsx?$/ }, (a) => {
      const text = readFileSync(a.path, 'utf8')
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(a.path)))
        .replaceAll('import.meta.filename', JSON.stringify(a.path))
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(a.path).href));
      return { contents: text, loader: a.path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
};

/**
 * Bundles one TypeScript entry of bench/ the way scripts/build.mjs bundles the CLI (same esbuild
 * options, so production modules run as they do in dist/); returns an error text or undefined.
 */
export async function bundle(entry, outfile) {
  if (!existsSync(join(PROJECT, entry))) return `${entry} does not exist`;
  try {
    await build({
      absWorkingDir: PROJECT,
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      jsx: 'automatic',
      sourcemap: 'linked',
      logLevel: 'silent',
      define: {
        __VERSION__: JSON.stringify('bench'),
        'process.env.DEV': '"false"',
        // As scripts/build.mjs: the product ships React's production build.
        'process.env.NODE_ENV': '"production"',
      },
      external: ['react-devtools-core'],
      plugins: [testHelperPaths, ...shared],
      banner: {
        js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
      },
    });
    return undefined;
  } catch (e) {
    const first = e?.errors?.[0];
    return first
      ? `${first.text}${first.location ? ` (${first.location.file}:${first.location.line})` : ''}`
      : String(e);
  }
}
