#!/usr/bin/env node
/**
 * Checks that every reference in the code, tests, bench, scripts, README and docs resolves inside the
 * repository: each `something.md` (optionally `#anchor`) names a file of the repo (from the repo root, the
 * citing file's dir or a dir above it) and, with an anchor, a heading of that file (GitHub's slug);
 * no section sign and no "issue" followed by a number, which point at documents a clone does not have.
 * In README.md and docs/ also: every Markdown link to a repository file resolves from the page (and
 * its anchor, to a heading), and every file path the page names in code (`src/engine/errors.ts`,
 * `test/e2e/README.md`) exists. URLs are not fetched.
 *
 * Run: `node scripts/check-references.mjs` (exit 1 and one line per problem when something dangles).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const ROOTS = ['src', 'test', 'bench', 'scripts', 'README.md', 'docs'];
const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
const files = execFileSync('git', ['ls-files', '-z', ...ROOTS], { cwd: root, encoding: 'utf8' })
  .split('\0')
  // Not this file nor its test: they spell the patterns looked for.
  .filter(
    (f) =>
      f &&
      !f.includes('/fixtures/') &&
      !f.endsWith('.json') &&
      f !== 'scripts/check-references.mjs' &&
      f !== 'test/architecture/references.test.ts',
  );

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes; repeats numbered. */
function anchorsOf(path) {
  const out = new Set();
  const seen = new Map();
  let fence = false;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    if (fence) continue;
    const h = /^#+\s+(.*)$/.exec(line);
    if (!h) continue;
    let slug = h[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug);
    seen.set(slug, (n ?? -1) + 1);
    if (n !== undefined) slug = `${slug}-${n + 1}`;
    out.add(slug);
  }
  return out;
}
const anchorCache = new Map();

/** The repo file a reference names: from the root, the citing file's dir, or a dir above it. */
function resolveRef(from, ref) {
  const tries = [ref];
  for (let d = dirname(from); d !== '.' && d !== ''; d = dirname(d)) tries.push(join(d, ref));
  for (const t of tries) {
    const p = normalize(t);
    if (!p.startsWith('..') && existsSync(join(root, p)) && statSync(join(root, p)).isFile()) return p;
  }
  return undefined;
}

const problems = [];
const MD_REF = /([\w./-]+\.md)(#[\w-]+)?/g;
const CAPTURE_REF = /\bcaptures ([\w.-]+\.(?:txt|json))\b/g;
/** A path a page names in code, from the repo root: `src/…`, `test/…` (no placeholder, no glob). */
const CODE_PATH = /`((?:src|test|docs|bench|scripts|deploy|\.ci)\/[\w./-]+)`/g;
/** A Markdown link or image target that is not a URL or a bare anchor. */
const MD_LINK = /\]\(([^)\s#]+)(#[^)\s]+)?\)/g;

/** The Markdown-only checks of a page: links from its own dir, code paths from the root. */
function checkPage(f, text) {
  let fence = false;
  text.split('\n').forEach((line, i) => {
    const at = `${f}:${i + 1}`;
    if (line.startsWith('```')) fence = !fence;
    for (const m of line.matchAll(MD_LINK)) {
      const [, target, anchor] = m;
      if (/^[a-z]+:/i.test(target)) continue;
      const p = normalize(join(dirname(f), target));
      if (p.startsWith('..') || !existsSync(join(root, p))) {
        problems.push(`${at}: link ${target} resolves to nothing in the repository`);
        continue;
      }
      if (anchor && p.endsWith('.md')) {
        if (!anchorCache.has(p)) anchorCache.set(p, anchorsOf(join(root, p)));
        if (!anchorCache.get(p).has(anchor.slice(1))) problems.push(`${at}: ${p} has no heading ${anchor}`);
      }
    }
    // Inside a fence, text is a sample of a terminal or a file, not a claim about this repository.
    if (fence) return;
    for (const m of line.matchAll(CODE_PATH)) {
      const p = m[1].replace(/[.,:;]+$/, '');
      // A path whose folder this repository lacks is an upstream project's (systemd `src/udev/…`).
      if (existsSync(join(root, dirname(p))) && !existsSync(join(root, p)))
        problems.push(`${at}: ${p} is not a path of the repository`);
    }
    // A bare anchor in the page itself.
    for (const m of line.matchAll(/\]\((#[^)\s]+)\)/g)) {
      if (!anchorCache.has(f)) anchorCache.set(f, anchorsOf(join(root, f)));
      if (!anchorCache.get(f).has(m[1].slice(1))) problems.push(`${at}: ${f} has no heading ${m[1]}`);
    }
  });
}

for (const f of files) {
  let text;
  try {
    text = readFileSync(join(root, f), 'utf8');
  } catch {
    continue;
  }
  const page = f.endsWith('.md');
  if (page) checkPage(f, text);
  text.split('\n').forEach((line, i) => {
    const at = `${f}:${i + 1}`;
    if (line.includes('\u00a7')) problems.push(`${at}: a section sign points at a document the repo lacks`);
    if (/\bissues? ?#?\d/i.test(line)) problems.push(`${at}: "issue N" points at a tracker the repo lacks`);
    // A page's references are its links and code paths (checkPage); its prose names upstream pages too.
    for (const m of page ? [] : line.matchAll(MD_REF)) {
      const [, ref, anchor] = m;
      // Part of a URL (https://…/x.md): not checked here.
      if (ref.startsWith('//') || line.slice(Math.max(0, m.index - 1), m.index) === ':') continue;
      const p = resolveRef(f, ref);
      if (!p) {
        problems.push(`${at}: ${ref} is not a file of the repository`);
        continue;
      }
      if (!anchor) continue;
      if (!anchorCache.has(p)) anchorCache.set(p, anchorsOf(join(root, p)));
      if (!anchorCache.get(p).has(anchor.slice(1))) problems.push(`${at}: ${p} has no heading ${anchor}`);
    }
    // "captures X" names a real-kernel capture kept in test/fixtures/captures/ (its README says so).
    for (const m of line.matchAll(CAPTURE_REF)) {
      if (!existsSync(join(root, 'test/fixtures/captures', m[1])))
        problems.push(`${at}: captures ${m[1]} is not in test/fixtures/captures`);
    }
  });
}
for (const p of problems) console.log(p);
console.log(
  `${problems.length} dangling reference${problems.length === 1 ? '' : 's'} in ${ROOTS.join(', ')}`,
);
process.exitCode = problems.length > 0 ? 1 : 0;
