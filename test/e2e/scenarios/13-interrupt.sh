#!/bin/bash
# Scenario 13 — Ctrl-C during a real logout, signalled the way a terminal does (SIGINT to the
# CLI's whole process group):
# - the running `iscsiadm --logout` is not in that group, so it is not interrupted: the session is
#   really logged out;
# - the later step (deleting the node record) does not run: the record is still there;
# - the CLI exits 130 and the journal's end entry holds the logout step as done;
# - a second SIGINT names the running iscsiadm and its pid and the CLI keeps waiting.
# The logout is made to last by an iscsiadm wrapper on PATH that waits for a go file before it
# execs the real iscsiadm (only for --logout); every other iscsiadm call goes straight through.
# E2E_FAULT=interrupt-hits-child also signals the wrapper, as if it shared the CLI's group: the
# logout then never happens and the checks fail.
# fault interrupt-hits-child: SIGINT|keeps waiting|exit 130|logout completed
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1
target_new 131 intr 32 || bad "tgt intr"
discover "$P1" && login intr "$P1" && wait_disk intr "$P1" 1 || bad "login intr"
SID=$(sid_of intr "$P1")
logout_gate   # SHIM (iscsiadm held at $GATE/go for --logout), GATE, STATE

# setsid: the CLI leads a process group of its own, like a shell's foreground job
PATH="$SHIM:$PATH" setsid "$NODE" "${E2E_CLI:-$PROJECT/dist/cli.js}" logout "$SID" --write --yes \
  --state-dir "$STATE" >"$WORK/intr.out" 2>"$WORK/intr.err" &
CLI=$!
check "wait_for '[ -s $GATE/started ]' 60" "the logout's iscsiadm started"
CHILD=$(cat "$GATE/started")
kill -INT -- "-$CLI"
fault interrupt-hits-child && kill -INT "$CHILD"
check "wait_for 'grep -q \"stopping after the current step\" $WORK/intr.err' 30" "first SIGINT: 'stopping after the current step'"
kill -INT -- "-$CLI"
check "wait_for 'grep -q \"pid $CHILD\" $WORK/intr.err' 30" "second SIGINT: names the running command's pid $CHILD"
check "kill -0 $CLI && kill -0 $CHILD" "after two SIGINTs the CLI keeps waiting for the command"
touch "$GATE/go"
wait "$CLI"; RC=$?
echo "$RC" > "$WORK/intr.rc"
show "cat $WORK/intr.err"
show "cat $WORK/intr.out"
check "[ $RC = 130 ]" "exit 130 (got $RC)"
check "wait_for '[ ! -e /sys/class/iscsi_session/session$SID ]' 30" "the logout completed: session $SID is gone"
check "record_exists intr $P1" "the later step did not run: the node record is still there"
tail -n 1 "$STATE/journal.jsonl" > "$WORK/end.json"
check "[ \"\$(jget $WORK/end.json d.phase)\" = end ]" "the journal's last entry is the end of the plan"
check "[ \"\$(jget $WORK/end.json \"d.steps.find(s=>s.id.startsWith('logout:'))?.status\")\" = done ]" "the journal holds the logout step as done"
check "[ \"\$(jget $WORK/end.json \"d.steps.find(s=>s.id.startsWith('delete-record:'))?.status ?? 'absent'\")\" != done ]" "the journal shows the record step not done"
check "[ -z \"\$(ls $STATE/locks)\" ]" "no lock left behind"
iscsiadm -m node -T "$(iqn intr)" -p "$P1" -o delete >/dev/null 2>&1
finish
