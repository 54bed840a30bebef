#!/bin/bash
# kubelet-detach.sh — what kubelet's in-tree iSCSI plugin does to detach a volume, step for step,
# so the scenarios can prove that a volume the console attached is detachable BY KUBELET.
# Reference: kubernetes pkg/volume/iscsi/iscsi_util.go (DetachDisk, DetachBlockISCSIDisk,
# deleteDevices, isSessionBusy, detachISCSIDisk) and pkg/volume/util/device_util_linux.go
# (FindDevicesForISCSILun, FindMultipathDeviceForDevice).
#
# Usage: kubelet-detach.sh [--kubelet-root DIR] [--pod-dir DIR] GLOBAL_PATH          (filesystem)
#        kubelet-detach.sh [--kubelet-root DIR] --block [--pod-uid UID] GLOBAL_MAP_PATH (block)
# --pod-dir / --pod-uid first tear the pod's side down the way kubelet does before UnmountDevice.
# Exit 0 = kubelet would consider the volume detached. Every command is echoed.
set -u
ROOT=/var/lib/kubelet BLOCK=0 POD_DIR="" POD_UID=""
while [ $# -gt 1 ]; do
  case "$1" in
    --kubelet-root) ROOT=$2; shift 2 ;;
    --pod-dir) POD_DIR=$2; shift 2 ;;
    --pod-uid) POD_UID=$2; shift 2 ;;
    --block) BLOCK=1; shift ;;
    *) break ;;
  esac
done
MNT=${1:?global path}
MNT=${MNT%/}
PLUGIN="$ROOT/plugins/kubernetes.io/iscsi"
say() { echo "kubelet: $*"; }
run() { echo "+ $*"; "$@"; }
NODE="${NODE:-$(command -v node)}"

# ---- the pod side (TearDownAt / UnmapPodDevice) ----
if [ -n "$POD_DIR" ]; then
  # mount.CleanupMountPoint(podDir): unmount if mounted, then remove the dir
  mountpoint -q "$POD_DIR" && { run umount "$POD_DIR" || exit 1; }
  run rmdir "$POD_DIR" 2>/dev/null || run rm -f "$POD_DIR"
