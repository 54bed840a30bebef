#!/bin/bash
# Scenario 20 — `serve` on a real node, with tgt and multipathd:
# - one target on both portals (two sessions, one dm map): /metrics has both sessions LOGGED_IN, both
#   portals up (iscsi_portal_down 0), each path's dm holder; `promtool check metrics` passes on it;
#   /healthz answers 200; `check outage` exits 0;
# - tgtd killed: once sysfs reads FAILED, /metrics shows the sessions FAILED and iscsi_portal_down 1
#   (the time from sysfs to /metrics is logged against the poll interval); `check outage` exits 1
#   naming a portal;
# - tgtd back with the same LUN: LOGGED_IN and iscsi_portal_down 0 again; `check outage` exits 0;
# - SIGTERM: serve exits 0.
# E2E_FAULT=serve-no-kill leaves tgtd running: the outage checks must then FAIL.
# fault serve-no-kill: sysfs: sessions [0-9]+ and [0-9]+ down|iscsi_portal_down 1
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1 P2=$E2E_PORTAL2
REFRESH=2
PORT=19853
target_new 201 srv 32 || bad "tgt srv"
discover "$P1" && login srv "$P1" && wait_disk srv "$P1" 1 || bad "login srv via $P1"
discover "$P2" && login srv "$P2" && wait_disk srv "$P2" 1 || bad "login srv via $P2"
SID1=$(sid_of srv "$P1") SID2=$(sid_of srv "$P2") A=$(disk_of srv "$P1" 1) B=$(disk_of srv "$P2" 1)
IQ=$(iqn srv)
check "wait_for '[ -n \"\$(dm_of $A)\" ] && [ \"\$(dm_of $A)\" = \"\$(dm_of $B)\" ]' 60" "multipathd: one map over $A and $B ($(dm_of "$A"))"
DM=$(dm_of "$A")

# Node itself in the background, not the `cli` function: `$!` must be the serve process that
# SIGTERM is sent to, not a subshell that would die of it (143) and leave serve running.
"$NODE" "${E2E_CLI:-$PROJECT/dist/cli.js}" serve --listen "127.0.0.1:$PORT" --refresh "$REFRESH" > "$WORK/serve.out" 2> "$WORK/serve.err" &
SERVE_PID=$!
trap 'kill $SERVE_PID 2>/dev/null' EXIT
# GET a path of serve; prints the body, exit 0 on 200, 1 on another status, 2 when nothing answers.
scrape() {
  "$NODE" -e 'fetch(process.argv[1]).then(async (r) => { process.stdout.write(await r.text()); process.exit(r.status === 200 ? 0 : 1); }, () => process.exit(2))' "http://127.0.0.1:$PORT$1"
}
check "wait_for 'scrape /healthz >/dev/null' 180" "serve: /healthz answers 200 ($(cat "$WORK/serve.err"))"
scrape /metrics > "$WORK/up.prom"
# m_has FILE LINE : the exact series line is in the scrape
m_has() { grep -qxF "$2" "$1"; }
st() { echo "iscsi_session_state{iface=\"default\",portal=\"$1\",state=\"$2\",target=\"$IQ\"} 1"; }
check "m_has $WORK/up.prom '$(st "$P1" LOGGED_IN)' && m_has $WORK/up.prom '$(st "$P2" LOGGED_IN)'" "/metrics: both sessions LOGGED_IN"
check "m_has $WORK/up.prom 'iscsi_portal_down{portal=\"$P1\"} 0' && m_has $WORK/up.prom 'iscsi_portal_down{portal=\"$P2\"} 0'" "/metrics: iscsi_portal_down 0 for both portals"
check "m_has $WORK/up.prom 'iscsi_device_holder_info{device=\"$A\",holder=\"$DM\"} 1' && m_has $WORK/up.prom 'iscsi_device_holder_info{device=\"$B\",holder=\"$DM\"} 1'" "/metrics: both paths held by $DM"
if [ -x /usr/bin/promtool ]; then
  check "/usr/bin/promtool check metrics < $WORK/up.prom" "promtool check metrics passes on a real node's scrape"
else
  bad "/usr/bin/promtool missing: .ci/run installs it (prometheus package)"
fi
run_cli check-up check outage >/dev/null
check "[ $(rc_of check-up) = 0 ]" "check outage: exit 0 while the portals are up ($(cat "$WORK/check-up.out"))"

