#!/bin/bash
# kubelet-attach.sh — what kubelet's in-tree iSCSI plugin does to attach and mount a volume for a
# pod (AttachDisk → persistISCSI → MountDevice → SetUp), in the same order with the same commands,
# so scenarios can build the node state a real kubelet leaves (global mount, iscsi.json, pod bind
# mount) without a kubelet. Reference: pkg/volume/iscsi/iscsi_util.go AttachDisk, attacher.go
# MountDevice, disk_manager.go diskSetUp; mount-utils SafeFormatAndMount.
#
# Usage: kubelet-attach.sh --portal P [--portal P2 ...] --iqn IQN --lun N --volname NAME
#                          [--pod-uid UID] [--block] [--fstype ext4] [--kubelet-root DIR]
# Prints the device path it attached. Only iface `default`, no CHAP (scenario 7 drives CHAP).
set -u
ROOT=/var/lib/kubelet PORTALS=() IQN="" LUN="" VOL="" POD="" BLOCK=0 FS=ext4
while [ $# -gt 0 ]; do
  case "$1" in
    --portal) PORTALS+=("$2"); shift 2 ;;
    --iqn) IQN=$2; shift 2 ;;
    --lun) LUN=$2; shift 2 ;;
    --volname) VOL=$2; shift 2 ;;
    --pod-uid) POD=$2; shift 2 ;;
    --block) BLOCK=1; shift ;;
    --fstype) FS=$2; shift 2 ;;
    --kubelet-root) ROOT=$2; shift 2 ;;
    *) echo "unknown $1" >&2; exit 2 ;;
  esac
done
run() { echo "+ $*" >&2; "$@"; }
IFACE=default PRIMARY=${PORTALS[0]}
PLUGIN="$ROOT/plugins/kubernetes.io/iscsi"
# portal -> SCSI host number of a logged-in session of IQN (GetISCSIPortalHostMapForTarget)
host_for() {
  local s c h
  for s in /sys/class/iscsi_host/host*/device/session*; do
    [ -e "$s" ] || continue
    [ "$(cat "$s/iscsi_session/${s##*/}/targetname" 2>/dev/null)" = "$IQN" ] || continue
    h=${s#/sys/class/iscsi_host/host}; h=${h%%/*}
    for c in "$s"/connection*/iscsi_connection/connection*; do
      [ "$(cat "$c/persistent_address"):$(cat "$c/persistent_port")" = "$1" ] && { echo "$h"; return 0; }
      [ "$(cat "$c/address" 2>/dev/null):$(cat "$c/port" 2>/dev/null)" = "$1" ] && { echo "$h"; return 0; }
    done
  done
  return 1
}

run iscsiadm -m iface -I "$IFACE" -o show >/dev/null || exit 1
devs=()
for tp in "${PORTALS[@]}"; do
  if ! host_for "$tp" >/dev/null; then
    run iscsiadm -m discoverydb -t sendtargets -p "$tp" -I "$IFACE" -o new >/dev/null
    run iscsiadm -m discoverydb -t sendtargets -p "$tp" -I "$IFACE" --discover >/dev/null \
      || { run iscsiadm -m discoverydb -t sendtargets -p "$tp" -I "$IFACE" -o delete; continue; }
    run iscsiadm -m node -p "$tp" -T "$IQN" -I "$IFACE" -o update -n node.session.scan -v manual
    run iscsiadm -m node -p "$tp" -T "$IQN" -I "$IFACE" --login >/dev/null \
      || { run iscsiadm -m node -p "$tp" -I "$IFACE" -T "$IQN" -o delete; continue; }
    run iscsiadm -m node -p "$tp" -T "$IQN" -o update -n node.startup -v manual
  fi
  h=$(host_for "$tp") || continue
  # scanOneLun: channel 0, target 0, just this LUN (node.session.scan=manual stopped the full scan)
  echo "+ echo '0 0 $LUN' > /sys/class/scsi_host/host$h/scan" >&2
  printf '0 0 %s' "$LUN" > "/sys/class/scsi_host/host$h/scan"
  p="/dev/disk/by-path/ip-$tp-iscsi-$IQN-lun-$LUN"
  for _ in $(seq 300); do [ -e "$p" ] && break; sleep 0.1; done
  [ -e "$p" ] && devs+=("$p")
done
[ ${#devs[@]} -gt 0 ] || { echo "failed to get any path for iscsi disk" >&2; exit 1; }
dev=${devs[0]}
# multipath: the dm-N with the sd as a slave (waitForMultiPathToExist: up to 10 s with >1 portal)
tries=1; [ ${#PORTALS[@]} -gt 1 ] && tries=100
for _ in $(seq $tries); do
  sd=$(basename "$(readlink -f "${devs[0]}")")
  dm=$(ls -d /sys/block/dm-*/slaves/"$sd" 2>/dev/null | head -1 | cut -d/ -f4)
  [ -n "$dm" ] && { dev=/dev/$dm; break; }
  sleep 0.1
done
# persistISCSI: iscsi.json in the global dir, before the mount (kubelet reads it back on detach)
portals_json=$(printf '"%s",' "${PORTALS[@]}"); portals_json="[${portals_json%,}]"
if [ $BLOCK = 1 ]; then G="$PLUGIN/volumeDevices/iface-$IFACE/$PRIMARY-$IQN-lun-$LUN"; else G="$PLUGIN/iface-$IFACE/$PRIMARY-$IQN-lun-$LUN"; fi
mkdir -p -m 0750 "$G"
printf '{"VolName":"%s","Portals":%s,"Iqn":"%s","Lun":"%s","InitIface":"%s","Iface":"%s","InitiatorName":"","MetricsProvider":null}\n' \
  "$VOL" "$portals_json" "$IQN" "$LUN" "$IFACE" "$IFACE" > "$G/iscsi.json"
if [ $BLOCK = 0 ]; then
  # MountDevice with SafeFormatAndMount: format only a blank device (blkid exit 2), fsck -a otherwise
  blkid -p -s TYPE -s PTTYPE -o export "$dev" >/dev/null 2>&1; b=$?
  if [ $b = 2 ]; then run "mkfs.$FS" -F -m0 -q "$dev" || exit 1; else run fsck -a "$dev"; fi
  run mount -t "$FS" -o defaults "$dev" "$G" || exit 1
  if [ -n "$POD" ]; then
    P="$ROOT/pods/$POD/volumes/kubernetes.io~iscsi/$VOL"
    mkdir -p -m 0750 "$P" && run mount --bind "$G" "$P" || exit 1
  fi
elif [ -n "$POD" ]; then
  # block: bind-mount the device at <globalMapPath>/<podUID>, hold it with a loop device, link the pod
  : > "$G/$POD" && run mount --bind "$dev" "$G/$POD" && run losetup -f "$G/$POD" || exit 1
  P="$ROOT/pods/$POD/volumeDevices/kubernetes.io~iscsi"
  mkdir -p "$P" && ln -sfn "$dev" "$P/$VOL"
fi
echo "$dev"
