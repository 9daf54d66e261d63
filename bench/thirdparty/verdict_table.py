#!/usr/bin/env python3
"""The verdict table of bench/thirdparty/run_verdicts.sh: for every branch of
expected.json, what kgate gate said (OUT/<branch>.exit, .json, .log) against
what it must say. Markdown on stdout; exit 0 even when branches are wrong (the
table says which)."""
import json
import os
import sys


def got(out, branch, kernel):
    """(exit code, verdicts seen, reasons and notes of the report, the log's last lines when
    there is no report, device) of one branch."""
    exit_path = os.path.join(out, branch + ".exit")
    code = int(open(exit_path).read().strip()) if os.path.exists(exit_path) else None
    verdicts, texts, tail, device = {}, [], [], ""
    report_path = os.path.join(out, branch + ".json")
    if os.path.exists(report_path):
        report = json.load(open(report_path))
        texts += report.get("notes", [])
        for k in report.get("kernels", []):
            if kernel and k.get("kernel") != kernel:
                continue
            device = device or k.get("device", {}).get("name", "")
            if not k.get("head_compiled", True):
                verdicts["does not compile"] = verdicts.get("does not compile", 0) + 1
                texts.append(k.get("head_compile_error", ""))
            for s in k.get("shapes", []):
                v = s.get("verdict", "?")
                verdicts[v] = verdicts.get(v, 0) + 1
                if s.get("reason"):
                    texts.append(s["shape"] + ": " + s["reason"])
                if v in ("faster", "slower", "same"):
                    texts.append(s["shape"] + ": " + v)
    else:
        log_path = os.path.join(out, branch + ".log")
        if os.path.exists(log_path):
            # No report: the run stopped; its last lines say why (the last first).
            lines = [l for l in open(log_path).read().splitlines() if l.strip()]
            tail = lines[-3:][::-1]
    return code, verdicts, texts, tail, device


def cell(text, limit=90):
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def main():
    expected = json.load(open(sys.argv[1]))
    out = sys.argv[2]
    rows, right, devices = [], 0, set()
    for b in expected["branches"]:
        code, verdicts, texts, tail, device = got(out, b["branch"], b["kernel"])
        if device:
            devices.add(device)
        problems = []
        if code != b["exit"]:
            problems.append("exit %s, expected %d" % (code, b["exit"]))
        for v in b["must_include"]:
            if v not in verdicts:
                problems.append("no " + v)
        for v in b["must_not_include"]:
            if v in verdicts:
                problems.append("%d %s" % (verdicts[v], v))
        reason = b["reason"].lower()
        hit = next((t for t in texts if reason in t.lower()), "")
        if not hit:
            problems.append("no '%s' in the reasons" % b["reason"])
        ok = not problems
        right += ok
        seen = ", ".join("%d %s" % (n, v) for v, n in sorted(verdicts.items())) or "no shapes"
        first = hit or next((t for t in texts + tail if t), "")
        rows.append("| %s | %s, %s | exit %s: %s | %s | %s |" % (
            b["branch"], "pass" if b["exit"] == 0 else "fail", b["reason"],
            "?" if code is None else code, seen, cell(first),
            "yes" if ok else "**no**: " + "; ".join(problems)))
    print("Device: %s. %d of %d branches got the expected verdict and reason.\n"
          % (", ".join(sorted(devices)) or "(none reported)", right, len(expected["branches"])))
    print("| branch | expected | got (verdicts per shape) | reason given | right |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
