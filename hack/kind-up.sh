#!/usr/bin/env bash
# A kind cluster running Antrea-TS: builds the image (build/images/Dockerfile), creates a cluster
# without a default CNI, loads the image into its Nodes and applies build/yamls/antrea.yml.
# Needs docker, kind and kubectl; not run in CI here (the CI machine has no Docker: the lab is what CI
# exercises). KIND_CLUSTER_NAME (default antrea-ts) and WORKERS (default 2) tune it.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${KIND_CLUSTER_NAME:-antrea-ts}
workers=${WORKERS:-2}
image=antrea-ts/antrea:latest

for tool in docker kind kubectl; do
  command -v "$tool" >/dev/null || { echo "kind-up: $tool is required" >&2; exit 1; }
done
node build/manifests/generate.mjs --check

docker build -t "$image" -f build/images/Dockerfile .
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
kind load docker-image "$image" --name "$name"
kubectl --context "kind-$name" apply -f build/yamls/antrea.yml
kubectl --context "kind-$name" -n kube-system rollout status deployment/antrea-controller --timeout=5m
kubectl --context "kind-$name" -n kube-system rollout status daemonset/antrea-agent --timeout=5m
kubectl --context "kind-$name" get nodes -o wide
