#!/bin/bash
# Scenario 21 — restore: a two-portal volume attached kubelet-style while one portal's tgt listener is
# gone (kubelet's AttachDisk carries on with the portal whose login worked and never retries the
# other: kubernetes#74305) → status names the missing portal; restore is refused while the portal
# does not answer the probe, with nothing changed; the listener back → restore logs it in with
# kubelet's sequence, the new path joins a multipath map with 2 paths, and kubelet-style detach
# afterwards leaves nothing. Block volume without a pod: its iscsi.json is readable (a mounted FS
# volume hides it, docs/kubelet-iscsi.md#iscsijson) and its one path is free for multipathd.
#
# fault restore-blocked: restore with the portal back exited 0
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1 P2=$E2E_PORTAL2 K=$E2E_KUBELET
target_new 211 rst 64 || { bad "tgt rst"; finish; }
IQ=$(iqn rst)
G="$K/plugins/kubernetes.io/iscsi/volumeDevices/iface-default/$P1-$IQ-lun-1"

# tgt's second listener goes away (connect → refused), and comes back whatever happens below.
listens() { timeout 3 bash -c "exec 3<>/dev/tcp/${P2%:*}/${P2##*:}" 2>/dev/null; }
unblock() { listens || tgtadm --lld iscsi --op new --mode portal --param "portal=$P2"; }
trap unblock EXIT
tgtadm --lld iscsi --op delete --mode portal --param "portal=$P2"
check "! listens" "tgt no longer listens on $P2 (connect refused)"

bash "$LIB/kubelet-attach.sh" --portal "$P1" --portal "$P2" --iqn "$IQ" --lun 1 --volname pv-rst --block >/dev/null
check "[ $? = 0 ]" "kubelet-style attach with $P2 blocked went ahead on $P1"
check "[ \"\$(nsessions)\" = 1 ] && grep -q '\"Portals\":\[\"$P1\",\"$P2\"\]' '$G/iscsi.json'" "one session; iscsi.json lists both portals"

status_now st1
S=$WORK/st1.out
tq="d.expected.targets.find(t=>t.iqn==='$IQ')"
check "[ \"\$(jget $S \"$tq.expectedPortals.join(' ')\")\" = '$P1 $P2' ]" "expectedPortals: $P1 $P2"
check "[ \"\$(jget $S \"$tq.loggedInPortals.join(' ')\")\" = '$P1' ]" "loggedInPortals: $P1"
check "[ \"\$(jget $S \"$tq.missingPortals.join(' ')\")\" = '$P2' ]" "missingPortals: $P2"
A=$(disk_of rst "$P1" 1)
check "[ \"\$(jget $S \"d.expected.volumes.find(v=>v.path==='$G').expectedLuns[0].device\")\" = '$A' ]" "expectedLuns: LUN 1 resolved to $A"
run_cli st1-text status
want="volume pv-rst has 1 of 2 paths: portal $P2 not logged in"
check "grep -qF '$want' $WORK/st1-text.out" "status names the missing portal: $want"

# while the portal does not answer: refused by the probe, nothing changed
act r1 restore pv-rst
check "[ $(rc_of r1) = 3 ] && grep -q 'did not answer the probe: nothing was changed' $WORK/r1.err $WORK/r1.out" "restore refused while $P2 does not answer (exit $(rc_of r1))"
check "[ \"\$(nsessions)\" = 1 ] && ! record_exists rst $P2" "nothing half-done: no session, no node record for $P2"

fault restore-blocked && log "E2E_FAULT=restore-blocked: the listener stays away" || unblock
wait_for listens 10
act r2 restore pv-rst
check "[ $(rc_of r2) = 0 ]" "restore with the portal back exited 0"
B=$(disk_of rst "$P2" 1)
check "[ -n '$B' ] && [ -e \"\$(by_path rst $P2 1)\" ]" "the new path $B has its by-path link"
DM=$(dm_of "$A")
check "[ -n '$DM' ] && [ \"\$(dm_of $B)\" = '$DM' ]" "both paths in one map ($DM)"
check "[ \"\$(ls /sys/block/$DM/slaves 2>/dev/null | wc -l)\" = 2 ]" "the map has 2 paths"
check "[ \"\$(iscsiadm -m node -T $IQ -p $P2 -o show | awk '/^node.startup/{print \$3}')\" = manual ] && [ \"\$(iscsiadm -m node -T $IQ -p $P2 -o show | awk '/^node.session.scan/{print \$3}')\" = manual ]" "new record: node.startup and node.session.scan manual, as kubelet leaves them"
check "iscsiadm -m session -P 3 | awk '/Current Portal/{p=\$3} /Attached scsi disk/{print p, \$4}' | grep -q '^$P2,.* $B\$'" "iscsiadm -P 3: $B on the $P2 session only (targeted scan)"
status_now st2
check "[ \"\$(jget $WORK/st2.out \"$tq.missingPortals.length\")\" = 0 ] && [ \"\$(jget $WORK/st2.out \"d.expected.volumes[0].paths\")\" = 2 ]" "status: nothing missing, 2 paths"
show "timeout 30 multipath -ll"

bash "$LIB/kubelet-detach.sh" --block "$G"; check "[ $? = 0 ]" "kubelet DetachBlockISCSIDisk succeeded"
check "[ \"\$(nsessions)\" = 0 ]" "both sessions logged out"
check "! ls /sys/block | grep -q '^dm-\|^sd'" "no map and no path left"
check "! record_exists rst $P1 && ! record_exists rst $P2" "both node records deleted"
finish
