#!/bin/bash
# Scenario 7 — CHAP on a real target: attach from a Pod manifest with chapAuthSession (and
# chapAuthDiscovery where tgt enforces it) and a Secret manifest.
# - a wrong secret: attach fails with a clear authorization error (iscsiadm exit 24), no session left;
# - the right secret: attach succeeds and the session is logged in;
# - neither secret appears in any stdout/stderr of the console (also with --verbose, which prints every
#   command run), in `status --json`, in the journal (/var/log/iscsi-console) or in the kernel log;
# - neither secret (nor the CHAP username) appears in any process's command line: another process
#   samples every /proc/*/cmdline every 20 ms during the attach (the console writes the credentials into
#   the 0600 record file under iscsiadm's DB lock instead of `iscsiadm -o update -v SECRET`), and the
#   record reads back through `iscsiadm -o show` with the password masked.
# E2E_FAULT=chap-argv runs kubelet's own `-o update -n node.session.auth.password -v SECRET` during the
# sampling: the cmdline check must then fail.
# fault chap-argv: no CHAP secret in any /proc/\*/cmdline
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1
USER=e2euser GOOD=Sup3rS3cretGood42 BAD=WrongS3cretBad99 DUSER=e2edisc DGOOD=D1scS3cretGood77
target_new 71 chap 32 || bad "tgt chap"
tgtadm --lld iscsi --op new --mode account --user "$USER" --password "$GOOD"
tgtadm --lld iscsi --op bind --mode account --tid 71 --user "$USER"
# Discovery CHAP: tgt keeps discovery accounts on the pseudo target 0 (where supported). Only assert
# on discovery CHAP if tgt then really refuses a discovery without credentials.
DISC=false
if tgtadm --lld iscsi --op new --mode account --user "$DUSER" --password "$DGOOD" &&
   tgtadm --lld iscsi --op bind --mode account --tid 0 --user "$DUSER" 2>/dev/null; then
  iscsiadm -m discovery -t sendtargets -p "$P1" >/dev/null 2>&1; rc=$?
  rm -rf /etc/iscsi/send_targets/* /etc/iscsi/nodes/*
  [ $rc = 24 ] && DISC=true
fi
log "tgt enforces discovery CHAP: $DISC"

b64() { printf %s "$1" | base64 -w0; }
secret() { # FILE SESSION_PASSWORD
  cat > "$1" <<YAML
apiVersion: v1
kind: Secret
metadata: {name: chap-secret, namespace: default}
type: kubernetes.io/iscsi-chap
data:
  node.session.auth.username: $(b64 "$USER")
  node.session.auth.password: $(b64 "$2")
  discovery.sendtargets.auth.username: $(b64 "$DUSER")
  discovery.sendtargets.auth.password: $(b64 "$DGOOD")
YAML
}
cat > "$WORK/pod.yaml" <<YAML
apiVersion: v1
kind: Pod
metadata: {name: chap-pod, namespace: default}
spec:
  containers: [{name: c, image: busybox}]
  volumes:
  - name: secure
    iscsi:
      targetPortal: $P1
      iqn: $(iqn chap)
      lun: 1
      fsType: ext4
      chapAuthSession: true
      chapAuthDiscovery: $DISC
      secretRef: {name: chap-secret}
YAML
secret "$WORK/bad-secret.yaml" "$BAD"
secret "$WORK/good-secret.yaml" "$GOOD"

act bad attach --manifest "$WORK/pod.yaml" --secret "$WORK/bad-secret.yaml" --verbose
check "[ $(rc_of bad) = 4 ]" "wrong secret: attach fails as 'external command failed', exit 4 (got $(rc_of bad))"
check "grep -qiE 'auth' $WORK/bad.err" "wrong secret: the error names the authorization failure"
check "[ \"\$(nsessions)\" = 0 ]" "wrong secret: no session left"

# sample every process's argv every 20 ms while the good attach runs (one node process, no forks)
rm -f "$WORK/cmdlines.txt".*; touch "$WORK/sampling"
"$NODE" "$PROJECT/test/e2e/lib/cmdline-sampler.mjs" "$WORK/cmdlines.txt" "$WORK/sampling" &
SAMPLER=$!
wait_for "[ -e '$WORK/cmdlines.txt.ready' ]" 60 || bad "the cmdline sampler did not start"
act good attach --manifest "$WORK/pod.yaml" --secret "$WORK/good-secret.yaml" --verbose
if fault chap-argv; then iscsiadm -m node -T "$(iqn chap)" -p "$P1" -o update -n node.session.auth.password -v "$GOOD"; sleep 0.5; fi
rm -f "$WORK/sampling"; wait $SAMPLER
log "cmdline samples: $(cat "$WORK/cmdlines.txt.samples"), $(grep -c iscsiadm "$WORK/cmdlines.txt") distinct iscsiadm command lines"
check "[ \"\$(cat $WORK/cmdlines.txt.samples)\" -gt 10 ] && grep -q 'iscsiadm' $WORK/cmdlines.txt" "the sampler saw the attach's iscsiadm commands"
check "! grep -qF -e \"\$GOOD\" -e \"\$DGOOD\" $WORK/cmdlines.txt" "no CHAP secret in any /proc/*/cmdline during the attach"   # \$GOOD, not its value: a FAIL line prints the condition
check "! grep -qE -- '-v ($USER|$DUSER)( |\$)' $WORK/cmdlines.txt" "no CHAP username on any command line either"
rm -f "$WORK/cmdlines.txt"*   # it may hold the fault's secret; the leak search below covers the rest
check "[ $(rc_of good) = 0 ]" "right secret: attach exited 0"
check "[ -n \"\$(sid_of chap $P1)\" ] && mountpoint -q '$(global_fs chap "$P1" 1)'" "right secret: logged in and mounted"
check "iscsiadm -m node -T $(iqn chap) -p $P1 -o show | grep -q '^node.session.auth.authmethod = CHAP'" "node record uses CHAP"
REC=$(ls /etc/iscsi/nodes/"$(iqn chap)"/*/default 2>/dev/null | head -1)
check "[ -n '$REC' ] && [ \"\$(stat -c %a '$REC')\" = 600 ]" "the node record file is mode 0600"
check "iscsiadm -m node -T $(iqn chap) -p $P1 -o show | grep -qx 'node.session.auth.password = \*\*\*\*\*\*\*\*'" "iscsiadm reads the password back (masked)"
check "[ ! -e /run/lock/iscsi/lock.write ]" "iscsiadm's DB lock is released"
status_now status
run_cli json-status status --json >/dev/null

# nowhere: every console output of this scenario, the journal, the kernel log
dmesg > "$WORK/dmesg.txt"
leaks=$(grep -rlF -e "$GOOD" -e "$BAD" -e "$DGOOD" "$WORK"/*.out "$WORK"/*.err "$WORK/dmesg.txt" /var/log/iscsi-console 2>/dev/null)
check "[ -z '$leaks' ]" "no CHAP secret in stdout, stderr, status, journal or dmesg ${leaks:+(found in: $leaks)}"
check "[ -d /var/log/iscsi-console ] && [ -n \"\$(ls -A /var/log/iscsi-console)\" ]" "the journal exists (so the search above covered it)"
finish
