#!/bin/sh
# Opens the console on one node with `kubectl debug node/...`: the debug pod runs in the node's
# host namespaces (PID, network, IPC) with the host's root filesystem at /host; --profile=sysadmin
# makes it privileged so nsenter can reach PID 1 (the host's iscsiadm and iscsid).
#
#   deploy/debug-node.sh <node>                 # interactive console (read-only until you pass --write)
#   deploy/debug-node.sh <node> doctor          # any subcommand and flags
#   ISCSI_CONSOLE_IMAGE=registry.example/iscsi-console:0.1.0 deploy/debug-node.sh <node>
#
# kubectl leaves the debug pod behind when the session ends: delete it (the command prints its name)
# with `kubectl delete pod <node-debugger-...>`.
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 <node> [iscsi-console arguments...]" >&2
  exit 2
fi
node=$1
shift
image=${ISCSI_CONSOLE_IMAGE:-ghcr.io/example/iscsi-console:0.1.0}
# The full command is given explicitly: kubectl versions differ on whether arguments after -- replace
# the image's ENTRYPOINT or only its CMD.
exec kubectl debug "node/$node" -it --profile=sysadmin --image="$image" -- \
  /usr/local/bin/iscsi-console --root /host --exec nsenter "$@"
