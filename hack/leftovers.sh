#!/usr/bin/env bash
# Finds what test runs leave behind: network namespaces and root-namespace links named ats*,
# processes started from harness temp dirs or the kube binary cache, and /tmp/antrea-ts-* dirs.
# Without arguments it lists them and exits 1 if there are any (the leak check that `npm test` runs
# after the tests); with --remove it removes them (the sweep that always runs last).
set -uo pipefail
remove=false
[[ "${1:-}" == "--remove" ]] && remove=true
cache="${ANTREA_TS_CACHE:-$HOME/.cache/antrea-ts}"
found=0

report() {
  found=1
  echo "leftover: $*"
}

# Processes whose command line points into a harness temp dir or at a cached kube binary.
while read -r pid cmd; do
  [[ "$pid" == "$$" ]] && continue
  case "$cmd" in
    *ovsdb-server*/tmp/antrea-ts-* | *ovs-vswitchd*/tmp/antrea-ts-* | etcd*/tmp/antrea-ts-* | \
      "$cache"/bin/kube-* | *"ip netns exec ats-"*)
      report "process $pid: ${cmd:0:160}"
      $remove && kill -9 "$pid" 2>/dev/null
      ;;
  esac
done < <(ps -eo pid=,args= 2>/dev/null)

for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep '^ats-'); do
  report "netns $ns"
  $remove && ip netns delete "$ns" 2>/dev/null
done

for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep '^ats'); do
  report "link $link"
  $remove && ip link delete "$link" 2>/dev/null
done

for dir in /tmp/antrea-ts-*; do
  [[ -e "$dir" ]] || continue
  report "dir $dir"
  $remove && rm -rf "$dir"
done

if $remove; then exit 0; fi
exit "$found"
