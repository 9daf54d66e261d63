#!/usr/bin/env python3
"""The llm-ops example kernels in PyTorch eager, timed the way kgate times
(CUDA events around each call, L2 flushed before each sample, median), on
the same shapes: the reference point users have today.

    python3 bench/pytorch_ops.py [--samples 50] [--json out.json]
"""
import argparse
import json
import re
import statistics
import sys

import torch
import torch.nn.functional as F


def load_shapes(path):
    # kgate.json allows // comments; strip them (none sit inside strings there).
    text = re.sub(r"^\s*//.*$", "", open(path).read(), flags=re.M)
    manifest = json.loads(text)
    return {k["name"]: k["shapes"] for k in manifest["kernels"]}


def timed(fn, samples, flush):
    for _ in range(5):
        fn()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(samples):
        flush.zero_()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e3)
    return statistics.median(times)


def ops(shape):
    h = torch.float16
    dev = "cuda"
    rn = lambda *s: torch.randn(*s, dtype=h, device=dev)
    return {
        "rmsnorm": lambda: (lambda x, w: (lambda: F.rms_norm(x, (x.shape[-1],), w, 1e-6),
                                          2 * x.numel() * 2 + w.numel() * 2))(rn(shape.get("rows", 1), shape.get("cols", 1)), rn(shape.get("cols", 1))),
        "fused_add_rmsnorm": lambda: (lambda x, r, w: (lambda: (r.add_(x), x.copy_(F.rms_norm(r, (r.shape[-1],), w, 1e-5))),
                                                        4 * x.numel() * 2 + w.numel() * 2))(
            rn(shape.get("rows", 1), shape.get("cols", 1)), rn(shape.get("rows", 1), shape.get("cols", 1)), rn(shape.get("cols", 1))),
        "softmax": lambda: (lambda x: (lambda: torch.softmax(x, dim=-1), 2 * x.numel() * 2))(
            rn(shape.get("rows", 1), shape.get("cols", 1)) * 4),
        "silu_and_mul": lambda: (lambda x, d: (lambda: F.silu(x[:, :d]) * x[:, d:], 3 * x.shape[0] * d * 2))(
            rn(shape.get("rows", 1), 2 * shape.get("d", 1)), shape.get("d", 1)),
        "gemv": lambda: (lambda x, w: (lambda: F.linear(x, w), (x.numel() + w.numel() + x.shape[0] * w.shape[0]) * 2))(
            rn(shape.get("batch", 1), shape.get("k", 1)), rn(shape.get("n", 1), shape.get("k", 1)) * 0.02),
        "rotary_embedding": lambda: rotary(shape),
    }


def rotary(shape):
    t, hq, hk, d, mp = shape["tokens"], shape["heads"], shape["kv_heads"], shape["head_dim"], shape["max_pos"]
    q = torch.randn(t, hq, d, dtype=torch.float16, device="cuda")
    k = torch.randn(t, hk, d, dtype=torch.float16, device="cuda")
    pos = torch.randint(0, mp, (t,), device="cuda")
    cache = torch.rand(mp, d, dtype=torch.float16, device="cuda") * 2 - 1

    def apply():
        cs = cache[pos]
        cos, sin = cs[:, None, : d // 2], cs[:, None, d // 2:]
        for x in (q, k):
            x1, x2 = x[..., : d // 2], x[..., d // 2:]
            out = torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)
            x.copy_(out)

    return apply, (2 * q.numel() + 2 * k.numel() + t * d) * 2 + t * 4


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--manifest", default="examples/llm-ops/kgate.json")
    p.add_argument("--samples", type=int, default=50)
    p.add_argument("--json")
    a = p.parse_args()
    torch.manual_seed(0)
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2 // 4, dtype=torch.int32, device="cuda")
    results = []
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
    print("| kernel | shape | torch eager median us | GB/s |\n|---|---|---|---|")
    for name, shapes in load_shapes(a.manifest).items():
        for shape in shapes:
            make = ops(shape).get(name)
            if make is None:
                continue
            fn, nbytes = make()
            med = timed(fn, a.samples, flush)
            results.append({"kernel": name, "shape": shape["name"], "median_us": med, "gbps": nbytes / med / 1e3})
            print(f"| {name} | {shape['name']} | {med:.2f} | {nbytes / med / 1e3:.0f} |", flush=True)
            del fn
            torch.cuda.empty_cache()
    if a.json:
        json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "results": results},
                  open(a.json, "w"), indent=2)


if __name__ == "__main__":
    sys.exit(main())
