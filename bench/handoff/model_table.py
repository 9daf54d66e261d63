#!/usr/bin/env python3
"""model_table.py WORK [--out FILE]

The model-in-the-loop table (README.md here) from the state folders that
model_round.sh leaves in WORK: for every kernel of model_kernels.tsv, the
model's episode (WORK/state/<library>) and the tuner's (WORK/tuner/<library>):
answers that parsed, compiled, passed every shape, were faster; the best
speedup and on which shapes; the tuner's best; why each failed answer failed.
Reads only the episode records kgate wrote (episode.json).
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# What an iteration's outcome says about its answer (agent/episode_record.h).
NOT_PARSED = {"no-code"}
NOT_COMPILED = NOT_PARSED | {"compile-error", "refused", "invalid"}
NOT_PASSED = NOT_COMPILED | {"wrong"}


def kernels():
    with open(os.path.join(HERE, "model_kernels.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            label, lib, kernel, shapes = line.rstrip("\n").split("\t")
            yield label, lib, kernel, shapes


def latest_episode(state, kernel):
    """The newest episode record of `kernel` under `state`, or None."""
    episodes = os.path.join(state, "episodes")
    best = None
    for name in sorted(os.listdir(episodes)) if os.path.isdir(episodes) else []:
        path = os.path.join(episodes, name, "episode.json")
        try:
            with open(path) as f:
                record = json.load(f)
        except (OSError, ValueError):
            continue
        if record.get("kernel") == kernel:
            best = record
    return best


def reason(it):
    """Why an iteration's answer did not make the kernel faster, in a word and its detail."""
    outcome = it.get("outcome", "")
    failure = (it.get("failure") or "").strip().splitlines()
    detail = failure[0][:140] if failure else ""
    if outcome == "no-code":
        return "format", detail
    if outcome in ("compile-error", "refused"):
        return "compile", detail or next(iter((it.get("compile_digest") or "").splitlines()), "")
    if outcome == "invalid":
        return "rule", detail
    if outcome == "wrong":
        text = detail.lower()
        if "misaligned" in text or "extra shape" in text:
            return "misaligned shape", detail
        if "launch" in text:
            return "launch expression", detail
        return "tolerance", detail
    if outcome == "slower":
        return "slower", detail
    if outcome == "no-gain":
        return "no gain", detail
    return outcome or "unfinished", detail


def best_evaluation(record):
    """The best candidate's gate against the original: the final one, else its iteration's."""
    final = record.get("final")
    if isinstance(final, dict) and final.get("shapes"):
        return final
    index = (record.get("best") or {}).get("iteration", 0)
    for it in record.get("iterations", []):
        if it.get("index") == index:
            return it.get("gate") or {}
    return {}


def faster_shapes(record):
    ev = best_evaluation(record)
    out = []
    for s in ev.get("shapes", []):
        r = s.get("ratio", 0)
        if r and s.get("verdict") == "faster":
            out.append("%s %.2fx" % (s.get("shape"), 1 / r))
    return ", ".join(out)


def summarize(record):
    its = [it for it in record.get("iterations", []) if it.get("done") and it.get("answer")]
    outcomes = [it.get("outcome", "") for it in its]
    return {
        "answers": len(its),
        "parsed": sum(o not in NOT_PARSED for o in outcomes),
        "compiled": sum(o not in NOT_COMPILED for o in outcomes),
        "passed": sum(o not in NOT_PASSED for o in outcomes),
        "faster": sum(o == "improved" for o in outcomes),
        "best": (record.get("best") or {}).get("speedup", 1) or 1,
        "status": record.get("status", ""),
        "stop": record.get("stop_reason", ""),
        "failures": [(it.get("index"),) + reason(it) for it in its if it.get("outcome") != "improved"],
        "shapes": faster_shapes(record),
    }


def main():
    args = sys.argv[1:]
    out = None
    if "--out" in args:
        i = args.index("--out")
        out = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    work = args[0]
    lines = ["| kernel | answers | parsed | compiled | passed | faster | model's best | faster on | tuner's best | episode |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    notes = []
    model_best, tuner_best = [], []
    for label, lib, kernel, _ in kernels():
        m = latest_episode(os.path.join(work, "state", lib), kernel)
        t = latest_episode(os.path.join(work, "tuner", lib), kernel)
        tb = ((t.get("best") or {}).get("speedup", 1) or 1) if t else None
        if not m:
            lines.append("| %s | not run | | | | | | | %s | |" % (label, "%.2fx" % tb if tb else "-"))
            continue
        s = summarize(m)
        model_best.append(s["best"])
        if tb:
            tuner_best.append(tb)
        lines.append("| %s | %d | %d | %d | %d | %d | %.2fx | %s | %s | %s |" % (
            label, s["answers"], s["parsed"], s["compiled"], s["passed"], s["faster"], s["best"],
            s["shapes"] or "-", "%.2fx" % tb if tb else "-", s["stop"] or s["status"]))
        for index, word, detail in s["failures"]:
            notes.append("- %s, answer %s: **%s**%s" % (label, index, word, (": " + str(detail)) if detail else ""))

    def geomean(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")

    lines.append("")
    lines.append("Geomean of the best speedups: model %.2fx over %d kernels, tuner %.2fx over %d." % (
        geomean(model_best), len(model_best), geomean(tuner_best), len(tuner_best)))
    if notes:
        lines += ["", "Answers that did not make a kernel faster, and why:", ""] + notes
    text = "\n".join(lines) + "\n"
    if out:
        with open(out, "w") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
