/**
 * Node's module compile cache (V8 code cache on disk, Node ≥ 22.1) for the npm build: compiling the
 * bundle was ~27 % of a `status --json` start in the e2e guest, and the cache took it from 13.2 s
 * to 5.4 s there (bench/README.md). It only covers modules loaded after it is enabled, so src/cli.ts calls
 * this first and then imports the rest of the CLI.
 *
 * Imports only node: builtins, by namespace: src/cli.ts loads this before its Node version check,
 * and a missing named export would fail at link time on an old Node instead of giving the hint.
 */
import * as fs from 'node:fs';
import * as nodeModule from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * A cache directory only this user can write, or undefined. Not Node's default
 * (`$TMPDIR/node-compile-cache`, shared by every user): the console runs as root, and code cache
 * planted there by another user would run as root. So: our own directory, created 0700, used only
 * if it is a real directory owned by us that nobody else can write.
 */
export function privateCacheDir(tmp: string = os.tmpdir()): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const dir = path.join(tmp, `iscsi-console-compile-cache-${uid}`);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  try {
    const st = fs.lstatSync(dir);
    return st.isDirectory() && st.uid === uid && (st.mode & 0o022) === 0 ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Enables the compile cache unless the user opted out or `consoleUi` says the console UI will run.
 * NODE_DISABLE_COMPILE_CACHE (Node's own switch) turns it off; NODE_COMPILE_CACHE=<dir> means Node
 * already enabled it with that directory before this runs, and it is kept. Never throws: a
 * read-only or full tmp only costs the speed-up.
 *
 * Not for the console. Code from the cache arrives with every function it held already compiled, so
 * V8's optimising compiler, which inlines only functions that have bytecode, inlines far more into
 * the hot read and render paths; it compiles on background threads, whose malloc arenas keep that
 * memory. Measured at 1,000 sessions × 4 LUNs (bench/README.md): peak RSS ~10 MB higher with the
 * cache (the same with it and V8's inlining off), for a first frame ~20 ms faster. The console lives
 * for hours, so resident memory wins; one-shot commands keep the faster start.
 */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env, consoleUi = false): void {
  const enable = (nodeModule as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
  if (consoleUi || typeof enable !== 'function' || env.NODE_DISABLE_COMPILE_CACHE || env.NODE_COMPILE_CACHE)
    return;
  try {
    const dir = privateCacheDir();
    if (dir) enable(dir);
  } catch {
    // The cache is an optimisation only.
  }
}
