#!/usr/bin/env node
// bench/profile-summary.mjs DIR|FILE.cpuprofile [TOP] — the top frames of `node --cpu-prof` output,
// by self time and by source file, so a missed target names the code responsible.
// Source-mapped names are not resolved here: the bench bundles keep function names, and the file
// column is the bundle's `// src/...` section, found by scanning the bundle for esbuild's markers.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [target, topArg] = process.argv.slice(2);
if (!target) {
  console.error('usage: profile-summary.mjs DIR|FILE.cpuprofile [TOP]');
  process.exit(2);
}
const top = Number(topArg ?? 15);
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(target, f))
  : [target];

const sectionCache = new Map();
/** esbuild writes `// src/engine/...ts` before each module's code: map a line to its source file. */
function sourceOf(url, line) {
  if (!url.startsWith('file://')) return url || '(native)';
  let sections = sectionCache.get(url);
  if (!sections) {
    sections = [];
    const path = fileURLToPath(url);
    if (existsSync(path)) {
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((l, i) => {
          const m = /^\/\/ ((?:src|bench|test|node_modules)\/\S+)$/.exec(l);
          if (m) sections.push([i, m[1]]);
        });
    }
    sectionCache.set(url, sections);
  }
  let found = url.split('/').pop();
  for (const [start, name] of sections) {
    if (start <= line) found = name;
    else break;
  }
  return found.replace(/^node_modules\/\.pnpm\/[^/]+\/node_modules\//, 'node_modules/');
}

for (const file of files) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  prof.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFn = new Map();
  const byFile = new Map();
  for (const [id, us] of self) {
    const cf = byId.get(id).callFrame;
    const src = sourceOf(cf.url, cf.lineNumber);
    const fn = `${cf.functionName || '(anonymous)'}  ${src}${cf.url.startsWith('file://') ? `:${cf.lineNumber + 1}` : ''}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + us);
    byFile.set(src, (byFile.get(src) ?? 0) + us);
  }
  // Inclusive time of the project's own functions (src/): every sample counts once for each distinct
  // src/ function on its stack, so "which of our code paths leads to the native/library time".
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = new Map();
  const srcKey = (id) => {
    if (keyOf.has(id)) return keyOf.get(id);
    const cf = byId.get(id).callFrame;
    const src = sourceOf(cf.url, cf.lineNumber);
    const k = src.startsWith('src/') ? `${cf.functionName || '(anonymous)'}  ${src}` : undefined;
    keyOf.set(id, k);
    return k;
  };
  const inclusive = new Map();
  prof.samples.forEach((id, i) => {
    const seen = new Set();
    for (let n = id; n !== undefined; n = parent.get(n)) {
      const k = srcKey(n);
      if (k && !seen.has(k)) {
        seen.add(k);
        inclusive.set(k, (inclusive.get(k) ?? 0) + (prof.timeDeltas[i] ?? 0));
      }
    }
  });
  const pct = (us) =>
    `${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms`;
  console.log(`profile ${file} — ${(total / 1000).toFixed(0)} ms sampled`);
  console.log('  top frames by self time:');
  for (const [k, us] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`    ${pct(us)}  ${k}`);
  console.log('  project functions by inclusive time (src/ only):');
  for (const [k, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`    ${pct(us)}  ${k}`);
  console.log('  by source file:');
  for (const [k, us] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 10))
    console.log(`    ${pct(us)}  ${k}`);
}
