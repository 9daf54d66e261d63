#!/usr/bin/env python3
"""How many lines of candle's files differ from upstream at each tag of the
replay repository (make_repo.sh DEST): a file whose git blob id is the one
upstream.json records is upstream's byte for byte; any other is diffed line by
line against upstream's text, read by its blob id from --upstream-git (a clone
of huggingface/candle), and counted as changed lines.

    python3 bench/candle/lines_changed.py DEST [--upstream-git DIR]

Prints a Markdown table and "lines changed: N"; exits 0 whatever N is (the
count is the result), 2 when a file differs and no clone can say by how much.
"""
import argparse
import difflib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def git(args, text=True):
    return subprocess.run(["git", *args], capture_output=True, check=True, text=text).stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest")
    parser.add_argument("--upstream-git")
    args = parser.parse_args()
    upstream = json.load(open(os.path.join(HERE, "upstream.json")))
    total, unknown = 0, False
    rows = ["| tag | files | identical | lines changed |", "|---|---|---|---|"]
    for c in upstream["commits"]:
        tag = "up/" + c["short"]
        files = dict(c["blobs"], **upstream["license_blobs"])
        identical, changed = 0, 0
        for path, blob in sorted(files.items()):
            got = git(["-C", args.dest, "rev-parse", "%s:%s" % (tag, path)]).strip()
            if got == blob:
                identical += 1
                continue
            if not args.upstream_git:
                print("%s %s differs from upstream (blob %s, upstream %s); give --upstream-git to count"
                      % (tag, path, got[:9], blob[:9]), file=sys.stderr)
                unknown = True
                continue
            ours = git(["-C", args.dest, "show", "%s:%s" % (tag, path)]).splitlines()
            theirs = git(["--git-dir", args.upstream_git, "cat-file", "blob", blob]).splitlines()
            changed += sum(1 for line in difflib.ndiff(theirs, ours) if line[:1] in "+-")
        total += changed
        rows.append("| %s | %d | %d | %d |" % (tag, len(files), identical, changed))
    print("\n".join(rows))
    print("lines changed: %d" % total)
    return 2 if unknown else 0


if __name__ == "__main__":
    sys.exit(main())
