#!/usr/bin/env python3
"""Regenerates bench/ggml's copy of upstream ggml from a clone of
ggml-org/ggml: the snapshot of the needed files at commit E (the first-parent
commit just before the earliest case), one patch per first-parent commit after
E up to LAST that touches a needed file (`git diff C^ C -- FILES`), and
upstream.json (the commits, their subjects, authors and dates, and the git blob
id of every needed file after each one).

    python3 bench/ggml/extract.py CLONE [--first E] [--last LAST]

The needed files are those the four kernel sources (norm.cu, softmax.cu,
sumrows.cu, argmax.cu) include through quoted #includes, transitively, at any
replayed commit, plus LICENSE. vendors/hip.h and vendors/musa.h are left out:
common.cuh includes them only under GGML_USE_HIP / GGML_USE_MUSA, never for
CUDA. Nothing here is needed to build or test the port; it documents where the
files came from and redoes it.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOTS = ["src/ggml-cuda/norm.cu", "src/ggml-cuda/softmax.cu", "src/ggml-cuda/sumrows.cu",
         "src/ggml-cuda/argmax.cu"]
NOT_FOR_CUDA = {"src/ggml-cuda/vendors/hip.h", "src/ggml-cuda/vendors/musa.h"}
SEARCH = ["include", "src", "src/ggml-cuda"]  # ggml's CMake include folders for the CUDA backend


def git(clone, *args, binary=False):
    run = subprocess.run(["git", "-C", clone, *args], capture_output=True)
    if run.returncode != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args), run.stderr.decode()))
    return run.stdout if binary else run.stdout.decode()


def exists(clone, commit, path):
    return subprocess.run(["git", "-C", clone, "cat-file", "-e", "%s:%s" % (commit, path)],
                          capture_output=True).returncode == 0


def closure(clone, commit):
    seen, todo = set(), list(ROOTS)
    while todo:
        path = todo.pop()
        if path in seen or path in NOT_FOR_CUDA or not exists(clone, commit, path):
            continue
        seen.add(path)
        text = git(clone, "show", "%s:%s" % (commit, path))
        for inc in re.findall(r'^\s*#\s*include\s*"([^"]+)"', text, re.M):
            for folder in [os.path.dirname(path)] + SEARCH:
                candidate = os.path.normpath(os.path.join(folder, inc))
                if exists(clone, commit, candidate):
                    todo.append(candidate)
                    break
    return seen


def main():
    p = argparse.ArgumentParser()
    p.add_argument("clone")
    p.add_argument("--first", default="a2bacc13e578a4a5aa6fa3c11312d513ca8d8d16")
    p.add_argument("--last", default="3e12f44179088b47ced8a5dd91bd341ce9e3a7e9")
    a = p.parse_args()
    first = git(a.clone, "rev-parse", a.first).strip()
    last = git(a.clone, "rev-parse", a.last).strip()
    chain = git(a.clone, "rev-list", "--first-parent", "--reverse", "%s..%s" % (first, last)).split()
    files = closure(a.clone, first) | closure(a.clone, last) | {"LICENSE"}
    touching = [c for c in chain if git(a.clone, "diff", "--name-only", c + "^", c, "--", *sorted(files)).strip()]
    for c in touching:  # no replayed commit includes a file outside the set
        extra = closure(a.clone, c) - files
        if extra:
            sys.exit("extract: %s includes %s, outside the needed files" % (c, sorted(extra)))
    files = sorted(files)

    snapshot = os.path.join(HERE, "snapshot")
    patches = os.path.join(HERE, "patches")
    for folder in (snapshot, patches):
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)

    def blobs(commit):
        out = {}
        for path in files:
            line = git(a.clone, "ls-tree", commit, "--", path).split()
            if line:
                out[path] = line[2]
        return out

    for path, blob in blobs(first).items():
        os.makedirs(os.path.dirname(os.path.join(snapshot, path)) or snapshot, exist_ok=True)
        with open(os.path.join(snapshot, path), "wb") as f:
            f.write(git(a.clone, "cat-file", "blob", blob, binary=True))

    def meta(commit):
        fields = git(a.clone, "log", "-1", "--format=%H%x00%s%x00%an%x00%ae%x00%aI%x00%cI", commit).split("\0")
        return {"commit": fields[0], "short": fields[0][:8], "subject": fields[1],
                "author": fields[2], "email": fields[3], "author_date": fields[4],
                "committer_date": fields[5].strip()}

    record = {
        "repository": "https://github.com/ggml-org/ggml",
        "license": "MIT (LICENSE, verbatim at every commit)",
        "note": "The replay applies patches/NNN-<short>.patch in order on snapshot/; "
                "'blobs' are the git blob ids of the needed files after each commit.",
        "files": files,
        "first": dict(meta(first), blobs=blobs(first)),
        "commits": [],
    }
    before = record["first"]["blobs"]
    for n, c in enumerate(touching, 1):
        m = meta(c)
        name = "%03d-%s.patch" % (n, m["short"])
        diff = git(a.clone, "diff", "--binary", "--full-index", c + "^", c, "--", *files, binary=True)
        with open(os.path.join(patches, name), "wb") as f:
            f.write(diff)
        after = blobs(c)
        m["patch"] = name
        m["parent"] = git(a.clone, "rev-parse", c + "^").strip()
        m["changed"] = {path: after.get(path) for path in sorted(set(before) | set(after))
                        if before.get(path) != after.get(path)}
        record["commits"].append(m)
        before = after
    with open(os.path.join(HERE, "upstream.json"), "w") as f:
        json.dump(record, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("%d files, %d commits replayed of %d on the first-parent chain" % (len(files), len(touching), len(chain)))


if __name__ == "__main__":
    main()
