#!/bin/bash
# Scenario 12 — a csi-driver-iscsi node laid out by hand on a real session (docs/csi-drivers.md), as
# kubelet-attach.sh emulates the in-tree plugin: the driver's connector file (CHAP in plain text, as
# csi-lib-iscsi persists it) in /var/run/iscsi.csi.k8s.io, kubelet's CSI staging dir
# (plugins/kubernetes.io/csi/<driver>/<sha256(handle)>/ with vol_data.json and an empty globalmount:
# the driver has no NodeStage) and the pod's publish dir (vol_data.json beside `mount`) with the device
# mounted. Verdicts: mounted → in-use; unmounted → claimed (never stale) and cleanup refused (exit 3);
# claim removed → stale with the driver named, and cleanup succeeds. The CHAP secret appears nowhere.
# E2E_FAULT=csi-claim-kept keeps the connector, so the last cleanup is refused and the scenario fails.
# fault csi-claim-kept: claim gone: stale|once the claim is gone|stale reasons name
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1
SECRET='e2e-csi-Chap-S3cret-0012'
DRIVER=iscsi.csi.k8s.io HANDLE=csi-e2e-0001 PV=pv-csi-e2e POD=pod-csi-e2e
target_new 121 csie2e 32 || bad "tgt csie2e"
discover "$P1" && login csie2e "$P1" && wait_disk csie2e "$P1" 1 || bad "login csie2e"
D=$(disk_of csie2e "$P1" 1)
mkfs.ext4 -F -q "/dev/$D" || bad "mkfs"
SHA=$(printf %s "$HANDLE" | sha256sum | cut -d' ' -f1)
ST="$E2E_KUBELET/plugins/kubernetes.io/csi/$DRIVER/$SHA"
PD="$E2E_KUBELET/pods/$POD/volumes/kubernetes.io~csi/$PV"
CONN="/var/run/$DRIVER/iscsi-$HANDLE.json"
mkdir -p "$ST/globalmount" "$PD/mount" "/var/run/$DRIVER" "$E2E_KUBELET/plugins_registry"
printf '{"driverName":"%s","volumeHandle":"%s"}\n' "$DRIVER" "$HANDLE" > "$ST/vol_data.json"
printf '{"attachmentID":"csi-x","driverName":"%s","nodeName":"e2e","specVolID":"%s","volumeHandle":"%s","volumeLifecycleMode":"Persistent"}\n' \
  "$DRIVER" "$PV" "$HANDLE" > "$PD/vol_data.json"
printf '{"volume_name":"%s","target_iqn":"%s","target_portal":["%s"],"lun":1,"auth_type":"chap","discovery_secrets":{"userName":"","password":""},"session_secrets":{"secretsType":"chap","userName":"e2e-user","password":"%s"},"interface":"default","mount_target_device":{"name":"/dev/%s","hctl":"","children":null,"type":"disk","tran":"iscsi"},"devices":[{"name":"/dev/%s"}],"retry_count":10,"check_interval":1,"do_discovery":true,"do_chap_discovery":false}\n' \
  "$HANDLE" "$(iqn csie2e)" "$P1" "$SECRET" "$D" "$D" > "$CONN"
: > "$E2E_KUBELET/plugins_registry/$DRIVER-reg.sock"
mount "/dev/$D" "$PD/mount" || bad "publish mount"
S=$(sid_of csie2e "$P1")
verdict() { session_field "$WORK/$1.out" "$S" verdict; }

status_now mounted
V=$(verdict mounted)
check "[ '$V' = in-use ]" "mounted at the CSI publish path: in-use ($V)"
C=$(jget "$WORK/mounted.out" "d.sessions.find(s=>s.sid===$S)?.claims?.[0]?.driver")
check "[ '$C' = '$DRIVER' ]" "the claim names $DRIVER ($C)"
C=$(jget "$WORK/mounted.out" "d.csi?.volumes?.find(v=>v.volumeHandle==='$HANDLE')?.pv")
check "[ '$C' = '$PV' ]" "the CSI volume names PV $PV ($C)"
act c-mounted cleanup "$S"
check "[ $(rc_of c-mounted) = 3 ]" "cleanup of the mounted CSI session refused (exit $(rc_of c-mounted))"

umount "$PD/mount" || bad "umount publish"
status_now unmounted
V=$(verdict unmounted)
check "[ '$V' = claimed ]" "unmounted but claimed: claimed, not stale ($V)"
check "grep -q 'claimed by csi-driver-iscsi volume $PV, not mounted' '$WORK/unmounted.out'" "the reason names csi-driver-iscsi and $PV"
act c-claimed cleanup "$S"
check "[ $(rc_of c-claimed) = 3 ]" "cleanup of the claimed session refused (exit $(rc_of c-claimed))"
check "grep -q driver-claimed '$WORK/c-claimed.out' '$WORK/c-claimed.err'" "refused as driver-claimed"
check "[ \"\$(sid_of csie2e $P1)\" = '$S' ] && [ -e '$CONN' ]" "session and connector untouched"

# The claim goes: DetachDisk removed its connector, kubelet its dirs, but the logout never happened.
fault csi-claim-kept || rm -f "$CONN"
rm -f "$PD/vol_data.json" && rmdir "$PD/mount" "$PD" && rm -f "$ST/vol_data.json" && rmdir "$ST/globalmount" "$ST"
status_now gone
V=$(verdict gone)
check "[ '$V' = stale ]" "claim gone: stale ($V)"
check "grep -q 'created by csi-driver-iscsi' '$WORK/gone.out'" "the stale reasons name csi-driver-iscsi"
act c-gone cleanup "$S"
check "[ $(rc_of c-gone) = 0 ]" "cleanup once the claim is gone exited 0"
check "[ -z \"\$(sid_of csie2e $P1)\" ]" "session gone"
check "! record_exists csie2e $P1" "node record gone"
check "[ ! -e '$(by_path csie2e "$P1" 1)' ]" "no device left"

status_now after
leaks=$(grep -rlF -e "$SECRET" "$WORK"/*.out "$WORK"/*.err /var/log/iscsi-console 2>/dev/null)
check "[ -z '$leaks' ]" "the connector's CHAP secret is in no output, status or journal ${leaks:+(found in: $leaks)}"
rm -f "$CONN" "$E2E_KUBELET/plugins_registry/$DRIVER-reg.sock"
finish
