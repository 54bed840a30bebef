#!/bin/bash
# Scenario 9 — self-test of the harness's kubelet stand-ins (no console involved): a volume attached
# and mounted the way kubelet does it (lib/kubelet-attach.sh) is detached cleanly by
# lib/kubelet-detach.sh (DetachDisk / DetachBlockISCSIDisk). Scenarios 2, 3 and 5 rely on both
# scripts; if this fails, their failures say nothing about the console.
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1 K=$E2E_KUBELET
target_new 91 ref 32 16 || { bad "tgt: target ref"; finish; }
IQ=$(iqn ref)
G="$K/plugins/kubernetes.io/iscsi/iface-default/$P1-$IQ-lun-1"
GB="$K/plugins/kubernetes.io/iscsi/volumeDevices/iface-default/$P1-$IQ-lun-2"
POD=11111111-2222-3333-4444-555555555555

# filesystem volume (LUN 1) and block volume (LUN 2) of the same target, one pod
dev=$(bash "$LIB/kubelet-attach.sh" --portal "$P1" --iqn "$IQ" --lun 1 --volname vol-fs --pod-uid "$POD") || bad "kubelet-attach fs"
check "[ \"$dev\" = \"$(by_path ref "$P1" 1)\" ]" "attach returns the by-path link ($dev)"
check "mountpoint -q '$G'" "global path mounted"
check "mountpoint -q '$K/pods/$POD/volumes/kubernetes.io~iscsi/vol-fs'" "pod dir bind-mounted"
check "findmnt -n -o SOURCE '$G' | grep -q '^/dev/$(disk_of ref "$P1" 1)\$'" "global mount is the LUN 1 sd device"
bdev=$(bash "$LIB/kubelet-attach.sh" --portal "$P1" --iqn "$IQ" --lun 2 --volname vol-blk --pod-uid "$POD" --block) || bad "kubelet-attach block"
check "[ -f '$GB/iscsi.json' ] && grep -q '\"Lun\":\"2\"' '$GB/iscsi.json'" "block iscsi.json next to the pod device"
check "losetup -n -O BACK-FILE | grep -qx '$GB/$POD'" "loop device holds the block volume"
check "[ \"\$(iscsiadm -m node -T $IQ -p $P1 -o show | awk '/^node.startup/{print \$3}')\" = manual ]" "node.startup=manual"
show "ls -lR $K/plugins"
show "iscsiadm -m session -P 3 | grep -E 'Target|Portal|Lun|disk'"

# block first: the session stays (the FS volume's dir still counts in isSessionBusy)
bash "$LIB/kubelet-detach.sh" --block --pod-uid "$POD" "$GB" || bad "kubelet-detach block exited $?"
check "[ ! -e '$GB' ] && [ \"\$(nsessions)\" = 1 ]" "block detach: map path removed, session kept (busy)"
bash "$LIB/kubelet-detach.sh" --pod-dir "$K/pods/$POD/volumes/kubernetes.io~iscsi/vol-fs" "$G" || bad "kubelet-detach fs exited $?"
check "[ \"\$(nsessions)\" = 0 ]" "fs detach: logged out"
check "! iscsiadm -m node -T $IQ -p $P1 >/dev/null 2>&1" "node record deleted"
check "[ ! -e '$G' ] && ! ls /sys/block | grep -q '^sd'" "global dir removed, no sd device left"
finish
