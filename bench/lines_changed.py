#!/usr/bin/env python3
"""How many lines of a ported kernel library's upstream files were changed to
adopt kgate, in all and inside kernel bodies (issue 19's measure; target 0).

The example records each upstream file with its git blob id
(examples/<name>/upstream.json). A file whose blob id is unchanged is the
original byte for byte. Otherwise the original is read from --upstream (a
checkout of the upstream repository at the recorded commit) or, by its blob
id, from this repository's own history (the example's first commit stored the
originals), and the two are diffed line by line. A kernel body is a
`__global__` function from its signature to its closing brace, in the original.

    python3 bench/lines_changed.py examples/flashinfer-norm [--upstream DIR] [--json OUT]

Prints a Markdown table; exits 0 whatever the count (the count is the result),
2 when an original cannot be found.
"""
import argparse
import difflib
import hashlib
import json
import os
import re
import subprocess
import sys


def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def strip_comments_and_strings(text):
    """The text with comments and string/char literals blanked (same length and
    newlines), so braces inside them do not count."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def kernel_bodies(text):
    """[(name, first_line, last_line)] (1-based, inclusive) of each __global__
    function definition: from the line holding __global__ to its closing brace."""
    code = strip_comments_and_strings(text)
    out = []
    for m in re.finditer(r"\b__global__\b", code):
        # A declaration ends at ';' before any '{'.
        brace, semi = code.find("{", m.end()), code.find(";", m.end())
        if brace < 0 or (0 <= semi < brace):
            continue
        name = re.search(r"(\w+)\s*\(", code[m.end():brace])
        depth, j = 0, brace
        while j < len(code):
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        first = code.count("\n", 0, m.start()) + 1
        last = code.count("\n", 0, j) + 1
        out.append((name.group(1) if name else "?", first, last))
    return out


def original_text(entry, upstream_dir, repo_root):
    if upstream_dir:
        path = os.path.join(upstream_dir, entry["upstream_path"])
        if os.path.exists(path):
            return open(path, "rb").read()
    run = subprocess.run(["git", "-C", repo_root, "cat-file", "blob", entry["git_blob"]],
                         capture_output=True)
    return run.stdout if run.returncode == 0 else None


def changed_original_lines(old, new):
    """(lines of the original changed or removed, as 1-based numbers; lines added,
    each attributed to the original line it follows)."""
    changed, added_after = set(), []
    sm = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag in ("replace", "delete"):
            changed.update(range(i1 + 1, i2 + 1))
        if tag in ("replace", "insert"):
            extra = (j2 - j1) - (i2 - i1) if tag == "replace" else j2 - j1
            added_after += [i1 if tag == "insert" else i2] * max(0, extra)
    return changed, added_after


def main():
    p = argparse.ArgumentParser()
    p.add_argument("example", help="examples/<name>, holding upstream.json")
    p.add_argument("--upstream", help="a checkout of the upstream repository at the recorded commit")
    p.add_argument("--json", help="also write the counts as JSON here")
    a = p.parse_args()
    record = json.load(open(os.path.join(a.example, "upstream.json")))
    repo_root = os.path.dirname(os.path.abspath(__file__))
    rows, missing = [], []
    for entry in record["files"]:
        local = open(os.path.join(a.example, entry["path"]), "rb").read()
        same = blob_id(local) == entry["git_blob"]
        old = local if same else original_text(entry, a.upstream, repo_root)
        if old is None:
            missing.append(entry["path"])
            continue
        old_text = old.decode("utf-8", "replace")
        bodies = kernel_bodies(old_text)
        body_lines = set()
        for _, first, last in bodies:
            body_lines.update(range(first, last + 1))
        changed, added_after = (set(), []) if same else changed_original_lines(
            old_text.splitlines(), local.decode("utf-8", "replace").splitlines())
        in_bodies = len(changed & body_lines) + sum(
            1 for after in added_after if after in body_lines and after + 1 in body_lines)
        rows.append({"path": entry["path"], "upstream_path": entry["upstream_path"],
                     "identical": same, "lines": len(old_text.splitlines()),
                     "kernels": [b[0] for b in bodies],
                     "kernel_body_lines": len(body_lines),
                     "lines_changed": len(changed) + len(added_after),
                     "kernel_body_lines_changed": in_bodies})
    total = sum(r["lines_changed"] for r in rows)
    in_kernels = sum(r["kernel_body_lines_changed"] for r in rows)
    print(f"Upstream: {record['repository']} at {record['commit']} ({record.get('license', '')})\n")
    print("| file | upstream | lines | kernels | kernel body lines | lines changed | in kernel bodies |")
    print("|---|---|---:|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['path']} | {r['upstream_path']} | {r['lines']} | {', '.join(r['kernels']) or '-'} | "
              f"{r['kernel_body_lines']} | {r['lines_changed']}{' (identical)' if r['identical'] else ''} | "
              f"{r['kernel_body_lines_changed']} |")
    print(f"\nlines changed: {total}; in kernel bodies: {in_kernels}")
    for m in missing:
        print(f"{m}: changed, and the original is not in this repository's history: "
              f"give --upstream (a checkout at {record['commit']})", file=sys.stderr)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"upstream": record, "files": rows, "lines_changed": total,
                       "kernel_body_lines_changed": in_kernels}, f, indent=2)
    return 2 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
