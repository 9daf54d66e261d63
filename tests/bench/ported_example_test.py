#!/usr/bin/env python3
"""examples/flashinfer-norm's measurement scripts without a GPU:
bench/lines_changed.py finds the upstream files unchanged, and counts a changed
line inside a kernel body apart from one outside; bench/gpu/ported_example.sh
runs `kgate run`, a tuner episode per kernel and bench/ported_table.py on a
manifest's host kernels (BACKEND=host), as it does on a GPU with the example."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE = os.path.join(ROOT, "examples", "flashinfer-norm")
LINES = os.path.join(ROOT, "bench", "lines_changed.py")
NORM = os.path.join("upstream", "include", "flashinfer", "norm.cuh")


def read(path):
    with open(path) as f:
        return f.read()


def lines_changed(example, *extra):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "lines.json")
        run = subprocess.run([sys.executable, LINES, example, "--json", out, *extra],
                             capture_output=True, text=True)
        return run, (json.loads(read(out)) if os.path.exists(out) else None)


class LinesChanged(unittest.TestCase):
    def test_the_example_is_upstream_byte_for_byte(self):
        run, counts = lines_changed(EXAMPLE)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("lines changed: 0; in kernel bodies: 0", run.stdout)
        norm = next(f for f in counts["files"] if f["path"].endswith("norm.cuh"))
        self.assertTrue(norm["identical"])
        self.assertEqual(norm["kernels"], ["RMSNormKernel", "FusedAddRMSNormKernel"])
        self.assertGreater(norm["kernel_body_lines"], 100)

    def test_a_changed_kernel_body_line_counts_apart_from_one_outside(self):
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "example")
            shutil.copytree(EXAMPLE, copy)
            path = os.path.join(copy, NORM)
            text = read(path)
            # Inside RMSNormKernel's body, and in the license comment above it.
            text = text.replace("  float sum_sq = 0.f;\n", "  float sum_sq = 0.0f;\n", 1)
            text = text.replace(" * Copyright (c) 2024 by FlashInfer team.",
                                " * Copyright (c) 2024 by the FlashInfer team.", 1)
            with open(path, "w") as f:
                f.write(text)
            # The original from this repository's history (by its blob id) ...
            run, counts = lines_changed(copy)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertEqual((counts["lines_changed"], counts["kernel_body_lines_changed"]), (2, 1))
            # ... or from a checkout of upstream, when the history is not there.
            upstream = os.path.join(tmp, "upstream")
            for entry in json.loads(read(os.path.join(EXAMPLE, "upstream.json")))["files"]:
                dest = os.path.join(upstream, entry["upstream_path"])
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                shutil.copy(os.path.join(EXAMPLE, entry["path"]), dest)
            run, counts = lines_changed(copy, "--upstream", upstream)
            self.assertEqual((counts["lines_changed"], counts["kernel_body_lines_changed"]), (2, 1))
            # An added line inside a body counts too.
            with open(path, "w") as f:
                f.write(text.replace("  float sum_sq = 0.0f;\n",
                                     "  float sum_sq = 0.0f;\n  (void)sum_sq;\n", 1))
            run, counts = lines_changed(copy, "--upstream", upstream)
            self.assertEqual((counts["lines_changed"], counts["kernel_body_lines_changed"]), (3, 2))


def kgate_binary():
    for path in (os.environ.get("KGATE_TEST_BINARY", ""), os.path.join(ROOT, "build", "kgate")):
        if path and os.access(path, os.X_OK):
            return path
    return None


class PortedStage(unittest.TestCase):
    def test_the_stage_runs_checks_episodes_and_the_table_on_host_kernels(self):
        kgate = kgate_binary()
        if not kgate:
            self.skipTest("no kgate binary (set KGATE_TEST_BINARY)")
        repo = os.path.join(ROOT, "tests", "fixtures", "templated")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            env = dict(os.environ, BACKEND="host", BUDGET="15", ITERS="2",
                       KGATE_CACHE_DIR=os.path.join(tmp, "cache"))
            run = subprocess.run(["bash", os.path.join(ROOT, "bench", "gpu", "ported_example.sh"),
                                  kgate, repo, out], capture_output=True, text=True, env=env,
                                 timeout=300)
            self.assertEqual(run.returncode, 0, run.stderr)
            table = read(os.path.join(out, "ported.md"))
            self.assertIn("`kgate run` on the host backend", table)
            self.assertIn("| scale | 2 | 2 | — |", table)  # both shapes pass
            episode = [l for l in table.splitlines() if l.startswith("| scale | 2 |") and "×" in l]
            self.assertEqual(len(episode), 1, table)  # two tuner moves, a speedup
            self.assertIn("UNROLL=1", episode[0])  # the first settings
            run_json = json.loads(read(os.path.join(out, "kgate_run.json")))
            self.assertEqual(run_json["backend"], "host")

    def test_the_table_fails_on_a_failed_shape(self):
        with tempfile.TemporaryDirectory() as tmp:
            run_json = os.path.join(tmp, "run.json")
            shapes = [{"shape": "decode-b1", "phase": "decode", "status": "pass", "head_seconds": [2e-6]},
                      {"shape": "odd-3x4104", "phase": "edge", "status": "fail", "head_seconds": []}]
            with open(run_json, "w") as f:
                json.dump({"backend": "cuda", "kernels": [
                    {"kernel": "rmsnorm_f16", "compiled": True, "shapes": shapes}]}, f)
            run = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "ported_table.py"),
                                  "--manifest", EXAMPLE, "--run", run_json],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 1, run.stderr)
            self.assertIn("| rmsnorm_f16 | 2 | 1 | odd-3x4104 | decode-b1 2.00 |", run.stdout)

    def test_the_kernels_of_a_backend(self):
        run = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "ported_table.py"),
                              "--manifest", EXAMPLE, "--kernels-of", "cuda"],
                             capture_output=True, text=True)
        self.assertEqual(run.stdout.split(), ["rmsnorm_f16", "rmsnorm_f16_unaligned",
                                              "gemma_rmsnorm_bf16", "fused_add_rmsnorm_f16"])


if __name__ == "__main__":
    unittest.main()
