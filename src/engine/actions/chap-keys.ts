/**
 * CHAP keys kubelet copies from the Secret (docs/kubelet-iscsi.md#chap): the Secret's data names are the open-iscsi DB
 * keys. Every value is a secret (usernames too: kubelet logs none of the value-carrying calls).
 */
export const DISCOVERY_CHAP_KEYS = [
  'discovery.sendtargets.auth.username',
  'discovery.sendtargets.auth.password',
  'discovery.sendtargets.auth.username_in',
  'discovery.sendtargets.auth.password_in',
] as const;

export const SESSION_CHAP_KEYS = [
  'node.session.auth.username',
  'node.session.auth.password',
  'node.session.auth.username_in',
  'node.session.auth.password_in',
] as const;

export const CHAP_KEYS: readonly string[] = [...DISCOVERY_CHAP_KEYS, ...SESSION_CHAP_KEYS];
