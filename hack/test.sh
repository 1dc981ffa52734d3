#!/usr/bin/env bash
# `npm test`: every test of the project against real components, on a fresh machine or a warm one.
# Installs what is missing, lints, type-checks and builds, runs unit, integration and e2e tests, then
# fails if the run left anything behind (netns, links, processes, temp dirs) and removes it either way.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $(id -u) -ne 0 ]]; then
  echo "npm test needs root: the tests create network namespaces, veth pairs and OVS instances." >&2
  exit 1
fi

hack/install-deps.sh
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund
fi

trap 'hack/leftovers.sh --remove >/dev/null 2>&1 || true' EXIT

npx biome check .
npx tsc -b

mkdir -p artifacts
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json=artifacts/vitest.json "$@" || status=$?

# vitest's own summary is not one that every CI reader knows: print the plain closing line too.
node -e '
  const r = JSON.parse(require("fs").readFileSync("artifacts/vitest.json", "utf8"));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
' || true

echo "leak check:"
if ! hack/leftovers.sh; then
  echo "the test run left the above behind" >&2
  status=1
else
  echo "nothing left behind"
fi
exit "$status"
