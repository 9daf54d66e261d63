#!/usr/bin/env python3
"""bench/gpu/profile_guided.sh and bench/profile_guided_table.py without a GPU:
the table from recorded arms (a kernel both arms improved, one an arm kept
nothing for, one the sweep reported an error for, one the arm's timeout cut
short, a damaged record), and the stage on a host kernel (BACKEND=host)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TABLE = os.path.join(ROOT, "bench", "profile_guided_table.py")


def read(path):
    with open(path) as f:
        return f.read()


def write_episode(state, name, rec):
    d = os.path.join(state, "episodes", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "episode.json"), "w") as f:
        f.write(rec if isinstance(rec, str) else json.dumps(rec))


def iteration(index, change, outcome, accepted=False, bottleneck="unknown", done=True):
    return {"index": index, "outcome": outcome, "accepted": accepted, "done": done,
            "plan": {"change": change + ": why",
                     "bottleneck": f"The profile classes this kernel as {bottleneck}: evidence"}}


def episode(kernel, its, ratios=None, best=0, tunables=None, status="finished",
            elapsed=10.0, profile_s=None, started="2026-12-02T06:00:00Z"):
    rec = {"kernel": kernel, "status": status, "started_at": started, "elapsed_s": elapsed,
           "iterations": its, "stop_reason": "iteration cap (4) reached",
           "best": {"iteration": best, "candidate": {"tunables": tunables or {}, "flags": [],
                                                     "source_sha256": "abcdef0123456789"}},
           "final": None, "profiles": []}
    if ratios:
        rec["final"] = {"geomean_ratio": 0, "shapes": [
            {"shape": s, "ratio": r, "counts": c} for s, r, c in ratios]}
    if profile_s is not None:
        rec["profiles"] = [{"iteration": 0, "bottleneck": "memory_efficient", "seconds": profile_s}]
    return rec


SWEEP_LOG = """kgate: sweep: rmsnorm
kernel   iterations  best  speedup  proposal / note  pull request
-----------------------------------------------------------------
rmsnorm  2           1     4x       P                created #1
gemv     -           -     -        error: gemv: the original failed its checks on lm-head-b1  -