fi
if [ $BLOCK = 1 ] && [ -n "$POD_UID" ]; then
  # volumepathhandler: the loop device holding the device ("file descriptor lock") goes first,
  # then the bind mount of the device at <globalMapPath>/<podUID>
  for l in /sys/block/loop*/loop/backing_file; do
    [ -e "$l" ] && [ "$(cat "$l")" = "$MNT/$POD_UID" ] && { l=${l#/sys/block/}; run losetup -d "/dev/${l%%/*}"; }
  done
  mountpoint -q "$MNT/$POD_UID" && run umount "$MNT/$POD_UID"
  run rm -f "$MNT/$POD_UID"
fi

# ---- 1.10 step 1 / 1.11 step 1: a missing path means "nothing to do" (and no logout, ever) ----
if [ ! -e "$MNT" ]; then say "Unmount skipped because path does not exist: $MNT"; exit 0; fi
# ---- step 2: unmount the global mount (filesystem volumes) ----
if [ $BLOCK = 0 ] && mountpoint -q "$MNT"; then
  run umount "$MNT" || { say "unmount failed"; exit 1; }
fi

# ---- steps 3-4: iscsi.json, else parse the path (extractDeviceAndPrefix/extractPortalAndIqn/extractIface) ----
device=${MNT##*/}
PORTALS="" IQN="" IFACE="" VOLNAME="" INITNAME="" LUN=""
if [ -f "$MNT/iscsi.json" ] && json=$("$NODE" -e '
  const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log([(d.Portals || []).join(","), d.Iqn || "", d.Iface || "", d.VolName || "", d.InitiatorName || "", d.Lun || ""].join("|"));
' "$MNT/iscsi.json" 2>/dev/null); then
  IFS="|" read -r PORTALS IQN IFACE VOLNAME INITNAME LUN <<<"$json"
  say "loaded iscsi.json: portals=$PORTALS iqn=$IQN iface=$IFACE lun=$LUN"
else
  prefix=${device%-lun-*}
  PORTALS=${device%%-*}
  rest=${prefix#*iqn.}; [ "$rest" != "$prefix" ] && IQN="iqn.$rest" || { rest=${prefix#*eui.}; IQN="eui.$rest"; }
  [[ "$MNT" =~ .+/iface-([^/]+)/.+ ]] && IFACE=${BASH_REMATCH[1]}
  # block volumes also take the LUN from the name; DetachDisk (filesystem) leaves it empty (docs/kubelet-iscsi.md#detachdisk step 4)
  [ $BLOCK = 1 ] && LUN=${device##*-lun-}
  say "no usable iscsi.json: from the path portal=$PORTALS iqn=$IQN iface=$IFACE lun=$LUN"
fi
PRIMARY=${PORTALS%%,*}

if [ $BLOCK = 0 ]; then
  # ---- step 5: deleteDevices — FindDevicesForISCSILun, then multipath -f every map, then delete every sd ----
  if [[ "$LUN" =~ ^[0-9]+$ ]]; then
    devs=() maps=()
    for s in /sys/class/iscsi_host/host*/device/session*; do
      [ -e "$s" ] || continue
      h=${s#/sys/class/iscsi_host/host}; h=${h%%/*}; sn=${s##*/}
      [ "$(cat "$s/iscsi_session/$sn/targetname" 2>/dev/null)" = "$IQN" ] || continue
      for b in "$s/target$h:0:0/$h:0:0:$LUN/block/"*; do [ -e "$b" ] && devs+=("${b##*/}") && break; done
    done
    for d in "${devs[@]}"; do
      for m in /sys/block/dm-*/slaves/"$d"; do [ -e "$m" ] && { m=${m#/sys/block/}; maps+=("${m%%/*}"); }; done
    done
    for m in $(printf '%s\n' "${maps[@]}" | sort -u); do run multipath -f "/dev/$m" || say "warning: multipath -f /dev/$m failed, keep deleting the block devices"; done
    for d in "${devs[@]}"; do
      if [ -e "/sys/block/$d/device/delete" ]; then echo "+ echo 1 > /sys/block/$d/device/delete"; echo 1 > "/sys/block/$d/device/delete" || say "warning: delete $d failed"; fi
    done
  else
    say "warning: LUN unknown, no device deletion (even if deleting fails, a logout may fix problems)"
  fi
else
  # ---- 1.11 step 3: the by-path link; ENOENT is fine since kubernetes PR #141863 ----
  dp="/dev/disk/by-path/ip-$PRIMARY-iscsi-$IQN-lun-$LUN"
  [ -e "$dp" ] || say "devicePath $dp does not exist, continuing"
fi

# ---- steps 7-8: isSessionBusy — count kubelet dirs for <portals[0]>-<iqn> (FS + block) ----
[ -n "$PRIMARY" ] || { say "no portals"; exit 1; }
count=0
for dir in "$PLUGIN" "$PLUGIN/volumeDevices"; do
  [ -d "$dir" ] || continue
  for sub in "$dir"/*/; do
    [ "${sub%/}" = "$PLUGIN/volumeDevices" ] && continue
    for e in "$sub"*; do [ -e "$e" ] && [[ "${e##*/}" == "$PRIMARY-$IQN"* ]] && count=$((count + 1)); done
  done
done
if [ "$count" -gt 1 ]; then say "session busy ($count dirs refer to $PRIMARY $IQN): not logging out"; rm -rf "$MNT"; exit 0; fi

# ---- step 9: detachISCSIDisk — per portal: logout then node record delete (21 and 2 are fine) ----
iface_arg=(); [ -n "$IFACE" ] && iface_arg=(-I "$IFACE")
for p in $(tr ',' '\n' <<<"$PORTALS" | awk 'NF && !seen[$0]++'); do
  say "log out target $p iqn $IQN iface $IFACE"
  run iscsiadm -m node -p "$p" -T "$IQN" --logout "${iface_arg[@]}"; rc=$?
  [ $rc = 0 ] || [ $rc = 21 ] || [ $rc = 2 ] || { say "logout failed: exit $rc"; exit 1; }
  say "delete node record target $p iqn $IQN"
  run iscsiadm -m node -p "$p" -T "$IQN" -o delete "${iface_arg[@]}"; rc=$?
  [ $rc = 0 ] || [ $rc = 21 ] || [ $rc = 2 ] || { say "node record delete failed: exit $rc"; exit 1; }
done
if [ -n "$INITNAME" ] && [ -n "$IFACE" ] && [ "$IFACE" = "$PRIMARY:$VOLNAME" ]; then
  run iscsiadm -m iface -I "$IFACE" -o delete; rc=$?
  [ $rc = 0 ] || [ $rc = 21 ] || [ $rc = 2 ] || { say "iface delete failed: exit $rc"; exit 1; }
fi
# ---- step 10: UnmountDevice / TearDownDevice: os.RemoveAll(global path) ----
run rm -rf "$MNT"
say "detached"
