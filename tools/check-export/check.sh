#!/usr/bin/env bash
# check.sh HARNESS: check the harness's OpenAPI export and bundled schemas
# with the npm and Python tools client developers use (make check-export).
#
#   1. Spectral (spectral:oas) and Redocly (its recommended rules, with
#      redocly.yaml) lint `harness schemas --openapi`: no error, no warning.
#   2. openapi-typescript turns it into api.d.ts; tsc --strict compiles
#      walk.ts (openapi-fetch) against it; node runs the walk against a mock
#      on 127.0.0.1 and must read every row of every listing.
#   3. `harness schemas --bundle` and `harness schemas NAME` (every NAME)
#      load in ajv and in Python's jsonschema, and give the verdict of the
#      harness validator on every document the schema tests validate (their
#      valid and invalid examples, HARNESS_SCHEMA_CORPUS) and of
#      `harness validate` on every fixture file and row of
#      `harness generate --scale 1` and of `harness generate --world edges`.
#
# The npm tools are installed with `npm ci` from package-lock.json (exact
# versions) into a temporary directory, removed at the end. Needs node 20.19
# or later (Redocly CLI's floor), npm, Go, and python3 with jsonschema
# (apt-get install python3-jsonschema, or pip install jsonschema).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
harness=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
GO=${GO:-go}
PYTHON=${PYTHON:-python3}

work=$(mktemp -d "${TMPDIR:-/tmp}/check-export.XXXXXX")
server=
cleanup() {
	if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

start=$(date +%s)
step() { printf '\n== %s (%ss)\n' "$1" "$(($(date +%s) - start))"; }

step "tools"
node --version >/dev/null 2>&1 || { echo "check-export: node is not on the PATH" >&2; exit 1; }
if ! "$PYTHON" -c 'import jsonschema' 2>/dev/null; then
	echo "check-export: $PYTHON has no jsonschema: apt-get install python3-jsonschema (or pip install jsonschema)" >&2
	exit 1
fi
cp "$here/package.json" "$here/package-lock.json" "$here/tsconfig.json" "$here/walk.ts" "$here/validate.mjs" \
	"$here/.spectral.yaml" "$here/redocly.yaml" "$work/"
(cd "$work" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
echo "node $(node --version), $("$PYTHON" --version), npm tools from package-lock.json"

step "Spectral (spectral:oas): no error, no warning"
"$harness" schemas --openapi >"$work/openapi.json"
(cd "$work" && npx --no-install spectral lint --ruleset .spectral.yaml --fail-severity=warn openapi.json)

step "Redocly (recommended, redocly.yaml): no error, no warning"
# redocly lint fails on errors only: its JSON report's totals decide, and on
# a problem the readable report is printed. No telemetry, no update check.
redocly() { (cd "$work" && REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx --no-install redocly "$@"); }
redocly lint --config redocly.yaml --format=json openapi.json >"$work/redocly.json" 2>"$work/redocly.err" || true
if ! "$PYTHON" - "$work/redocly.json" <<'EOF'
import json, sys
try:
    t = json.load(open(sys.argv[1]))["totals"]
except (OSError, ValueError, KeyError) as e:
    sys.exit(f"check-export: no Redocly report: {e}")
print(f"redocly lint: {t['errors']} errors, {t['warnings']} warnings, {t['ignored']} ignored")
sys.exit(1 if t["errors"] or t["warnings"] or t["ignored"] else 0)
EOF
then
	cat "$work/redocly.err" >&2
	redocly lint --config redocly.yaml openapi.json || true
	echo "check-export: Redocly reports problems in the export" >&2
	exit 1
fi

step "openapi-typescript, tsc --strict, the walk against the mock"
(cd "$work" && npx --no-install openapi-typescript openapi.json -o api.d.ts && npx --no-install tsc -p tsconfig.json)
"$harness" serve --addr 127.0.0.1:0 --seed 1 --scale 0.05 --log-format none >"$work/serve.out" 2>&1 &
server=$!
url=
for _ in $(seq 1 100); do
	url=$(grep -o -m 1 'http://127\.0\.0\.1:[0-9]*' "$work/serve.out" | head -n 1 || true)
	if [ -n "$url" ] && grep -q 'transactions [0-9]' "$work/serve.out"; then break; fi
	sleep 0.1
done
[ -n "$url" ] || { echo "check-export: the mock did not start:" >&2; cat "$work/serve.out" >&2; exit 1; }
(cd "$work" && node out/walk.js "$url" 7) >"$work/walk.json"
kill "$server"
server=
"$PYTHON" - "$work/serve.out" "$work/walk.json" <<'EOF'
import json, re, sys
served = open(sys.argv[1]).read()
want = {k.replace(" ", ""): int(n) for k, n in
        re.findall(r"(games|snapshots|key rotations|network parameters|transactions) (\d+)", served)}
got = json.load(open(sys.argv[2]))
print(f"walk: {got}")
if got != want:
    sys.exit(f"check-export: the TypeScript walk read {got}, the mock holds {want}")
EOF

step "bundled schemas: harness schemas --bundle and harness schemas NAME"
"$harness" schemas --bundle >"$work/bundle.json"
mkdir "$work/standalone"
for name in $("$harness" schemas); do
	"$harness" schemas "$name" >"$work/standalone/$name.json"
done
echo "$(ls "$work/standalone" | wc -l) standalone schemas"

step "corpus: the documents the schema tests validate, and the fixtures of harness generate --scale 1"
mkdir "$work/corpus" "$work/fixtures"
(cd "$repo" && HARNESS_SCHEMA_CORPUS="$work/corpus" "$GO" test -count=1 -skip 'TestGeneratedClientsWalkEveryListing' ./schemas)
"$harness" generate --seed 1 --scale 1 --out "$work/fixtures" --quiet
"$PYTHON" "$here/fixtures.py" "$harness" "$work/fixtures" "$work" "$work/corpus/fixtures.ndjson"
# The edge world: every boundary the schemas allow (make check-export-edges
# checks its answers against the OpenAPI export too).
"$harness" generate --world edges --out "$work/edge-fixtures" --quiet
"$PYTHON" "$here/fixtures.py" "$harness" "$work/edge-fixtures" "$work" "$work/corpus/edge-fixtures.ndjson"
echo "$(cat "$work"/corpus/*.ndjson | wc -l) documents"

step "ajv: the same verdicts as harness validate"
(cd "$work" && node validate.mjs bundle.json standalone corpus/*.ndjson)

step "Python jsonschema: the same verdicts as harness validate"
"$PYTHON" "$here/validate.py" "$work/bundle.json" "$work/standalone" "$work"/corpus/*.ndjson

step "check-export passed"
