#!/usr/bin/env bash
# What test runs leave behind: network namespaces and root-namespace links named ats*, processes
# started from harness temp dirs or from the kube binary cache (and the sessions of a harness sshd),
# throwaway ats-sftp-* users of the SFTP tests, and antrea-ts-* dirs in /tmp and /dev/shm (the
# agent's command runner keeps its scratch files there).
#   hack/leftovers.sh list          one line per item: "<kind> <id> [detail]"
#   hack/leftovers.sh remove FILE   removes the items listed in FILE (output of `list`)
# `npm test` lists before and after the run, so it reports and removes only what the run itself left
# (a lab or another run on the same machine is not touched).
set -uo pipefail
cache="${ANTREA_TS_CACHE:-$HOME/.cache/antrea-ts}"

list() {
  while read -r pid cmd; do
    case "$cmd" in
      *ovsdb-server*/tmp/antrea-ts-* | *ovs-vswitchd*/tmp/antrea-ts-* | etcd*/tmp/antrea-ts-* | \
        "$cache"/bin/kube-*/tmp/antrea-ts-* | *sshd*/tmp/antrea-ts-* | "sshd: ats-sftp-"* | \
        *nfcapd*/tmp/antrea-ts-*)
        echo "process $pid ${cmd:0:160}"
        ;;
    esac
  done < <(ps -eo pid=,args= 2>/dev/null)
  getent passwd 2>/dev/null | awk -F: '$1 ~ /^ats-sftp-/ {print "user " $1}'
  ip netns list 2>/dev/null | awk '$1 ~ /^ats-/ {print "netns " $1}'
  ip -o link show 2>/dev/null | awk -F': ' '{split($2, n, "@"); if (n[1] ~ /^ats/) print "link " n[1]}'
  for dir in /tmp/antrea-ts-* /dev/shm/antrea-ts-*; do
    [[ -e "$dir" ]] && echo "dir $dir"
  done
  return 0
}

remove() {
  # Processes first: they hold the dirs and may recreate links.
  while read -r kind id _; do
    [[ "$kind" == process ]] && kill -9 "$id" 2>/dev/null
  done <"$1"
  while read -r kind id _; do
    case "$kind" in
      user) userdel "$id" 2>/dev/null ;;
      netns) ip netns delete "$id" 2>/dev/null ;;
      link) ip link delete "$id" 2>/dev/null ;;
      dir) rm -rf "$id" ;;
    esac
  done <"$1"
  return 0
}

case "${1:-}" in
  list) list | sort ;;
  remove) remove "${2:?file}" ;;
  *) echo "usage: $0 list | remove FILE" >&2; exit 2 ;;
esac
