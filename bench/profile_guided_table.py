#!/usr/bin/env python3
"""The README's sweep with and without profile guidance, side by side
(bench/gpu/profile_guided.sh):

    profile_guided_table.py --arm on=DIR --arm off=DIR [--manifest M] [--out F]

Each DIR is one arm's output: DIR/state (the sweep's --state-dir, its episode
records in state/episodes/*/episode.json), DIR/sweep.log (the sweep's
progress and its closing table) and DIR/exit.txt ("EXIT WALL_SECONDS").

Per kernel and arm: the speedup of the episode's final gate over the first
version, as the geomean over the shapes that count (the gate's timed shapes:
`counts`, a positive ratio); 1.00x where the episode kept no candidate (no
final gate); the error where the sweep's row says one. Then the iterations
(candidates gated), the kept ones, the episode's wall time and its profiles'
share, and the ratio of the two arms' speedups. Then each arm's first moves
per kernel (what profile guidance reorders) and the bottleneck class the
tuner was given.
"""
import argparse
import glob
import json
import math
import os
import re
import sys


def load_jsonc(path):
    with open(path) as f:
        return json.loads(re.sub(r"^\s*//.*$", "", f.read(), flags=re.M))


def read_episodes(state):
    """The newest episode record per kernel in one arm's state directory."""
    latest = {}
    for path in glob.glob(os.path.join(state, "episodes", "*", "episode.json")):
        try:
            with open(path) as f:
                rec = json.load(f)
        except (OSError, ValueError) as e:
            print(f"profile_guided_table: {path}: {e}", file=sys.stderr)
            continue
        k = rec.get("kernel")
        if k and (k not in latest or rec.get("started_at", "") > latest[k].get("started_at", "")):
            latest[k] = rec
    return latest


