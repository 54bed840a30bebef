/**
 * A file that holds a secret (CHAP values in a node or discovery record) is written whole at mode
 * 0600: a step that declares such a write with any group or other bit is refused before it runs.
 * The executor writes every declared secret file through Host.replaceFile (temp file in the same
 * dir, mode set and checked, fsync, rename), so a record is never left partial or world-readable.
 */
import type { Invariant } from './types.js';

export const SECRET_FILE_MODE = 0o600;

export const secretFileInvariant: Invariant = {
  id: 'secret-file',
  rule: 'A file that holds a secret is written whole (a temp file in the same dir, fsync, rename) at mode 0600, never in place.',
  check(e) {
    if (e.kind !== 'write-file' || e.secret !== true) return undefined;
    if ((e.mode & 0o777) === SECRET_FILE_MODE) return undefined;
    return {
      object: e.path,
      reason: `it holds a secret and would be written at mode ${e.mode.toString(8).padStart(4, '0')}, not 0600`,
    };
  },
};
