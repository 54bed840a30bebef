#!/bin/bash
# Scenario 18 — the node record that holds a CHAP secret, on a real open-iscsi: an admin's discovery
# left the node record of a CHAP target, and it is world-readable (mode 0644). A session-CHAP attach
# writes the credentials into it: afterwards the record is mode 0600 (the secret is not readable by
# other users), it is whole (ends with `# END RECORD`, no temp file beside it), iscsiadm still reads
# it as the record of that target and portal (password masked), and the session is logged in with
# it. The console replaces the file (temp file, 0600, fsync, rename) instead of editing it in place,
# which kept the old mode.
# E2E_FAULT=files-chmod makes the file 0644 again after the attach: the mode check must then fail.
# fault files-chmod: the record holding the secret is mode 0600
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1
USER=e2efiles GOOD=F1lesS3cretGood81
target_new 181 files 32 || bad "tgt files"
tgtadm --lld iscsi --op new --mode account --user "$USER" --password "$GOOD"
tgtadm --lld iscsi --op bind --mode account --tid 181 --user "$USER"

# The record as an admin's discovery left it, made world-readable.
discover "$P1"
REC=$(ls -d /etc/iscsi/nodes/"$(iqn files)"/*/default 2>/dev/null | head -1)
check "[ -n '$REC' ] && [ -f '$REC' ]" "the admin's discovery wrote the node record ($REC)"
chmod 0644 "$REC"
check "[ \"\$(stat -c %a '$REC')\" = 644 ]" "the record is mode 0644 before the attach"

b64() { printf %s "$1" | base64 -w0; }
cat > "$WORK/secret.yaml" <<YAML
apiVersion: v1
kind: Secret
metadata: {name: chap-secret, namespace: default}
type: kubernetes.io/iscsi-chap
data:
  node.session.auth.username: $(b64 "$USER")
  node.session.auth.password: $(b64 "$GOOD")
YAML
cat > "$WORK/pv.yaml" <<YAML
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-files}
spec:
  capacity: {storage: 32Mi}
  accessModes: [ReadWriteOnce]
  iscsi:
    targetPortal: $P1
    iqn: $(iqn files)
    lun: 1
    fsType: ext4
    chapAuthSession: true
    secretRef: {name: chap-secret, namespace: default}
YAML

act attach attach --manifest "$WORK/pv.yaml" --secret "$WORK/secret.yaml"
fault files-chmod && chmod 0644 "$REC"
check "[ $(rc_of attach) = 0 ]" "CHAP attach into the existing record exited 0 (got $(rc_of attach))"
check "[ -n \"\$(sid_of files $P1)\" ] && mountpoint -q '$(global_fs files "$P1" 1)'" "logged in with the record's credentials and mounted"
show "stat -c '%a %U %s %n' '$REC'"
check "[ \"\$(stat -c %a '$REC')\" = 600 ]" "the record holding the secret is mode 0600 now"
check "[ \"\$(stat -c %U '$REC')\" = root ]" "the record is owned by root"
check "[ \"\$(head -1 '$REC' | cut -c1-14)\" = '# BEGIN RECORD' ] && [ \"\$(tail -1 '$REC')\" = '# END RECORD' ]" "the record is whole (BEGIN … END RECORD)"
check "[ \"\$(grep -c '^node.session.auth.password = ' '$REC')\" = 1 ]" "the record holds the password line once"
check "[ -z \"\$(ls -A \"\$(dirname '$REC')\" | grep -v '^default\$')\" ]" "no temp file left beside the record"
check "iscsiadm -m node -T $(iqn files) -p $P1 -o show | grep -qx 'node.session.auth.password = \*\*\*\*\*\*\*\*'" "iscsiadm -m node -T … -p … reads the record (password masked)"
check "iscsiadm -m node -T $(iqn files) -p $P1 -o show | grep -qx 'node.session.auth.username = $USER'" "iscsiadm reads the username back"
check "[ ! -e /run/lock/iscsi/lock.write ]" "iscsiadm's DB lock is released"
leaks=$(grep -rlF -e "$GOOD" "$WORK"/*.out "$WORK"/*.err /var/log/iscsi-console 2>/dev/null)
check "[ -z '$leaks' ]" "no CHAP secret in stdout, stderr or the journal ${leaks:+(found in: $leaks)}"
finish
