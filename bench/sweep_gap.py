#!/usr/bin/env python3
"""The benchmark-to-deployment gap of one `kgate sweep` (bench/gpu/sweep_gap.sh).

    sweep_gap.py apply --state-dir S --example DIR --base B --swept W
        Two copies of the example to build the workload from: B with every
        kernel as it is, W with every accepted proposal of the sweep
        (S/proposals/<kernel>.json) applied together. Each kernel's source gets
        its tunables as #define lines in front (B: the manifest's defaults; W:
        the proposal's), as in-model validation writes them, since the
        workload's build compiles csrc/<kernel>.cu with the defaults written
        in the source and does not read kgate.json. A changed source
        (candidate.source_changed) replaces the file. Extra compile flags are
        not applied (in-model validation does not apply them either).

    sweep_gap.py table --state-dir S --runs-dir R [--tasks T] [--manifest M] [--out F]
        The Markdown table from the workload's outputs R/gap-base-<i>.json and
        R/gap-swept-<i>.json (run i of each side, run interleaved): per phase,
        end-to-end latency before and after, the speedup, tokens equal; and per
        kernel, the sweep's isolated speedup per phase (the episode records'
        final A/B against the first version), its in-model validation alone,
        and, with the task list T (kgate extract), its share of the phase's GPU
        time and the end-to-end speedup those shares predict (Amdahl).
"""
import argparse
import glob
import json
import math
import os
import re
import shutil
import statistics
import sys

PHASES = ("prefill", "decode")


def read_text(path):
    with open(path) as f:
        return f.read()


def read_json(path):
    return json.loads(read_text(path))


def write_text(path, text):
    with open(path, "w") as f:
        f.write(text)


def load_jsonc(path):
    """kgate.json allows // comments on their own lines."""
    return json.loads(re.sub(r"^\s*//.*$", "", read_text(path), flags=re.M))


def cuda_impl(kernel):
    if "impl" in kernel:
        return kernel["impl"].get("cuda")
    return kernel if kernel.get("backend") == "cuda" else None


def proposals(state_dir):
    out = {}
    for path in sorted(glob.glob(os.path.join(state_dir, "proposals", "*.json"))):
        p = read_json(path)
        if p.get("backend") == "cuda":
            out[p["kernel"]] = p
    return out


def defines(tunables):
    return "".join(f"#define {k} {v}\n" for k, v in tunables.items())


def apply(a):
    manifest = load_jsonc(os.path.join(a.example, "kgate.json"))
    accepted = proposals(a.state_dir)
    for dst in (a.base, a.swept):
        if os.path.exists(dst):
            shutil.rmtree(dst)
        shutil.copytree(a.example, dst, ignore=shutil.ignore_patterns(".git", ".kgate", "build"))
    for kernel in manifest["kernels"]:
        impl = cuda_impl(kernel)
        if not impl:
            continue
        source = impl["source"]
        original = read_text(os.path.join(a.example, source))
        default = {t: values[0] for t, values in impl.get("tunables", {}).items()}
        write_text(os.path.join(a.base, source), defines(default) + original)
        p = accepted.get(kernel["name"])
        cand = p["candidate"] if p else {}
        text = cand["source_text"] if cand.get("source_changed") else original
        tunables = dict(default, **cand.get("tunables", {}))
        write_text(os.path.join(a.swept, source), defines(tunables) + text)
        what = ("proposal " + " ".join(f"{k}={v}" for k, v in cand.get("tunables", {}).items())
                + (" + new source" if cand.get("source_changed") else "")) if p else "unchanged"
        print(f"{kernel['name']}: {what}")
    return 0


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def latest_episodes(state_dir):
    """The latest cuda episode record per kernel, with its folder."""
    by_kernel = {}
    for path in glob.glob(os.path.join(state_dir, "episodes", "*", "episode.json")):
        rec = read_json(path)
        if rec.get("backend") != "cuda":
            continue
        rec["_dir"] = os.path.dirname(path)
        k = rec["kernel"]
        if k not in by_kernel or rec.get("started_at", "") > by_kernel[k].get("started_at", ""):
            by_kernel[k] = rec
    return by_kernel


def isolated_speedups(rec):
    """{phase: geomean speedup of the best over the first version} from the final A/B."""
    final = rec.get("final")
    if not final:
        return {}
    per_phase = {}
    for s in final.get("shapes", []):
        first, best = s.get("best_s"), s.get("candidate_s")
        if first and best and s.get("phase") in PHASES:
            per_phase.setdefault(s["phase"], []).append(first / best)
    return {p: geomean(v) for p, v in per_phase.items()}


def run_outputs(runs_dir, side):
    files = glob.glob(os.path.join(runs_dir, f"gap-{side}-*.json"))
    index = lambda f: int(re.search(r"-(\d+)\.json$", f).group(1))
    return [read_json(f) for f in sorted(files, key=index)]


def run_latency(out, phase):
    """A run's figure for a phase: the median of its timed repeats."""
    v = out["latency_ms"][phase]
    return statistics.median(v) if isinstance(v, list) else float(v)


def phase_shares(tasks):
    """{phase: {manifest kernel: share of the phase's GPU time}} from a task list."""
    out = {}
    for p in tasks.get("phases", []):
        shares = out.setdefault(p["phase"], {})
        for k in p.get("kernels", []):
            if k.get("kernel"):
                shares[k["kernel"]] = shares.get(k["kernel"], 0) + k.get("share_of_phase", 0)
    return out


