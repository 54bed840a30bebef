#!/bin/bash
# Scenario 5 — `cleanup` of what a pod deletion leaves behind, on a node that also has volumes in use:
# - stale: kubelet unmounted and removed the global dir but never logged out (crash before logout);
# - orphaned: the global dir (with iscsi.json) is left behind, unmounted, so kubelet's isSessionBusy
#   keeps the session forever;
# - an in-use volume (global mount + pod bind mount) and a foreign mount (outside the kubelet root)
#   that must not be touched.
# After cleanup of the stale and the orphaned session: both sessions, node records and devices are
# gone, the orphaned dir is removed (iscsi.json unlinked, then rmdir), and everything else is as before.
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1
for t in "51 stale" "52 orph" "53 keep" "54 foreign"; do target_new ${t% *} ${t#* } 32 || bad "tgt ${t#* }"; done
kattach() { bash "$LIB/kubelet-attach.sh" --portal "$P1" --iqn "$(iqn "$1")" --lun 1 --volname "vol-$1" --pod-uid "pod-$1" >/dev/null || bad "kubelet-attach $1"; }
kattach stale; kattach orph; kattach keep
# the pod deletions, as far as kubelet got
for v in stale orph; do
  umount "$E2E_KUBELET/pods/pod-$v/volumes/kubernetes.io~iscsi/vol-$v" && rm -rf "$E2E_KUBELET/pods/pod-$v"
  umount "$(global_fs "$v" "$P1" 1)"
done
rm -rf "$(global_fs stale "$P1" 1)"          # RemoveAll done, logout never happened
discover "$P1" && login foreign "$P1" && wait_disk foreign "$P1" 1 || bad "login foreign"
F=$(disk_of foreign "$P1" 1)
mkfs.ext4 -F -q "/dev/$F" && mkdir -p "$E2E_MNT/f" && mount "/dev/$F" "$E2E_MNT/f" || bad "foreign mount"
S_STALE=$(sid_of stale "$P1") S_ORPH=$(sid_of orph "$P1") S_KEEP=$(sid_of keep "$P1") S_FOR=$(sid_of foreign "$P1")
G_ORPH=$(global_fs orph "$P1" 1) G_KEEP=$(global_fs keep "$P1" 1)
mounts_before=$(awk '{print $5, $3}' /proc/self/mountinfo | grep -E "$E2E_KUBELET|$E2E_MNT" | sort)

status_now before
for x in "$S_STALE stale" "$S_ORPH orphaned" "$S_KEEP in-use" "$S_FOR foreign"; do
  v=$(session_field "$WORK/before.out" ${x% *} verdict)
  check "[ '$v' = '${x#* }' ]" "session ${x% *} verdict before cleanup: $v (expected ${x#* })"
done

act c-stale cleanup "$S_STALE"
check "[ $(rc_of c-stale) = 0 ]" "cleanup of stale session $S_STALE exited 0"
act c-orph cleanup "$S_ORPH"
check "[ $(rc_of c-orph) = 0 ]" "cleanup of orphaned session $S_ORPH exited 0"
for v in stale orph; do
  check "[ -z \"\$(sid_of $v $P1)\" ]" "$v: session gone"
  check "! record_exists $v $P1" "$v: node record gone"
  check "[ ! -e '$(by_path "$v" "$P1" 1)' ]" "$v: no device left"
done
check "[ ! -e '$G_ORPH' ]" "orphaned kubelet dir removed"
check "[ \"\$(ls /sys/block | grep -c '^sd')\" = 2 ]" "only the two untouched volumes' sd devices remain"
# nothing else touched
check "[ \"\$(sid_of keep $P1)\" = '$S_KEEP' ] && [ \"\$(sid_of foreign $P1)\" = '$S_FOR' ]" "in-use and foreign sessions still there"
check "[ \"\$(awk '{print \$5, \$3}' /proc/self/mountinfo | grep -E '$E2E_KUBELET|$E2E_MNT' | sort)\" = '$mounts_before' ]" "every kubelet and foreign mount unchanged"
check "hidden_json '$G_KEEP' | grep -q '\"VolName\":\"vol-keep\"'" "in-use volume's iscsi.json still there"
check "record_exists keep $P1 && record_exists foreign $P1" "their node records still there"
finish
