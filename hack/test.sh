#!/usr/bin/env bash
# `npm test`: every test of the project against real components, on a fresh machine or a warm one.
# Installs what is missing, lints, type-checks and builds, runs unit, integration and e2e tests, then
# fails if the run left anything behind (netns, links, processes, temp dirs) and removes it either way.
# Only what appeared during this run counts: a lab or another run on the machine is not touched.
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

mkdir -p artifacts
hack/leftovers.sh list >artifacts/leftovers-before.txt
new_leftovers() {
  hack/leftovers.sh list >artifacts/leftovers-after.txt
  comm -13 artifacts/leftovers-before.txt artifacts/leftovers-after.txt
}
# Whatever happens, remove what this run made and did not clean up.
trap 'new_leftovers >artifacts/leftovers-new.txt; hack/leftovers.sh remove artifacts/leftovers-new.txt' EXIT

npx biome check .
npx tsc -b

status=0
npx vitest run --reporter=default --reporter=json --outputFile.json=artifacts/vitest.json "$@" || status=$?

# vitest's own summary is not one that every CI reader knows: print the plain closing line too.
node -e '
  const r = JSON.parse(require("fs").readFileSync("artifacts/vitest.json", "utf8"));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
' || true

leaks=$(new_leftovers)
if [[ -n "$leaks" ]]; then
  printf 'leak check: the test run left these behind (now removed):\n%s\n' "$leaks" >&2
  status=1
else
  echo "leak check: nothing left behind"
fi
exit "$status"
