#!/bin/bash
# Scenario 23 — `bundle` on a real node with a CHAP-protected target:
# - a target that requires CHAP, logged in the way kubelet does it (the secrets in the node record,
#   a discovery record holding discovery CHAP, both in clear as open-iscsi keeps them), a
#   csi-driver-iscsi connector file and a Trident tracking file holding their own secrets;
# - `bundle --output FILE` exits 0 and writes a mode-0600 .tar.gz that tar reads;
# - no secret (nor CHAP username) in the archive, compressed or uncompressed;
# - every file the manifest lists is in the archive with its size, and the commands ran on the node
#   (iscsiadm -m session -P 3, -m node -P 1, -m iface, multipathd show config / show maps json, the
#   kernel log) — none of them in the manifest's "could not be read";
# - the record in the archive still says CHAP, with the values masked.
# E2E_FAULT=bundle-leak adds a file holding the session secret to the archive after it is written:
# the leak check must then fail.
# fault bundle-leak: no CHAP secret or username in the bundle
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1
USER=e2ebundleuser GOOD=BundleS3cretGood61 DUSER=e2ebundledisc DGOOD=BundleD1scS3cret52
CUSER=e2econnuser CPASS=ConnS3cretValue33 TPASS=TridentS3cretValue44
CONN=/run/iscsi.csi.k8s.io/e2e-bundle.json TRACK=/var/lib/trident/tracking/e2e-bundle.json
trap 'rm -f "$CONN" "$TRACK"' EXIT
target_new 231 bundle 32 || bad "tgt bundle"
tgtadm --lld iscsi --op new --mode account --user "$USER" --password "$GOOD"
tgtadm --lld iscsi --op bind --mode account --tid 231 --user "$USER"
IQ=$(iqn bundle)

# kubelet's sequence: discovery, CHAP into the record, login (AttachDisk, docs/kubelet-iscsi.md)
discover "$P1" || bad "discovery of $P1"
iscsiadm -m node -T "$IQ" -p "$P1" -o update -n node.session.auth.authmethod -v CHAP
iscsiadm -m node -T "$IQ" -p "$P1" -o update -n node.session.auth.username -v "$USER"
iscsiadm -m node -T "$IQ" -p "$P1" -o update -n node.session.auth.password -v "$GOOD"
iscsiadm -m discoverydb -t sendtargets -p "$P1" -o update -n discovery.sendtargets.auth.username -v "$DUSER"
iscsiadm -m discoverydb -t sendtargets -p "$P1" -o update -n discovery.sendtargets.auth.password -v "$DGOOD"
login bundle "$P1" && wait_disk bundle "$P1" 1 || bad "CHAP login to $IQ"
check "[ -n \"\$(sid_of bundle $P1)\" ]" "logged in with CHAP"
check "grep -qF -e \"\$GOOD\" /etc/iscsi/nodes/$IQ/*/default && grep -qF -e \"\$DGOOD\" /etc/iscsi/send_targets/*/st_config" "the node and discovery records hold the secrets in clear (what the bundle must scrub)"
mkdir -p "${CONN%/*}" "${TRACK%/*}"
printf '{"volume_name":"e2e-bundle","target_iqn":"%s","target_portal":["%s"],"lun":1,"session_secrets":{"userName":"%s","password":"%s"},"discovery_secrets":{"userName":"","password":""}}\n' "$IQ" "$P1" "$CUSER" "$CPASS" > "$CONN"
printf '{"volumePublishInfo":{"iscsiTargetIqn":"%s","IscsiChapInfo":{"useCHAP":true,"IscsiUsername":"%s","IscsiInitiatorSecret":"%s"}}}\n' "$IQ" "$CUSER" "$TPASS" > "$TRACK"

B="$WORK/case.tar.gz"
run_cli bundle bundle --output "$B"
check "[ $(rc_of bundle) = 0 ]" "bundle exits 0 (got $(rc_of bundle))"
check "[ \"\$(stat -c %a $B)\" = 600 ]" "the bundle is mode 0600"
check "tar -tzf $B >/dev/null" "tar reads the archive"
if fault bundle-leak; then
  mkdir -p "$WORK/leak" && printf '%s\n' "$GOOD" > "$WORK/leak/extra.txt"
  gunzip -c "$B" > "$WORK/leak.tar" && tar -rf "$WORK/leak.tar" -C "$WORK/leak" extra.txt && gzip -c "$WORK/leak.tar" > "$B"
fi
leaks=""
for s in "$GOOD" "$DGOOD" "$CPASS" "$TPASS" "$USER" "$DUSER" "$CUSER"; do
  grep -qaF -e "$s" "$B" && leaks="$leaks compressed:${#s}"
  gunzip -c "$B" | grep -qaF -e "$s" && leaks="$leaks archive:${#s}"
done
check "[ -z '$leaks' ]" "no CHAP secret or username in the bundle, compressed or not ${leaks:+(found, by length:$leaks)}"   # lengths only: a FAIL line never prints a secret

X="$WORK/x"; rm -rf "$X"; mkdir -p "$X"; tar -xzf "$B" -C "$X"
TOP=$(ls "$X" | head -1)
M="$X/$TOP/manifest.json"
check "[ -s '$M' ]" "manifest.json is in the archive"
absent=$("$NODE" -e '
  const fs=require("fs"), p=require("path"); const top=process.argv[1];
  const m=JSON.parse(fs.readFileSync(p.join(top,"manifest.json"),"utf8"));
  const bad=m.entries.filter(e=>!fs.existsSync(p.join(top,e.path))||fs.statSync(p.join(top,e.path)).size!==e.bytes).map(e=>e.path);
  console.log(bad.join(" "));' "$X/$TOP")
check "[ -z '$absent' ]" "every file the manifest lists is in the archive with its size ${absent:+(not: $absent)}"
n=$(jget "$M" 'd.entries.length')
log "manifest: $n files, not read: $(jget "$M" 'd.missing.map(x=>x.source+" ("+x.why+")").join("; ")')"
for c in iscsiadm-m-session-P3.txt iscsiadm-m-node-P1.txt iscsiadm-m-iface.txt multipathd-show-config.txt multipathd-show-maps-json.txt kernel-log.txt; do
  check "[ \"\$(jget $M 'd.entries.some(e=>e.path===\"commands/$c\")')\" = true ]" "the bundle has commands/$c"
done
check "[ \"\$(jget $M 'd.missing.filter(x=>/^(iscsiadm|multipathd|dmesg)/.test(x.source)).length')\" = 0 ]" "no command in the manifest's 'could not be read'"
check "grep -q 'iqn' '$X/$TOP/commands/iscsiadm-m-session-P3.txt' && grep -q 'Target: $IQ' '$X/$TOP/commands/iscsiadm-m-session-P3.txt'" "session -P 3 names the CHAP target"
REC=$(ls "$X/$TOP"/files/etc/iscsi/nodes/"$IQ"/*/default 2>/dev/null | head -1)
check "[ -n '$REC' ] && grep -qx 'node.session.auth.authmethod = CHAP' '$REC' && grep -qx 'node.session.auth.password = \*\*\*\*\*\*\*\*' '$REC'" "the record in the bundle says CHAP, its password masked"
for f in files/etc/iscsi/iscsid.conf files/run/iscsi.csi.k8s.io/e2e-bundle.json files/var/lib/trident/tracking/e2e-bundle.json status.json doctor.json; do
  check "[ -s '$X/$TOP/$f' ]" "the bundle has $f"
done
finish
