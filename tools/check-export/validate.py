"""Validate a corpus with Python's jsonschema against the harness's bundled
schemas, and count where its verdict differs from the harness validator's.

Usage: python3 validate.py BUNDLE STANDALONE_DIR CORPUS_FILE...

BUNDLE is `harness schemas --bundle`; STANDALONE_DIR holds `harness schemas
NAME` as NAME.json for every NAME. Each CORPUS_FILE line is {"schema": NAME,
"valid": the harness validator's verdict, "doc": the document}. Every
document is validated twice, against the bundle's definition and against the
standalone schema; any verdict that differs from the harness's is printed.
Exit status 1 when one differs or a schema does not load.

The draft-07 formats are annotations unless a validator is told to check
them. The harness validator (gojsonschema) checks the two standard formats
the schemas use, uri and date-time, so this checker does too, with
gojsonschema's rules (its own functions below: jsonschema's checkers for them
need optional packages); the harness's own formats (party-id, price, ...)
are annotations, as there.
"""

import json
import os
import re
import sys
from datetime import date

import jsonschema
from jsonschema import Draft7Validator, FormatChecker

SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def is_uri(value):
    """gojsonschema: url.Parse succeeds, the URL has a scheme, no backslash."""
    if not isinstance(value, str):
        return True
    if not SCHEME.match(value) or "\\" in value or CONTROL.search(value) or BAD_ESCAPE.search(value):
        return False
    rest = value.split(":", 1)[1]
    if rest.startswith("//"):
        host = rest[2:].split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
        if " " in host:
            return False
    return True


DATE = r"(\d{4})-(\d{2})-(\d{2})"
TIME = r"(\d{2}):(\d{2}):(\d{2})(\.\d+)?"
ZONE = r"(Z|[+-](\d{2}):(\d{2}))"
LAYOUTS = [
    re.compile(r"^" + TIME + r"$"),
    re.compile(r"^" + TIME + ZONE + r"$"),
    re.compile(r"^" + DATE + r"$"),
    re.compile(r"^" + DATE + "T" + TIME + ZONE + r"$"),
]


def is_date_time(value):
    """gojsonschema: time.Parse succeeds with one of 15:04:05,
    15:04:05Z07:00, 2006-01-02, RFC 3339 (with or without fraction)."""
    if not isinstance(value, str):
        return True
    for layout in LAYOUTS:
        m = layout.match(value)
        if m and valid_fields(value):
            return True
    return False


def valid_fields(value):
    d = re.search(DATE, value)
    if d:
        try:
            date(int(d.group(1)), int(d.group(2)), int(d.group(3)))
        except ValueError:
            return False
    t = re.search(TIME, value)
    if t and (int(t.group(1)) > 23 or int(t.group(2)) > 59 or int(t.group(3)) > 59):
        return False
    z = re.search(r"[+-](\d{2}):(\d{2})$", value) if t else None
    if z and (int(z.group(1)) > 23 or int(z.group(2)) > 59):
        return False
    return True


def format_checker():
    checker = FormatChecker(formats=())
    checker.checks("uri")(is_uri)
    checker.checks("date-time")(is_date_time)
    return checker


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    bundle_path, standalone_dir, corpus_files = argv[1], argv[2], argv[3:]
    with open(bundle_path) as f:
        bundle = json.load(f)
    checker = format_checker()
    Draft7Validator.check_schema(bundle)
    by_bundle, standalone = {}, {}

    def validators(name):
        if name not in by_bundle:
            # The bundle itself, asked to be the one definition: its $ref
            # resolves within the document (draft-07 ignores the siblings of
            # $ref but resolves against the whole document).
            root = dict(bundle)
            root["$ref"] = "#/definitions/" + name
            by_bundle[name] = Draft7Validator(root, format_checker=checker)
            with open(os.path.join(standalone_dir, name + ".json")) as f:
                schema = json.load(f)
            Draft7Validator.check_schema(schema)
            standalone[name] = Draft7Validator(schema, format_checker=checker)
        return by_bundle[name], standalone[name]

    documents, differences = 0, 0
    for path in corpus_files:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                case = json.loads(line)
                documents += 1
                for label, v in zip(("bundle", "standalone"), validators(case["schema"])):
                    valid = v.is_valid(case["doc"])
                    if valid != case["valid"]:
                        differences += 1
                        print(f"jsonschema ({label}): {os.path.basename(path)}:{number}: {case['schema']}: "
                              f"valid={valid}, harness valid={case['valid']}: {json.dumps(case['doc'])[:160]}")
    print(f"python jsonschema {jsonschema_version()}: {documents} documents, {len(by_bundle)} schemas, "
          f"bundle and standalone: {differences} differences from harness validate")
    return 1 if differences else 0


def jsonschema_version():
    try:
        from importlib.metadata import version
        return version("jsonschema")
    except Exception:  # an old Python without importlib.metadata
        return getattr(jsonschema, "__version__", "?")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
