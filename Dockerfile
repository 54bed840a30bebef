# syntax=docker/dockerfile:1
# iscsi-console image: carries the console (a single executable) and NOTHING of open-iscsi.
# It always drives the HOST's iscsiadm/iscsid: iscsiadm and iscsid must be the same release (no stable
# protocol between them) and the iSCSI netlink is not network-namespace aware, so a container's own
# open-iscsi would be wrong twice. Host files are read under /host; host commands run through
# `nsenter --target 1 --mount --uts --ipc --net --pid` (needs hostPID). See docs/install.md.
#
#   docker build -t iscsi-console:0.1.0 .
#   kubectl debug node/<node> -it --profile=sysadmin --image=<registry>/iscsi-console:0.1.0

# ---- build: the single executable (scripts/build-binary.mjs) with the pinned node@22 -------------
FROM node:22-bookworm-slim AS build
# binutils: `strip` drops ~17 MiB of debug symbols from the embedded node.
RUN apt-get update \
 && apt-get install -y --no-install-recommends binutils ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` (the bundle) needs the sources, copied below. The pinned `node`
# devDependency still needs its install script to fetch its binary.
RUN npm ci --ignore-scripts && npm rebuild node esbuild
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build && npm run build:binary && ./dist/iscsi-console --version

# ---- runtime: glibc + libstdc++ for the embedded node; nsenter (util-linux) and chroot (coreutils) -
FROM debian:bookworm-slim
LABEL org.opencontainers.image.title="iscsi-console" \
      org.opencontainers.image.description="See and safely repair a Kubernetes node's iSCSI state (uses the host's open-iscsi)" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY --from=build /src/dist/iscsi-console /usr/local/bin/iscsi-console
# No open-iscsi, multipath-tools or udev here on purpose: every tool is the host's (via nsenter).
ENV NO_UPDATE_NOTIFIER=1 TERM=xterm-256color
# The debug-pod layout: host root at /host, host tools through PID 1's namespaces.
ENTRYPOINT ["/usr/local/bin/iscsi-console", "--root", "/host", "--exec", "nsenter"]
# No arguments: the interactive console (kubectl debug -it). The DaemonSet passes `status --json`.
CMD []
