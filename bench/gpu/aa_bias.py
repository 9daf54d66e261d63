#!/usr/bin/env python3
"""Helpers of bench/gpu/aa_bias.sh (Python's standard library only).

  aa_bias.py comment REPO BACKEND           append a comment to every kernel source of BACKEND
  aa_bias.py plant REPO KERNEL BACKEND N    plant a slowdown of N (cycles or loop steps) in KERNEL
  aa_bias.py eligible OUT MIN_US            kernels with a shape >= MIN_US in the A/A gates:
                                            "KERNEL SHAPE BASE_US" per line, the largest shape
  aa_bias.py eligible_small OUT MIN_US      kernels with a shape under MIN_US that gates on time
                                            (timing "gate", >= 3 µs): the largest such shape
  aa_bias.py ratio JSON KERNEL SHAPE        head/base median ratio of one shape of a gate report
  aa_bias.py table OUT MIN_US               the Markdown table of OUT/aa/*.json and OUT/plant/*.json
"""
import glob
import json
import os
import re
import statistics
import sys


def strip_comments(text):
    """kgate.json allows // and /* */ comments outside strings."""
    out, i, n, in_string = [], 0, len(text), False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2) + 2
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def manifest(repo):
    return json.loads(strip_comments(open(os.path.join(repo, "kgate.json")).read()))


def implementation(kernel, backend):
    if "impl" in kernel:
        return kernel["impl"].get(backend)
    if kernel.get("backend", "cuda") == backend:
        return kernel
    return None


def implementations(repo, backend):
    for k in manifest(repo)["kernels"]:
        impl = implementation(k, backend)
        if impl:
            yield k["name"], impl


def comment(repo, backend):
    for source in sorted({impl["source"] for _, impl in implementations(repo, backend)}):
        with open(os.path.join(repo, source), "a") as f:
            f.write("\n// A/A: this comment is the only change (bench/gpu/aa_bias.sh).\n")


PLANT = {
    # One thread of each block spins N SM cycles when the kernel starts: the
    # block, and the blocks waiting for its slot, finish that much later.
    "cuda": "#define KGATE_PLANT() do { if (threadIdx.x + threadIdx.y + threadIdx.z == 0) { "
            "long long kgate_t0 = clock64(); while (clock64() - kgate_t0 < KGATE_PLANT_STEPS) { } "
            "} } while (0)\n",
    # N steps of a loop the compiler must keep.
    "host": "#define KGATE_PLANT() do { for (volatile long kgate_i = 0; kgate_i < KGATE_PLANT_STEPS; "
            "kgate_i = kgate_i + 1) { } } while (0)\n",
}


