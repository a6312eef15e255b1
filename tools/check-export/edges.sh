#!/usr/bin/env bash
# edges.sh HARNESS: check the edge world (harness serve --world edges) with
# Python's jsonschema, an outside validator (make check-export-edges).
#
#   1. The mock serves the edge world; answers.py walks every page of every
#      listing and validates each answer against `harness schemas --openapi`,
#      and `harness conform` runs the conformance suite against it (its
#      model and rules read block heights and epochs above 2^53).
#   2. `harness generate --world edges` writes it as fixtures; every file
#      and row is validated by `harness validate` and by jsonschema against
#      `harness schemas --bundle` and each standalone schema (validate.py),
#      which must agree.
#
# Needs Go and python3 with jsonschema (apt-get install python3-jsonschema,
# or pip install jsonschema); no npm. make check-export runs the same
# fixtures through ajv as well.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
harness=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
PYTHON=${PYTHON:-python3}

work=$(mktemp -d "${TMPDIR:-/tmp}/check-export-edges.XXXXXX")
server=
cleanup() {
	if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

if ! "$PYTHON" -c 'import jsonschema' 2>/dev/null; then
	echo "check-export-edges: $PYTHON has no jsonschema: apt-get install python3-jsonschema (or pip install jsonschema)" >&2
	exit 1
fi

echo "== the edge world's answers against the OpenAPI export"
"$harness" schemas --openapi >"$work/openapi.json"
"$harness" serve --world edges --addr 127.0.0.1:0 --log-format none >"$work/serve.out" 2>&1 &
server=$!
url=
for _ in $(seq 1 300); do
	url=$(grep -o -m 1 'http://127\.0\.0\.1:[0-9]*' "$work/serve.out" | head -n 1 || true)
	if [ -n "$url" ] && grep -q 'transactions [0-9]' "$work/serve.out"; then break; fi
	sleep 0.1
done
[ -n "$url" ] || { echo "check-export-edges: the mock did not start:" >&2; cat "$work/serve.out" >&2; exit 1; }
"$PYTHON" "$here/answers.py" "$work/openapi.json" "$url" 37

echo "== the conformance suite against the edge world"
# The relation rules are left out: the edge world's commands hold values at
# the schemas' boundaries (an expiry of 0, bounds at their extremes, a rank
# table in any order) that an accepted command's relations forbid, on
# purpose (docs/edge-world.md).
"$harness" conform --base-url "$url" --label-filter '!relations' >"$work/conform.out" 2>&1 || { cat "$work/conform.out" >&2; echo "check-export-edges: the suite fails against the edge world" >&2; exit 1; }
grep -E '^(Rules|Verdict):' "$work/conform.out"
kill "$server"
server=

echo "== the edge world's fixtures: harness validate and jsonschema agree"
"$harness" schemas --bundle >"$work/bundle.json"
mkdir "$work/standalone" "$work/corpus"
for name in $("$harness" schemas); do
	"$harness" schemas "$name" >"$work/standalone/$name.json"
done
"$harness" generate --world edges --out "$work/fixtures" --quiet
"$PYTHON" "$here/fixtures.py" "$harness" "$work/fixtures" "$work" "$work/corpus/edges.ndjson"
if grep -q '"valid": false' "$work/corpus/edges.ndjson"; then
	echo "check-export-edges: harness validate refuses rows of the edge world" >&2
	grep -m 3 '"valid": false' "$work/corpus/edges.ndjson" | cut -c1-300 >&2
	exit 1
fi
"$PYTHON" "$here/validate.py" "$work/bundle.json" "$work/standalone" "$work/corpus/edges.ndjson"
echo "== check-export-edges passed"
