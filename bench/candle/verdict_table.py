#!/usr/bin/env python3
"""The candle cases' table: per case, kernel and shape, what cases.json expects,
kgate gate's verdict and head/base estimate (OUT/<case>-<kernel>.json, .exit,
.log from run_gpu.sh) beside the independent harness's head/base ratio (of
the kernels' own durations, 10% trimmed means, where it recorded them; else of
its events' medians) and each side's status (OUT/harness.tsv), and whether the verdict is
the expected one and the two magnitudes agree within 2 points (|kgate's
estimate - the harness's ratio| <= 0.02, on shapes both timed). Where the harness
also ran with its buffers elsewhere (run_gpu.sh's PLACEMENTS: OUT/placements/p<KiB>/),
the table shows the range of its ratios over those placements, and a shape whose
kgate estimate is more than 2 points from the first run but within 2 points of that
range is counted apart: there the harness disagrees with itself as much.

    python3 bench/candle/verdict_table.py CASES_JSON OUT > OUT/candle_verdicts.md
"""
import csv
import json
import os
import sys


def read_harness(out):
    rows = {}
    path = os.path.join(out, "harness.tsv")
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            rows[(r["case"], r["kernel"], r["shape"])] = r
    return rows


def read_placements(out):
    """Per (case, kernel, shape): the harness's ratio in each further placement run."""
    more = {}
    top = os.path.join(out, "placements")
    if not os.path.isdir(top):
        return more
    for d in sorted(os.listdir(top)):
        for name in sorted(os.listdir(os.path.join(top, d))):
            if not (name.startswith("harness-") and name.endswith(".tsv")):
                continue
            with open(os.path.join(top, d, name)) as f:
                for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
                    v = harness_ratio(r)
                    if v is not None:
                        more.setdefault((r["case"], r["kernel"], r["shape"]), []).append(v)
    return more


def harness_ratio(r):
    """The kernels' durations' ratio where recorded, else the events'."""
    v = number(r.get("kernel_ratio"))
    return v if v is not None else number(r.get("ratio"))


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def expectation(kernel, shape, untimed):
    """The expected verdict and why; a shape whose timing is off is "checked" (or "new" where
    the base is not timed against)."""
    e = matching(kernel, shape)
    if e and untimed and e["verdict"] not in ("incorrect",):
        e = dict(e, verdict="checked|new" if e["verdict"] == "new" else "checked")
    return e


def matching(kernel, shape):
    rest = None
    for e in kernel["expect"]:
        if e["shapes"] == "*":
            rest = e
        elif shape in e["shapes"]:
            return e
    return rest


def kgate_report(out, name):
    path = os.path.join(out, name + ".json")
    report = None
    if os.path.exists(path):
        try:
            report = json.load(open(path))
        except ValueError:
            report = None
    code = None
    if os.path.exists(os.path.join(out, name + ".exit")):
        code = open(os.path.join(out, name + ".exit")).read().strip()
    log = ""
    if os.path.exists(os.path.join(out, name + ".log")):
        lines = [l.strip() for l in open(os.path.join(out, name + ".log")) if l.strip()]
        log = lines[-1] if lines else ""
    return report, code, log


