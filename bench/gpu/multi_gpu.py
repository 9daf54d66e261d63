#!/usr/bin/env python3
"""Helpers of bench/gpu/multi_gpu.sh (Python's standard library only).

  multi_gpu.py cpus N                     "GATE_CPUS LOAD_CPUS": the CPUs a sweep of N GPUs gives
                                          GPU 0's worker (its NUMA node's, split between the GPUs
                                          there, as agent/sweep_devices.cpp does), and the rest
  multi_gpu.py replicate EXAMPLE OUT K    EXAMPLE with its kernels repeated (name_r1, ...) until
                                          at least K kernels
  multi_gpu.py prs KGATE REPO NAME N START END RC
                                          one scaling result as JSON: wall time, the pull requests
                                          (branch, the diff of each against main, hashed)
  multi_gpu.py table OUT                  the Markdown of OUT/idle, OUT/loaded, OUT/scaling
"""
import glob
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aa_bias import manifest, shapes_of  # noqa: E402


def cpu_list(text):
    out = []
    for part in text.strip().split(","):
        if not part:
            continue
        first, _, last = part.partition("-")
        out += list(range(int(first), int(last or first) + 1))
    return out


def allowed_cpus():
    return sorted(os.sched_getaffinity(0))


def cpus(n):
    """GPU 0's share of the CPUs in a sweep of GPUs 0..n-1, and the others."""
    ids = subprocess.run(["nvidia-smi", "--query-gpu=pci.bus_id", "--format=csv,noheader"],
                         capture_output=True, text=True, check=True).stdout.split()[:n]
    allowed = allowed_cpus()
    near = []
    for bus in ids:
        bus = bus.lower()
        if len(bus.split(":")[0]) > 4:
            bus = bus[len(bus.split(":")[0]) - 4:]
        try:
            mine = [c for c in cpu_list(open("/sys/bus/pci/devices/%s/local_cpulist" % bus).read())
                    if c in allowed]
        except OSError:
            mine = []
        near.append(tuple(mine or allowed))
    group = [i for i in range(n) if near[i] == near[0]]
    c, d, k = len(near[0]), len(group), group.index(0)
    gate = list(near[0][k * c // d:(k + 1) * c // d]) if c >= d else [near[0][k % c]]
    load = [x for x in allowed if x not in gate]
    return ",".join(map(str, gate)), ",".join(map(str, load or gate))


def replicate(example, out, k):
    shutil.copytree(example, out, ignore=shutil.ignore_patterns(".git", ".kgate", "build"))
    m = manifest(out)
    kernels = list(m["kernels"])
    copy = 1
    while len(m["kernels"]) < k:
        for kernel in kernels:
            twin = json.loads(json.dumps(kernel))
            twin["name"] = "%s_r%d" % (kernel["name"], copy)
            m["kernels"].append(twin)
        copy += 1
    # The workload section names the example's kernels; a replica has none.
    m.pop("workload", None)
    open(os.path.join(out, "kgate.json"), "w").write(json.dumps(m, indent=2) + "\n")


def prs(kgate, repo, name, n, start, end, rc):
    listed = subprocess.run([kgate, "prs", "--repo", repo, "--all", "--json"],
                            capture_output=True, text=True)
    result = {"repo": name, "gpus": int(n), "wall_s": float(end) - float(start), "exit": int(rc),
              "pull_requests": {}}
    for pr in json.loads(listed.stdout or "[]"):
        diff = subprocess.run(["git", "-C", repo, "diff", "main", pr["branch"]],
                              capture_output=True, text=True).stdout
        result["pull_requests"][pr["branch"]] = {
            "number": pr["number"], "diff_sha256": hashlib.sha256(diff.encode()).hexdigest()}
    print(json.dumps(result, indent=2))


def table(out):
    lines = ["## Several GPUs of one host", ""]
    idle = shapes_of(sorted(glob.glob(os.path.join(out, "idle", "*.json"))))
    loaded = shapes_of(sorted(glob.glob(os.path.join(out, "loaded", "*.json"))))
    if idle or loaded:
        lines += ["### A/A gates on GPU 0, idle host and every other GPU sweeping", "",
                  "| kernel | shape | idle median | loaded median | loaded / idle | not `same` idle | "
                  "not `same` loaded |", "|---|---|---|---|---|---|---|"]
        totals = {"idle": [0, 0], "loaded": [0, 0]}
        worst = 0.0
        for key in sorted(set(idle) | set(loaded)):
            row = []
            medians = {}
            for label, data in (("idle", idle), ("loaded", loaded)):
                records = [r for r in data.get(key, []) if r.get("verdict") != "checked"]
                totals[label][0] += len(records)
                totals[label][1] += sum(r["verdict"] != "same" for r in records)
                times = [r["head_median_s"] for r in records if r.get("head_median_s")]
                medians[label] = statistics.median(times) if times else None
                row.append(sum(r["verdict"] != "same" for r in records))
            ratio = (medians["loaded"] / medians["idle"]
                     if medians["idle"] and medians["loaded"] else None)
            if ratio:
                worst = max(worst, abs(ratio - 1))
            lines.append("| %s | %s | %s | %s | %s | %d | %d |" % (
                key[0], key[1],
                "%.4g µs" % (medians["idle"] * 1e6) if medians["idle"] else "-",
                "%.4g µs" % (medians["loaded"] * 1e6) if medians["loaded"] else "-",
                "%.4f" % ratio if ratio else "-", row[0], row[1]))
        lines.append("")
        for label in ("idle", "loaded"):
            n, bad = totals[label]
            lines.append("%s: %d verdicts, %d not `same` (%.2f%%; target <= 1%% over >= 300)." % (
                label, n, bad, 100.0 * bad / n if n else 0))
        lines += ["Largest |loaded / idle - 1| of a median: %.2f%% (target <= 1%%)." % (100 * worst), ""]
    results = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(out, "scaling", "*.json")))]
    if results:
        lines += ["### The sweep on 1 to 8 GPUs", "",
                  "| repository | GPUs | wall | speedup | efficiency | exit | pull requests | "
                  "same as 1 GPU |", "|---|---|---|---|---|---|---|---|"]
        for name in sorted({r["repo"] for r in results}):
            runs = sorted((r for r in results if r["repo"] == name), key=lambda r: r["gpus"])
            one = next((r for r in runs if r["gpus"] == 1), None)
            for r in runs:
                speedup = one["wall_s"] / r["wall_s"] if one else None
                same = (r["pull_requests"] == one["pull_requests"]) if one else None
                lines.append("| %s | %d | %.0f s | %s | %s | %d | %d | %s |" % (
                    name, r["gpus"], r["wall_s"], "%.2fx" % speedup if speedup else "-",
                    "%.2f" % (speedup / r["gpus"]) if speedup else "-", r["exit"],
                    len(r["pull_requests"]), "-" if same is None else ("yes" if same else "**no**")))
        lines += ["", "Efficiency is T1 / (N x TN) (goal >= 0.8). \"Same\": the same branches, "
                  "numbers and diffs (kgate.json, sources) as the sweep on one GPU.", ""]
    print("\n".join(lines))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "cpus":
        print(" ".join(cpus(int(args[0]))))
    elif cmd == "replicate":
        replicate(args[0], args[1], int(args[2]))
    elif cmd == "prs":
        prs(*args)
    elif cmd == "table":
        table(args[0])
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
