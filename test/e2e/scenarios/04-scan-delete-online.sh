#!/bin/bash
# Scenario 4 — LUN-level actions on a real session:
# - `scan` of one LUN on a session logged in with node.session.scan=manual adds exactly that LUN;
# - `rescan` of the session finds the others;
# - `delete-device` refuses while the device is mounted (exit 3; the device and its data survive),
#   then, once unmounted, removes the sd device and nothing else;
# - `online` brings a device the kernel holds `offline` back to `running`.
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1
target_new 41 luns 32 32 32 || bad "tgt luns"
IQ=$(iqn luns)
discover "$P1"
iscsiadm -m node -T "$IQ" -p "$P1" -o update -n node.session.scan -v manual
login luns "$P1" || bad "login"
SID=$(sid_of luns "$P1")
# No fixed wait for "a wrong scan would have shown up by now": with iscsi_tcp the kernel never scans by
# itself (scsi_transport_iscsi.c __iscsi_unblock_session: only drivers with scan_finished do), and iscsid
# answers a login with automatic scan only after its child has scanned the host (open-iscsi
# usr/initiator.c session_scan_host). So once `--login` returned, a scan would have added its SCSI
# devices (scsi_scan_target adds them synchronously); their sd disks probe asynchronously, so udev's
# queue is drained before /sys/block is looked at.
udevadm settle --timeout=60
check "[ -n '$SID' ] && [ -z \"\$(ls -d /sys/class/iscsi_session/session$SID/device/target*/*:*:*:* 2>/dev/null)\" ] && [ \"\$(ls /sys/block | grep -c '^sd')\" = 0 ]" \
  "manual scan: no SCSI device (not even LUN 0) and no sd disk after the login returned"

# targeted scan: the session by sid, the LUN as the second positional (README.md#commands)
act scan scan "$SID" 2
check "[ $(rc_of scan) = 0 ]" "scan exited 0"
check "wait_disk luns $P1 2 30" "LUN 2 appeared"
check "[ \"\$(ls /sys/block | grep -c '^sd')\" = 1 ] && ! disk_of luns $P1 1 >/dev/null && ! disk_of luns $P1 3 >/dev/null" "exactly one LUN was added (not 1 or 3)"

act rescan rescan "$SID"
check "[ $(rc_of rescan) = 0 ]" "rescan exited 0"
check "wait_disk luns $P1 1 30 && wait_disk luns $P1 3 30" "rescan found LUNs 1 and 3"
L1=$(disk_of luns "$P1" 1) L3=$(disk_of luns "$P1" 3)

# delete-device refuses a mounted device; the data stays readable
mkfs.ext4 -F -q "/dev/$L1" && mkdir -p "$E2E_MNT/l1" && mount "/dev/$L1" "$E2E_MNT/l1" && echo precious > "$E2E_MNT/l1/data" && sync
act del-mounted delete-device "$L1"
check "[ $(rc_of del-mounted) = 3 ]" "delete-device of a mounted device: refused, exit 3 (got $(rc_of del-mounted))"
check "[ -e /sys/block/$L1 ] && [ \"\$(cat $E2E_MNT/l1/data)\" = precious ]" "$L1 still there, its data intact"
umount "$E2E_MNT/l1"
act del delete-device "$L1"
check "[ $(rc_of del) = 0 ]" "delete-device of the unmounted device exited 0"
check "[ ! -e /sys/block/$L1 ]" "$L1 removed from the kernel"
check "[ -e /sys/block/$L3 ] && disk_of luns $P1 2 >/dev/null" "the other LUNs are untouched"
check "[ \"\$(cat /sys/class/iscsi_session/session$SID/state)\" = LOGGED_IN ]" "session still logged in"

# online: the kernel's `offline` device state back to `running`
echo offline > "/sys/block/$L3/device/state"
check "[ \"\$(cat /sys/block/$L3/device/state)\" = offline ]" "$L3 set offline"
act online online "$L3"
check "[ $(rc_of online) = 0 ]" "online exited 0"
check "[ \"\$(cat /sys/block/$L3/device/state)\" = running ]" "$L3 is running again"
check "dd if=/dev/$L3 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null" "$L3 answers reads"
finish
