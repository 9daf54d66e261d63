#!/usr/bin/env python3
"""bench/gpu/multi_gpu.py without a GPU: `replicate` on the example, `table`
on gate reports and scaling results in the formats kgate and multi_gpu.sh
write (made here: the measurements need a host with several GPUs)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "bench", "gpu", "multi_gpu.py")
EXAMPLE = os.path.join(ROOT, "examples", "llm-ops")
sys.path.insert(0, os.path.join(ROOT, "bench", "gpu"))
from aa_bias import manifest  # noqa: E402


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def gate_report(path, shapes):
    """A `kgate gate --json` report: (kernel, shape, verdict, head median) per shape."""
    kernels = {}
    for kernel, shape, verdict, median in shapes:
        kernels.setdefault(kernel, []).append(
            {"shape": shape, "verdict": verdict, "head_median_s": median})
    with open(path, "w") as f:
        json.dump({"kernels": [{"kernel": k, "shapes": s} for k, s in kernels.items()]}, f)


class MultiGpuTest(unittest.TestCase):
    def test_replicate_repeats_the_kernels_to_at_least_k(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "x16")
            r = run("replicate", EXAMPLE, out, "16")
            self.assertEqual(r.returncode, 0, r.stderr)
            names = [k["name"] for k in manifest(out)["kernels"]]
            self.assertGreaterEqual(len(names), 16)
            self.assertEqual(len(names), len(set(names)))
            self.assertNotIn("workload", manifest(out))
            first = manifest(EXAMPLE)["kernels"][0]["name"]
            self.assertIn(first + "_r1", names)
            self.assertTrue(os.path.exists(os.path.join(out, manifest(out)["kernels"][0]
                                                        ["impl"]["cuda"]["source"])))

    def test_table_counts_verdicts_compares_medians_and_scaling(self):
        with tempfile.TemporaryDirectory() as out:
            for d in ("idle", "loaded", "scaling"):
                os.makedirs(os.path.join(out, d))
            # 2 gates x 2 shapes per condition; one slower verdict under load, a 0.5% slower median.
            for seed in (1, 2):
                gate_report(os.path.join(out, "idle", "seed-%d.json" % seed),
                            [("rmsnorm", "decode-b1", "same", 10e-6), ("rmsnorm", "prefill", "same", 100e-6)])
                gate_report(os.path.join(out, "loaded", "seed-%d.json" % seed),
                            [("rmsnorm", "decode-b1", "slower" if seed == 2 else "same", 10.05e-6),
                             ("rmsnorm", "prefill", "same", 100e-6)])
            prs = {"kgate/optimize/rmsnorm": {"number": 1, "diff_sha256": "a"}}
            for n, wall, pulls in ((1, 400, prs), (2, 210, prs),
                                   (4, 125, {"kgate/optimize/rmsnorm": {"number": 1, "diff_sha256": "b"}})):
                with open(os.path.join(out, "scaling", "llm-ops-%d.json" % n), "w") as f:
                    json.dump({"repo": "llm-ops", "gpus": n, "wall_s": wall, "exit": 0,
                               "pull_requests": pulls}, f)
            r = run("table", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            text = r.stdout
            self.assertIn("| rmsnorm | decode-b1 | 10 µs | 10.05 µs | 1.0050 | 0 | 1 |", text)
            self.assertIn("idle: 4 verdicts, 0 not `same` (0.00%", text)
            self.assertIn("loaded: 4 verdicts, 1 not `same` (25.00%", text)
            self.assertIn("Largest |loaded / idle - 1| of a median: 0.50%", text)
            self.assertIn("| llm-ops | 2 | 210 s | 1.90x | 0.95 | 0 | 1 | yes |", text)
            self.assertIn("| llm-ops | 4 | 125 s | 3.20x | 0.80 | 0 | 1 | **no** |", text)


if __name__ == "__main__":
    unittest.main()
