#!/usr/bin/env python3
"""The table of bench/ggml/run_gpu.sh: for every case and kernel of
cases.json, per shape, kgate's verdict and head/base ratio (REPORTS/<commit>-
<kernel>.json, .exit, .log) next to the independent harness's ratio and 99%
interval (REPORTS/harness.json), whether the verdict is the expected one and
whether the two ratios are within 2 points of each other. Markdown on stdout;
exit 0 whatever the table says.

    python3 verdict_table.py CASES.json REPORTS
"""
import json
import os
import sys

# Verdicts that say nothing about time: no ratio to compare.
UNTIMED = {"new", "incorrect", "error", "checked"}


def expected(kernel_case, shape):
    e = kernel_case["expect"]
    return e.get(shape, e.get("*", "-"))


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_text(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def gate_shapes(report, kernel):
    """{shape: (verdict, ratio or None, reason)} of `kernel` in a gate report."""
    out = {}
    for k in (report or {}).get("kernels", []):
        if k.get("kernel") != kernel:
            continue
        if not k.get("head_compiled", True):
            out["*"] = ("does not compile", None, k.get("head_compile_error", ""))
        for s in k.get("shapes", []):
            verdict = s.get("verdict", "?")
            if s.get("timing") == "off" and verdict not in UNTIMED:
                verdict = "checked"
            ratio = (s.get("interval") or {}).get("estimate")
            if s.get("head_median_s") is None or s.get("base_median_s") is None:
                ratio = None
            out[s["shape"]] = (verdict, ratio, s.get("reason", "") or s.get("base_note", ""))
    return out


def cell(text, limit=80):
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def main():
    cases = json.load(open(sys.argv[1]))["cases"]
    reports = sys.argv[2]
    harness = load_json(os.path.join(reports, "harness.json")) or {}
    timed = {(r["case"], r["kernel"], r["shape"]): r for r in harness.get("results", [])}
    rows, right, total, agree, compared = [], 0, 0, 0, 0
    devices = {harness["device"]} if harness.get("device") else set()
    notes = []
    for case in cases:
        for kc in case["kernels"]:
            name = "%s-%s" % (case["commit"], kc["kernel"])
            if not os.path.exists(os.path.join(reports, name + ".exit")):
                continue  # not run (run_gpu.sh's CASES)
            report = load_json(os.path.join(reports, name + ".json"))
            code = read_text(os.path.join(reports, name + ".exit"), "?")
            seconds = read_text(os.path.join(reports, name + ".seconds"), "?")
            if report is None:
                lines = [l for l in read_text(os.path.join(reports, name + ".log")).splitlines() if l.strip()]
                notes.append("%s: no report (exit %s): %s" % (name, code, cell(" / ".join(lines[-2:]), 300)))
            for k in (report or {}).get("kernels", []):
                if k.get("kernel") == kc["kernel"] and k.get("device", {}).get("name"):
                    devices.add(k["device"]["name"])
            notes.append("%s: kgate exit %s in %s s%s" % (
                name, code, seconds, " (--sanitize-kernels %s)" % kc["sanitize"] if kc.get("sanitize") else ""))
            got = gate_shapes(report, kc["kernel"])
            shapes = [s for s in got if s != "*"] or ["*"]
            for shape in shapes:
                verdict, ratio, reason = got.get(shape, got.get("*", ("no report (exit %s)" % code, None, "")))
                want = expected(kc, shape)
                ok = verdict in want.split("|") or (verdict == "checked" and want != "incorrect")
                total += 1
                right += ok
                h = timed.get((case["commit"], kc["kernel"], shape))
                # The kernels' GPU durations where the harness recorded them, else its events.
                kernel = h is not None and h.get("kernel_ratio") is not None
                hratio = h.get("kernel_ratio" if kernel else "ratio") if h else None
                if hratio is not None:
                    lo, hi = (h["kernel_low"], h["kernel_high"]) if kernel else (h["low"], h["high"])
                    hcell = "%.3f [%.3f, %.3f]" % (hratio, lo, hi)
                    if kernel:
                        hcell += " (events %.3f)" % h["ratio"]
                elif h:
                    hcell = "not timed"
                else:
                    hcell = "-"
                hcheck = h.get("check", "-") if h else "-"
                if ratio is not None and hratio is not None:
                    compared += 1
                    close = abs(ratio - hratio) * 100 <= 2
                    agree += close
                    mag = "yes (%+.1f)" % ((ratio - hratio) * 100) if close else "**no** (%+.1f)" % ((ratio - hratio) * 100)
                else:
                    mag = "-"
                rows.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    case["commit"], kc["kernel"], shape, cell(want), cell(verdict),
                    "%.3f" % ratio if ratio is not None else "-", hcell, cell(hcheck, 40),
                    "yes" if ok else "**no**", mag))
                if reason and verdict not in ("same", "faster", "slower"):
                    notes.append("%s %s: %s" % (name, shape, cell(reason, 300)))
    print("# ggml: kgate's verdicts on real upstream commits\n")
    print("Device: %s. %d of %d shapes got the expected verdict; on %d of %d timed by both, kgate's "
          "head/base is within 2 points of the harness's.\n"
          % (", ".join(sorted(devices)) or "(none reported)", right, total, agree, compared))
    print("| commit | kernel | shape | expected | kgate | kgate head/base | harness head/base [99%], kernel durations | harness check | verdict as expected | within 2 points |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\n## Notes\n")
    total_s = read_text(os.path.join(reports, "total.seconds"), "?")
    harness_s = read_text(os.path.join(reports, "harness.seconds"), "?")
    print("- run_gpu.sh took %s s: compile warm-up %s s, harness %s s (exit %s)" % (
        total_s, read_text(os.path.join(reports, "warm-up.seconds"), "?"), harness_s,
        read_text(os.path.join(reports, "harness.exit"), "?")))
    failed = read_text(os.path.join(reports, "warm-up", "failed"))
    if failed:
        print("- kgate check failed in the warm-up for: " + ", ".join(failed.split()))
    for n in notes:
        print("- " + n)


if __name__ == "__main__":
    main()
