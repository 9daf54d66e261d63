#!/usr/bin/env python3
"""The table of tuner episodes on the llm-ops CUDA kernels (issue 6's H200
targets), from the episode records of one run of bench/gpu/episodes.sh.

Per kernel and shape: the first version's median and the best version's
median, both from the episode's final A/B gate (the best against the
original, interleaved in one process), the speedup, the best's bandwidth as a
share of the device-to-device copy ceiling measured here, in this run, with
PyTorch, and PyTorch eager's time for the same op (bench/pytorch_ops.py's ops,
timed the same way, or read from its --json output). Geomeans count the decode
and prefill shapes; edge shapes are correctness shapes timed at the launch
floor and are not in the episodes (see docs/agent.md).

    python3 bench/episodes_table.py --state-dir S [--manifest examples/llm-ops/kgate.json]
                                    [--pytorch pytorch.json] [--out episodes.md]
    python3 bench/episodes_table.py --shapes-of KERNEL   # the shapes an episode gates
"""
import argparse
import glob
import json
import math
import os
import re
import sys

# Shapes left out of the episodes: lm-head-b1 draws 525M weights and computes
# its double reference on the host twice per gate (about a minute a shape),
# which does not fit an episode's budget.
EXCLUDED = {("gemv", "lm-head-b1")}
# Ops whose prefill shapes the 90%-of-copy-bandwidth target applies to: the
# row-wise memory-bound ops. gemv's prefill shape (chunk-64: 64 batch rows)
# does 64 FMAs per weight loaded, above the H200's FP32 ridge point (~15
# FLOP/byte), so it is not memory-bound.
MEMORY_BOUND = {"rmsnorm", "fused_add_rmsnorm", "silu_and_mul", "rotary_embedding", "softmax"}


def load_manifest(path):
    text = re.sub(r"^\s*//.*$", "", open(path).read(), flags=re.M)
    return json.loads(text)


def episode_shapes(manifest, kernel):
    for k in manifest["kernels"]:
        if k["name"] == kernel:
            return [s["name"] for s in k["shapes"]
                    if s.get("phase") in ("decode", "prefill") and "cuda" in s.get("backends", ["cuda"])
                    and (kernel, s["name"]) not in EXCLUDED]
    raise SystemExit(f"no kernel {kernel}")


def latest_episodes(state_dir):
    by_kernel = {}
    for path in glob.glob(os.path.join(state_dir, "episodes", "*", "episode.json")):
        rec = json.load(open(path))
        if rec.get("backend") != "cuda":
            continue
        k = rec["kernel"]
        if k not in by_kernel or rec["started_at"] > by_kernel[k]["started_at"]:
            by_kernel[k] = rec
    return by_kernel