def fmt_ratio(value, low=None, high=None):
    if value is None:
        return "-"
    text = "%.3f" % value
    if low is not None and high is not None:
        text += " [%.3f, %.3f]" % (low, high)
    return text


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def main():
    cases = json.load(open(sys.argv[1]))["cases"]
    out = sys.argv[2]
    harness = read_harness(out)
    placements = read_placements(out)
    lines, device = [], ""
    shapes_ok = shapes_all = mag_ok = mag_all = kernels_ok = kernels_all = 0
    in_range = 0  # more than 2 points from the first run, within 2 of the placements' range
    runs = 1 + max((len(v) for v in placements.values()), default=0)
    for c in cases:
        ran = any(os.path.exists(os.path.join(out, "%s-%s.exit" % (c["id"], k["kernel"])))
                  for k in c["kernels"])
        if not ran:  # not among run_gpu.sh's CASES
            lines += ["", "## %s: %s" % (c["id"], c["subject"]), "", "Not run."]
            continue
        lines += ["", "## %s: %s" % (c["id"], c["subject"]), "",
                  "`kgate gate --base up/%s --head up/%s`%s" % (
                      c["base"], c["head"], " (the kernel's parameters change)" if c["signature_change"] else ""),
                  "",
                  "| kernel | shape | expected | kgate | kgate head/base | harness head/base | harness base / head | verdict | within 2 points |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for k in c["kernels"]:
            name = "%s-%s" % (c["id"], k["kernel"])
            report, code, log = kgate_report(out, name)
            kernels_all += 1
            exit_ok = code is not None and code == str(k["exit"])
            kernels_ok += exit_ok
            kernel = None
            if report:
                kernel = next((x for x in report.get("kernels", []) if x.get("kernel") == k["kernel"]), None)
            if kernel and not device:
                device = kernel.get("device", {}).get("name", "")
            shapes = {s["shape"]: s for s in kernel.get("shapes", [])} if kernel else {}
            names = list(shapes) or sorted({s for (cc, kk, s) in harness if cc == c["id"] and kk == k["kernel"]})
            if not names:
                lines.append("| %s | * | - | exit %s, expected %s: %s | - | - | - | **no** | - |" % (
                    k["kernel"], code or "?", k["exit"], cell(log or "no report")))
                shapes_all += 1
                continue
            for shape in names:
                s = shapes.get(shape)
                e = expectation(k, shape, bool(s and s.get("timing") == "off"))
                want = e["verdict"] if e else "?"
                got = s["verdict"] if s else "-"
                h = harness.get((c["id"], k["kernel"], shape))
                # The kernels' GPU durations where the harness recorded them, else its events.
                by_kernel = h is not None and number(h.get("kernel_ratio")) is not None
                hr = harness_ratio(h) if h else None
                hlo, hhi = (number(h["kernel_ci_lo"]), number(h["kernel_ci_hi"])) if by_kernel else \
                    ((number(h["ci_lo"]), number(h["ci_hi"])) if h else (None, None))
                kr = None
                if s and s.get("interval") and s.get("base_median_s") and s.get("head_median_s"):
                    kr = s["interval"].get("estimate")
                ok = got in want.split("|")
                shapes_all += 1
                shapes_ok += ok
                within = "-"
                spread = [hr] + placements.get((c["id"], k["kernel"], shape), []) if hr is not None else []
                if kr is not None and hr is not None:
                    mag_all += 1
                    good = abs(kr - hr) <= 0.02
                    mag_ok += good
                    within = "yes" if good else "**no** (%+.1f points, %.1f%% of the ratio)" % (
                        100 * (kr - hr), 100 * abs(kr / hr - 1))
                    if not good and len(spread) > 1 and min(spread) - 0.02 <= kr <= max(spread) + 0.02:
                        in_range += 1
                        within += ", within the harness's range over %d placements" % len(spread)
                interval = s.get("interval", {}) if s else {}
                kgate_cell = got + (" (%s)" % cell(s["reason"]) if s and s.get("reason") else "")
                hs = "%s / %s" % (h["base_status"], h["head_status"]) if h else "-"
                lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    k["kernel"], shape, want, kgate_cell,
                    fmt_ratio(kr, interval.get("low"), interval.get("high")) if kr is not None else "-",
                    (fmt_ratio(hr, hlo, hhi) + (" (events %s)" % fmt_ratio(number(h["ratio"])) if by_kernel else "")
                     + ("; %d placements %.3f to %.3f" % (len(spread), min(spread), max(spread))
                        if len(spread) > 1 else ""))
                    if h and hr is not None else "-",
                    cell(hs), "yes" if ok else "**no**", within))
            lines.append("| %s | (exit) | %s | %s | | | | %s | |" % (
                k["kernel"], k["exit"], code or "?", "yes" if exit_ok else "**no**"))
    head = ["# candle: kgate's verdicts on real upstream commits, beside an independent harness", "",
            "Device: %s. %d of %d shapes got the expected verdict; %d of %d kernels the expected exit code; "
            "on %d of %d shapes both timed, kgate's estimate and the harness's ratio agree within 2 points%s."
            % (device or "?", shapes_ok, shapes_all, kernels_ok, kernels_all, mag_ok, mag_all,
               "" if runs == 1 else "; of the other %d, %d lie within 2 points of the harness's own range "
               "over its %d placements of the buffers" % (mag_all - mag_ok, in_range, runs))]
    print("\n".join(head + lines))


if __name__ == "__main__":
    main()