# outage: the target process dies (both portals are the one tgtd)
if fault serve-no-kill; then log "E2E_FAULT=serve-no-kill: tgtd left running"
else for pid in $(pgrep -x tgtd); do kill -9 "$pid"; done; fi
wait_for "! pgrep -x tgtd >/dev/null" 30
failed_in_sysfs() { [ "$(cat /sys/class/iscsi_session/session$SID1/state)" != LOGGED_IN ] && [ "$(cat /sys/class/iscsi_session/session$SID2/state)" != LOGGED_IN ]; }
check "wait_for failed_in_sysfs 90" "sysfs: sessions $SID1 and $SID2 down"
t=$(_ts)
m_down() {
  scrape /metrics > "$WORK/down.prom" || return 1
  { m_has "$WORK/down.prom" "$(st "$P1" FAILED)" || m_has "$WORK/down.prom" "$(st "$P1" FREE)"; } &&
    { m_has "$WORK/down.prom" "$(st "$P2" FAILED)" || m_has "$WORK/down.prom" "$(st "$P2" FREE)"; } &&
    m_has "$WORK/down.prom" "iscsi_portal_down{portal=\"$P1\"} 1" && m_has "$WORK/down.prom" "iscsi_portal_down{portal=\"$P2\"} 1"
}
# One poll interval is the goal; under QEMU TCG a read itself can take seconds, so the wait is
# longer and the time it took is logged beside the interval.
check "wait_for m_down 60" "/metrics: sessions FAILED and iscsi_portal_down 1 for both portals"
log "sysfs down → /metrics shows it: $(_since "$t") s (poll interval $REFRESH s)"
grep -E '^iscsi_(portal_down|session_state\{.*\} 1|session_down_since)' "$WORK/down.prom" | sed 's/^/  | /'
run_cli check-down check outage >/dev/null
check "[ $(rc_of check-down) = 1 ] && grep -qE '^portal ($P1|$P2) down: 1 session' $WORK/check-down.out" "check outage: exit 1 naming the portal ($(cat "$WORK/check-down.out"))"
check "[ \$(wc -L < $WORK/check-down.out) -le 80 ] && [ \$(wc -l < $WORK/check-down.out) = 1 ]" "check outage: one line of at most 80 characters"

# recovery: same target, same LUN backing file
tgtd --iscsi "portal=$P1"
wait_for 'tgtadm --lld iscsi --op show --mode target >/dev/null 2>&1' 30
tgtadm --lld iscsi --op new --mode portal --param "portal=$P2"
tgtadm --lld iscsi --op new --mode target --tid 201 -T "$IQ"
tgtadm --lld iscsi --op new --mode logicalunit --tid 201 --lun 1 -b /tmp/e2e-t201-lun1.img
tgtadm --lld iscsi --op bind --mode target --tid 201 -I ALL
check "wait_for '[ \"\$(cat /sys/class/iscsi_session/session$SID1/state)\" = LOGGED_IN ] && [ \"\$(cat /sys/class/iscsi_session/session$SID2/state)\" = LOGGED_IN ]' 120" "sysfs: sessions LOGGED_IN again"
t=$(_ts)
m_up() {
  scrape /metrics > "$WORK/back.prom" || return 1
  m_has "$WORK/back.prom" "$(st "$P1" LOGGED_IN)" && m_has "$WORK/back.prom" "$(st "$P2" LOGGED_IN)" &&
    m_has "$WORK/back.prom" "iscsi_portal_down{portal=\"$P1\"} 0" && m_has "$WORK/back.prom" "iscsi_portal_down{portal=\"$P2\"} 0"
}
check "wait_for m_up 60" "/metrics: LOGGED_IN and iscsi_portal_down 0 again"
log "sysfs up → /metrics shows it: $(_since "$t") s (poll interval $REFRESH s)"
check "grep -qE '^iscsi_session_state_changes_total\{iface=\"default\",portal=\"$P1\",target=\"$IQ\"\} [1-9]' $WORK/back.prom" "/metrics: the state changes of the session via $P1 are counted"
run_cli check-back check outage >/dev/null
check "[ $(rc_of check-back) = 0 ]" "check outage: exit 0 after recovery ($(cat "$WORK/check-back.out"))"
check "scrape /healthz >/dev/null" "serve: /healthz 200 after the outage"

t=$(_ts)
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"; rc=$?
check "[ $rc = 0 ]" "serve: SIGTERM → exit 0 (in $(_since "$t") s)"
trap - EXIT
finish
