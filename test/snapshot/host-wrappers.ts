import type { Host } from '../../src/engine/host/host.js';

/** What a hook may answer for a path: an errno to fail with, or undefined to pass through. */
export type ReadHook = (path: string) => string | undefined;

/**
 * Wraps a Host so tests can make reads fail the way a live node does (ENOTCONN on a down
 * connection's address, EACCES, ENOENT after a vanish), or act on a read (delete a dir).
 */
export function wrapHost(inner: Host, hook: ReadHook): Host {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'readText') {
        return (p: string) => (hook(p) ? undefined : target.readText(p));
      }
      if (prop === 'readTextOrError') {
        return (p: string) => {
          const e = hook(p);
          return e ? { error: e } : target.readTextOrError(p);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** Records every host path read through readText/readTextOrError/readDir/readLink (in order). */
export function recordingHost(inner: Host): { host: Host; reads: { op: string; path: string }[] } {
  const reads: { op: string; path: string }[] = [];
  const host = new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      if (
        prop === 'readText' ||
        prop === 'readTextOrError' ||
        prop === 'readDir' ||
        prop === 'readLink' ||
        prop === 'lstat'
      ) {
        return (p: string) => {
          reads.push({ op: String(prop), path: p });
          return v.call(target, p);
        };
      }
      return v.bind(target);
    },
  });
  return { host, reads };
}
