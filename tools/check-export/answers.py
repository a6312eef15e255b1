"""Walk every listing of a running mock and validate each answer against the
OpenAPI export with Python's jsonschema.

Usage: python3 answers.py OPENAPI_JSON BASE_URL [PAGE_SIZE]

OPENAPI_JSON is `harness schemas --openapi`. Every page of every listing
(games window by window over the epochs /harness/status gives, which Python
reads as the integers they are) is validated against the schema of the
operation's 200 answer, and a refused request against its 400 answer. The
export's schemas are OpenAPI 3.0: `nullable: true` becomes an anyOf with
null; the rest (the x- extensions, the formats, annotations to a draft-07
validator) is read as jsonschema reads draft 7. Exit status 1 on the first
answer the export refuses, with the violation.

make check-export-edges runs it against `harness serve --world edges`, whose
rows hold every boundary the schemas allow: integer strings above 2^53 and
at the uint64 maximum, null, empty arrays, long and non-ASCII strings.
"""

import json
import sys
import urllib.parse
import urllib.request

from jsonschema import Draft7Validator

LISTINGS = [
    # path, member of the answer, /api/v2 (cursor-paged)
    ("/api/v2/games", "games", True),
    ("/api/v2/snapshots", "coreSnapshots", True),
    ("/api/v2/core/keys/ethereum/rotations", "keyRotations", True),
    ("/api/v2/network/parameters", "networkParameters", True),
    ("/transactions", "transactions", False),
]


def nullable_to_any_of(schema):
    """Returns a copy of an OpenAPI 3.0 schema with each nullable: true
    written as a draft-07 anyOf with null."""
    if isinstance(schema, list):
        return [nullable_to_any_of(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: nullable_to_any_of(v) for k, v in schema.items() if k != "nullable"}
    if schema.get("nullable") is True:
        return {"anyOf": [out, {"type": "null"}]}
    return out


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, json.loads(r.read().decode("utf-8"))
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode("utf-8"))


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        api = json.load(f)
    base = argv[2].rstrip("/")
    size = int(argv[3]) if len(argv) == 4 else 50
    components = nullable_to_any_of(api["components"])

    def validator(path, status):
        content = api["paths"][path]["get"]["responses"][status]
        if "$ref" in content:  # a shared response
            content = api["components"]["responses"][content["$ref"].rsplit("/", 1)[1]]
        schema = nullable_to_any_of(content["content"]["application/json"]["schema"])
        return Draft7Validator({**schema, "components": components})

    answers = rows = 0

    def check(v, url, want, status, body):
        nonlocal answers
        answers += 1
        if status != want:
            sys.exit(f"answers: {url}: status {status}, want {want}: {json.dumps(body)[:300]}")
        err = next(iter(sorted(v.iter_errors(body), key=lambda e: list(e.absolute_path))), None)
        if err is not None:
            where = "/" + "/".join(str(p) for p in err.absolute_path)
            sys.exit(f"answers: {url}: the OpenAPI export refuses the answer at {where}: {err.message[:300]}")

    _, status = get(base + "/harness/status")
    first, latest = int(status["firstEpoch"]), int(status["latestEpoch"])
    for path, member, paged in LISTINGS:
        ok = validator(path, "200")
        if not paged:
            query = {"first": size}
            while True:
                url = base + path + "?" + urllib.parse.urlencode(query)
                code, body = get(url)
                check(ok, url, 200, code, body)
                page = body[member]
                rows += len(page)
                if len(page) < size:
                    break
                query = {"last": size, "before": page[-1]["cursor"]}
        else:
            windows = [{}]
            if member == "games":
                windows = [{"epochFrom": lo, "epochTo": min(lo + 29, latest)} for lo in range(first, latest + 1, 30)]
            for window in windows:
                query = dict(window, **{"pagination.first": size})
                while True:
                    url = base + path + "?" + urllib.parse.urlencode(query)
                    code, body = get(url)
                    check(ok, url, 200, code, body)
                    conn = body[member]
                    rows += len(conn["edges"])
                    if not conn["pageInfo"]["hasNextPage"]:
                        break
                    query = dict(window, **{"pagination.first": size, "pagination.after": conn["pageInfo"]["endCursor"]})
        url = base + path + "?" + ("pagination.first=0" if paged else "first=1&last=1")
        code, body = get(url)
        check(validator(path, "400"), url, 400, code, body)
    print(f"answers: {answers} answers ({rows} rows) of {base}, valid against the OpenAPI export (jsonschema)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
