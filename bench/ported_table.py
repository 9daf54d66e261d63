#!/usr/bin/env python3
"""The table of a ported kernel library's run on a GPU (bench/gpu/ported_example.sh):
the upstream lines changed (bench/lines_changed.py --json), every kernel-shape
of `kgate run --json` (pass or fail, median), and the tuner's episodes over the
declared tunables (the best settings and their speedup over the first
version, from each episode's final gate).

    python3 bench/ported_table.py --manifest REPO [--run kgate_run.json]
        [--state-dir S] [--lines lines_changed.json] [--backend cuda] [--out ported.md]
    python3 bench/ported_table.py --manifest REPO --kernels-of cuda   # kernel names, one a line

Exits 1 when a kernel-shape of the run failed (the table is written anyway).
"""
import argparse
import glob
import json
import math
import os
import sys


def strip_jsonc(text):
    """JSON with // and /* */ comments -> JSON (strings kept as they are)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def load_manifest(path):
    if os.path.isdir(path):
        path = os.path.join(path, "kgate.json")
    return json.loads(strip_jsonc(open(path).read()))


def has_backend(kernel, backend):
    if "impl" in kernel:
        return backend in kernel["impl"]
    return kernel.get("backend", "cuda") == backend


def latest_episodes(state_dir, backend):
    by_kernel = {}
    for path in glob.glob(os.path.join(state_dir, "episodes", "*", "episode.json")):
        rec = json.load(open(path))
        if rec.get("backend") != backend:
            continue
        k = rec["kernel"]
        if k not in by_kernel or rec["started_at"] > by_kernel[k]["started_at"]:
            by_kernel[k] = rec
    return by_kernel


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def us(seconds):
    return f"{seconds * 1e6:.2f}" if seconds else "—"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--manifest", required=True, help="kgate.json or the folder holding it")
    p.add_argument("--kernels-of", help="print the names of the kernels with this backend and exit")
    p.add_argument("--run", help="kgate run --json output")
    p.add_argument("--state-dir", help="the episodes' --state-dir")
    p.add_argument("--lines", help="bench/lines_changed.py --json output")
    p.add_argument("--backend", default="cuda")
    p.add_argument("--out")
    a = p.parse_args()
    manifest = load_manifest(a.manifest)
    if a.kernels_of:
        for k in manifest["kernels"]:
            if has_backend(k, a.kernels_of):
                print(k["name"])
        return 0

    out, failed = [], 0
    w = out.append
    if a.lines and os.path.exists(a.lines):
        lines = json.load(open(a.lines))
        up = lines["upstream"]
        w(f"Upstream: {up['repository']} at `{up['commit']}` ({up.get('license', '')}): "
          f"**{lines['lines_changed']} lines changed, {lines['kernel_body_lines_changed']} in kernel "
          f"bodies** ({sum(len(f['kernels']) for f in lines['files'])} kernels, "
          f"{sum(f['kernel_body_lines'] for f in lines['files'])} kernel-body lines, "
          f"{sum(f['lines'] for f in lines['files'])} lines in {len(lines['files'])} files).\n")

    if a.run and os.path.exists(a.run):
        run = json.load(open(a.run))
        w(f"`kgate run` on the {run.get('backend', a.backend)} backend:\n")
        w("| kernel | shapes | passed | failed | decode/prefill medians µs |")
        w("|---|---:|---:|---|---|")
        for k in run["kernels"]:
            if "error" in k:
                failed += 1
                w(f"| {k['kernel']} | — | 0 | error: {k['error'][:120]} | — |")
                continue
            shapes = k.get("shapes", [])
            bad = [s["shape"] for s in shapes if s["status"] != "pass"]
            failed += len(bad) + (0 if k.get("compiled", True) else 1)
            timed = ", ".join(f"{s['shape']} {us(sorted(s['head_seconds'])[len(s['head_seconds']) // 2])}"
                              for s in shapes if s.get("phase") in ("decode", "prefill")
                              and s.get("head_seconds"))
            w(f"| {k['kernel']} | {len(shapes)} | {len(shapes) - len(bad)} | "
              f"{', '.join(bad) or ('compile error' if not k.get('compiled', True) else '—')} | "
              f"{timed or '—'} |")
        w("")

    if a.state_dir and os.path.isdir(a.state_dir):
        episodes = latest_episodes(a.state_dir, a.backend)
        defaults = {}
        for k in manifest["kernels"]:
            impl = k.get("impl", {}).get(a.backend, k)
            defaults[k["name"]] = {n: v[0] if isinstance(v, list) else v.get("values", [None])[0]
                                   for n, v in impl.get("tunables", {}).items()}
        w("Tuner episodes over the declared tunables (final gate: best against the first version):\n")
        w("| kernel | iterations | wall s | first settings | best settings | stop reason "
          "| geomean speedup | per shape (first → best µs) |")
        w("|---|---:|---:|---|---|---|---:|---|")
        for k in manifest["kernels"]:
            rec = episodes.get(k["name"])
            if not rec:
                continue
            best = rec.get("best", {})
            cand = best.get("candidate", {}) if best.get("iteration") else {}
            first = " ".join(f"{n}={v}" for n, v in defaults.get(k["name"], {}).items()) or "—"
            # The tuner may also change compile flags or the launch beside the tunables.
            text = " ".join([f"{n}={v}" for n, v in cand.get("tunables", {}).items()] +
                            [f"`{f}`" for f in cand.get("flags", [])] +
                            ([f"launch {json.dumps(cand['launch'])}"] if cand.get("launch") else []))
            text = text or "first version"
            final = rec.get("final") or rec.get("baseline") or {}
            speedups, cells = [], []
            for s in final.get("shapes", []):
                f_s = s.get("best_s") or s.get("candidate_s")
                b_s = s.get("candidate_s") if rec.get("final") else f_s
                if f_s and b_s:
                    speedups.append(f_s / b_s)
                    cells.append(f"{s['shape']} {us(f_s)} → {us(b_s)}")
            stop = rec.get("stop_reason", "").replace("|", "/")
            w(f"| {k['name']} | {len(rec.get('iterations', []))} | {rec.get('elapsed_s', 0):.0f} | {first} | "
              f"{text} | {stop} | {geomean(speedups):.2f}× | {'; '.join(cells) or '—'} |")
    text = "\n".join(out) + "\n"
    print(text)
    if a.out:
        open(a.out, "w").write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
