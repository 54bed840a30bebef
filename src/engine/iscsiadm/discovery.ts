/**
 * Parser for SendTargets discovery output (`-m discovery -t st` / `-m discoverydb --discover`):
 * one `<addr>:<port>,<tpgt> <iqn>` line per portal/target, IPv6 bracketed (docs/iscsiadm.md#discovery-and-mutation-outputs; captures
 * discoverydb-discover-kubelet-style.txt).
 */
export interface DiscoveredTarget {
  /** `addr:port`, IPv6 bracketed. */
  portal: string;
  tpgt: number;
  iqn: string;
}

const LINE = /^(\[[^\]]+\]|[^\s,]+?):(\d+),(-?\d+) (\S+)$/;

export function parseDiscovery(text: string): DiscoveredTarget[] {
  const out: DiscoveredTarget[] = [];
  for (const raw of text.split('\n')) {
    const m = LINE.exec(raw.trim());
    if (m) out.push({ portal: `${m[1]}:${m[2]}`, tpgt: Number(m[3]), iqn: m[4]! });
  }
  return out;
}
