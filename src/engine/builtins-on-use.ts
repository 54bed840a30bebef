/**
 * The two pure built-ins the engine needs only on some paths, loaded on first use. Importing
 * `node:net` or `node:crypto` evaluates ~45 of Node's internal modules (sockets, streams, every
 * cipher), ~8 ms of CPU on each start of a one-shot command that then never calls them: a
 * `status --json` with no CSI volume hashes nothing, and only a typed portal is checked for IPv6
 * (bench/README.md "Start-up"). `process.getBuiltinModule` (Node >= 22.3) returns the loaded
 * module; before that, Node's `require` does.
 */
import type * as Crypto from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Net from 'node:net';

function builtin<T>(id: string): T {
  return (process.getBuiltinModule?.(id) ?? createRequire('/')(id)) as T;
}

/** node:net's isIPv6: syntax only, no lookup. */
export function isIPv6(text: string): boolean {
  return builtin<typeof Net>('node:net').isIPv6(text);
}

/** SHA-256 of a UTF-8 string, lowercase hex. */
export function sha256Hex(text: string): string {
  return builtin<typeof Crypto>('node:crypto').createHash('sha256').update(text).digest('hex');
}
