"""Turn the fixture files of `harness generate` into a corpus with the
verdicts of `harness validate`.

Usage: python3 fixtures.py HARNESS FIXTURES_DIR WORK_DIR OUT_FILE

For every listing of FIXTURES_DIR/manifest.json: the file as one document
(the listing's response body) with the exit status of `harness validate
--schema List...Response FILE`, and every row as a document of the node
schema (Game, Transaction, ...) with the verdict `harness validate --schema
NODE ROWS.ndjson` gives its line. Each OUT_FILE line is {"schema": NAME,
"valid": the verdict, "doc": the document}, the corpus validate.py and
validate.mjs read.
"""

import json
import os
import re
import subprocess
import sys

# listing -> (response schema, node schema, rows of a response body)
LISTINGS = {
    "games": ("ListGamesResponse", "Game", lambda b: [e["node"] for e in b["games"]["edges"]]),
    "snapshots": ("ListCoreSnapshotsResponse", "CoreSnapshot", lambda b: [e["node"] for e in b["coreSnapshots"]["edges"]]),
    "keyrotations": ("ListEthereumKeyRotationsResponse", "EthereumKeyRotation",
                     lambda b: [e["node"] for e in b["keyRotations"]["edges"]]),
    "networkparameters": ("ListNetworkParametersResponse", "NetworkParameter",
                          lambda b: [e["node"] for e in b["networkParameters"]["edges"]]),
    "transactions": ("ListTransactionsResponse", "Transaction", lambda b: b["transactions"]),
}


def harness_validate(harness, schema, path):
    """Returns the exit status and the numbers of the lines (NDJSON) named
    in the violations."""
    p = subprocess.run([harness, "validate", "--schema", schema, path], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"harness validate --schema {schema} {path}: exit {p.returncode}: {p.stderr}")
    prefix = re.escape(os.path.basename(path)) + r":(\d+): "
    lines = {int(m.group(1)) for m in re.finditer(prefix, p.stdout)}
    return p.returncode, lines


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    harness, fixtures, work, out_path = argv[1:]
    with open(os.path.join(fixtures, "manifest.json")) as f:
        manifest = json.load(f)
    documents = 0
    with open(out_path, "w") as out:
        def emit(schema, valid, doc):
            nonlocal documents
            documents += 1
            out.write(json.dumps({"schema": schema, "valid": valid, "doc": doc}, ensure_ascii=False) + "\n")

        for listing, entry in sorted(manifest["listings"].items()):
            response, node, rows_of = LISTINGS[listing]
            path = os.path.join(fixtures, entry["file"])
            if path.endswith(".ndjson"):
                with open(path) as f:
                    rows = [json.loads(line) for line in f]
            else:
                with open(path) as f:
                    body = json.load(f)
                status, _ = harness_validate(harness, response, path)
                emit(response, status == 0, body)
                rows = rows_of(body)
            rows_path = os.path.join(work, listing + ".rows.ndjson")
            with open(rows_path, "w") as f:
                for r in rows:
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")
            _, invalid = harness_validate(harness, node, rows_path)
            for i, r in enumerate(rows, 1):
                emit(node, i not in invalid, r)
    print(f"fixtures: {documents} documents from {fixtures}, verdicts by harness validate")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