=== arm x exit 0 after 12.0s
"""


class Table(unittest.TestCase):
    def make_arms(self, tmp):
        on, off = os.path.join(tmp, "on"), os.path.join(tmp, "off")
        # on: rmsnorm 4x on its two counting shapes (the edge shape does not
        # count); silu_and_mul kept nothing; gemv failed (the sweep's row only).
        write_episode(os.path.join(on, "state"), "a-rmsnorm", episode(
            "rmsnorm", [iteration(1, "VEC 1 -> 8", "improved", True, "memory-bound"),
                        iteration(2, "UNROLL 1 -> 2", "no-gain", False, "memory-bound")],
            ratios=[("decode-b1", 0.5, True), ("prefill-2k", 0.125, True), ("edge-1x1", 1.0, False)],
            best=1, tunables={"VEC": 8}, profile_s=3.0))
        # An older episode of the same kernel is not the one reported.
        write_episode(os.path.join(on, "state"), "0-rmsnorm", episode(
            "rmsnorm", [], ratios=[("decode-b1", 1.0, True)], started="2026-12-01T00:00:00Z"))
        write_episode(os.path.join(on, "state"), "b-silu", episode(
            "silu_and_mul", [iteration(1, "UNROLL 1 -> 2", "no-gain"),
                             iteration(2, "UNROLL 1 -> 4", "no-gain")]))
        write_episode(os.path.join(on, "state"), "c-broken", "{not json")
        with open(os.path.join(on, "sweep.log"), "w") as f:
            f.write(SWEEP_LOG)
        with open(os.path.join(on, "exit.txt"), "w") as f:
            f.write("0 30.5\n")
        # off: rmsnorm 2x with other first moves; silu_and_mul cut short by the timeout.
        write_episode(os.path.join(off, "state"), "a-rmsnorm", episode(
            "rmsnorm", [iteration(1, "UNROLL 1 -> 2", "improved", True),
                        iteration(2, "VEC 1 -> 8", "no-gain")],
            ratios=[("decode-b1", 0.5, True), ("prefill-2k", 0.5, True)],
            best=1, tunables={"UNROLL": 2}))
        write_episode(os.path.join(off, "state"), "b-silu", episode(
            "silu_and_mul", [iteration(1, "", "", done=False)], status="running"))
        with open(os.path.join(off, "exit.txt"), "w") as f:
            f.write("124 145.0\n")
        return on, off

    def test_the_table_of_two_arms(self):
        with tempfile.TemporaryDirectory() as tmp:
            on, off = self.make_arms(tmp)
            run = subprocess.run([sys.executable, TABLE, "--arm", f"on={on}", "--arm", f"off={off}"],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            out = run.stdout
            self.assertIn("episode.json", run.stderr)  # the damaged record is named, then skipped
            # 4x = geomean of 2x and 8x over the counting shapes; off 2x; ratio 2.
            self.assertIn("| rmsnorm | 4.00x (2) | 2 / 1 | 10 (3.0) | 2.00x (2) | 2 / 1 | 10 (0.0) | 2.00 |",
                          out)
            # Nothing kept: the first version stays (1.00x); the cut-short iteration is no candidate.
            self.assertIn("| silu_and_mul | 1.00x | 2 / 0 | 10 (0.0) | — | 0 / 0 | 10 (0.0) | — |", out)
            self.assertIn("| gemv | — | 0 / 0 | — (0.0) | — | 0 / 0 | — (0.0) | — |", out)
            self.assertIn("| **geomean** (1 kernels with both) | 4.00x |", out)
            self.assertIn("- gemv, on: error: gemv: the original failed its checks on lm-head-b1", out)
            self.assertIn("- silu_and_mul, off: no final gate; episode status running", out)
            self.assertIn("- Arm `on`: sweep wall time 30 s (exit 0)", out)
            self.assertIn("- Arm `off`: sweep wall time 145 s (timed out)", out)
            self.assertIn("| rmsnorm | on | memory-bound | #1 VEC 1 -> 8 -> improved; "
                          "#2 UNROLL 1 -> 2 -> no-gain |", out)
            self.assertIn("| silu_and_mul | off | unknown | #1 ? -> unfinished |", out)
            self.assertIn("- rmsnorm: the arms part at move #1: VEC 1 -> 8 (on) vs UNROLL 1 -> 2 (off); "
                          "the order differs.", out)

    def test_an_arm_that_never_ran(self):
        with tempfile.TemporaryDirectory() as tmp:
            run = subprocess.run([sys.executable, TABLE, "--arm", f"on={tmp}/none"],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn("- Arm `on`: sweep wall time — s (not run), 0 episode records.", run.stdout)


def kgate_binary():
    for path in (os.environ.get("KGATE_TEST_BINARY", ""), os.path.join(ROOT, "build", "kgate")):
        if path and os.access(path, os.X_OK):
            return path
    return None


class Stage(unittest.TestCase):
    def test_both_arms_sweep_a_scratch_copy_and_the_table_compares_them(self):
        kgate = kgate_binary()
        if not kgate:
            self.skipTest("no kgate binary (set KGATE_TEST_BINARY)")
        repo = os.path.join(ROOT, "tests", "fixtures", "templated")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            env = dict(os.environ, BACKEND="host", ARM_TIMEOUT_S="200", TOTAL_BUDGET_S="60",
                       KGATE_CACHE_DIR=os.path.join(tmp, "cache"), TMPDIR=tmp)
            run = subprocess.run(["bash", os.path.join(ROOT, "bench", "gpu", "profile_guided.sh"),
                                  kgate, repo, out], capture_output=True, text=True, env=env,
                                 timeout=500)
            self.assertEqual(run.returncode, 0, run.stderr)
            for arm in ("on", "off"):
                d = os.path.join(out, "profile_guided", arm)
                self.assertIn(f"--profile {arm} --seed 1 --max-iters 4 --patience 2 "
                              "--shape-budget-s 0.3", read(os.path.join(d, "command.txt")))
                self.assertTrue(read(os.path.join(d, "exit.txt")).startswith("0 "))
            table = read(os.path.join(out, "profile_guided", "profile_guided.md"))
            rows = [l for l in table.splitlines() if l.startswith("| scale | ")]
            self.assertEqual(len(rows), 3, table)  # the kernel's row, then one per arm's moves
            # A speedup over both shapes, or 1.00x where the arm kept nothing
            # (on a loaded machine the gate may find no gain).
            for arm in (0, 1):
                cells = rows[0].split(" | ")[1 + 3 * arm:4 + 3 * arm]
                self.assertRegex(cells[0], r"^\d+\.\d\dx( \(2\))?$", table)
                self.assertRegex(cells[1], r"^[1-4] / [0-4]$", table)
            self.assertIn("| scale | on |", table)
            self.assertIn("| scale | off |", table)
            # The sweep ran on a scratch copy: the fixture has no state or git repository.
            self.assertFalse(os.path.exists(os.path.join(repo, ".kgate")))
            self.assertFalse(os.path.exists(os.path.join(repo, ".git")))


if __name__ == "__main__":
    unittest.main()
