#!/bin/bash
# Scenario 0 — the guest node is what the other scenarios assume: Debian's stock kernel with the
# iSCSI/dm modules, the four daemons up, the target answering on both loopback portals, and the
# project's own build running on the project's node. Failing here explains every later failure.
source "$PROJECT/test/e2e/lib/common.sh"

log "kernel $(uname -r)"
check '[ -d /sys/class/iscsi_transport/tcp ]' "iscsi_tcp transport registered"
check '[ -d /sys/module/dm_multipath ]' "dm_multipath loaded"
for d in systemd-udevd iscsid tgtd multipathd; do check "pgrep -x $d >/dev/null" "$d running"; done
check '! ip -o link | grep -v " lo:" | grep -q .' "no network device but lo (-nic none)"
check 'tgtadm --lld iscsi --op show --mode portal | grep -q 127.0.0.1:3260' "tgt portal 127.0.0.1:3260"
check 'tgtadm --lld iscsi --op show --mode portal | grep -q 127.0.0.2:3260' "tgt portal 127.0.0.2:3260"
iscsiadm -m session >/dev/null 2>&1; rc=$?
check "[ $rc = 21 ]" "iscsiadm -m session: no sessions yet, exit 21 (got $rc)"
check '[ "$(nsessions)" = 0 ]' "no iscsi_session in sysfs"
t=$(_ts)
v=$(cli --version 2>&1); rc=$?
log "dist/cli.js --version -> '$v' rc=$rc in $(_since "$t")s (node $("$NODE" --version))"
check "[ $rc = 0 ] && [ -n '$v' ]" "the project's build runs in the guest"
show "cli --help"
finish
