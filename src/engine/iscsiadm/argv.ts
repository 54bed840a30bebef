/**
 * The iscsiadm command lines the engine runs, in one place: planners put them in plan steps and the
 * apply-time code (dynamic steps, rollback) runs the same builders, so what a plan shows is what runs.
 * Option spelling follows open-iscsi usr/iscsiadm.c (long_options) and kubelet's
 * pkg/volume/iscsi/iscsi_util.go (argument order kept as kubelet writes it).
 */

const A = 'iscsiadm';

/** `-m discoverydb -t sendtargets -p <portal> -I <iface>`: the discovery record kubelet uses. */
export function discoverydbArgv(portal: string, iface: string): string[] {
  return [A, '-m', 'discoverydb', '-t', 'sendtargets', '-p', portal, '-I', iface];
}

/**
 * SendTargets discovery that writes node records for new targets only (`-o new`). Without `-o`,
 * iscsiadm does new|delete|update (usr/iscsiadm.c do_software_sendtargets): records that already
 * existed are deleted and rewritten from iscsid.conf (usr/idbm.c idbm_add_node, overwrite), which
 * would reset their node.startup and CHAP settings; `-o new` leaves every existing record as it was.
 */
export function discoverNewArgv(portal: string, iface: string): string[] {
  return [...discoverydbArgv(portal, iface), '--discover', '-o', 'new'];
}

/** `--discover` through the discovery record, iscsiadm's default new|delete|update (the undo line of forget). */
export function discoverArgv(portal: string, iface: string): string[] {
  return [...discoverydbArgv(portal, iface), '--discover'];
}

/**
 * SendTargets through the discovery record (its CHAP settings) that writes no node record
 * (`-o nonpersistent`: usr/iscsiadm.c do_software_sendtargets stores nothing for OP_NONPERSISTENT).
 */
export function discoverNonpersistentArgv(portal: string, iface: string): string[] {
  return [...discoverydbArgv(portal, iface), '--discover', '-o', 'nonpersistent'];
}

/** `-o new|delete|show` on a record named by discoverydbArgv or nodeArgv. */
export function recordOpArgv(record: readonly string[], op: 'new' | 'delete' | 'show'): string[] {
  return [...record, '-o', op];
}

/** `-o update -n <key> -v <value>` on a record named by discoverydbArgv or nodeArgv. */
export function recordUpdateArgv(record: readonly string[], key: string, value: string): string[] {
  return [...record, '-o', 'update', '-n', key, '-v', value];
}

/** The discovery record as iscsiadm shows it (read back after CHAP is written; compared, never printed). */
export function discoverydbShowArgv(portal: string): string[] {
  return [A, '-m', 'discoverydb', '-t', 'sendtargets', '-p', portal, '-o', 'show'];
}

/** `iscsiadm --version`: what doctor compares with iscsid's. */
export function versionArgv(): string[] {
  return [A, '--version'];
}

/** SendTargets that stores nothing (no discovery record, no node records): the wizard's listing. */
export function sendTargetsListArgv(portal: string): string[] {
  return [A, '-m', 'discovery', '-t', 'sendtargets', '-p', portal, '-o', 'nonpersistent'];
}

/** `-m node -p <portal> -T <iqn> -I <iface>`: one node record (kubelet's order). */
export function nodeArgv(portal: string, iqn: string, iface: string): string[] {
  return [A, '-m', 'node', '-p', portal, '-T', iqn, '-I', iface];
}

/**
 * A node record written straight, without discovery (usr/iscsiadm.c add_static_recs: only this one
 * record; idbm_rec_write_new stores it as `<address>,<port>,-1/<iface>`, tpgt unknown until login).
 */
export function nodeNewArgv(portal: string, iqn: string, iface: string): string[] {
  return recordOpArgv(nodeArgv(portal, iqn, iface), 'new');
}

/** `-o update -n <key> -v <value>` on a node record. */
export function nodeUpdateArgv(
  portal: string,
  iqn: string,
  iface: string,
  key: string,
  value: string,
): string[] {
  return recordUpdateArgv(nodeArgv(portal, iqn, iface), key, value);
}

/** node.startup for every iface record of portal/target (no `-I`, as kubelet does: kubernetes#57475). */
export function nodeStartupAllIfacesArgv(portal: string, iqn: string, value: string): string[] {
  return [A, '-m', 'node', '-p', portal, '-T', iqn, '-o', 'update', '-n', 'node.startup', '-v', value];
}

export function loginArgv(portal: string, iqn: string, iface: string): string[] {
  return [...nodeArgv(portal, iqn, iface), '--login'];
}

export function logoutArgv(portal: string, iqn: string, iface: string): string[] {
  return [A, '-m', 'node', '-p', portal, '-T', iqn, '--logout', '-I', iface];
}

export function nodeDeleteArgv(portal: string, iqn: string, iface: string): string[] {
  return [A, '-m', 'node', '-p', portal, '-T', iqn, '-o', 'delete', '-I', iface];
}

export function ifaceShowArgv(iface: string): string[] {
  return [A, '-m', 'iface', '-I', iface, '-o', 'show'];
}

export function ifaceNewArgv(iface: string): string[] {
  return [A, '-m', 'iface', '-I', iface, '-o', 'new'];
}

export function ifaceUpdateArgv(iface: string, key: string, value: string): string[] {
  return [A, '-m', 'iface', '-I', iface, '-o', 'update', '-n', key, '-v', value];
}

export function ifaceDeleteArgv(iface: string): string[] {
  return [A, '-m', 'iface', '-I', iface, '-o', 'delete'];
}

/** `-m session -r <sid> --rescan`: re-reads sizes and scans every LUN of the session (usr/iscsiadm.c). */
export function sessionRescanArgv(sid: number): string[] {
  return [A, '-m', 'session', '-r', String(sid), '--rescan'];
}
