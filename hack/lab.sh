#!/usr/bin/env bash
# `npm run lab -- <command>`: the local Antrea-TS lab (see packages/lab/README.md).
#   npm run lab -- up [--nodes N]     etcd + kube-apiserver, antrea-controller, N netns Nodes with
#                                     userspace OVS and antrea-agent; demo Pods, policies, matrix
#   npm run lab -- status | kubeconfig | pod create|delete|list | exec NS/POD -- CMD | node add|remove | down
# Builds what the lab runs, installs missing test dependencies (Debian packages and the pinned kube
# binaries), then runs the lab CLI as root (it creates network namespaces and OVS instances).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $(id -u) -ne 0 ]]; then
  echo "the lab needs root: it creates network namespaces, veth pairs and OVS instances." >&2
  exit 1
fi

# Dependencies only when a command may start something: status/down/exec must stay quick.
case "${1:-}" in
  up | node | pod | demo | "") hack/install-deps.sh ;;
esac
if [[ ! -d node_modules ]]; then
  npm ci --no-audit --no-fund
fi

npx tsc -b cmd/antrea-agent cmd/antrea-cni cmd/antrea-controller cmd/lab
exec node dist/cmd/lab/main.js "$@"
