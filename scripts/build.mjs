// Bundles the CLI into one ESM file (dist/cli.js) with its dependencies, for npm, the container
// image and the single executable. Fast (esbuild), so `npm install` runs it as `prepare`.
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { inkWithoutDevtools } from './esbuild-plugins.mjs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
mkdirSync('dist', { recursive: true });
await build({
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/cli.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  jsx: 'automatic',
  sourcemap: 'linked',
  legalComments: 'none',
  // React's development build is several times slower per frame (measured by the console bench):
  // the product always ships the production build.
  define: {
    __VERSION__: JSON.stringify(pkg.version),
    'process.env.DEV': '"false"',
    'process.env.NODE_ENV': '"production"',
  },
  // Ink's devtools hook imports the optional react-devtools-core; emptied (see esbuild-plugins.mjs).
  plugins: [inkWithoutDevtools()],
  // Bundled CJS dependencies call require(); give ESM output a real one.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning',
});
chmodSync('dist/cli.js', 0o755);
