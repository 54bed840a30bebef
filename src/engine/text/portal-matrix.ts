/**
 * A target's portal matrix (portal × session state × path state) in words, from the snapshot's
 * expected state (src/engine/snapshot/expected.ts): the same cells in `status`, the session detail
 * and the Targets view. Node text: the caller escapes it for its terminal.
 */
import type { ExpectedPortalRow } from '../model.js';

interface PortalMatrixCells {
  portal: string;
  /** `expected`, or `not expected` for a portal only a session names. */
  expected: string;
  /** `7 LOGGED_IN`, `7 FAILED, 9 LOGGED_IN`, or `not logged in`. */
  session: string;
  /** Per expected LUN: `LUN 1 sdc running active ready`, `LUN 1 no device`. */
  paths: string;
}

export function portalMatrixCells(r: ExpectedPortalRow): PortalMatrixCells {
  const session = r.sessions.map((s) => `${s.sid} ${s.state}`).join(', ') || 'not logged in';
  const paths = r.paths
    .map((p) => {
      const states = [p.device, p.deviceState, p.dmState, p.checkerState].filter(Boolean).join(' ');
      return `LUN ${p.lun} ${p.device ? states : r.sessions.length > 0 ? 'no device' : '-'}`;
    })
    .join('; ');
  return { portal: r.portal, expected: r.expected ? 'expected' : 'not expected', session, paths };
}

/** `10.0.0.11:3260  expected  not logged in  LUN 1 -`. */
export function portalMatrixLine(r: ExpectedPortalRow): string {
  const c = portalMatrixCells(r);
  return `${c.portal.padEnd(22)} ${c.expected.padEnd(12)} ${c.session.padEnd(16)} ${c.paths}`;
}
