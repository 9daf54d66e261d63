#!/usr/bin/env python3
"""Writes the replay's kgate.json at each commit that needs a new one
(bench/ggml/glue/<short>/kgate.json), from one description of ggml's kernels
and how each upstream commit changed their parameters and launches.

A manifest is written by hand in a real repository; here ten of them follow
one another, so they are made from this file, where each change is one `if`
on the commit that made it, and `--check` (run by tests/bench/ggml_test.py)
says whether the committed files are what this file writes.

    python3 bench/ggml/glue_manifests.py [--check]
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# The commits that change what kgate.json must say, in replay order (upstream.json's).
GLUE = ["a2bacc13", "e689b63c", "91f96a96", "63d8a6ba", "3b145175", "e9cae642", "81415da3",
        "58450487", "f3a50ebb", "3e12f441"]

COMPILE = {"compiler": "nvcc", "include": ["include", "src", "src/ggml-cuda"],
           # ggml's CUDA flags (src/ggml-cuda/CMakeLists.txt: -use_fast_math -extended-lambda) and a
           # release build's NDEBUG (device asserts compiled out, as llama.cpp ships them).
           "flags": ["--use_fast_math", "-extended-lambda", "-DNDEBUG"], "allow_fast_math": True}


def since(era, commit):
    return GLUE.index(era) >= GLUE.index(commit)


def fastdiv(name, d):
    """A uint3 of init_fastdiv_values(d) (common.cuh, since 58450487): {mp, L, d} with
    L = ceil(log2 d) and mp = 2^32 * (2^L - d) / d + 1."""
    return {"name": name, "type": "struct", "fields": [
        {"name": "mp", "type": "uint32", "value": "((1 << 32) * ((1 << ceil_log2(%s)) - %s)) / %s + 1" % (d, d, d)},
        {"name": "L", "type": "uint32", "value": "ceil_log2(%s)" % d},
        {"name": "d", "type": "uint32", "value": d}]}


def zero_uint3(name):
    return {"name": name, "type": "struct", "fields": [
        {"name": f, "type": "uint32", "value": 0} for f in ("mp", "L", "d")]}


def operand(era, name, present, dims):
    """rms_norm_f32's trailing parameters for the fused multiply (name 'mul') or add
    ('add'): the buffer, its three strides in elements and its four extents, as
    rms_norm_mul_f32_cuda passes them; NULL and zeros when not fused (the launcher
    passes the defaults). dims: (count, s_row, s_ch, s_sm, ncols, nrows, nch, nsm)."""
    count, strides, extents = dims[0], dims[1:4], dims[4:]
    suffixes = ("ncols", "nrows", "nchannels", "nsamples")
    buffer = ({"name": name, "type": "const float*", "count": count} if present else
              {"name": name, "type": "const float*", "null": True})
    out = [buffer]
    for s, v in zip(("row", "channel", "sample"), strides):
        out.append({"name": "%s_stride_%s" % (name, s), "type": "int64", "value": v if present else 0})
    for s, v in zip(suffixes, extents):
        if since(era, "58450487"):
            out.append(fastdiv("%s_%s_packed" % (name, s), v) if present else
                       zero_uint3("%s_%s_packed" % (name, s)))
        else:
            out.append({"name": "%s_%s" % (name, s), "type": "int32", "value": v if present else 0})
    return out


NORM_ROW_ARGS = [
    # Rows `ld` elements apart, `nch` channels of `nrows` rows, one sample: the strides
    # tell the reference the row and channel counts (ref/ggml_ref.h, rows_of).
    {"name": "x", "type": "const float*", "count": "nch * nrows * ld"},
    {"name": "dst", "type": "float*", "count": "nch * nrows * ncols", "role": "output"},
    {"name": "ncols", "type": "int32", "value": "ncols"},
    {"name": "stride_row", "type": "int64", "value": "ld"},
    {"name": "stride_channel", "type": "int64", "value": "nrows * ld"},
    {"name": "stride_sample", "type": "int64", "value": "nch * nrows * ld"},
    {"name": "eps", "type": "float", "value": 1e-6}]


def rms_norm(era, name, block, mul, add, shapes, why):
    """One instantiation of rms_norm_f32<block_size, do_multiply, do_add>."""
    if not since(era, "63d8a6ba"):
        entry = "rms_norm_f32<%d>" % block
    elif not since(era, "81415da3"):
        entry = "rms_norm_f32<%d, %s>" % (block, "true" if mul else "false")
    else:
        entry = "rms_norm_f32<%d, %s%s>" % (block, "true" if mul else "false", ", true" if add else "")
    args = [dict(a) for a in NORM_ROW_ARGS]
    if since(era, "63d8a6ba"):
        # The weight, [ncols] broadcast over rows and channels (ggml_mul(rms_norm(x), w)).
        args += operand(era, "mul", mul, ("ncols", "ncols", "ncols", "ncols", "ncols", 1, 1, 1))
    if since(era, "81415da3"):
        # A bias [ncols] (add_rows 1) or a tensor of x's rows [ncols, nrows] (add_rows = nrows).
        args += operand(era, "add", add, ("ncols * add_rows", "ncols", "ncols * add_rows",
                                          "ncols * add_rows", "ncols", "add_rows", 1, 1))
    return {
        "//": why,
        "name": name, "family": "rms_norm",
        "impl": {"cuda": {"source": "src/ggml-cuda/norm.cu", "entry": entry, "compile": COMPILE,
                          "launch": {"grid": ["nrows", "nch", 1], "block": [block],
                                     # extern __shared__ float s_sum[] of block_reduce (f3a50ebb)
                                     "shared_bytes": "%d" % (32 * 4 if since(era, "f3a50ebb") and block > 32 else 0)}}},
        "args": args, "shapes": shapes,
        "reference": {"source": "ref/norm_ref.cpp", "entry": "rms_norm_f32_ref"},
        # rsqrtf and the float sum of squares: a few units in the last place
        "tolerance": {"atol": 1e-6, "rtol": 2e-5}}


def S(name, phase, **v):
    """A shape: its name, phase and variables."""
    out = {"name": name, "phase": phase}
    out.update(v)
    return out


ROWS_4096 = [
    S("decode-1x4096", "decode", ncols=4096, nrows=1, nch=1, ld=4096),
    S("decode-64x4096", "decode", ncols=4096, nrows=64, nch=1, ld=4096),
    S("prefill-512x4096", "prefill", ncols=4096, nrows=512, nch=1, ld=4096),
    S("prefill-4096x4096", "prefill", ncols=4096, nrows=4096, nch=1, ld=4096),
    S("prefill-1024x8192", "prefill", ncols=8192, nrows=1024, nch=1, ld=8192),
    # 3D: 8 channels of 16 rows, rows 4160 apart (a view of a wider tensor)
    S("strided-16x8x4096", "edge", ncols=4096, nrows=16, nch=8, ld=4160),
    S("odd-7x1025", "edge", ncols=1025, nrows=7, nch=1, ld=1025),
    S("edge-1x1024", "edge", ncols=1024, nrows=1, nch=1, ld=1024),
]


def norm_kernels(era):
    out = [
        rms_norm(era, "rms_norm_f32", 1024, False, False, ROWS_4096,
                 "RMS norm, hidden sizes >= 1024: rms_norm_f32_cuda launches rms_norm_f32<1024> on a "
                 "block per row (grid nrows x nchannels x nsamples)."),
        rms_norm(era, "rms_norm_f32_small", 256 if since(era, "58450487") else 32, False, False, [
            # Qwen3-style QK norm: [head_dim 128, 32 heads, tokens]; the heads are rows
            S("qk-norm-decode", "decode", ncols=128, nrows=32, nch=1, ld=128),
            S("qk-norm-prefill-512", "prefill", ncols=128, nrows=32, nch=512, ld=128),
            # Qwen2-0.5B's hidden size
            S("prefill-512x896", "prefill", ncols=896, nrows=512, nch=1, ld=896),
            S("odd-3x1000", "edge", ncols=1000, nrows=3, nch=1, ld=1000),
            S("strided-5x2x100", "edge", ncols=100, nrows=5, nch=2, ld=132),
            S("edge-1x1", "edge", ncols=1, nrows=1, nch=1, ld=1)],
                 "RMS norm, hidden sizes < 1024: one warp per row (rms_norm_f32<WARP_SIZE>) until "
                 "58450487, 256 threads after."),
    ]
    if since(era, "63d8a6ba"):
        out.append(rms_norm(era, "rms_norm_mul_f32", 1024, True, False, ROWS_4096,
                            "RMS norm fused with the multiply by its weight (63d8a6ba): "
                            "rms_norm_f32<1024, true>, the weight [ncols] broadcast."))
    if since(era, "81415da3"):
        out.append(rms_norm(era, "rms_norm_mul_add_f32", 1024, True, True, [
            S("decode-1x4096-bias", "decode", ncols=4096, nrows=1, nch=1, ld=4096, add_rows=1),
            S("decode-64x4096-residual", "decode", ncols=4096, nrows=64, nch=1, ld=4096, add_rows=64),
            S("prefill-512x4096-bias", "prefill", ncols=4096, nrows=512, nch=1, ld=4096, add_rows=1),
            S("prefill-4096x4096-residual", "prefill", ncols=4096, nrows=4096, nch=1, ld=4096, add_rows=4096),
            S("odd-7x1025-residual", "edge", ncols=1025, nrows=7, nch=1, ld=1025, add_rows=7)],
            "RMS norm, multiply and add fused (81415da3): rms_norm_f32<1024, true, true>; the "
            "added tensor is a bias [ncols] or has x's rows."))
    out.append({
        "//": "Layer norm without affine (ggml_norm): norm_f32<1024> for hidden sizes >= 1024.",
        "name": "norm_f32", "family": "norm",
        "impl": {"cuda": {"source": "src/ggml-cuda/norm.cu", "entry": "norm_f32<1024>", "compile": COMPILE,
                          "launch": {"grid": ["nrows", "nch", 1], "block": [1024],
                                     # extern __shared__ float2 s_sum2[] (f3a50ebb)
                                     "shared_bytes": "%d" % (32 * 8 if since(era, "f3a50ebb") else 0)}}},
        "args": [dict(a) for a in NORM_ROW_ARGS[:6]] + [{"name": "eps", "type": "float", "value": 1e-5}],
        "shapes": [
            S("decode-1x4096", "decode", ncols=4096, nrows=1, nch=1, ld=4096),
            S("prefill-512x4096", "prefill", ncols=4096, nrows=512, nch=1, ld=4096),
            # BERT / ViT-L hidden size
            S("prefill-2048x1024", "prefill", ncols=1024, nrows=2048, nch=1, ld=1024),
            S("odd-7x1025", "edge", ncols=1025, nrows=7, nch=1, ld=1025)],
        "reference": {"source": "ref/norm_ref.cpp", "entry": "norm_f32_ref"},
        # mean and E[x^2] - mean^2 in float: cancellation is small for centred data
        "tolerance": {"atol": 1e-5, "rtol": 2e-5}})
    out.append({
        "//": "Group norm (ggml_group_norm): group_norm_f32<1024> on groups of >= 1024 elements, "
              "one block per group. Its two reductions share s_sum from f3a50ebb (a race that "
              "3e12f441 fixes with s_sum + 32).",
        "name": "group_norm_f32", "family": "group_norm",
        "impl": {"cuda": {"source": "src/ggml-cuda/norm.cu", "entry": "group_norm_f32<1024>", "compile": COMPILE,
                          "launch": {"grid": ["groups * n"], "block": [1024],
                                     "shared_bytes": "%d" % (2 * 32 * 4 if since(era, "3e12f441") else
                                                             32 * 4 if since(era, "f3a50ebb") else 0)}}},
        "args": [
            {"name": "x", "type": "const float*", "count": "w * h * c * n"},
            {"name": "dst", "type": "float*", "count": "w * h * c * n", "role": "output"},
            # ggml_cuda_op_group_norm: ne0 * ne1 * ceil(ne2 / num_groups)
            {"name": "group_size", "type": "int32", "value": "w * h * ceil_div(c, groups)"},
            {"name": "ne_elements", "type": "int32", "value": "w * h * c * n"},
            {"name": "eps", "type": "float", "value": 1e-6}],
        "shapes": [
            # Stable Diffusion UNet blocks: 32 groups
            S("sd-64x64x320", "prefill", w=64, h=64, c=320, n=1, groups=32),
            S("sd-32x32x640-batch2", "prefill", w=32, h=32, c=640, n=2, groups=32),
            # 10 channels in 4 groups of 3: the last group is short
            S("odd-33x31x10", "edge", w=33, h=31, c=10, n=1, groups=4)],
        "reference": {"source": "ref/norm_ref.cpp", "entry": "group_norm_f32_ref"},
        "tolerance": {"atol": 1e-5, "rtol": 1e-4}})
    return out


def soft_max_args(era):
    x = {"name": "x", "type": "const float*", "count": "ncols * rows * heads"}
    # The KQ mask [ncols, rows], broadcast over the heads (llama.cpp's non-FA attention: F32).
    mask = {"name": "mask", "type": "const float*", "count": "ncols * rows"}
    dst = {"name": "dst", "type": "float*", "count": "ncols * rows * heads", "role": "output"}
    if not since(era, "e689b63c"):
        return [x, mask, dst,
                {"name": "ncols_par", "type": "int32", "value": "ncols"},
                {"name": "nrows_y", "type": "int32", "value": "rows"},
                {"name": "scale", "type": "float", "value": 0.08838834764831845},
                {"name": "max_bias", "type": "float", "value": 0.0},
                {"name": "m0", "type": "float", "value": 1.0},
                {"name": "m1", "type": "float", "value": 1.0},
                {"name": "n_head_log2", "type": "uint32", "value": "1 << floor_log2(heads)"}]
    params = {"name": "p", "type": "struct", "fields": [
        {"name": "nheads", "type": "int64", "value": "heads"},
        {"name": "n_head_log2", "type": "uint32", "value": "1 << floor_log2(heads)"},
        {"name": "ncols", "type": "int64", "value": "ncols"},
        {"name": "nrows_x", "type": "int64", "value": "rows * heads"},
        {"name": "nrows_y", "type": "int64", "value": "rows"},
        {"name": "ne00", "type": "int64", "value": "ncols"},
        {"name": "ne01", "type": "int64", "value": "rows"},
        {"name": "ne02", "type": "int64", "value": "heads"},
        {"name": "ne03", "type": "int64", "value": 1},
        # the mask's strides in bytes
        {"name": "nb11", "type": "int64", "value": "ncols * 4"},
        {"name": "nb12", "type": "int64", "value": "ncols * rows * 4"},
        {"name": "nb13", "type": "int64", "value": "ncols * rows * 4"},
        {"name": "ne12", "type": "int64", "value": 1},
        {"name": "ne13", "type": "int64", "value": 1},
        {"name": "scale", "type": "float", "value": 0.08838834764831845},
        {"name": "max_bias", "type": "float", "value": 0.0},
        {"name": "m0", "type": "float", "value": 1.0},
        {"name": "m1", "type": "float", "value": 1.0}]}
    out = [x, mask]
    if since(era, "3b145175"):
        # attention sinks (gpt-oss), NULL for other models
        out.append({"name": "sinks", "type": "const float*", "null": True})
    return out + [dst, params]


def soft_max(era, name, use_shared, shapes, why):
    """soft_max_f32<use_shared, 0, 0, float>: the row in shared memory, or cached in dst."""
    entry = "soft_max_f32<%s, 0, 0, float>" % ("true" if use_shared else "false")
    return {
        "//": why,
        "name": name, "family": "soft_max",
        "impl": {"cuda": {"source": "src/ggml-cuda/softmax.cu", "entry": entry, "compile": COMPILE,
                          # soft_max_f32_cuda: the smallest power of two >= ncols, 32 to 1024
                          "launch": {"grid": (["rows * heads"] if not since(era, "e689b63c") else
                                              ["rows", "heads", 1]),
                                     "block": ["min(1024, max(32, 1 << ceil_log2(ncols)))"],
                                     # (GGML_PAD(ncols, WARP_SIZE) + WARP_SIZE) floats, or WARP_SIZE
                                     "shared_bytes": ("(round_up(ncols, 32) + 32) * 4" if use_shared else "32 * 4")}}},
        "args": soft_max_args(era), "shapes": shapes,
        "reference": {"source": "ref/softmax_ref.cpp", "entry": "soft_max_f32_ref"},
        # __expf and the approximate division of --use_fast_math: a few ulp
        "tolerance": {"atol": 1e-8, "rtol": 1e-4}}


def soft_max_kernels(era):
    optin = since(era, "91f96a96")
    return [
        soft_max(era, "soft_max_f32", True, [
            # attention softmax, 32 heads, KV lengths that are not a power of two
            S("decode-kv1000", "decode", ncols=1000, rows=1, heads=32),
            S("decode-kv3000", "decode", ncols=3000, rows=1, heads=32),
            S("decode-kv12000", "decode", ncols=12000, rows=1, heads=32),
            S("prefill-256x1500", "prefill", ncols=1500, rows=256, heads=32),
            S("prefill-512x513", "prefill", ncols=513, rows=512, heads=32),
            S("odd-33", "edge", ncols=33, rows=3, heads=2),
            S("edge-1", "edge", ncols=1, rows=1, heads=1)],
            "Softmax over rows of any length whose row fits 48 KiB of shared memory (ncols <= "
            "12224): soft_max_f32<true, 0, 0> (lengths 32, 64, ..., 4096 have their own "
            "instantiations)."),
        soft_max(era, "soft_max_f32_smem_optin", optin, [
            S("decode-kv16384", "decode", ncols=16384, rows=1, heads=32),
            S("decode-kv32768", "decode", ncols=32768, rows=1, heads=32),
            S("prefill-8x16384", "prefill", ncols=16384, rows=8, heads=32),
            S("odd-kv50001", "edge", ncols=50001, rows=1, heads=8)],
            "Rows of 12225 to 58080 floats: more than 48 KiB, within the 227 KiB a block may opt "
            "in to on the H200. Until 91f96a96 soft_max_f32<false, 0, 0> (the row cached in dst); "
            "from it soft_max_f32<true, 0, 0> with the row in dynamic shared memory."),
        soft_max(era, "soft_max_f32_global", False, [
            S("decode-kv65536", "decode", ncols=65536, rows=1, heads=32),
            S("decode-kv131072", "decode", ncols=131072, rows=1, heads=8)],
            "Rows longer than 58080 floats: soft_max_f32<false, 0, 0> at every commit (with a "
            "mask, never the cooperative kernel 175f6455 adds for unmasked rows)."),
    ]


def rows_kernels(era):
    def reduce_rows(name, nrows, shapes, why):
        if since(era, "e9cae642"):
            # sum_rows_f32_cuda: nrows / nsm < 2 ? 512 : (ncols < 1024 ? 32 : 128)
            block = "%d / nsm < 2 ? 512 : (ncols < 1024 ? 32 : 128)" % nrows
        else:
            block = "32"
        return {
            "//": why,
            "name": name, "family": "sum_rows",
            # The H200's multiprocessors: the launcher reads ggml_cuda_info().devices[id].nsm.
            "let": {"nsm": "132"},
            "impl": {"cuda": {"source": "src/ggml-cuda/sumrows.cu", "entry": "reduce_rows_f32<false>",
                              "compile": COMPILE,
                              "launch": {"grid": [nrows], "block": [block]}}},
            "args": [{"name": "x", "type": "const float*", "count": "%d * ncols" % nrows},
                     {"name": "dst", "type": "float*", "count": nrows, "role": "output"},
                     {"name": "ncols", "type": "int32", "value": "ncols"}],
            "shapes": shapes,
            "reference": {"source": "ref/rows_ref.cpp", "entry": "sum_rows_%d_ref" % nrows},
            # float sums of up to 262144 normal values: errors of ~1e-3
            "tolerance": {"atol": 2e-2, "rtol": 1e-5}}

    return [
        reduce_rows("reduce_rows_f32_1row", 1, [
            S("row-4096", "decode", ncols=4096),
            S("row-65536", "decode", ncols=65536),
            S("row-262144", "decode", ncols=262144),
            S("odd-100003", "edge", ncols=100003),
            S("edge-33", "edge", ncols=33)],
            "ggml_sum_rows of one row (sum_rows_f32_cuda): reduce_rows_f32<false>, one block. "
            "One row count per kgate kernel: the kernel reads it from gridDim, which a reference "
            "cannot see."),
        reduce_rows("reduce_rows_f32_4096rows", 4096, [
            S("rows-4096x4096", "prefill", ncols=4096),
            S("rows-4096x512", "prefill", ncols=512),
            S("odd-4096x1025", "edge", ncols=1025)],
            "ggml_sum_rows of 4096 rows: enough for every SM; blocks of 32 or 128 threads from "
            "e9cae642."),
        {
            "//": "Greedy sampling: ggml_argmax of one row of logits, blocks of min(1024, ncols "
                  "rounded up to a warp). One row: the row count is in gridDim only.",
            "name": "argmax_f32", "family": "argmax",
            "impl": {"cuda": {"source": "src/ggml-cuda/argmax.cu", "entry": "argmax_f32", "compile": COMPILE,
                              "launch": {"grid": [1], "block": ["min(1024, round_up(ncols, 32))"]}}},
            "args": [{"name": "x", "type": "const float*", "count": "ncols"},
                     {"name": "dst", "type": "int32_t*", "count": 1, "role": "output"},
                     {"name": "ncols", "type": "int64", "value": "ncols"}],
            "shapes": [S("vocab-32000", "decode", ncols=32000),
                       S("vocab-128256", "decode", ncols=128256),
                       S("vocab-151936", "decode", ncols=151936),
                       S("vocab-262144", "decode", ncols=262144),
                       S("odd-50257", "edge", ncols=50257),
                       S("edge-1", "edge", ncols=1)],
            "reference": {"source": "ref/rows_ref.cpp", "entry": "argmax_1_ref"},
            "tolerance": {"atol": 0, "rtol": 0}},
    ]


HEADER = """// kgate manifest for ggml's CUDA normalization, softmax, row-sum and argmax
// kernels (src/ggml-cuda/, MIT, LICENSE), replayed commit by commit from
// ggml-org/ggml (bench/ggml in the kgate repository). Written for kgate:
// this file and ref/. Generated for commit %s by bench/ggml/glue_manifests.py:
// the kernels' parameters and launches as ggml's launchers (the host code in
// the same .cu files) pass them at that commit.
//
// Each kernel is one instantiation that a launcher dispatches to for some
// sizes; its shapes are sizes that launcher sends there. Extents are ggml's
// int64 ne, strides in elements (norm.cu divides nb by the type size) or bytes
// (softmax.cu's nb11..nb13), as each launcher computes them. A kernel's default
// arguments are C++'s: every launch passes every parameter, so all are here.
"""


def render(value, indent=0):
    """JSONC: objects with a "//" key get it as a comment line; args and shapes one per line."""
    pad = "  " * indent
    if isinstance(value, dict):
        lines = []
        comment = value.get("//")
        items = [(k, v) for k, v in value.items() if k != "//" and v is not None]
        if comment:
            for part in wrap(comment, 96 - len(pad)):
                lines.append(pad + "  // " + part)
        for i, (k, v) in enumerate(items):
            comma = "," if i + 1 < len(items) else ""
            if k in ("args", "shapes", "fields"):
                inner = ",\n".join(compact(x, indent + 2) for x in v)
                lines.append("%s  %s: [\n%s\n%s  ]%s" % (pad, json.dumps(k), inner, pad, comma))
            elif k in ("compile", "launch", "reference", "tolerance", "let"):
                lines.append("%s  %s: %s%s" % (pad, json.dumps(k), json.dumps(v), comma))
            else:
                lines.append("%s  %s: %s%s" % (pad, json.dumps(k), render(v, indent + 1).lstrip(), comma))
        return pad + "{\n" + "\n".join(lines) + "\n" + pad + "}"
    if isinstance(value, list):
        inner = ",\n".join(render(x, indent + 1) for x in value)
        return pad + "[\n" + inner + "\n" + pad + "]"
    return pad + json.dumps(value)


def compact(value, indent):
    pad = "  " * indent
    if isinstance(value, dict) and value.get("type") == "struct":
        head = {k: v for k, v in value.items() if k != "fields"}
        text = json.dumps(head)[:-1] + ', "fields": [\n'
        text = pad + text + ",\n".join(compact(f, indent + 2) for f in value["fields"])
        return text + "]}"
    return pad + json.dumps(value)


def wrap(text, width):
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = (line + " " + w).strip()
    return lines + ([line] if line else [])


def manifest(era):
    doc = {
        "version": 1,
        "kernels": norm_kernels(era) + soft_max_kernels(era) + rows_kernels(era),
        "gate": {
            # Boundary and misaligned shapes check indexing; timing them would spend the budget on
            # launch overhead.
            "timing_by_phase": {"edge": "off"},
            "budget_s": 0.4},
    }
    body = render(doc)
    return HEADER % era + body + "\n"


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for era in GLUE:
        path = os.path.join(HERE, "glue", era, "kgate.json")
        text = manifest(era)
        if check:
            if not os.path.exists(path) or open(path).read() != text:
                stale.append(path)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
    if stale:
        print("glue_manifests: not what glue_manifests.py writes: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
