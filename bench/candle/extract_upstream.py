#!/usr/bin/env python3
"""Writes bench/candle's copy of candle's CUDA kernels from a clone of
huggingface/candle: snapshot/ (the kernel files at the snapshot commit, byte
for byte), patches/NN-<sha>.patch (one per later first-parent commit that
touches them, `git diff C^ C -- FILES`, in order) and upstream.json (each
commit with the git blob id of every file after it).

    python3 bench/candle/extract_upstream.py CANDLE_GIT_DIR [--check]

--check writes nothing and exits 1 when the stored files differ from what the
clone gives (the stored copy is what make_repo.sh replays; CI has no clone).
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = "https://github.com/huggingface/candle"
SNAPSHOT = "b60064780"  # "feat: add silu activation function (#1706)", 2024-02-14
LAST = "1d7e92745"      # the latest commit replayed
FILES = ["candle-kernels/src/" + f for f in
         ("affine.cu", "compatibility.cuh", "cuda_utils.cuh", "reduce.cu", "ternary.cu", "unary.cu")]
LICENSES = ["LICENSE-APACHE", "LICENSE-MIT"]
# Commits that change no kernel file but what candle's Rust launchers pass the
# kernels: replayed as commits of kgate.json alone, so that each tag's manifest
# is the launcher of that point of history. 66f0a4eee relaxes Shape::is_contiguous
# (size-1 dims no longer break contiguity), so the launchers pass a NULL layout
# for more tensors from then on.
LAUNCHER_COMMITS = ["66f0a4eee"]


def git(git_dir, *args, raw=False):
    out = subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, check=True).stdout
    return out if raw else out.decode()


def plan(git_dir):
    snapshot = git(git_dir, "rev-parse", SNAPSHOT + "^{commit}").strip()
    last = git(git_dir, "rev-parse", LAST + "^{commit}").strip()
    touching = set(git(git_dir, "log", "--first-parent", "--format=%H", snapshot + ".." + last,
                       "--", *FILES).split())
    launchers = {git(git_dir, "rev-parse", c + "^{commit}").strip() for c in LAUNCHER_COMMITS}
    chain = [c for c in git(git_dir, "log", "--first-parent", "--reverse", "--format=%H",
                            snapshot + ".." + last).split() if c in touching or c in launchers]
    commits = []
    for sha in [snapshot] + chain:
        subject, date = git(git_dir, "log", "-1", "--format=%s%x00%aI", sha).rstrip("\n").split("\0")
        blobs = {}
        for path in FILES:
            line = git(git_dir, "ls-tree", sha, path).strip()
            if line:
                blobs[path] = line.split()[2]
        commits.append({"commit": sha, "short": sha[:9], "subject": subject, "author_date": date,
                        "blobs": blobs})
        if sha in launchers:
            commits[-1]["launcher_only"] = True
    outputs = {}
    for path in FILES:
        if path in commits[0]["blobs"]:
            outputs[os.path.join("snapshot", path)] = git(git_dir, "show", snapshot + ":" + path, raw=True)
    for lic in LICENSES:
        outputs[lic] = git(git_dir, "show", last + ":" + lic, raw=True)
    for n, c in enumerate(commits[1:], start=1):
        patch = git(git_dir, "diff", "--full-index", c["commit"] + "^", c["commit"], "--", *FILES, raw=True)
        if not patch:
            continue  # a launcher commit: kgate.json alone changes
        c["patch"] = "patches/%02d-%s.patch" % (n, c["short"])
        outputs[c["patch"]] = patch
    license_blobs = {lic: git(git_dir, "rev-parse", last + ":" + lic).strip() for lic in LICENSES}
    manifest = {
        "description": "huggingface/candle's CUDA kernels as bench/candle replays them: snapshot/ is the "
                       "snapshot commit's files, each later commit one patch (git diff C^ C -- files, "
                       "first-parent). blobs: the git blob id of every file after each commit. A "
                       "launcher_only commit changes no kernel file, only what candle's Rust launchers "
                       "pass them (replayed as a kgate.json change).",
        "repository": REPOSITORY,
        "license": "MIT OR Apache-2.0 (LICENSE-MIT, LICENSE-APACHE, verbatim at %s)" % last,
        "license_blobs": license_blobs,
        "files": FILES,
        "commits": commits,
    }
    outputs["upstream.json"] = (json.dumps(manifest, indent=2) + "\n").encode()
    return outputs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    outputs = plan(args.git_dir)
    stale = []
    for rel, data in sorted(outputs.items()):
        path = os.path.join(HERE, rel)
        old = open(path, "rb").read() if os.path.exists(path) else None
        if old == data:
            continue
        stale.append(rel)
        if not args.check:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
    for rel in stale:
        print(("differs: " if args.check else "wrote: ") + rel)
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