def plant(repo, kernel, backend, steps):
    impl = dict(implementations(repo, backend))[kernel]
    path = os.path.join(repo, impl["source"])
    text = open(path).read()
    text = re.sub(r"^// kgate bench: planted slowdown.*?\n#define KGATE_PLANT\(\).*?\n", "", text,
                  flags=re.S | re.M)
    name = re.sub(r"<.*$", "", impl["entry"]).split("::")[-1].strip()
    # The definition: void [qualifiers, macros] NAME( ... ) followed by '{'.
    for m in re.finditer(r"\bvoid\b[^;{}()]*\b%s\s*\(" % re.escape(name), text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        rest = re.match(r"[^;{]*\{", text[i:])
        if rest:
            at = i + rest.end()
            if "KGATE_PLANT();" not in text[at:at + 40]:
                text = text[:at] + "\n  KGATE_PLANT();" + text[at:]
            break
    else:
        sys.exit("aa_bias: no definition of %s in %s" % (name, impl["source"]))
    header = ("// kgate bench: planted slowdown (bench/gpu/aa_bias.sh)\n"
              "#define KGATE_PLANT_STEPS %d\n" % int(steps) + PLANT[backend])
    open(path, "w").write(header + text)


def shapes_of(report_paths):
    """(kernel, shape) -> list of shape records over the reports."""
    out = {}
    for path in report_paths:
        for k in json.load(open(path)).get("kernels", []):
            for s in k.get("shapes", []):
                out.setdefault((k["kernel"], s["shape"]), []).append(s)
    return out


def eligible(out, min_us):
    base = {}
    for key, records in shapes_of(glob.glob(os.path.join(out, "aa", "*.json"))).items():
        medians = [r["base_median_s"] for r in records if r.get("base_median_s")]
        if medians:
            base[key] = statistics.median(medians) * 1e6
    best = {}
    for (kernel, shape), us in base.items():
        if us >= min_us and us > best.get(kernel, ("", 0))[1]:
            best[kernel] = (shape, us)
    for kernel, (shape, us) in sorted(best.items()):
        print("%s %s %.1f" % (kernel, shape, us))


def eligible_small(out, min_us):
    base = {}
    for key, records in shapes_of(glob.glob(os.path.join(out, "aa", "*.json"))).items():
        # Only shapes whose time can fail the gate: report-only and untimed ones cannot.
        records = [r for r in records if r.get("timing", "gate") == "gate"]
        medians = [r["base_median_s"] for r in records if r.get("base_median_s")]
        if medians:
            base[key] = statistics.median(medians) * 1e6
    best = {}
    for (kernel, shape), us in base.items():
        if 3 <= us < min_us and us > best.get(kernel, ("", 0))[1]:
            best[kernel] = (shape, us)
    for kernel, (shape, us) in sorted(best.items()):
        print("%s %s %.1f" % (kernel, shape, us))


def ratio(path, kernel, shape):
    for k in json.load(open(path)).get("kernels", []):
        for s in k.get("shapes", []):
            if k["kernel"] == kernel and s["shape"] == shape:
                if s.get("base_median_s") and s.get("head_median_s"):
                    print("%.6f" % (s["head_median_s"] / s["base_median_s"]))
                    return
    sys.exit("aa_bias: no timing for %s/%s in %s" % (kernel, shape, path))


def table(out, min_us):
    aa = shapes_of(sorted(glob.glob(os.path.join(out, "aa", "*.json"))))
    lines = ["### A/A: identical code compiled twice (`kgate gate --all`, head = a comment)", "",
             "| kernel | shape | base median | verdicts | not `same` | same false verdict twice |",
             "|---|---|---|---|---|---|"]
    total = false = repeated = untimed = 0
    for (kernel, shape), all_records in sorted(aa.items()):
        # A shape whose timing is "off" is checked, not timed: no timing verdict to count.
        records = [r for r in all_records if r.get("verdict") != "checked"]
        untimed += len(all_records) - len(records)
        if not records:
            continue
        counts = {}
        for r in records:
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        wrong = sum(n for v, n in counts.items() if v != "same")
        twice = any(n >= 2 for v, n in counts.items() if v in ("faster", "slower"))
        total += len(records)
        false += wrong
        repeated += twice
        medians = [r["base_median_s"] for r in records if r.get("base_median_s")]
        lines.append("| %s | %s | %s | %s | %d | %s |" % (
            kernel, shape, "%.1f µs" % (statistics.median(medians) * 1e6) if medians else "-",
            ", ".join("%d %s" % (n, v) for v, n in sorted(counts.items())), wrong,
            "**yes**" if twice else "no"))
    seeds = len(glob.glob(os.path.join(out, "aa", "*.json")))
    lines += ["", "A/A: %d verdicts over %d gates; %d not `same` (%.2f%%; target <= 1%%); %d shapes "
              "with the same false verdict twice (target 0). %d checks of untimed shapes "
              "(`checked`) not counted." % (
                  total, seeds, false, 100.0 * false / total if total else 0, repeated, untimed), ""]
    planted = shapes_of(sorted(glob.glob(os.path.join(out, "plant", "*.json"))))
    if planted:
        lines += ["### Planted slowdown (a calibrated spin inside the kernel)", "",
                  "| kernel | shape | base median | planted (median ratio) | gates | `slower` | "
                  "caught |", "|---|---|---|---|---|---|---|"]
        big_caught = big_total = 0
        for (kernel, shape), records in sorted(planted.items()):
            ratios = [r["head_median_s"] / r["base_median_s"] for r in records
                      if r.get("base_median_s") and r.get("head_median_s")]
            base_us = statistics.median([r["base_median_s"] for r in records
                                         if r.get("base_median_s")] or [0]) * 1e6
            slower = sum(r["verdict"] == "slower" for r in records)
            lines.append("| %s | %s | %.1f µs | %s | %d | %d | %.0f%% |" % (
                kernel, shape, base_us,
                "%+.1f%%" % (100 * (statistics.median(ratios) - 1)) if ratios else "-",
                len(records), slower, 100.0 * slower / len(records)))
            # The target is about ~2% slowdowns: shapes where the spin weighs much more (a
            # single block) are listed but not counted.
            if base_us >= min_us and ratios and 1.015 <= statistics.median(ratios) <= 1.03:
                big_caught += slower
                big_total += len(records)
        lines += ["", "Planted 1.5-3%% on shapes >= %g µs: %d of %d gates `slower` (%.0f%%; target "
                  ">= 95%%)." % (min_us, big_caught, big_total,
                                 100.0 * big_caught / big_total if big_total else 0)]
    small = shapes_of(sorted(glob.glob(os.path.join(out, "plant_small", "*.json"))))
    if small:
        lines += ["", "### Planted slowdown on shapes under %g µs (calibrated to ~5%% there)" % min_us,
                  "", "| kernel | shape | timing | base median | planted (median ratio) | gates | "
                  "`slower` | caught |", "|---|---|---|---|---|---|---|---|"]
        small_caught = small_total = 0
        for (kernel, shape), records in sorted(small.items()):
            ratios = [r["head_median_s"] / r["base_median_s"] for r in records
                      if r.get("base_median_s") and r.get("head_median_s")]
            base_us = statistics.median([r["base_median_s"] for r in records
                                         if r.get("base_median_s")] or [0]) * 1e6
            timing = records[0].get("timing", "gate")
            slower = sum(r["verdict"] == "slower" for r in records)
            lines.append("| %s | %s | %s | %.1f µs | %s | %d | %d | %.0f%% |" % (
                kernel, shape, timing, base_us,
                "%+.1f%%" % (100 * (statistics.median(ratios) - 1)) if ratios else "-",
                len(records), slower, 100.0 * slower / len(records)))
            # At most the target's 5% (+2 points): a smaller plant caught is a 5% one caught.
            if (timing == "gate" and base_us < min_us and ratios
                    and 1.03 <= statistics.median(ratios) <= 1.07):
                small_caught += slower
                small_total += len(records)
        lines += ["", "Planted 3-7%% on shapes under %g µs that gate on time: %d of %d gates "
                  "`slower` (%.0f%%; target >= 95%%)." % (
                      min_us, small_caught, small_total,
                      100.0 * small_caught / small_total if small_total else 0)]
    print("\n".join(lines))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "comment":
        comment(*args)
    elif cmd == "plant":
        plant(args[0], args[1], args[2], int(float(args[3])))
    elif cmd == "eligible":
        eligible(args[0], float(args[1]))
    elif cmd == "eligible_small":
        eligible_small(args[0], float(args[1]))
    elif cmd == "ratio":
        ratio(*args)
    elif cmd == "table":
        table(args[0], float(args[1]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
