#!/bin/bash
# Scenario 6 — refusals on a real node, and a real target outage:
# - `logout` of a session whose device is mounted is refused (exit 3): session, mount and data stay;
# - the target (tgtd) dies: both sessions to the portal go FAILED in sysfs, `status` says health
#   failed, and the outage guard refuses `cleanup` (exit 3): every session of the portal failed at
#   once (the engine's guard needs at least two sessions on the portal to call it an outage);
# - the target comes back with the same LUNs: the sessions recover by themselves, health ok again.
source "$PROJECT/test/e2e/lib/common.sh"
require_cmds logout cleanup status
P1=$E2E_PORTAL1 P2=$E2E_PORTAL2
target_new 61 out 32 || bad "tgt out"
target_new 62 out2 32 || bad "tgt out2"
discover "$P1" && login out "$P1" && wait_disk out "$P1" 1 || bad "login out"
login out2 "$P1" && wait_disk out2 "$P1" 1 || bad "login out2"
SID=$(sid_of out "$P1") SD=$(disk_of out "$P1" 1) SID2=$(sid_of out2 "$P1")
mkfs.ext4 -F -q "/dev/$SD" && mkdir -p "$E2E_MNT/o" && mount "/dev/$SD" "$E2E_MNT/o" && echo keep > "$E2E_MNT/o/data" && sync

act logout-mounted logout "$SID"
check "[ $(rc_of logout-mounted) = 3 ]" "logout of a session with a mounted device: refused, exit 3 (got $(rc_of logout-mounted))"
check "[ \"\$(sid_of out $P1)\" = $SID ] && mountpoint -q $E2E_MNT/o && [ \"\$(cat $E2E_MNT/o/data)\" = keep ]" "session, mount and data intact"
umount "$E2E_MNT/o"

# outage: the target process dies (its connections drop at once)
# tgtd runs as two processes; all of them go (guest-only daemons started by guest-setup.sh)
for pid in $(pgrep -x tgtd); do kill -9 "$pid"; done
wait_for "! pgrep -x tgtd >/dev/null" 30
check "wait_for '[ \"\$(cat /sys/class/iscsi_session/session$SID/state)\" = FAILED ] && [ \"\$(cat /sys/class/iscsi_session/session$SID2/state)\" = FAILED ]' 60" "sessions $SID and $SID2 went FAILED"
status_now outage
check "[ \"\$(session_field $WORK/outage.out $SID health)\" = failed ]" "status: health failed during the outage"
act cleanup-outage cleanup "$SID"
check "[ $(rc_of cleanup-outage) = 3 ]" "cleanup during the outage: refused by the outage guard, exit 3 (got $(rc_of cleanup-outage))"
check "[ -e /sys/class/iscsi_session/session$SID ] && record_exists out $P1" "session and node record kept"

# recovery: same target, same LUN backing file (the initiator reconnects within recovery_tmo)
tgtd --iscsi "portal=$P1"
wait_for 'tgtadm --lld iscsi --op show --mode target >/dev/null 2>&1' 30
tgtadm --lld iscsi --op new --mode portal --param "portal=$P2"
tgtadm --lld iscsi --op new --mode target --tid 61 -T "$(iqn out)"
tgtadm --lld iscsi --op new --mode logicalunit --tid 61 --lun 1 -b /tmp/e2e-t61-lun1.img
tgtadm --lld iscsi --op bind --mode target --tid 61 -I ALL
tgtadm --lld iscsi --op new --mode target --tid 62 -T "$(iqn out2)"
tgtadm --lld iscsi --op new --mode logicalunit --tid 62 --lun 1 -b /tmp/e2e-t62-lun1.img
tgtadm --lld iscsi --op bind --mode target --tid 62 -I ALL
check "wait_for '[ \"\$(cat /sys/class/iscsi_session/session$SID/state)\" = LOGGED_IN ] && [ \"\$(cat /sys/class/iscsi_session/session$SID2/state)\" = LOGGED_IN ]' 90" "sessions $SID and $SID2 recovered (LOGGED_IN)"
check "[ \"\$(cat /sys/block/$SD/device/state)\" = running ]" "$SD running again"
status_now recovered
check "[ \"\$(session_field $WORK/recovered.out $SID health)\" = ok ]" "status: health ok after recovery"
finish
