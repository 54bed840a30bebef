#!/bin/bash
# Scenario 3 — attach with two portals under multipathd: two sessions, ONE dm map holding both
# paths, the filesystem mounted on the map (not on an sd path), iscsi.json listing both portals;
# then kubelet's DetachDisk (multipath -f before deleting the paths) leaves no map, path or session.
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1 P2=$E2E_PORTAL2
target_new 31 mp 64 || bad "tgt mp"
IQ=$(iqn mp)

t=$(_ts)
act attach attach --portal "$P1" --portal "$P2" --iqn "$IQ" --lun 1 --fs-type ext4 --volume-name vol-mp
check "[ $(rc_of attach) = 0 ]" "attach with two portals exited 0 ($(_since "$t")s)"
A=$(disk_of mp "$P1" 1) B=$(disk_of mp "$P2" 1)
check "[ -n '$A' ] && [ -n '$B' ] && [ '$A' != '$B' ]" "one sd path per portal ($A, $B)"
DM=$(dm_of "$A")
check "[ -n '$DM' ] && [ \"\$(dm_of $B)\" = '$DM' ]" "both paths held by one map ($DM)"
check "[ \"\$(ls /sys/block/$DM/slaves | sort | tr '\n' ' ')\" = \"\$(printf '%s\n' $A $B | sort | tr '\n' ' ')\" ]" "$DM slaves are exactly $A $B"
check "[ \"\$(ls -d /sys/block/dm-* | wc -l)\" = 1 ]" "exactly one dm map on the node"
check "timeout 30 multipath -ll | grep -c 'active ready running' | grep -qx 2" "multipath -ll: two active paths"
G=$(global_fs mp "$P1" 1)
check "mountpoint -q '$G' && [ \"\$(mount_source '$G')\" = \"\$(majmin $DM)\" ]" "global path mounted on $DM, not on a path"
got=$(hidden_json "$G")
check "[ '$got' = '$(kubelet_json vol-mp "$P1,$P2" "$IQ" 1)' ]" "iscsi.json lists both portals: $got"
show "timeout 30 multipath -ll"
# The raw tools' facts in status --json (docs/status-schema.md): -ll's topology from multipathd (never
# -ll itself), the map's FSTYPE from the udev database, the negotiated parameters -P 3 prints.
# udev records the new filesystem from the change event mkfs's close raises, asynchronously: wait for
# the queue to drain. Under load the dm rules have also skipped that probe altogether (no ID_FS_TYPE
# once the queue was empty; lsblk then shows no FSTYPE either): ask udev to look again, as an admin
# would with `udevadm trigger`, so the check below is about reading udev's record, not udev's timing.
udevadm settle --timeout=60
if ! udevadm info --query=property --name="/dev/$DM" | grep -q '^ID_FS_TYPE='; then
  echo "udev has no ID_FS_TYPE for $DM yet: udevadm trigger --action=change"
  udevadm trigger --action=change "/sys/block/$DM"
  udevadm settle --timeout=60
fi
show "udevadm info --query=property --name=/dev/$DM | grep ^ID_FS_"
status_now mp-status
S=$WORK/mp-status.out
check "[ \"\$(jget $S \"d.multipath.find(m=>m.name==='$DM')?.topology?.source\")\" = multipathd ]" "topology read from multipathd"
check "[ \"\$(jget $S \"d.multipath.find(m=>m.name==='$DM').topology.pathGroups.flatMap(g=>g.paths).filter(p=>p.dmState==='active'&&p.checkerState==='ready'&&p.devState==='running').length\")\" = 2 ]" "both paths 'active ready running', as multipath -ll says"
check "[ \"\$(jget $S \"d.multipath.find(m=>m.name==='$DM').fs?.type\")\" = ext4 ]" "the map's FSTYPE ext4 from /run/udev/data (lsblk's)"
check "[ \"\$(jget $S \"d.multipath.find(m=>m.name==='$DM').fs?.uuid\")\" = \"\$(udevadm info --query=property --name=/dev/$DM | sed -n 's/^ID_FS_UUID=//p')\" ]" "the map's UUID is udev's ID_FS_UUID"
# the same moment through the kernel's own tools: compare-status.mjs parses -P 3's "Timeouts" and
# "Negotiated iSCSI params" of each session and compares every value it shows with status --json
iscsiadm -m session -P 3 > "$WORK/mp-P3.txt" 2>&1
lsblk -J -b -o NAME,KNAME,TYPE,SIZE,HCTL,TRAN,MAJ:MIN,MOUNTPOINTS > "$WORK/mp-lsblk.json"
timeout 30 multipath -ll > "$WORK/mp-ll.txt" 2>&1
"$NODE" "$LIB/compare-status.mjs" --status "$S" --session-p3 "$WORK/mp-P3.txt" --lsblk "$WORK/mp-lsblk.json" \
  --multipath "$WORK/mp-ll.txt" > "$WORK/cmp.txt"; crc=$?
sed 's/^/  /' "$WORK/cmp.txt"
check "[ \"\$(grep -c '^OK   session [0-9]* params ' $WORK/cmp.txt)\" -ge 20 ] && ! grep -q '^FAIL session [0-9]* params' $WORK/cmp.txt" \
  "negotiated parameters and timeouts of both sessions as iscsiadm -m session -P 3 prints them ($(grep -c '^OK   session [0-9]* params ' "$WORK/cmp.txt") values equal)"
check "[ $crc = 0 ]" "status --json matches iscsiadm -P 3, lsblk and multipath -ll ($(grep -c '^FAIL' "$WORK/cmp.txt") mismatches)"

bash "$LIB/kubelet-detach.sh" "$G"; check "[ $? = 0 ]" "kubelet DetachDisk succeeded"
check "[ \"\$(nsessions)\" = 0 ]" "both sessions logged out"
check "! ls /sys/block | grep -q '^dm-\|^sd'" "no dm map and no sd path left"
check "! record_exists mp $P1 && ! record_exists mp $P2" "both node records deleted"
finish
