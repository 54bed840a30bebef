#!/bin/bash
# Scenario 13 — a LUN above 255 end to end (SAM flat space addressing). tgt reports its LUN 300 as
# `41 2c 00 …` in REPORT LUNS, which Linux numbers 16684 (scsilun_to_int), so:
# - `scan <sid> 300` writes `0 0 16684` and brings the LUN in as H:0:0:16684 (`0 0 300` would not);
# - `status` shows LUN 300 with its kernel number and udev's `lun-0x412c000000000000` by-path link;
# - `attach --lun 300` (filesystem, then block) works, and kubelet-style detach of each succeeds.
#   lib/kubelet-detach.sh stays kubelet's code, unconverted: kubelet's FindDevicesForISCSILun looks
#   for H:0:0:300 and finds nothing, so it deletes no device; its logout then removes the device.
#   The scenario checks that this really leaves nothing behind.
# E2E_FAULT=lun-300-kubelet-scan writes kubelet's own `0 0 300` instead of calling `scan`: the
# "LUN appeared" checks must then fail.
# fault lun-300-kubelet-scan: LUN 300 is the kernel's H:0:0:16684
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1
T=lun300 KLUN=16684 HEX=lun-0x412c000000000000
touch /run/e2e-dirty
tgtadm --lld iscsi --op new --mode target --tid 131 -T "$(iqn $T)" || bad "tgt target"
truncate -s 32M /tmp/e2e-t131-lun300.img
tgtadm --lld iscsi --op new --mode logicalunit --tid 131 --lun 300 -b /tmp/e2e-t131-lun300.img || bad "tgt LUN 300"
tgtadm --lld iscsi --op bind --mode target --tid 131 -I ALL
LINK="/dev/disk/by-path/ip-$P1-iscsi-$(iqn $T)-$HEX"
# hctl_dev SID : the H:C:T:L dir name of kernel LUN 16684 on that session, if present
hctl_dev() { ls -d "$(readlink -f /sys/class/iscsi_session/session"$1"/device)"/target*/*:0:0:$KLUN 2>/dev/null | head -1; }

# --- scan + status on a session logged in with node.session.scan=manual
discover "$P1"
iscsiadm -m node -T "$(iqn $T)" -p "$P1" -o update -n node.session.scan -v manual
login $T "$P1" || bad "login"
SID=$(sid_of $T "$P1")
check "[ -z \"\$(hctl_dev $SID)\" ]" "manual scan: LUN 300 not there after login"
if fault lun-300-kubelet-scan; then
  H=$(basename "$(ls -d "$(readlink -f /sys/class/iscsi_session/session"$SID"/device)"/../scsi_host/host* | head -1)")
  echo "0 0 300" > "/sys/class/scsi_host/$H/scan" 2>/dev/null
  echo 0 > "$WORK/scan.rc"
else
  act scan scan "$SID" 300
fi
check "[ $(rc_of scan) = 0 ]" "scan $SID 300 exited 0 (got $(rc_of scan))"
check "wait_for '[ -n \"\$(hctl_dev $SID)\" ] && [ -e $LINK ]' 30" "LUN 300 is the kernel's H:0:0:$KLUN, with by-path $HEX"
SD=$(basename "$(ls -d "$(hctl_dev "$SID")"/block/* 2>/dev/null | head -1)")
show "ls -l /dev/disk/by-path/ | grep $(iqn $T)"
status_now st
check "[ \"\$(jget $WORK/st.out 'd.sessions.find(s=>s.sid===$SID)?.devices.find(x=>x.name===\"$SD\")?.lun')\" = 300 ]" "status --json: $SD has lun 300"
check "[ \"\$(jget $WORK/st.out 'd.sessions.find(s=>s.sid===$SID)?.devices.find(x=>x.name===\"$SD\")?.kernelLun')\" = $KLUN ]" "status --json: kernelLun $KLUN"
check "jget $WORK/st.out 'd.sessions.find(s=>s.sid===$SID)?.devices.find(x=>x.name===\"$SD\")?.hctl' | grep -q ':0:0:$KLUN\$'" "status --json: hctl ends :$KLUN"
check "jget $WORK/st.out 'd.sessions.find(s=>s.sid===$SID)?.devices.find(x=>x.name===\"$SD\")?.byPath' | grep -qF '$LINK'" "status --json: by-path $LINK"
E2E_LOG_LINES=0 run_cli st-text status >/dev/null
check "grep -qF 'lun 300 (kernel $KLUN)' $WORK/st-text.out" "status text: 'lun 300 (kernel $KLUN)'"
check "grep -qF 'kubelet cannot attach LUN 300 itself' $WORK/st-text.out" "status text says kubelet could not attach it"
act scan-again scan "$SID" 300 --dry-run
check "grep -q 'already present' $WORK/scan-again.out $WORK/scan-again.err" "a second scan knows LUN 300 is present (matched by the target LUN)"
act del delete-device "$SD"
check "[ $(rc_of del) = 0 ] && [ ! -e /sys/block/$SD ]" "delete-device $SD removed it"
iscsiadm -m node -T "$(iqn $T)" -p "$P1" --logout >/dev/null; iscsiadm -m node -T "$(iqn $T)" -p "$P1" -o delete
rm -rf /etc/iscsi/send_targets/*

# detached DIR : kubelet's detach left nothing behind
detached() {
  check "[ -z \"\$(sid_of $T $P1)\" ]" "$1: session logged out"
  check "! record_exists $T $P1" "$1: node record deleted"
  check "[ ! -e '$LINK' ] && ! ls /sys/block | grep -q '^sd'" "$1: no sd device left"
  check "[ ! -e '$2' ]" "$1: kubelet global dir removed"
}

# --- attach --lun 300, filesystem
act fs attach --portal "$P1" --iqn "$(iqn $T)" --lun 300 --fs-type ext4 --volume-name vol-300
check "[ $(rc_of fs) = 0 ]" "fs: attach --lun 300 exited 0 (got $(rc_of fs))"
G=$(global_fs $T "$P1" 300)
SID=$(sid_of $T "$P1"); SD=$(basename "$(ls -d "$(hctl_dev "$SID")"/block/* 2>/dev/null | head -1)")
check "[ -n '$SD' ] && [ \"\$(readlink -f $LINK)\" = /dev/$SD ]" "fs: $HEX -> /dev/$SD"
check "mountpoint -q '$G' && [ \"\$(mount_source '$G')\" = \"\$(majmin $SD)\" ]" "fs: $SD mounted on $G"
check "[ '$(hidden_json "$G")' = '$(kubelet_json vol-300 "$P1" "$(iqn $T)" 300)' ]" "fs: iscsi.json says Lun 300"
status_now st-fs
check "jget $WORK/st-fs.out 'd.sessions.find(s=>s.sid===$SID)?.kubeletVolumes' | grep -qF '$G'" "fs: status ties the -lun-300 dir to its session"
check "[ \"\$(session_field $WORK/st-fs.out $SID verdict)\" = in-use ]" "fs: the session is in-use"
bash "$LIB/kubelet-detach.sh" "$G"; check "[ $? = 0 ]" "fs: kubelet DetachDisk succeeded"
detached fs "$G"

# --- attach --lun 300, block
act blk attach --portal "$P1" --iqn "$(iqn $T)" --lun 300 --volume-name vol-300b --block
check "[ $(rc_of blk) = 0 ]" "block: attach --lun 300 --block exited 0 (got $(rc_of blk))"
GB=$(global_blk $T "$P1" 300)
check "[ -e '$LINK' ] && [ \"\$(cat '$GB/iscsi.json')\" = '$(kubelet_json vol-300b "$P1" "$(iqn $T)" 300)' ]" "block: by-path link and iscsi.json"
bash "$LIB/kubelet-detach.sh" --block "$GB"; check "[ $? = 0 ]" "block: kubelet DetachBlockISCSIDisk succeeded"
detached block "$GB"
finish
