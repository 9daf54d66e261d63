#!/usr/bin/env python3
"""bench/sweep_gap.py without a GPU: `apply` on a copy of the example with
proposals in the sweep's format, `table` on recorded workload outputs
(tests/fixtures/workload/sweep_gap: three H200 runs of the example workload,
logits cut to 8, and the task list of an H200 `kgate extract`)."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "bench", "sweep_gap.py")
EXAMPLE = os.path.join(ROOT, "examples", "llm-ops")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "workload", "sweep_gap")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def read_text(path):
    with open(path) as f:
        return f.read()


def read_json(path):
    return json.loads(read_text(path))


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(value, f)


def episode(kernel, shapes, started="2026-11-30T12:00:00Z"):
    """An episode record: shapes as (name, phase, first_s, best_s)."""
    return {"kernel": kernel, "backend": "cuda", "started_at": started,
            "final": {"shapes": [{"shape": n, "phase": p, "best_s": f, "candidate_s": b}
                                 for n, p, f, b in shapes]}}


class SweepGap(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.state = os.path.join(self.dir, "state")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def proposal(self, kernel, tunables, source=None, validation=None):
        p = {"version": 1, "kernel": kernel, "backend": "cuda",
             "candidate": {"tunables": tunables, "source_changed": source is not None,
                           "source_text": source or ""}}
        if validation:
            p["workload_validation"] = validation
        write_json(os.path.join(self.state, "proposals", kernel + ".json"), p)

    def test_apply_puts_every_proposal_into_one_tree(self):
        self.proposal("rmsnorm", {"BLOCK": 256, "UNROLL": 2, "VEC": 8})
        self.proposal("gemv", {"VEC": 8}, source="// a rewritten gemv\n")
        example = os.path.join(self.dir, "example")
        shutil.copytree(EXAMPLE, example)
        os.makedirs(os.path.join(example, "workload", "build"), exist_ok=True)
        base, swept = os.path.join(self.dir, "base"), os.path.join(self.dir, "swept")
        r = run("apply", "--state-dir", self.state, "--example", example, "--base", base, "--swept", swept)
        self.assertEqual(r.returncode, 0, r.stderr)
        read = lambda tree, k: read_text(os.path.join(tree, "csrc", k + ".cu"))
        original = lambda k: read_text(os.path.join(EXAMPLE, "csrc", k + ".cu"))
        # The base: the manifest's defaults (the first values) in front of the source as it is.
        self.assertEqual(read(base, "rmsnorm"),
                         "#define BLOCK 256\n#define UNROLL 1\n#define VEC 1\n" + original("rmsnorm"))
        self.assertEqual(read(swept, "rmsnorm"),
                         "#define BLOCK 256\n#define UNROLL 2\n#define VEC 8\n" + original("rmsnorm"))
        # A changed source replaces the file; tunables it does not name keep their defaults.
        self.assertEqual(read(swept, "gemv"), "#define BLOCK 256\n#define UNROLL 1\n#define VEC 8\n"
                         "#define ROWS 1\n#define BATCH_TILE 1\n// a rewritten gemv\n")
        self.assertEqual(read(swept, "softmax"), read(base, "softmax"))
        self.assertFalse(os.path.exists(os.path.join(swept, "workload", "build")))
        self.assertTrue(os.path.exists(os.path.join(swept, "workload", "build.sh")))
        self.assertIn("rmsnorm: proposal BLOCK=256 UNROLL=2 VEC=8", r.stdout)
        self.assertIn("gemv: proposal VEC=8 + new source", r.stdout)
        self.assertIn("softmax: unchanged", r.stdout)

    def recorded_runs(self, scale):
        """The recorded base runs, and swept runs: the same with latency scaled per phase."""
        runs = os.path.join(self.dir, "runs")
        os.makedirs(runs)
        base = []
        for i in (1, 2, 3):
            out = read_json(os.path.join(FIXTURES, f"gap-base-{i}.json"))
            base.append(out)
            write_json(os.path.join(runs, f"gap-base-{i}.json"), out)
            swept = json.loads(json.dumps(out))
            for phase, f in scale.items():
                swept["latency_ms"][phase] = [x * f for x in out["latency_ms"][phase]]
            write_json(os.path.join(runs, f"gap-swept-{i}.json"), swept)
        return runs, base

    def test_table_from_recorded_outputs(self):
        runs, base = self.recorded_runs({"prefill": 0.9, "decode": 0.6})
        write_json(os.path.join(self.state, "episodes", "e1", "episode.json"),
                   episode("gemv", [("up-b1", "decode", 100e-6, 40e-6), ("down-b1", "decode", 100e-6, 25e-6),
                                    ("chunk-64", "prefill", 1000e-6, 500e-6)]))
        # An older episode of the same kernel is not the one reported.
        write_json(os.path.join(self.state, "episodes", "e0", "episode.json"),
                   episode("gemv", [("up-b1", "decode", 1, 1)], started="2026-11-30T11:00:00Z"))
        write_json(os.path.join(self.state, "episodes", "e2", "episode.json"),
                   episode("softmax", [("decode-b1", "decode", 200e-6, 190e-6)]))
        write_json(os.path.join(self.state, "episodes", "e2", "workload_validation.json"),
                   {"status": "no_gain", "phases": [{"phase": "decode", "ratio": {"estimate": 0.995}}]})
        self.proposal("gemv", {"VEC": 8}, validation={
            "status": "passed", "phases": [{"phase": "prefill", "ratio": {"estimate": 0.95}},
                                           {"phase": "decode", "ratio": {"estimate": 0.7}}]})
        out = os.path.join(self.dir, "gap.md")
        r = run("table", "--state-dir", self.state, "--runs-dir", runs, "--manifest",
                os.path.join(EXAMPLE, "kgate.json"), "--tasks", os.path.join(FIXTURES, "tasks.json"),
                "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        text = read_text(out)
        self.assertIn("Tokens equal in every run: **yes** (3 of 3)", text)
        rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
                for line in text.splitlines() if line.startswith("| ") and not line.startswith("| phase")
                and not line.startswith("| kernel")}
        med = lambda phase: statistics.median(statistics.median(o["latency_ms"][phase]) for o in base)
        for phase, f in (("prefill", 0.9), ("decode", 0.6)):
            self.assertEqual(rows[phase][0], f"{med(phase):.3f}")
            self.assertEqual(rows[phase][1], f"{med(phase) * f:.3f}")
            self.assertEqual(rows[phase][3], f"**{1 / f:.2f}×**")
        total = med("prefill") + med("decode")
        self.assertEqual(rows["overall (prefill + decode)"][3],
                         f"**{total / (0.9 * med('prefill') + 0.6 * med('decode')):.2f}×**")
        # gemv: isolated geomean per phase, its in-model result, its share of the task list.
        tasks = read_json(os.path.join(FIXTURES, "tasks.json"))
        share = {p["phase"]: sum(k["share_of_phase"] for k in p["kernels"] if k.get("kernel") == "gemv")
                 for p in tasks["phases"]}
        self.assertEqual(rows["gemv"][:5], ["yes", "VEC=8", "2.00×", f"{(2.5 * 4) ** 0.5:.2f}×",
                                            "passed: prefill -5.0%, decode -30.0%"])
        self.assertEqual(rows["gemv"][5:], [f"{100 * share['prefill']:.1f}%", f"{100 * share['decode']:.1f}%"])
        self.assertEqual(rows["softmax"][:5], ["no", "—", "—", "1.05×", "no_gain: decode -0.5%"])
        self.assertNotIn("rmsnorm", rows)  # no episode, no row
        # Predicted: Amdahl over the decode phase with gemv's share sped up by its isolated speedup.
        predicted = 1 / (1 - share["decode"] * (1 - 1 / (2.5 * 4) ** 0.5))
        self.assertEqual(rows["decode"][5], f"{predicted:.2f}×")

    def test_table_fails_when_tokens_differ(self):
        runs, _ = self.recorded_runs({"decode": 0.5})
        swept = read_json(os.path.join(runs, "gap-swept-2.json"))
        swept["tokens"][3] += 1
        write_json(os.path.join(runs, "gap-swept-2.json"), swept)
        os.makedirs(self.state)
        r = run("table", "--state-dir", self.state, "--runs-dir", runs)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("Tokens equal in every run: **no** (2 of 3)", r.stdout)

    def test_table_refuses_unpaired_runs(self):
        runs, _ = self.recorded_runs({})
        os.remove(os.path.join(runs, "gap-swept-3.json"))
        os.makedirs(self.state)
        r = run("table", "--state-dir", self.state, "--runs-dir", runs)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("3 base and 2 swept outputs", r.stderr)


if __name__ == "__main__":
    unittest.main()
