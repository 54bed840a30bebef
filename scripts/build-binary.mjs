// Builds the single executable `dist/iscsi-console` (Node's single executable application support,
// "SEA") for nodes that have no Node.js: the pinned Node 22 binary with the CLI injected as a blob.
//
// Node 22's SEA runs only a CommonJS main script, so this bundles a CJS variant of src/cli.ts
// (dist/cli.js, the npm entry, stays ESM). What does not survive CJS is handled here:
//  - yoga-layout (Ink's layout engine) awaits its wasm at top level: see yogaWithoutTopLevelAwait
//    in esbuild-plugins.mjs; the SEA main below awaits `yogaReady` before it loads the CLI.
//  - Ink 8 awaits at top level only inside `if (process.env.DEV === 'true')` (React devtools), dead
//    code here (DEV is defined "false"): see inkWithoutDevtools.
//  - `import.meta.url` becomes the executable's file URL.
// builtinsOnUse (esbuild-plugins.mjs) is not applied: it spares the ESM build the namespace an
// `import` of a built-in builds (fs/promises, readline, streams...); here a built-in is `require`d,
// which builds none (require of fs, os, path and module: 6 more of Node's modules; `import 'node:fs'`: 30).
// Usage: node scripts/build-binary.mjs   (npm run build:binary)
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import {
  inkOutputCachesAcrossFrames,
  inkTextWidthsMeasuredOnce,
  inkWithoutDevtools,
  yogaWithoutFetch,
  yogaWithoutTopLevelAwait,
  zodEnglishOnly,
} from './esbuild-plugins.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
const work = join(repo, 'dist', 'sea');
const main = join(work, 'main.cjs');
const blob = join(work, 'sea-prep.blob');
const output = join(repo, 'dist', 'iscsi-console');
// The sentinel Node's SEA loader looks for (node/src/node_sea.cc); postject flips it when injecting.
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

if (Number(process.versions.node.split('.')[0]) < 22) {
  console.error(
    `build-binary needs the pinned Node 22 (this is ${process.version}); run it as: npm run build:binary`,
  );
  process.exit(2);
}
const started = performance.now();
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

/** The SEA's main script: wait for Yoga's wasm, then run the normal entry (src/cli.ts). */
const seaEntry = `
import { yogaReady } from 'yoga-layout';
yogaReady.then(() => import('./src/cli.ts')).catch((e) => {
  process.stderr.write('iscsi-console: internal error: ' + (e && e.stack ? e.stack : String(e)) + '\\n');
  process.exit(1);
});
`;

await build({
  stdin: { contents: seaEntry, resolveDir: repo, sourcefile: 'sea-main.js', loader: 'js' },
  outfile: main,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  jsx: 'automatic',
  legalComments: 'none',
  minifyWhitespace: true,
  define: {
    __VERSION__: JSON.stringify(pkg.version),
    // src/cli.ts skips Node's compile cache here: the blob carries its own V8 code cache (useCodeCache).
    __SEA__: 'true',
    'process.env.DEV': '"false"',
    'process.env.NODE_ENV': '"production"',
    'import.meta.url': '__seaImportMetaUrl',
  },
  // In the SEA, __filename is the executable itself.
  banner: { js: "var __seaImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [
    yogaWithoutTopLevelAwait(),
    yogaWithoutFetch(),
    zodEnglishOnly(),
    inkWithoutDevtools({ cjs: true }),
    inkOutputCachesAcrossFrames(),
    inkTextWidthsMeasuredOnce(),
  ],
  logLevel: 'warning',
});

writeFileSync(
  join(work, 'sea-config.json'),
  JSON.stringify(
    {
      main,
      output: blob,
      disableExperimentalSEAWarning: true,
      // V8 code cache for the bundle: faster start; valid because the blob is injected into this very node.
      useCodeCache: true,
    },
    null,
    2,
  ),
);
const gen = spawnSync(process.execPath, ['--experimental-sea-config', join(work, 'sea-config.json')], {
  stdio: 'inherit',
});
if (gen.status !== 0) {
  console.error('build-binary: node --experimental-sea-config failed');
  process.exit(1);
}

// Inject into a copy of the node that runs this script (the pinned node@22 under npm run).
rmSync(output, { force: true });
copyFileSync(process.execPath, output);
chmodSync(output, 0o755);
// The npm node binary carries debug symbols (~17 MiB); drop them when binutils is here. Before the
// injection, so the injected note stays intact. Set SEA_NO_STRIP=1 to keep them.
const stripped =
  process.env.SEA_NO_STRIP !== '1' && spawnSync('strip', [output], { stdio: 'inherit' }).status === 0;
const require = createRequire(import.meta.url);
const { inject } = require('postject');
await inject(output, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: FUSE });

// package.json "files" ships dist/ to npm; the ~100 MiB executable and its build files must not go
// with it. A .npmignore inside a listed directory does apply (npm docs, package.json "files").
writeFileSync(join(repo, 'dist', '.npmignore'), '/iscsi-console\n/sea/\n');

const seconds = ((performance.now() - started) / 1000).toFixed(1);
const mib = (statSync(output).size / 1024 / 1024).toFixed(1);
console.log(
  `built ${output} (${mib} MiB, node ${process.version}${stripped ? ', stripped' : ''}) in ${seconds} s`,
);
