#!/usr/bin/env bash
# A kind cluster running Antrea-TS, for the e2e suites' kind provider:
#   hack/kind-up.sh [up]   builds the image (build/images/Dockerfile), creates a kind cluster without
#                          a default CNI (or reuses one of that name), prepares its Nodes' links,
#                          loads the image, applies build/yamls/antrea.yml and waits until Nodes,
#                          controller, agents, the controlplane APIService and CoreDNS are ready.
#   hack/kind-up.sh down   deletes the cluster.
# Needs docker, kind and kubectl (and root for ethtool on the Nodes' host-side veths). Not run in CI
# here: the CI machine has no Docker, the lab is what CI exercises (see build/README.md).
# Environment: KIND_CLUSTER_NAME (antrea-ts), WORKERS (2), IMAGE (antrea-ts/antrea:latest),
# SKIP_BUILD=1 to load an image built before, WAIT (5m) for each readiness wait.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${KIND_CLUSTER_NAME:-antrea-ts}
workers=${WORKERS:-2}
image=${IMAGE:-antrea-ts/antrea:latest}
wait=${WAIT:-5m}
ctx="kind-$name"

log() { echo "kind-up: $*" >&2; }
need() {
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { log "$tool is required"; exit 1; }
  done
}

cluster_exists() { kind get clusters 2>/dev/null | grep -qx "$name"; }

create_cluster() {
  if cluster_exists; then
    log "reusing kind cluster $name"
    return
  fi
  {
    echo 'kind: Cluster'
    echo 'apiVersion: kind.x-k8s.io/v1alpha4'
    echo 'networking:'
    echo '  disableDefaultCNI: true'
    echo '  podSubnet: 10.244.0.0/16'
    echo 'nodes:'
    echo '- role: control-plane'
    for _ in $(seq "$workers"); do echo '- role: worker'; done
  } | kind create cluster --name "$name" --config -
}

# The agent DaemonSet runs OVS with the kernel datapath inside the Node containers: the host needs
# the openvswitch module, and the host end of each Node's veth must not leave TX checksums to
# offload, or packets that OVS tunnels or rewrites arrive with bad checksums.
prepare_nodes() {
  if ! lsmod 2>/dev/null | grep -q '^openvswitch ' && ! modprobe openvswitch; then
    log "could not load the openvswitch kernel module: the agents' OVS will not start"
  fi
  local node peer link
  for node in $(kind get nodes --name "$name"); do
    peer=$(docker exec "$node" cat /sys/class/net/eth0/iflink | tr -d '[:space:]')
    link=""
    for dev in /sys/class/net/*; do
      if [[ "$(cat "$dev/ifindex" 2>/dev/null)" == "$peer" ]]; then link=$(basename "$dev"); fi
    done
    if [[ -z "$link" ]]; then
      log "no host link with ifindex $peer for Node $node"
      exit 1
    fi
    ethtool -K "$link" tx off >/dev/null
    log "Node $node: tx checksum offload off on $link"
  done
}

deploy() {
  kind load docker-image "$image" --name "$name"
  kubectl --context "$ctx" apply -f build/yamls/antrea.yml
  kubectl --context "$ctx" -n kube-system rollout status deployment/antrea-controller --timeout="$wait"
  kubectl --context "$ctx" -n kube-system rollout status daemonset/antrea-agent --timeout="$wait"
  kubectl --context "$ctx" wait --for=condition=Ready nodes --all --timeout="$wait"
  kubectl --context "$ctx" wait --for=condition=Available apiservice/v1beta2.controlplane.antrea.io --timeout="$wait"
  kubectl --context "$ctx" -n kube-system rollout status deployment/coredns --timeout="$wait"
  kubectl --context "$ctx" get nodes -o wide
}

case "${1:-up}" in
  up)
    need docker kind kubectl ethtool
    node build/manifests/generate.mjs --check
    if [[ "${SKIP_BUILD:-}" != 1 ]]; then
      docker build -t "$image" -f build/images/Dockerfile .
    fi
    create_cluster
    prepare_nodes
    deploy
    cat >&2 <<EOT
kind-up: cluster $name is ready. The e2e suites and the policy cases on it:
  npm run e2e:suites -- -p kind --kube-context $ctx
  npm run e2e:cases -- -p kind --kube-context $ctx e2e/cases
EOT
    ;;
  down)
    need kind
    kind delete cluster --name "$name"
    ;;
  *)
    log "usage: hack/kind-up.sh [up|down]"
    exit 2
    ;;
esac
