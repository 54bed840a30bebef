import { portalOf, portalText, tgtWwid } from './kernel/names.js';
import type { ChapSecret, Portal, TargetSpec } from './types.js';

/** Result of a login attempt against the SAN: 0 or an iscsiadm exit code (iscsi_err.h). */
type LoginOutcome = 0 | 8 | 19 | 24;

/**
 * The storage network the simulated node can reach: targets listening on portals, like tgt in the
 * lab (SendTargets lists only the asked portal; LUN 0 is a controller), with portals that can go down.
 */
export class San {
  readonly targets: TargetSpec[] = [];
  private readonly down = new Set<string>();
  /**
   * Portals whose listener accepts a TCP connection but whose iSCSI layer does not serve it:
   * `silent` never answers a PDU (a hung target daemon), `drops` closes the connection at once.
   */
  private readonly broken = new Map<string, 'silent' | 'drops'>();

  /** Adds a target; LUNs without a WWID get tgt's (naa.6...e + tid + lun). */
  add(t: TargetSpec): TargetSpec {
    const tid = this.targets.length + 1;
    const luns = t.luns.map((l) => ({ ...l, wwid: l.wwid ?? tgtWwid(tid, l.lun) }));
    const spec = { tpgt: 1, ...t, luns, portals: t.portals.map((p) => portalText(portalOf(p))) };
    this.targets.push(spec);
    return spec;
  }

  remove(iqn: string): void {
    const i = this.targets.findIndex((t) => t.iqn === iqn);
    if (i >= 0) this.targets.splice(i, 1);
  }

  find(iqn: string): TargetSpec | undefined {
    return this.targets.find((t) => t.iqn === iqn);
  }

  /** The target's id on the SAN (tgt tid; part of its WWIDs). */
  tid(iqn: string): number {
    return this.targets.findIndex((t) => t.iqn === iqn) + 1;
  }

  setDown(portal: Portal, down: boolean): void {
    if (down) this.down.add(portalText(portal));
    else this.down.delete(portalText(portal));
  }

  isDown(portal: Portal): boolean {
    return this.down.has(portalText(portal));
  }

  /** The portal's listener misbehaves (see `broken`), or undefined to serve normally again. */
  setBroken(portal: Portal, how: 'silent' | 'drops' | undefined): void {
    if (how) this.broken.set(portalText(portal), how);
    else this.broken.delete(portalText(portal));
  }

  brokenHow(portal: Portal): 'silent' | 'drops' | undefined {
    return this.broken.get(portalText(portal));
  }

  /** A TCP connect to the portal is accepted: it is up and something listens there. */
  acceptsTcp(portal: Portal): boolean {
    const key = portalText(portal);
    return !this.down.has(key) && (this.broken.has(key) || this.targets.some((t) => t.portals.includes(key)));
  }

  /** Something listens on this portal (and it is up). */
  reachable(portal: Portal): boolean {
    const key = portalText(portal);
    return !this.down.has(key) && !this.broken.has(key) && this.targets.some((t) => t.portals.includes(key));
  }

  /** What SendTargets on a portal answers for an initiator: only that portal, only allowed targets. */
  sendTargets(portal: Portal, initiatorName: string): TargetSpec[] {
    const key = portalText(portal);
    return this.targets
      .filter((t) => t.portals.includes(key) && allowed(t, initiatorName))
      .sort((a, b) => a.iqn.localeCompare(b.iqn));
  }

  /** Discovery CHAP required on a portal (any target on it asks for it). */
  discoveryChap(portal: Portal): ChapSecret | undefined {
    const key = portalText(portal);
    return this.targets.find((t) => t.portals.includes(key) && t.discoveryChap)?.discoveryChap;
  }

  /** The target's answer to a login: unreachable (8), unknown target (19), auth/ACL failure (24). */
  login(
    iqn: string,
    portal: Portal,
    initiatorName: string,
    creds: Partial<ChapSecret> & { method: string },
  ): LoginOutcome {
    if (!this.reachable(portal)) return 8;
    const t = this.find(iqn);
    if (!t?.portals.includes(portalText(portal))) return 19;
    // tgt rejects initiators outside the ACL with "authorization failure" (status 0x0202).
    if (!allowed(t, initiatorName)) return 24;
    if (t.chap && !chapMatches(t.chap, creds)) return 24;
    return 0;
  }
}

function allowed(t: TargetSpec, initiatorName: string): boolean {
  return !t.acl || t.acl.includes(initiatorName);
}

/** One-way CHAP: username/password must match; mutual: the target's credentials must match too. */
export function chapMatches(want: ChapSecret, got: Partial<ChapSecret> & { method: string }): boolean {
  if (got.method !== 'CHAP') return false;
  if (got.username !== want.username || got.password !== want.password) return false;
  if (want.usernameIn !== undefined) {
    return got.usernameIn === want.usernameIn && got.passwordIn === want.passwordIn;
  }
  return true;
}
