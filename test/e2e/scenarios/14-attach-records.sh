#!/bin/bash
# Scenario 13 — the node records an attach's discovery writes, and a failed attach's rollback, on a
# real open-iscsi with `node.startup = automatic` in iscsid.conf (RHEL's default):
# (a) attach through a portal that serves three targets: SendTargets writes a record for each
#     (with node.startup=automatic); afterwards no node record on the node is automatic, the two
#     unused ones are gone, the journal holds their deletes;
# (b) a wrong LUN fails naming the LUN (exit 5) and rolls back its session and records; the
#     session of (a) is untouched;
# (c) --keep-on-failure leaves the session and record of a failed attach; a record that existed
#     before an attach is not touched by it.
# E2E_FAULT=records-preexisting makes (a) fail: records created before the attach are (rightly) kept.
# fault records-preexisting: ^FAIL a: .
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1
CONF=/etc/iscsi/iscsid.conf
cp "$CONF" "$WORK/iscsid.conf.orig"
trap 'cp "$WORK/iscsid.conf.orig" "$CONF"' EXIT
# iscsiadm reads iscsid.conf for every record it creates (usr/idbm.c idbm_node_setup_from_conf).
sed -i 's/^node.startup = .*/node.startup = automatic/' "$CONF"
check "grep -qx 'node.startup = automatic' $CONF" "iscsid.conf: node.startup = automatic"
target_new 131 rec-a 16 || bad "tgt rec-a"
target_new 132 rec-b 16 || bad "tgt rec-b"
target_new 133 rec-c 16 || bad "tgt rec-c"
automatic() { iscsiadm -m node -o show 2>/dev/null | grep -c '^node.startup = automatic'; }
nrecords() { find /etc/iscsi/nodes -type f 2>/dev/null | wc -l; }
# The console wizard's listing (engine listPortalTargets): the portal's targets, no record stored.
show "iscsiadm -m discovery -t sendtargets -p $P1 -o nonpersistent"
check "[ \"\$(iscsiadm -m discovery -t sendtargets -p $P1 -o nonpersistent | grep -c rec-)\" = 3 ] && [ \"\$(nrecords)\" = 0 ]" \
  "-o nonpersistent lists the three targets and stores no node record"
fault records-preexisting && discover "$P1"

# --- (a) attach through a portal with three targets
act a-attach attach --portal "$P1" --iqn "$(iqn rec-a)" --lun 1 --volume-name vol-ra --block
check "[ $(rc_of a-attach) = 0 ]" "a: attach exited 0"
check "[ -n \"\$(sid_of rec-a $P1)\" ] && [ -e '$(by_path rec-a "$P1" 1)' ]" "a: session and by-path link"
show "iscsiadm -m node -o show | grep -E '^(node.name|node.conn\\[0\\].address|node.startup) '"
check "[ \"\$(automatic)\" = 0 ]" "a: no node record on the node is node.startup=automatic"
check "[ \"\$(nrecords)\" = 1 ] && record_exists rec-a $P1" "a: only the used record is left (rec-b, rec-c deleted)"
check "! record_exists rec-b $P1 && ! record_exists rec-c $P1" "a: the unused discovered records are gone"
check "grep -qF '\"$(iqn rec-b)\",\"-o\",\"delete\"' /var/log/iscsi-console/journal.jsonl" "a: the journal holds the delete of rec-b's record"
check "grep -q '\"tidy-discovered\"' /var/log/iscsi-console/journal.jsonl" "a: the journal holds the tidy step"

# --- (b) wrong LUN: clear failure, rollback, (a) untouched
sid_a=$(sid_of rec-a "$P1")
act b-attach attach --portal "$P1" --iqn "$(iqn rec-b)" --lun 5 --volume-name vol-rb --block --verbose
check "[ $(rc_of b-attach) = 5 ]" "b: wrong LUN exits 5 (got $(rc_of b-attach))"
check "grep -q 'LUN 5 not found on $(iqn rec-b)' '$WORK/b-attach.err' '$WORK/b-attach.out'" "b: the error names the missing LUN"
check "grep -q 'rolled back: session' '$WORK/b-attach.err' '$WORK/b-attach.out'" "b: the error says what was rolled back"
check "grep -q 'waiting [0-9]*s of 30s' '$WORK/b-attach.err'" "b: the wait showed its elapsed time"
check "[ -z \"\$(sid_of rec-b $P1)\" ]" "b: no session to rec-b left"
check "! record_exists rec-b $P1 && [ \"\$(nrecords)\" = 1 ]" "b: no record of the failed attach left"
check "[ \"\$(automatic)\" = 0 ]" "b: still no automatic record"
check "[ \"\$(sid_of rec-a $P1)\" = '$sid_a' ]" "b: the session of (a) is untouched"

# --- (c) --keep-on-failure keeps; a record that existed before an attach is not touched
iscsiadm -m node -o new -T "$(iqn rec-b)" -p "$P1" >/dev/null
act c-attach attach --portal "$P1" --iqn "$(iqn rec-c)" --lun 5 --volume-name vol-rc --block --keep-on-failure
check "[ $(rc_of c-attach) = 5 ]" "c: wrong LUN with --keep-on-failure exits 5"
check "grep -q 'kept on the node (--keep-on-failure): session' '$WORK/c-attach.err' '$WORK/c-attach.out'" "c: the error lists what was kept"
check "[ -n \"\$(sid_of rec-c $P1)\" ] && record_exists rec-c $P1" "c: the session and record of the failed attach are kept"
check "record_exists rec-b $P1 && [ \"\$(iscsiadm -m node -T $(iqn rec-b) -p $P1 -o show | awk '/^node.startup /{print \$3}')\" = automatic ]" \
  "c: the record that existed before the attach is untouched (still automatic)"
iscsiadm -m node -T "$(iqn rec-c)" -p "$P1" --logout >/dev/null 2>&1
bash "$LIB/kubelet-detach.sh" --block "$(global_blk rec-a "$P1" 1)"; check "[ $? = 0 ]" "kubelet DetachBlockISCSIDisk of (a) succeeded"
finish
