#!/usr/bin/env bash
# Installs what the tests need on a fresh Debian machine, and nothing when it is all there already:
# Debian packages (Open vSwitch, etcd, network tools, CNI plugins) and, built from the Go module
# proxy into the cache folder, the pinned kube-apiserver, kube-controller-manager, kubectl and cnitool.
set -euo pipefail
cd "$(dirname "$0")/.."

# command -> Debian package that provides it
declare -A NEED=(
  [ovs-vswitchd]=openvswitch-switch
  [ovsdb-server]=openvswitch-switch
  [etcd]=etcd-server
  [iptables]=iptables
  [ip]=iproute2
  [ethtool]=ethtool
  [iperf3]=iperf3
  [socat]=socat
  [ping]=iputils-ping
  [openssl]=openssl
  # SFTP file server for the SupportBundleCollection upload tests (a private sshd per test)
  [sshd]=openssh-server
  # a third-party IPFIX collector for the flow exporter's interop test (test/flowexporter/nfcapd.test.ts)
  [nfcapd]=nfdump
  # PacketCapture (the agent captures on a Pod's host-side interface) and the TrafficControl tests
  [tcpdump]=tcpdump
  [go]=golang-go
  # headless browser for the dashboard test (driven by playwright-core)
  [chromium]=chromium
)
missing=()
for cmd in "${!NEED[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${NEED[$cmd]}")
done
[[ -x /usr/lib/cni/host-local ]] || missing+=(containernetworking-plugins)

if ((${#missing[@]} > 0)); then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Debian service would start a system-wide OVS; tests run their own instances instead.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet openvswitch-switch 2>/dev/null; then
  systemctl stop openvswitch-switch || true
fi
# Likewise the SSH server the package starts: the SFTP tests start private sshds on free ports.
# Only when this run installed it: an sshd that was there before may be how the machine is reached.
if [[ " ${missing[*]} " == *" openssh-server "* ]] && command -v systemctl >/dev/null 2>&1 &&
  systemctl is-active --quiet ssh 2>/dev/null; then
  systemctl stop ssh || true
fi
# The nfdump package starts a collector daemon; the interop test runs its own nfcapd on a free port.
if [[ " ${missing[*]} " == *" nfdump "* ]] && command -v systemctl >/dev/null 2>&1 &&
  systemctl is-active --quiet nfdump 2>/dev/null; then
  systemctl disable --now nfdump || true
fi

hack/build-kube.sh >/dev/null
