#!/usr/bin/env python3
"""The kernel sides build.sh compiles: for each case's kernel that the harness
times, its base and head, each with its era (the last commit at or before it
that changed a kernel's parameters or launch, contracts.h's eras()), its
source and the template-id its launcher instantiates, with default template
arguments written out as a demangler writes them.

    python3 sides.py CASES.json UPSTREAM.json   (tab-separated on stdout)
"""
import json
import sys

ERAS = ["a2bacc13", "e689b63c", "91f96a96", "63d8a6ba", "3b145175", "e9cae642", "81415da3",
        "58450487", "f3a50ebb", "3e12f441"]


def era_of(order, short):
    at = order.index(short)
    return [e for e in ERAS if order.index(e) <= at][-1]


def template_id(kernel, era):
    def since(c):
        return ERAS.index(era) >= ERAS.index(c)

    def rms(block, mul, add):
        if not since("63d8a6ba"):
            return "rms_norm_f32<%d>" % block
        args = [str(block), "true" if mul else "false"]
        if since("81415da3"):
            args.append("true" if add else "false")
        return "rms_norm_f32<%s>" % ", ".join(args)

    return {
        "rms_norm_f32": lambda: ("src/ggml-cuda/norm.cu", rms(1024, False, False)),
        "rms_norm_f32_small": lambda: ("src/ggml-cuda/norm.cu", rms(256 if since("58450487") else 32, False, False)),
        "rms_norm_mul_f32": lambda: ("src/ggml-cuda/norm.cu", rms(1024, True, False)),
        "rms_norm_mul_add_f32": lambda: ("src/ggml-cuda/norm.cu", rms(1024, True, True)),
        "norm_f32": lambda: ("src/ggml-cuda/norm.cu", "norm_f32<1024>"),
        "group_norm_f32": lambda: ("src/ggml-cuda/norm.cu", "group_norm_f32<1024>"),
        "soft_max_f32": lambda: ("src/ggml-cuda/softmax.cu", "soft_max_f32<true, 0, 0, float>"),
        "soft_max_f32_smem_optin": lambda: ("src/ggml-cuda/softmax.cu", "soft_max_f32<%s, 0, 0, float>" %
                                            ("true" if since("91f96a96") else "false")),
        "soft_max_f32_global": lambda: ("src/ggml-cuda/softmax.cu", "soft_max_f32<false, 0, 0, float>"),
        "reduce_rows_f32_1row": lambda: ("src/ggml-cuda/sumrows.cu", "reduce_rows_f32<false>"),
        "reduce_rows_f32_4096rows": lambda: ("src/ggml-cuda/sumrows.cu", "reduce_rows_f32<false>"),
        "argmax_f32": lambda: ("src/ggml-cuda/argmax.cu", "argmax_f32"),
    }[kernel]()


def main():
    cases = json.load(open(sys.argv[1]))["cases"]
    upstream = json.load(open(sys.argv[2]))
    order = [upstream["first"]["short"]]
    parents = {}
    for c in upstream["commits"]:
        order.append(c["short"])
        parents[c["parent"][:8]] = order[-2]  # the replayed commit whose tree is that parent's
    for case in cases:
        for k in case["kernels"]:
            if not k.get("harness", True):
                continue
            for side in ("base", "head"):
                short = case[side][len("up/"):]
                replayed = short if short in order else parents[short]
                era = era_of(order, replayed)
                source, templ = template_id(k["kernel"], era)
                print("\t".join([case["commit"], k["kernel"], side, era, case[side], source, templ]))


if __name__ == "__main__":
    main()
