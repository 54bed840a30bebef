// Merges the code-split chunks a one-shot command's start loads into two modules (scripts/build.mjs).
//
// esbuild splits by reachability: every module goes to the chunk of the exact set of entry points
// (the entry and each dynamic import()) that reach it. With ~20 dynamic imports, `status --json`
// loaded ~30 files, and each ESM module costs a resolve (a realpath), a read, a compile-cache lookup
// and a link (merged, that start's CPU fell by a fifth: bench/README.md "Start-up"). No
// esbuild option groups chunks by hand, so this second pass does. Each group is the static closure
// of some entry points, minus the earlier groups, bundled again by esbuild into one module
// `chunks/<group>-<hash>.js`; then every import of a grouped chunk, in every file, names the merged
// module instead. A dynamic import target whose names had to be renamed keeps its file, as a
// one-line facade.
// Each module still exists once (one instance of every class, store and registry), and the order
// in which modules run is the import order, as before. Another command that imports one grouped
// chunk loads its whole group: code the console and the other commands load anyway (the snapshot,
// the host, the parser).
import { createHash } from 'node:crypto';
import { basename, dirname, relative, resolve } from 'node:path';
import { build } from 'esbuild';

/** The metafile output keys reachable from `from` through static imports (externals excluded). */
function staticClosure(outputs, from) {
  const seen = new Set();
  const walk = (key) => {
    if (seen.has(key) || !outputs[key]) return;
    seen.add(key);
    for (const i of outputs[key].imports) if (i.kind === 'import-statement' && !i.external) walk(i.path);
  };
  walk(from);
  return seen;
}

/** The output key of the chunk whose entry point (the entry or a dynamic import target) is `entry`. */
function outputOf(outputs, entry) {
  const key = Object.keys(outputs).find((k) => k.endsWith('.js') && outputs[k].entryPoint === entry);
  if (!key) throw new Error(`merge-start-chunks: no output for ${entry}`);
  return key;
}

/**
 * The chunk's text without the `require` banner (the merged module gets it once, above all) and with
 * its linked source map inlined, so esbuild maps the merged file to src/.
 */
function withInlineMap(file, map, banner) {
  const text = file.text.replace(banner, '').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  if (!map) return text;
  return `${text}//# sourceMappingURL=data:application/json;base64,${Buffer.from(map.contents).toString('base64')}\n`;
}

/** An outputFiles-like record (path, text, contents) for scripts/build.mjs's writer. */
export function textOutput(path, text) {
  return {
    path,
    text,
    get contents() {
      return Buffer.from(text);
    },
  };
}

/**
 * Bundles the chunks `keys` (metafile keys, in import order) into one module. Returns its file name,
 * the files, and for each chunk the name each export has in the merged module (renamed only where
 * two chunks export the same name).
 */
async function mergeGroup(name, keys, byPath, outputs, { banner, ...options }) {
  const abs = (k) => resolve(k);
  const dir = dirname(abs(keys[0]));
  for (const k of keys)
    if (dirname(abs(k)) !== dir) throw new Error(`merge-start-chunks: ${k} is not in ${dir}`);
  const members = new Set(keys.map(abs));
  // Names as they were, but where two chunks export the same one: dynamic import targets first,
  // so that an `import()` of one can name the merged module itself.
  const used = new Set();
  const exported = new Map();
  const order = [...keys.filter((k) => outputs[k].entryPoint), ...keys.filter((k) => !outputs[k].entryPoint)];
  for (const k of order) {
    const names = new Map();
    for (const e of outputs[k].exports) {
      const as = used.has(e) ? `g${keys.indexOf(k)}_${e}` : e;
      used.add(as);
      names.set(e, as);
    }
    exported.set(abs(k), names);
  }
  const entry = keys
    .map((k) => {
      const names = [...exported.get(abs(k))];
      const path = JSON.stringify(abs(k));
      if (names.length === 0) return `import ${path};`;
      return `export { ${names.map(([e, as]) => (e === as ? e : `${e} as ${as}`)).join(', ')} } from ${path};`;
    })
    .join('\n');
  const named = keys.some((k) => byPath.get(abs(k)).text.includes(banner));
  const merged = await build({
    ...options,
    ...(named ? { banner: { js: banner } } : {}),
    stdin: { contents: entry, resolveDir: dir, sourcefile: `${name}-group.js`, loader: 'js' },
    outfile: resolve(dir, `${name}.js`),
    splitting: false,
    metafile: false,
    write: false,
    plugins: [
      {
        name: 'grouped-chunks',
        setup(b) {
          b.onResolve({ filter: /^(\.\/|\.\.\/|\/)/ }, (args) => {
            const path = resolve(args.resolveDir, args.path);
            // Chunks outside the group stay files of their own (rewritten below where grouped).
            if (!members.has(path)) return { path: args.path, external: true };
            // Named by its file name: esbuild writes it into the merged file's comments and map.
            return { path: basename(path), namespace: 'chunk' };
          });
          b.onLoad({ filter: /.*/, namespace: 'chunk' }, (args) => {
            const path = resolve(dir, args.path);
            return {
              contents: withInlineMap(byPath.get(path), byPath.get(`${path}.map`), banner),
              loader: 'js',
              resolveDir: dir,
            };
          });
        },
      },
    ],
  });
  const js = merged.outputFiles.find((f) => f.path.endsWith('.js'));
  const map = merged.outputFiles.find((f) => f.path.endsWith('.js.map'));
  const hash = createHash('sha256').update(js.text).digest('hex').slice(0, 8).toUpperCase();
  const file = resolve(dir, `${name}-${hash}.js`);
  const text = js.text.replace(
    /\/\/# sourceMappingURL=\S+\s*$/,
    `//# sourceMappingURL=${name}-${hash}.js.map\n`,
  );
  const files = [textOutput(file, text)];
  if (map) files.push(textOutput(`${file}.map`, map.text));
  return { file, files, exported };
}

