/**
 * A module loaded on first need rather than at import: what a start-up graph imports but uses only
 * later (the manifest reader's yaml and zod, the journal reader's zod) stays out of the console's
 * first frame. Async callers `load()` it; sync code reached only after a load takes `get()`.
 */
interface LazyModule<M> {
  /** Loads the module once; every call resolves to the same module. */
  load(): Promise<M>;
  /** The module once loaded; throws before (a caller that forgot to `load()` first). */
  get(): M;
}

export function lazyModule<M>(what: string, importer: () => Promise<M>): LazyModule<M> {
  let loaded: M | undefined;
  let loading: Promise<M> | undefined;
  return {
    load() {
      loading ??= importer().then((m) => {
        loaded = m;
        return m;
      });
      return loading;
    },
    get() {
      if (loaded === undefined) throw new Error(`${what} is not loaded yet`);
      return loaded;
    },
  };
}
