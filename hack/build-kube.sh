#!/usr/bin/env bash
# Builds the pinned kube-apiserver, kube-controller-manager and kubectl (test dependencies only, never product code) and
# cnitool from the Go module proxy into the cache folder. k8s.io/kubernetes points its staging
# modules at ./staging, which a module download does not carry, so a throwaway module pins each
# staging module to its published v0.x twin with replace directives.
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.34.4}"
CNI_VERSION="${CNI_VERSION:-v1.3.0}"
CACHE="${ANTREA_TS_CACHE:-$HOME/.cache/antrea-ts}"
BIN="$CACHE/bin"
mkdir -p "$BIN"

stamp="$BIN/.kube-$KUBE_VERSION"
if [[ ! -f "$stamp" || ! -x "$BIN/kube-apiserver" || ! -x "$BIN/kubectl" || ! -x "$BIN/kube-controller-manager" ]]; then
  staging_version="v0.${KUBE_VERSION#v1.}"
  work="$CACHE/kube-build-$KUBE_VERSION"
  mkdir -p "$work"
  cd "$work"
  modfile="$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/$KUBE_VERSION.mod"
  if [[ ! -f "$modfile" ]]; then
    go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" >/dev/null
  fi
  {
    echo "module antrea-ts/kube-build"
    echo
    echo "go 1.24.0"
    echo
    echo "require k8s.io/kubernetes $KUBE_VERSION"
    echo
    echo "replace ("
    grep -oE 'k8s\.io/[a-z0-9-]+ => \./staging/src/k8s\.io/[a-z0-9-]+' "$modfile" \
      | awk -v v="$staging_version" '{ print "\t" $1 " => " $1 " " v }'
    echo ")"
  } > go.mod
  cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  go mod tidy
  GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
  GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN/kubectl" k8s.io/kubernetes/cmd/kubectl
  GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN/kube-controller-manager" \
    k8s.io/kubernetes/cmd/kube-controller-manager
  touch "$stamp"
fi

cni_stamp="$BIN/.cnitool-$CNI_VERSION"
if [[ ! -f "$cni_stamp" || ! -x "$BIN/cnitool" ]]; then
  GOBIN="$BIN" CGO_ENABLED=0 go install "github.com/containernetworking/cni/cnitool@$CNI_VERSION"
  touch "$cni_stamp"
fi
echo "$BIN"
