/**
 * kubelet's facts in an operator's words, for the session detail and `status`: what kubelet will do
 * with a session when a volume detaches, and where a global dir's identity was read from. The
 * kubelet functions behind them are named in docs/kubelet-iscsi.md, never on screen.
 */
import type { KubeletVolume } from '../model.js';

/**
 * What kubelet does with the session when one of its volumes detaches: it logs out only when no
 * other global dir of the target's portal remains (docs/kubelet-iscsi.md#issessionbusy).
 */
export function kubeletOnDetachText(busy: boolean): string {
  return busy
    ? 'kubelet keeps this session when a volume on it detaches (other volume dirs of the target remain)'
    : 'kubelet logs this session out when a volume on it detaches';
}

/** Where a global dir's identity (portal, IQN, LUN) came from, as a phrase. */
export function metadataSourceText(source: KubeletVolume['metadataSource']): string {
  switch (source) {
    case 'iscsi.json':
      return 'identity from iscsi.json';
    case 'path':
      return 'identity from the dir name (no readable iscsi.json)';
    case 'hidden':
      return 'identity from the dir name (iscsi.json is under the mount)';
  }
}

/** The same in a word, for a table cell (`hidden`: iscsi.json is under the mount). */
export function metadataSourceWord(source: KubeletVolume['metadataSource']): string {
  return source === 'iscsi.json' ? 'iscsi.json' : source === 'path' ? 'dir name' : 'hidden';
}