def copy_gbps_at(torch, traffic_bytes, samples=20):
    """A device-to-device copy that moves `traffic_bytes` (half read, half written),
    median of `samples`, rotating over buffer pairs that together exceed the L2
    cache (as kgate's timing rotates input copies). At large sizes this is the
    copy ceiling; at small ones PyTorch's fixed cost per copy dominates, so it is
    a reference for a kernel moving the same bytes, not a ceiling."""
    n = max(1, traffic_bytes // 2)
    pairs = max(1, min(8, -(-(256 << 20) // (2 * n))))
    bufs = [(torch.empty(n, dtype=torch.uint8, device="cuda"),
             torch.empty(n, dtype=torch.uint8, device="cuda")) for _ in range(pairs)]
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for i in range(3):
        bufs[i % pairs][1].copy_(bufs[i % pairs][0])
    times = []
    for i in range(samples):
        src, dst = bufs[i % pairs]
        start.record()
        dst.copy_(src)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    times.sort()
    del bufs
    torch.cuda.empty_cache()
    return 2 * n / times[len(times) // 2] / 1e9


def copy_ceiling_gbps(torch, samples=20):
    """A 1 GiB device-to-device copy (2 GiB read + written), median of `samples`."""
    return copy_gbps_at(torch, 2 << 30, samples)


def eager_times(manifest, wanted, pytorch_json, samples):
    """{(kernel, shape): median us} from pytorch_ops.py's JSON or measured now."""
    if pytorch_json and os.path.exists(pytorch_json):
        data = json.load(open(pytorch_json))
        return {(r["kernel"], r["shape"]): r["median_us"] for r in data["results"]}, data.get("torch")
    try:
        import torch
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import pytorch_ops
    except ImportError as e:
        print(f"no PyTorch here ({e}): eager columns left empty", file=sys.stderr)
        return {}, None
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2 // 4, dtype=torch.int32, device="cuda")
    shapes = {k["name"]: {s["name"]: s for s in k["shapes"]} for k in manifest["kernels"]}
    out = {}
    for kernel, shape in wanted:
        make = pytorch_ops.ops(shapes[kernel][shape]).get(kernel)
        if make is None:
            continue
        fn, _ = make()
        out[(kernel, shape)] = pytorch_ops.timed(fn, samples, flush)
        del fn
        torch.cuda.empty_cache()
    return out, torch.__version__


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--manifest", default="examples/llm-ops/kgate.json")
    p.add_argument("--state-dir")
    p.add_argument("--pytorch", help="pytorch_ops.py --json output of the same run (else measured now)")
    p.add_argument("--samples", type=int, default=30)
    p.add_argument("--out")
    p.add_argument("--shapes-of", help="print the comma-separated shapes an episode of this kernel gates")
    a = p.parse_args()
    manifest = load_manifest(a.manifest)
    if a.shapes_of:
        print(",".join(episode_shapes(manifest, a.shapes_of)))
        return 0
    if not a.state_dir:
        p.error("--state-dir is required")
    episodes = latest_episodes(a.state_dir)
    order = [k["name"] for k in manifest["kernels"] if k["name"] in episodes]

    rows = []
    for kernel in order:
        rec = episodes[kernel]
        final = rec.get("final") or rec.get("baseline") or {}
        for s in final.get("shapes", []):
            first = s.get("best_s") or s.get("candidate_s")
            best = s.get("candidate_s") if rec.get("final") else first
            if not first or not best:
                continue
            rows.append({"kernel": kernel, "shape": s["shape"], "phase": s.get("phase", ""),
                         "first_us": first * 1e6, "best_us": best * 1e6,
                         "verdict": s.get("verdict", ""), "bytes": s.get("bytes_moved", 0)})

    wanted = [(r["kernel"], r["shape"]) for r in rows]
    eager, torch_version = eager_times(manifest, wanted, a.pytorch, a.samples)
    ceiling, device = None, "unknown GPU"
    try:
        import torch
        if torch.cuda.is_available():
            ceiling = copy_ceiling_gbps(torch)
            device = torch.cuda.get_device_name(0)
            for r in rows:
                if r["bytes"]:
                    r["same_size_copy"] = copy_gbps_at(torch, r["bytes"])
    except ImportError:
        pass

    out = []
    w = out.append
    w(f"Device: {device}; torch {torch_version or 'n/a'}; "
      f"copy ceiling (1 GiB device-to-device copy, read + written, median of 20, this run): "
      + (f"**{ceiling:.0f} GB/s**" if ceiling else "not measured") + "\n")
    w("Bytes are the launch's traffic: inputs read, outputs written, in/out buffers read and "
      "written. \"of same-size copy\": against PyTorch copying the same bytes device to device "
      "(measured here, rotating buffers past the L2): a practical reference at that size, not a "
      "ceiling (its fixed cost per call is larger than these kernels' at decode sizes).\n")
    w("| kernel | shape | phase | first version µs | best µs | speedup | best GB/s | of copy BW "
      "| of same-size copy | PyTorch eager µs | eager / best | verdict |")
    w("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        gbps = r["bytes"] / (r["best_us"] * 1e-6) / 1e9 if r["bytes"] else 0
        share = f"{100 * gbps / ceiling:.1f}%" if ceiling and gbps else "—"
        sized = r.get("same_size_copy")
        r["sized_share"] = gbps / sized if sized and gbps else None
        sized_text = f"{100 * r['sized_share']:.1f}%" if r["sized_share"] else "—"
        e = eager.get((r["kernel"], r["shape"]))
        r["speedup"] = r["first_us"] / r["best_us"]
        r["vs_eager"] = e / r["best_us"] if e else None
        r["share"] = gbps / ceiling if ceiling and gbps else None
        w(f"| {r['kernel']} | {r['shape']} | {r['phase']} | {r['first_us']:.2f} | {r['best_us']:.2f} | "
          f"{r['speedup']:.2f}× | {gbps:.0f} | {share} | {sized_text} | "
          + (f"{e:.2f} | {r['vs_eager']:.2f}× |" if e else "— | — |") + f" {r['verdict']} |")

    w("\n| kernel | iterations | wall s | best settings | stop reason | geomean speedup | geomean eager / best |")
    w("|---|---:|---:|---|---|---:|---:|")
    for kernel in order:
        rec = episodes[kernel]
        mine = [r for r in rows if r["kernel"] == kernel and r["phase"] in ("decode", "prefill")]
        settings = rec.get("best", {}).get("candidate", {}).get("tunables", {}) if rec.get("best", {}).get("iteration") else {}
        text = " ".join(f"{k}={v}" for k, v in settings.items()) or "first version"
        stop = rec.get("stop_reason", "").replace("|", "/")
        w(f"| {kernel} | {len(rec.get('iterations', []))} | {rec.get('elapsed_s', 0):.0f} | {text} | {stop} | "
          f"{geomean([r['speedup'] for r in mine]):.2f}× | {geomean([r['vs_eager'] for r in mine]):.2f}× |")

    timed = [r for r in rows if r["phase"] in ("decode", "prefill")]
    prefill = [r for r in rows if r["phase"] == "prefill" and r["kernel"] in MEMORY_BOUND and r["share"]]
    w("")
    w(f"- Geomean speedup over the first versions ({len(timed)} decode + prefill shapes): "
      f"**{geomean([r['speedup'] for r in timed]):.2f}×** (target 2.7×).")
    w(f"- Geomean speedup over PyTorch eager (same shapes): "
      f"**{geomean([r['vs_eager'] for r in timed]):.2f}×** (target 1.5×).")
    if prefill:
        met = [r for r in prefill if r["share"] >= 0.9]
        w(f"- Memory-bound ops on prefill shapes: {len(met)} of {len(prefill)} at ≥ 90% of the copy ceiling "
          f"(lowest {min(r['share'] for r in prefill) * 100:.1f}%: "
          + ", ".join(f"{r['kernel']}/{r['shape']} {r['share'] * 100:.1f}%" for r in prefill) + ").")
    sized = [r for r in prefill if r.get("sized_share")]
    if sized:
        met = [r for r in sized if r["sized_share"] >= 0.9]
        w(f"- The same against a copy of the same bytes: {len(met)} of {len(sized)} at ≥ 90% ("
          + ", ".join(f"{r['kernel']}/{r['shape']} {r['sized_share'] * 100:.1f}%" for r in sized) + ").")
    w(f"- Total episode wall time: {sum(episodes[k].get('elapsed_s', 0) for k in order):.0f} s, "
      f"{sum(len(episodes[k].get('iterations', [])) for k in order)} iterations.")
    text = "\n".join(out) + "\n"
    print(text)
    if a.out:
        open(a.out, "w").write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
