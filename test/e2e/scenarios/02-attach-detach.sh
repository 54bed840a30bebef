#!/bin/bash
# Scenario 2 — `attach` makes exactly what kubelet makes, so kubelet can detach it:
# (a) a filesystem volume from flags: session, by-path device, ext4 formatted, mounted on the kubelet
#     global path, iscsi.json written byte-for-byte as kubelet's json.Encoder writes it (under the mount);
# (b) a block volume from flags: global map path with iscsi.json, nothing formatted or mounted;
# (c) a filesystem volume from a Pod manifest (inline `iscsi` volume: VolName = the volume's name).
# Each is then detached by lib/kubelet-detach.sh — kubelet's DetachDisk order: unmount, multipath -f,
# device delete, logout, node record delete — which must succeed and leave nothing behind.
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1
target_new 21 fs 64 || bad "tgt fs"
target_new 22 blk 32 || bad "tgt blk"
target_new 23 pod 48 || bad "tgt pod"

# detached NAME DIR : kubelet's detach left nothing of target NAME behind
detached() {
  check "[ -z \"\$(sid_of $1 $P1)\" ]" "$1: session logged out"
  check "! record_exists $1 $P1" "$1: node record deleted"
  check "[ ! -e '$(by_path "$1" "$P1" 1)' ] && ! ls /sys/block | grep -q '^sd'" "$1: no sd device left"
  check "[ ! -e '$2' ]" "$1: kubelet global dir removed"
}

# --- (a) filesystem volume from flags
t=$(_ts)
act a-attach attach --portal "$P1" --iqn "$(iqn fs)" --lun 1 --fs-type ext4 --volume-name vol-a
check "[ $(rc_of a-attach) = 0 ]" "a: attach exited 0 ($(_since "$t")s)"
G=$(global_fs fs "$P1" 1)
SD=$(disk_of fs "$P1" 1)
check "[ -n '$SD' ] && [ \"\$(readlink -f $(by_path fs "$P1" 1))\" = /dev/$SD ]" "a: by-path link -> /dev/$SD"
check "mountpoint -q '$G' && [ \"\$(mount_source '$G')\" = \"\$(majmin $SD)\" ]" "a: $SD mounted on the global path"
check "[ \"\$(blkid -o value -s TYPE /dev/$SD)\" = ext4 ]" "a: formatted ext4"
want=$(kubelet_json vol-a "$P1" "$(iqn fs)" 1); got=$(hidden_json "$G")
check "[ '$got' = '$want' ]" "a: iscsi.json under the mount is kubelet's: $got"
check "[ \"\$(iscsiadm -m node -T $(iqn fs) -p $P1 -o show | awk '/^node.startup /{print \$3}')\" = manual ]" "a: node.startup=manual"
check "[ \"\$(iscsiadm -m node -T $(iqn fs) -p $P1 -o show | awk '/^node.session.scan /{print \$3}')\" = manual ]" "a: node.session.scan=manual"
echo data > "$G/hello" && sync
bash "$LIB/kubelet-detach.sh" "$G"; check "[ $? = 0 ]" "a: kubelet DetachDisk succeeded"
detached fs "$G"

# --- (b) block volume from flags
act b-attach attach --portal "$P1" --iqn "$(iqn blk)" --lun 1 --volume-name vol-b --block
check "[ $(rc_of b-attach) = 0 ]" "b: attach --block exited 0"
GB=$(global_blk blk "$P1" 1)
SD=$(disk_of blk "$P1" 1)
check "[ -n '$SD' ] && [ -e '$(by_path blk "$P1" 1)' ]" "b: by-path link for $SD"
check "[ \"\$(cat '$GB/iscsi.json')\" = '$(kubelet_json vol-b "$P1" "$(iqn blk)" 1)' ]" "b: iscsi.json in the global map path"
check "! mountpoint -q '$GB' && ! blkid -p /dev/$SD >/dev/null 2>&1" "b: not mounted, not formatted"
bash "$LIB/kubelet-detach.sh" --block "$GB"; check "[ $? = 0 ]" "b: kubelet DetachBlockISCSIDisk succeeded"
detached blk "$GB"

# --- (c) filesystem volume from a Pod manifest
cat > "$WORK/pod.yaml" <<YAML
apiVersion: v1
kind: Pod
metadata: {name: e2e-pod, namespace: default}
spec:
  containers: [{name: c, image: busybox, volumeMounts: [{name: data, mountPath: /data}]}]
  volumes:
  - name: data
    iscsi:
      targetPortal: $P1
      iqn: $(iqn pod)
      lun: 1
      fsType: ext4
      readOnly: false
YAML
act c-attach attach --manifest "$WORK/pod.yaml"
check "[ $(rc_of c-attach) = 0 ]" "c: attach from a Pod manifest exited 0"
G=$(global_fs pod "$P1" 1)
SD=$(disk_of pod "$P1" 1)
check "[ -n '$SD' ] && mountpoint -q '$G' && [ \"\$(mount_source '$G')\" = \"\$(majmin $SD)\" ]" "c: mounted on the global path"
got=$(hidden_json "$G")
check "[ '$got' = '$(kubelet_json data "$P1" "$(iqn pod)" 1)' ]" "c: iscsi.json VolName is the Pod volume's name: $got"
bash "$LIB/kubelet-detach.sh" "$G"; check "[ $? = 0 ]" "c: kubelet DetachDisk succeeded"
detached pod "$G"
finish
