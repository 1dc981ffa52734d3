#!/bin/sh
# Copies the Go API packages the fixture program needs from an Antrea checkout into ./antrea (ignored
# by git), stubbing crd/v1beta1 down to the one type controlplane imports, then prints the fixtures:
#   ./setup-antrea.sh /path/to/antrea && GOFLAGS=-mod=mod go run . > fixtures.txt
# Fixtures in src/controlplane-proto/fixtures/go-golden.ts came from antrea fc70f2bb and
# k8s.io/apimachinery v0.34.4.
set -eu
src=$1
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$here/antrea"
for pkg in controlplane/v1beta2 stats/v1alpha1; do
  mkdir -p "$here/antrea/pkg/apis/$pkg"
  for f in types.go generated.pb.go zz_generated.deepcopy.go; do
    cp "$src/pkg/apis/$pkg/$f" "$here/antrea/pkg/apis/$pkg/$f"
  done
done
mkdir -p "$here/antrea/pkg/apis/crd/v1beta1"
printf 'package v1beta1\n\ntype RuleAction string\n' > "$here/antrea/pkg/apis/crd/v1beta1/stub.go"
printf 'module antrea.io/antrea/v2\n\ngo 1.24\n\nrequire k8s.io/apimachinery v0.34.4\n' > "$here/antrea/go.mod"
