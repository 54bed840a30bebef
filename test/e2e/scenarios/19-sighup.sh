#!/bin/bash
# Scenario 19 — the terminal hangs up (SIGHUP: the SSH session drops, the window closes) during a
# real logout, signalled the way the kernel signals a hung-up terminal's foreground job (SIGHUP to
# the CLI's whole process group), twice (the shell passes it on too):
# - the running `iscsiadm --logout` is in a process group of its own, so it is not cut off: the
#   session is really logged out;
# - the CLI stops after that step (the node-record step does not run), journals the end and exits
#   129 (128 + SIGHUP); a second hang-up does not make it leave mid-step; no lock is left.
# The logout is made to last by an iscsiadm wrapper on PATH that waits for a go file before it
# execs the real iscsiadm (only for --logout); every other call goes straight through.
# E2E_FAULT=hup-hits-child also hangs up the wrapper, as if it shared the CLI's group: the logout
# then never happens and the checks fail.
# fault hup-hits-child: SIGHUP|still waits for the running command|exit 129|the logout completed
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1
target_new 191 hup 32 || bad "tgt hup"
discover "$P1" && login hup "$P1" && wait_disk hup "$P1" 1 || bad "login hup"
SID=$(sid_of hup "$P1")
logout_gate   # SHIM (iscsiadm held at $GATE/go for --logout), GATE, STATE

# setsid: the CLI leads a process group of its own, like a terminal's foreground job
PATH="$SHIM:$PATH" setsid "$NODE" "${E2E_CLI:-$PROJECT/dist/cli.js}" logout "$SID" --write --yes \
  --state-dir "$STATE" >"$WORK/hup.out" 2>"$WORK/hup.err" &
CLI=$!
check "wait_for '[ -s $GATE/started ]' 60" "the logout's iscsiadm started"
CHILD=$(cat "$GATE/started")
check "[ \"\$(jget $STATE/journal.jsonl d.phase)\" = begin ]" "the journal has the plan's begin"
kill -HUP -- "-$CLI"
fault hup-hits-child && kill -HUP "$CHILD"
check "wait_for 'grep -q \"hung up (SIGHUP): stopping after the current step\" $WORK/hup.err' 30" "SIGHUP: 'stopping after the current step'"
kill -HUP -- "-$CLI"
check "kill -0 $CLI && kill -0 $CHILD" "after a second SIGHUP the CLI still waits for the running command"
touch "$GATE/go"
wait "$CLI"; RC=$?
echo "$RC" > "$WORK/hup.rc"
show "cat $WORK/hup.err"
show "cat $WORK/hup.out"
check "[ $RC = 129 ]" "exit 129 (got $RC)"
check "wait_for '[ ! -e /sys/class/iscsi_session/session$SID ]' 30" "the logout completed: session $SID is gone"
check "[ -z \"\$(iscsiadm -m session 2>/dev/null | grep \"$(iqn hup)\")\" ]" "no session to the target is left"
check "record_exists hup $P1" "the later step did not run: the node record is still there"
tail -n 1 "$STATE/journal.jsonl" > "$WORK/end.json"
check "[ \"\$(jget $WORK/end.json d.phase)\" = end ]" "the journal's last entry is the end of the plan"
check "[ \"\$(jget $WORK/end.json \"d.steps.find(s=>s.id.startsWith('logout:'))?.status\")\" = done ]" "the journal holds the logout step as done"
check "[ -z \"\$(ls $STATE/locks)\" ]" "no lock left behind"
iscsiadm -m node -T "$(iqn hup)" -p "$P1" -o delete >/dev/null 2>&1
finish
