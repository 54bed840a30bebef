#!/bin/bash
# Scenario 6 — refusals on a real node, and a real target outage:
# - `logout` of a session whose device is mounted is refused (exit 3): session, mount and data stay;
# - the target (tgtd) dies: both sessions to the portal go FAILED in sysfs, `status` says health
#   failed, and the outage guard refuses `cleanup` (exit 3): every session of the portal failed at
#   once (the engine's guard needs at least two sessions on the portal to call it an outage);
# - the outage is named everywhere: `status --json` has it in `outages` (both sids, kernel states) and
#   the unused session's verdict is `outage`, not `stale`; `doctor` fails its `sessions.portals` check
#   (exit 3); `watch --json`, started before the kill, emits the portal-down event; the console in tmux
#   shows the OUTAGE banner;
# - the target comes back with the same LUNs: the sessions recover by themselves, health ok again, the
#   watch emits the portal-up event and the banner goes.
# E2E_FAULT=outage-no-kill leaves tgtd running: every outage check must then FAIL.
# fault outage-no-kill: sessions [0-9]+ and [0-9]+ went FAILED
source "$PROJECT/test/e2e/lib/common.sh"
require_env tmux   # the OUTAGE banner in the console
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

# the live event stream, before anything breaks: it must see the portal go down and come back
cli watch --json > "$WORK/watch.ndjson" 2> "$WORK/watch.err" &
WATCH_PID=$!
trap 'kill $WATCH_PID 2>/dev/null; tmux -L e2e-out kill-server 2>/dev/null' EXIT
watch_up() { grep -qF '"kind":"watcher"' "$WORK/watch.ndjson"; }
check "wait_for watch_up 120" "watch --json is up (its first event is out)"
# recovery_tmo (120 s by default) may expire during the checks below: FAILED/blocked then turn
# FREE/transport-offline; every check accepts both, as the engine reports both.
DOWN="portal $P1 down: 2 sessions"
watch_has() { grep -F "\"kind\":\"portal\"" "$WORK/watch.ndjson" | grep -qF "$1"; }

# outage: the target process dies (its connections drop at once)
# tgtd runs as two processes; all of them go (guest-only daemons started by guest-setup.sh)
if fault outage-no-kill; then log "E2E_FAULT=outage-no-kill: tgtd left running"
else for pid in $(pgrep -x tgtd); do kill -9 "$pid"; done; fi
wait_for "! pgrep -x tgtd >/dev/null" 30
check "wait_for '[ \"\$(cat /sys/class/iscsi_session/session$SID/state)\" = FAILED ] && [ \"\$(cat /sys/class/iscsi_session/session$SID2/state)\" = FAILED ]' 60" "sessions $SID and $SID2 went FAILED"
show "grep . /sys/class/iscsi_session/session$SID/state /sys/class/iscsi_connection/connection$SID:0/state /sys/block/$SD/device/state"
status_now outage
check "[ \"\$(session_field $WORK/outage.out $SID health)\" = failed ]" "status: health failed during the outage"
O="d.outages.find(o=>o.portal==='$P1')"
check "[ \"\$(jget $WORK/outage.out \"$O?.sessions.join(',') ?? 'absent'\")\" = '$SID,$SID2' ]" "status --json: outages names portal $P1 with sessions $SID,$SID2 ($(jget "$WORK/outage.out" "$O?.summary ?? 'absent'"))"
check "[ \"\$(jget $WORK/outage.out \"($O?.sessionStates.FAILED ?? 0) + ($O?.sessionStates.FREE ?? 0)\")\" = 2 ] && [ \"\$(jget $WORK/outage.out \"($O?.deviceStates.blocked ?? 0) + ($O?.deviceStates['transport-offline'] ?? 0)\")\" -ge 2 ]" "status --json: the outage's kernel states, 2 sessions FAILED/FREE, devices blocked/transport-offline: $(jget "$WORK/outage.out" "JSON.stringify([$O?.sessionStates,$O?.connectionStates,$O?.deviceStates])")"
check "[ \"\$(session_field $WORK/outage.out $SID verdict)\" = outage ] && [ \"\$(session_field $WORK/outage.out $SID2 verdict)\" = outage ]" "status --json: the unused sessions on the dead portal read verdict outage, not stale"
E2E_LOG_LINES=0 run_cli status-text status >/dev/null
check "grep -qF '$DOWN' $WORK/status-text.out" "status text: the OUTAGES section names the portal"
run_cli doctor-outage doctor --json >/dev/null
check "[ $(rc_of doctor-outage) = 3 ] && [ \"\$(doctor_check $WORK/doctor-outage.out sessions.portals status)\" = fail ]" "doctor: sessions.portals fails, exit 3 (got $(rc_of doctor-outage), $(doctor_check "$WORK/doctor-outage.out" sessions.portals evidence))"
check "wait_for 'watch_has \"$DOWN\"' 60" "watch --json: the portal-down event"
grep -F '"kind":"portal"' "$WORK/watch.ndjson" | sed 's/^/  | /'
# the console in a real terminal: the banner under the tabs
T="tmux -L e2e-out"
$T new-session -d -s con -x 140 -y 40 "TERM=xterm-256color $NODE ${E2E_CLI:-$PROJECT/dist/cli.js} 2>$WORK/console.err; echo CONSOLE-EXIT=\$?; sleep 600"
# Under TCG on a loaded machine the console's first frame (Node start, Ink, React) can take minutes.
check "wait_for '$T capture-pane -p -t con | grep -qF \"OUTAGE $DOWN\"' 300" "console: the OUTAGE banner names the portal"
show "ps -o pid,etime,time,stat,args -C node | cut -c1-160; cat $WORK/console.err"
$T capture-pane -p -t con > "$WORK/screen-outage.txt"; sed 's/^/  | /' "$WORK/screen-outage.txt"
check "grep -E '^ *› *$SID |^ +$SID ' $WORK/screen-outage.txt | grep -q 'outage'" "console: session $SID's row says outage"
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
check "[ \"\$(jget $WORK/recovered.out 'd.outages.length')\" = 0 ] && [ \"\$(session_field $WORK/recovered.out $SID verdict)\" = stale ]" "status --json: no outage after recovery, the unused session is plain stale again"
check "wait_for 'watch_has \"portal $P1 up again\"' 60" "watch --json: the portal-up event"
grep -F '"kind":"portal"' "$WORK/watch.ndjson" | sed 's/^/  | /'
check "wait_for '$T capture-pane -p -t con > $WORK/screen-back.txt; grep -q LOGGED_IN $WORK/screen-back.txt && ! grep -qF OUTAGE $WORK/screen-back.txt' 180" "console: the sessions read LOGGED_IN and the banner is gone once the portal is back"
$T kill-server 2>/dev/null
kill $WATCH_PID 2>/dev/null
finish