def read_sweep_rows(log):
    """The sweep's closing table (kernel, iterations, best, speedup, note, pull request)."""
    rows = {}
    try:
        with open(log, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return rows
    for i, line in enumerate(lines):
        if re.match(r"^kernel\s{2,}iterations\s{2,}best\s{2,}speedup", line):
            for row in lines[i + 2:]:
                if not row.strip() or row.startswith("==="):
                    break
                cells = re.split(r"\s{2,}", row.strip())
                if len(cells) >= 5:
                    rows[cells[0]] = {"iterations": cells[1], "speedup": cells[3],
                                      "note": cells[4], "pr": cells[5] if len(cells) > 5 else ""}
    return rows


def read_exit(path):
    try:
        with open(path) as f:
            rc, wall = f.read().split()[:2]
        return int(rc), float(wall)
    except (OSError, ValueError):
        return None, None


def shape_speedups(rec):
    """Per counting shape of the final gate: first version's time / best's time."""
    final = rec.get("final") or {}
    out = {}
    for s in final.get("shapes") or []:
        r = s.get("ratio")
        if s.get("counts", True) and isinstance(r, (int, float)) and r > 0 and math.isfinite(r):
            out[s.get("shape", "?")] = 1 / r
    return out


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summarize(rec, sweep_row):
    """One arm's numbers for one kernel (rec or sweep_row may be None)."""
    s = {"speedup": None, "shapes": 0, "iterations": 0, "kept": 0, "episode_s": None,
         "profile_s": 0.0, "note": "", "moves": [], "bottleneck": "", "stop": "",
         "best": None}
    if sweep_row and sweep_row["note"].startswith(("error:", "skipped:")):
        s["note"] = sweep_row["note"]
    if rec is None:
        s["note"] = s["note"] or ("no episode record" + (f" (sweep: {sweep_row['note']})"
                                                         if sweep_row else ""))
        return s
    its = rec.get("iterations") or []
    # An iteration the arm's timeout cut short ("done": false) gated nothing.
    s["iterations"] = sum(1 for i in its if i.get("done", True))
    s["kept"] = sum(1 for i in its if i.get("accepted"))
    s["episode_s"] = rec.get("elapsed_s")
    s["stop"] = rec.get("stop_reason") or ""
    best = rec.get("best") or {}
    if best.get("iteration"):
        c = best.get("candidate") or {}
        text = " ".join(f"{k}={v}" for k, v in sorted((c.get("tunables") or {}).items()))
        text += "".join(f" {f}" for f in c.get("flags") or [])
        if c.get("launch"):
            text += " launch " + json.dumps(c["launch"], sort_keys=True)
        # Two bests with the same text and source are the same version.
        s["best"] = (text.strip() or "(source only)") + f" [{(c.get('source_sha256') or '')[:8]}]"
    elif rec.get("status") == "finished":
        s["best"] = "first version"
    s["profile_s"] = sum((p.get("seconds") or 0) for p in rec.get("profiles") or [])
    per_shape = shape_speedups(rec)
    best_it = (rec.get("best") or {}).get("iteration") or 0
    if per_shape:
        s["speedup"] = geomean(per_shape.values())
        s["shapes"] = len(per_shape)
    elif best_it == 0 and rec.get("status") == "finished":
        s["speedup"] = 1.0  # nothing kept: the first version stays
        s["note"] = s["note"] or "no candidate kept"
    else:
        s["note"] = s["note"] or "no final gate"
    if rec.get("status") not in (None, "finished"):
        # "running": the arm's timeout ended the sweep in this episode.
        s["note"] = (s["note"] + "; " if s["note"] else "") + f"episode status {rec['status']}"
    for i in its:
        plan = i.get("plan") or {}
        tunables = (i.get("candidate") or {}).get("tunables") or {}
        # "VEC 1 -> 8: why" -> "VEC 1 -> 8"
        what = ((plan.get("change") or "").split(":")[0].strip() or i.get("failure") or
                " ".join(f"{k}={v}" for k, v in sorted(tunables.items())) or "?")
        outcome = i.get("outcome") or ("unfinished" if not i.get("done", True) else "?")
        s["moves"].append((i.get("index"), what, outcome))
    # The class the tuner ordered its first moves by, as its plan states it;
    # else the first profile's class.
    claimed = ((its[0].get("plan") or {}).get("bottleneck") or "") if its else ""
    m = re.search(r"classes this kernel as ([\w-]+)", claimed)
    profiles = rec.get("profiles") or []
    s["bottleneck"] = m.group(1) if m else (profiles[0].get("bottleneck") or "" if profiles else "")
    return s


def fmt_x(v):
    return f"{v:.2f}x" if v is not None else "—"


def fmt_s(v):
    return f"{v:.0f}" if v is not None else "—"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arm", action="append", required=True, help="NAME=DIR, in table order")
    ap.add_argument("--manifest", help="kgate.json: kernels in its order")
    ap.add_argument("--first-moves", type=int, default=4, help="moves listed per kernel and arm")
    ap.add_argument("--out")
    a = ap.parse_args()

    arms = []
    for spec in a.arm:
        name, _, d = spec.partition("=")
        rc, wall = read_exit(os.path.join(d, "exit.txt"))
        arms.append({"name": name, "episodes": read_episodes(os.path.join(d, "state")),
                     "rows": read_sweep_rows(os.path.join(d, "sweep.log")), "rc": rc, "wall": wall})
    order = []
    if a.manifest and os.path.exists(a.manifest):
        order = [k["name"] for k in load_jsonc(a.manifest).get("kernels", [])]
    seen = set(order)
    for arm in arms:
        for k in list(arm["episodes"]) + list(arm["rows"]):
            if k not in seen:
                order.append(k)
                seen.add(k)
    order = [k for k in order if any(k in arm["episodes"] or k in arm["rows"] for arm in arms)]

    out = []
    w = out.append
    names = [arm["name"] for arm in arms]
    head = ["kernel"]
    for n in names:
        head += [f"{n}: speedup (shapes)", f"{n}: iters / kept", f"{n}: episode s (profile s)"]
    if len(arms) == 2:
        head.append(f"{names[0]} / {names[1]}")
    w("| " + " | ".join(head) + " |")
    w("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    stats = {k: [summarize(arm["episodes"].get(k), arm["rows"].get(k)) for arm in arms]
             for k in order}
    notes = []
    for k in order:
        cells = [k]
        for arm, s in zip(arms, stats[k]):
            sp = fmt_x(s["speedup"]) + (f" ({s['shapes']})" if s["shapes"] else "")
            cells += [sp, f"{s['iterations']} / {s['kept']}",
                      f"{fmt_s(s['episode_s'])} ({s['profile_s']:.1f})"]
            if s["note"]:
                notes.append(f"- {k}, {arm['name']}: {s['note'].replace('|', '/')}")
        if len(arms) == 2:
            x, y = stats[k][0]["speedup"], stats[k][1]["speedup"]
            cells.append(f"{x / y:.2f}" if x and y else "—")
        w("| " + " | ".join(cells) + " |")
    both = [k for k in order if all(s["speedup"] for s in stats[k])]
    cells = [f"**geomean** ({len(both)} kernels" + (" with both)" if len(arms) > 1 else ")")]
    for i, arm in enumerate(arms):
        g = geomean([stats[k][i]["speedup"] for k in both])
        its = sum(stats[k][i]["iterations"] for k in order)
        kept = sum(stats[k][i]["kept"] for k in order)
        eps = sum(stats[k][i]["episode_s"] or 0 for k in order)
        prof = sum(stats[k][i]["profile_s"] for k in order)
        cells += [fmt_x(g), f"{its} / {kept}", f"{eps:.0f} ({prof:.1f})"]
    if len(arms) == 2:
        g0 = geomean([stats[k][0]["speedup"] for k in both])
        g1 = geomean([stats[k][1]["speedup"] for k in both])
        cells.append(f"{g0 / g1:.2f}" if g0 and g1 else "—")
    w("| " + " | ".join(cells) + " |")
    w("")
    for arm in arms:
        rc = "not run" if arm["rc"] is None else ("timed out" if arm["rc"] == 124 else f"exit {arm['rc']}")
        w(f"- Arm `{arm['name']}`: sweep wall time {fmt_s(arm['wall'])} s ({rc}), "
          f"{len(arm['episodes'])} episode records.")
    out.extend(notes)
    w("")
    w(f"First {a.first_moves} moves per kernel (the tuner's order; the class it was given):")
    w("")
    w("| kernel | arm | class | first moves -> outcome | stopped | best version |")
    w("|---|---|---|---|---|---|")
    for k in order:
        for arm, s in zip(arms, stats[k]):
            moves = "; ".join(f"#{i} {m} -> {o}" for i, m, o in s["moves"][:a.first_moves]) or "—"
            w(f"| {k} | {arm['name']} | {s['bottleneck'] or '—'} | {moves.replace('|', '/')} | "
              f"{s['stop'].replace('|', '/') or '—'} | {s['best'] or '—'} |")
    if len(arms) == 2:
        # Where the two arms' move sequences part: profile guidance changes
        # the order; a different outcome of the same move (the gate's noise)
        # also changes what the tuner tries next.
        w("")
        for k in order:
            m0 = [m for _, m, o in stats[k][0]["moves"] if o != "unfinished"]
            m1 = [m for _, m, o in stats[k][1]["moves"] if o != "unfinished"]
            if not m0 or not m1:
                continue
            n = next((i for i in range(min(len(m0), len(m1))) if m0[i] != m1[i]), None)
            same_best = (stats[k][0]["best"] not in (None, "first version") and
                         stats[k][0]["best"] == stats[k][1]["best"])
            tail = (" Both kept the same best version, so their speedups differ only by the final"
                    " gates' measurement." if same_best else "")
            if n is None:
                w(f"- {k}: the same {min(len(m0), len(m1))} moves in the same order in both arms."
                  + tail)
            else:
                o0 = [o for _, _, o in stats[k][0]["moves"]]
                o1 = [o for _, _, o in stats[k][1]["moves"]]
                why = ("the same moves before had other outcomes"
                       if n and o0[:n] != o1[:n] else "the order differs")
                w(f"- {k}: the arms part at move #{n + 1}: {m0[n]} ({names[0]}) vs {m1[n]} "
                  f"({names[1]}); {why}." + tail)
    text = "\n".join(out) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