/**
 * Points every import of a grouped chunk in `text` (the file `path`) at its merged module: static
 * imports with their names mapped, `import("…")` where no name was renamed (the facade else).
 * Lines are kept, so the file's source map still holds.
 */
function rewriteImports(path, text, grouped) {
  const target = (spec) => grouped.get(resolve(dirname(path), spec));
  const to = (g) => JSON.stringify(`./${relative(dirname(path), g.file)}`);
  return text
    .replace(/\bimport\s*\{([^}]*)\}\s*from\s*"([^"]+)";/g, (all, clause, spec) => {
      const g = target(spec);
      if (!g) return all;
      const names = clause.replace(/\b([\w$]+)(\s+as\s+[\w$]+)?/g, (m, e, as) => {
        const inMerged = g.exported.get(e);
        if (inMerged === undefined)
          throw new Error(`merge-start-chunks: ${path} imports ${e} that ${spec} lacks`);
        return inMerged === e ? m : `${inMerged} as ${as ? as.replace(/^\s+as\s+/, '') : e}`;
      });
      return `import {${names}} from ${to(g)};`;
    })
    .replace(/\bimport\s*"([^"]+)";/g, (all, spec) => {
      const g = target(spec);
      return g ? `import ${to(g)};` : all;
    })
    .replace(/\bimport\("([^"]+)"\)/g, (all, spec) => {
      const g = target(spec);
      if (!g || [...g.exported].some(([e, as]) => e !== as)) return all;
      return `import(${to(g)})`;
    });
}

/**
 * Rewrites `files` (esbuild's outputFiles of a split build with a metafile, .js texts final but for
 * this pass). `groups`: [{ name, roots }] in load order; each is the static closure of its roots
 * (entry points as the metafile names them) minus the earlier groups and minus `entry` itself.
 * `build`: esbuild options for the merging, with `banner` the first pass's `require` banner.
 * Returns the new file list.
 */
export async function mergeStartChunks(files, metafile, { entry, groups, build: options }) {
  const { outputs } = metafile;
  const byPath = new Map(files.map((f) => [f.path, f]));
  const entryKey = outputOf(outputs, entry);
  const taken = new Set([entryKey]);
  const grouped = new Map();
  const extra = [];
  for (const { name, roots } of groups) {
    const keys = [];
    for (const r of roots)
      for (const k of staticClosure(outputs, outputOf(outputs, r)))
        if (!taken.has(k)) {
          taken.add(k);
          keys.push(k);
        }
    if (keys.length === 0) continue;
    const g = await mergeGroup(name, keys, byPath, outputs, options);
    extra.push(...g.files);
    for (const k of keys) grouped.set(resolve(k), { file: g.file, exported: g.exported.get(resolve(k)) });
  }
  const out = [];
  for (const f of [...files, ...extra]) {
    const js = f.path.endsWith('.js');
    const member = grouped.get(js ? f.path : f.path.replace(/\.map$/, ''));
    if (member) {
      // A dynamic import target keeps its path, as a facade of the merged module.
      const key = relative(process.cwd(), js ? f.path : '');
      if (!js || !outputs[key]?.entryPoint) continue;
      const names = [...member.exported].map(([e, as]) => (e === as ? e : `${as} as ${e}`));
      const from = JSON.stringify(`./${relative(dirname(f.path), member.file)}`);
      out.push(
        textOutput(
          f.path,
          names.length ? `export { ${names.join(', ')} } from ${from};\n` : `import ${from};\n`,
        ),
      );
    } else out.push(js ? textOutput(f.path, rewriteImports(f.path, f.text, grouped)) : f);
  }
  // A facade whose every importer now names the merged module itself is dropped.
  const named = new Set();
  for (const f of out)
    if (f.path.endsWith('.js'))
      for (const m of f.text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)"(\.\.?\/[^"]+)"/g))
        named.add(resolve(dirname(f.path), m[1]));
  return out.filter((f) => !grouped.has(f.path) || named.has(f.path));
}