def pct(ratio):
    return f"{100 * (ratio - 1):+.1f}%"


def table(a):
    base, swept = run_outputs(a.runs_dir, "base"), run_outputs(a.runs_dir, "swept")
    if not base or len(base) != len(swept):
        sys.exit(f"sweep_gap: {len(base)} base and {len(swept)} swept outputs in {a.runs_dir}")
    manifest = load_jsonc(a.manifest) if a.manifest else None
    episodes = latest_episodes(a.state_dir)
    accepted = proposals(a.state_dir)
    shares = phase_shares(read_json(a.tasks)) if a.tasks and os.path.exists(a.tasks) else {}
    order = [k["name"] for k in manifest["kernels"]] if manifest else sorted(episodes)
    order = [k for k in order if k in episodes or k in accepted]

    runs = len(base)
    same = [b["tokens"] == s["tokens"] for b, s in zip(base, swept)]
    out = []
    w = out.append
    w(f"Workload: {json.dumps(base[0].get('config', {}))}; {runs} runs per side, interleaved; "
      f"a run's figure per phase is the median of its timed repeats.\n")
    w(f"Tokens equal in every run: **{'yes' if all(same) else 'no'}** "
      f"({sum(same)} of {runs}).\n")

    # Predicted end-to-end speedup per phase: Amdahl over the phase's GPU time,
    # each accepted kernel's share sped up by its isolated speedup in that phase.
    predicted = {}
    for phase in PHASES:
        if phase not in shares:
            continue
        saved = 0.0
        for k in accepted:
            s = isolated_speedups(episodes[k]).get(phase) if k in episodes else None
            if s:
                saved += shares[phase].get(k, 0) * (1 - 1 / s)
        predicted[phase] = 1 / (1 - saved)

    w("| phase | base ms (median) | swept ms (median) | change | speedup | paired ratios (min–max) "
      "| predicted from isolated speedups |")
    w("|---|---:|---:|---:|---:|---|---:|")
    totals_b, totals_s = [0.0] * runs, [0.0] * runs
    for phase in [p for p in PHASES if p in base[0]["latency_ms"]]:
        b = [run_latency(o, phase) for o in base]
        s = [run_latency(o, phase) for o in swept]
        totals_b = [x + y for x, y in zip(totals_b, b)]
        totals_s = [x + y for x, y in zip(totals_s, s)]
        ratios = [y / x for x, y in zip(b, s)]
        mb, ms = statistics.median(b), statistics.median(s)
        pred = f"{predicted[phase]:.2f}×" if phase in predicted else "—"
        w(f"| {phase} | {mb:.3f} | {ms:.3f} | {pct(ms / mb)} | **{mb / ms:.2f}×** | "
          f"{min(ratios):.3f}–{max(ratios):.3f} | {pred} |")
    mb, ms = statistics.median(totals_b), statistics.median(totals_s)
    w(f"| overall (prefill + decode) | {mb:.3f} | {ms:.3f} | {pct(ms / mb)} | **{mb / ms:.2f}×** | "
      f"{min(y / x for x, y in zip(totals_b, totals_s)):.3f}–"
      f"{max(y / x for x, y in zip(totals_b, totals_s)):.3f} | — |")

    w("")
    w("| kernel | accepted | settings | isolated speedup prefill | isolated speedup decode "
      "| in-model alone | share of prefill GPU time | share of decode GPU time |")
    w("|---|---|---|---:|---:|---|---:|---:|")
    for k in order:
        rec = episodes.get(k, {})
        iso = isolated_speedups(rec) if rec else {}
        p = accepted.get(k)
        settings = " ".join(f"{n}={v}" for n, v in (p or {}).get("candidate", {}).get("tunables", {}).items())
        validation = (p or {}).get("workload_validation")
        vpath = os.path.join(rec.get("_dir", ""), "workload_validation.json")
        if not validation and rec and os.path.exists(vpath):
            validation = read_json(vpath)
        if validation:
            changes = ", ".join(f"{ph['phase']} {pct(ph['ratio'].get('estimate', 1))}"
                                for ph in validation.get("phases", []) if ph.get("ratio"))
            in_model = f"{validation.get('status')}: {changes}" if changes else validation.get("status")
        else:
            in_model = "not run"
        cell = lambda ph: f"{iso[ph]:.2f}×" if iso.get(ph) else "—"
        share = lambda ph: f"{100 * shares[ph][k]:.1f}%" if k in shares.get(ph, {}) else "—"
        w(f"| {k} | {'yes' if p else 'no'} | {settings or '—'} | {cell('prefill')} | {cell('decode')} "
          f"| {in_model} | {share('prefill')} | {share('decode')} |")
    text = "\n".join(out) + "\n"
    print(text)
    if a.out:
        write_text(a.out, text)
    return 0 if all(same) else 1


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    ap = sub.add_parser("apply")
    ap.add_argument("--state-dir", required=True)
    ap.add_argument("--example", required=True)
    ap.add_argument("--base", required=True)
    ap.add_argument("--swept", required=True)
    tp = sub.add_parser("table")
    tp.add_argument("--state-dir", required=True)
    tp.add_argument("--runs-dir", required=True)
    tp.add_argument("--tasks")
    tp.add_argument("--manifest")
    tp.add_argument("--out")
    a = p.parse_args()
    return apply(a) if a.cmd == "apply" else table(a)


if __name__ == "__main__":
    sys.exit(main())
