// Bundles the CLI with its dependencies for npm (ESM): a small entry, dist/cli.js (src/cli.ts: the
// Node version check, then Node's compile cache), and code-split chunks under dist/chunks/ that it
// imports on demand (each subcommand, Ink/React, the simulator, execa). Start-up then compiles only
// what the command runs, and from the compile cache after the first run (bench/README.md: `status --json`
// compiled and evaluated the whole 3 MB bundle). A second pass (merge-start-chunks.mjs) makes what a
// one-shot start loads two modules instead of ~30 chunks. The single executable has its own CommonJS
// build (build-binary.mjs). Fast (esbuild), so `npm install` runs it as `prepare`.
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';
import { esmCliOptions } from './esbuild-plugins.mjs';
import { mergeStartChunks, textOutput } from './merge-start-chunks.mjs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
mkdirSync('dist', { recursive: true });
// Chunk names carry a content hash: drop the previous build's, or dist/ (and npm pack) keeps them.
rmSync('dist/chunks', { recursive: true, force: true });
const options = esmCliOptions(pkg.version);
const result = await build({
  ...options,
  entryPoints: { cli: 'src/cli.ts' },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  write: false,
});
const split = result.outputFiles.map((f) =>
  f.path.endsWith('.js') ? textOutput(f.path, withoutUnusedRequire(f.text, options.banner.js)) : f,
);
// One module for what a one-shot command's start loads (scripts/merge-start-chunks.mjs).
const files = await mergeStartChunks(split, result.metafile, {
  entry: 'src/cli.ts',
  groups: [
    // Loaded before the compile cache is on (src/cli.ts): the command table and what it needs.
    { name: 'early', roots: ['src/cli.ts', 'src/cli/commands/index.ts'] },
    // A one-shot command's start: the CLI's main, the host runner, status.
    { name: 'start', roots: ['src/cli/main.ts', 'src/engine/host/runner.ts', 'src/cli/commands/status.ts'] },
  ],
  build: {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    banner: options.banner.js,
  },
});
for (const f of files) {
  mkdirSync(dirname(f.path), { recursive: true });
  writeFileSync(f.path, f.path.endsWith('.js') ? asciiOnly(f.text) : f.contents);
}
chmodSync('dist/cli.js', 0o755);

/**
 * V8 keeps every script's source text for as long as the script lives (functions compile lazily
 * from it), and one character outside Latin-1 makes the whole text a two-byte string: the console's
 * two largest chunks (1.1 and 0.8 MB) cost twice their size, ~1.9 MB of its resident memory
 * (bench/README.md). esbuild's default `charset: 'ascii'` escapes strings but leaves comments and
 * regular expression literals as written; this escapes what is left. `\uXXXX` means the same
 * character in a comment, a string, an identifier and a regular expression (a surrogate pair as two
 * escapes, which a `u` pattern reads as the one code point). Only those few lines' columns move in
 * the source map.
 */
function asciiOnly(text) {
  return text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The banner gives each chunk a real `require` (for bundled CommonJS dependencies), but only the
 * chunk with esbuild's `__require` shim uses it: the others would each import node:module and call
 * createRequire at start-up for nothing (~24 chunks in a `status --json` run). Dropped where the rest
 * of the chunk never names `require`; the line stays (empty), so the source map's lines still match.
 */
function withoutUnusedRequire(text, banner) {
  const at = text.indexOf(banner);
  if (at < 0) return text;
  const rest = text.slice(0, at) + text.slice(at + banner.length);
  return /\brequire\b/.test(rest) ? text : rest;
}
