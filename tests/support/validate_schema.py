#!/usr/bin/env python3
"""Validates manifests against docs/kgate.schema.json (JSON Schema 2020-12).

Reads {"schema": PATH, "documents": [...]} on stdin and prints a JSON array
with, per document, "" when it is valid or the first error's message.
Used by tests/core/schema_agreement_test.cpp; needs python3-jsonschema
(scripts/setup installs it). Exit 3 when the module is missing.
"""
import json
import sys

import os

try:
    import jsonschema
except ImportError:
    # A python3 first on PATH (pyenv, a venv) does not see Debian's python3-jsonschema, which
    # scripts/setup installs for the system interpreter: run there instead.
    system = "/usr/bin/python3"
    if os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system) \
            and not os.environ.get("KGATE_SCHEMA_REEXEC"):
        os.environ["KGATE_SCHEMA_REEXEC"] = "1"
        os.execv(system, [system] + sys.argv)
    print("python3-jsonschema is not installed (scripts/setup installs it)", file=sys.stderr)
    sys.exit(3)

request = json.load(sys.stdin)
with open(request["schema"], encoding="utf-8") as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
results = []
for document in request["documents"]:
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    results.append("" if not errors else
                   "/".join(str(p) for p in errors[0].absolute_path) + ": " + errors[0].message)
print(json.dumps(results))
