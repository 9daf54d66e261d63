#!/usr/bin/env python3
"""bench/thirdparty and bench/gpu/aa_bias.py without a GPU: make_repo.sh builds
the repository with main and one branch per kind of change (real git); the
verdict table says right or wrong per branch from gate reports in kgate's
JSON format; aa_bias.py puts its comment and its planted slowdown where they
belong in the example's sources."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
THIRDPARTY = os.path.join(ROOT, "bench", "thirdparty")
EXAMPLE = os.path.join(ROOT, "examples", "llm-ops")


# git blob ids of siboehm/SGEMM_CUDA's files at 60cba6f9b20a198116c76f18de8047f44df8c8b8.
SGEMM_BLOBS = {
    "csrc/sgemm/1_naive.cuh": "47038a37e63c12a8b09fe52c2abd9a7d8f78e0ae",
    "csrc/sgemm/2_kernel_global_mem_coalesce.cuh": "ef0a8b947d6a5cfa413ef874c7b1dddb25470da3",
    "csrc/sgemm/4_kernel_1D_blocktiling.cuh": "12c9c5d7178b2ef528ce372b836829f96309536b",
    "LICENSE.sgemm-cuda": "855c2d65685a689e8683bf1b2cf199d8b53b28dc",
}


def without_comments(source):
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    return "\n".join(line for line in (re.sub(r"//.*", "", l).rstrip()
                                        for l in source.splitlines()) if line)


def sgemm_impl(manifest_text):
    kernels = json.loads(without_comments(manifest_text))["kernels"]
    return next(k for k in kernels if k["name"] == "sgemm")["impl"]["cuda"]


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True,
                          check=True).stdout


class MakeRepo(unittest.TestCase):
    def test_main_and_one_commit_per_branch_with_the_expected_change(self):
        with open(os.path.join(THIRDPARTY, "expected.json")) as f:
            expected = json.load(f)
        with tempfile.TemporaryDirectory() as tmp:
            dest = os.path.join(tmp, "repo")
            run = subprocess.run(["bash", os.path.join(THIRDPARTY, "make_repo.sh"), dest],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            branches = set(git(dest, "branch", "--format=%(refname:short)").split())
            want = {b["branch"] for b in expected["branches"]} | {"main"}
            self.assertEqual(branches, want)
            # main is upstream's reduction file, byte for byte, and its license.
            upstream = git(dest, "show", "main:csrc/reduction_kernel.cu")
            self.assertIn("Copyright (c) 2022, NVIDIA CORPORATION", upstream)
            self.assertIn("template <class T> void reduce(int size", upstream)
            self.assertIn("Redistribution and use", git(dest, "show", "main:LICENSE.cuda-samples"))
            # SGEMM_CUDA's kernels are upstream's blobs (src/kernels/ at the commit the
            # README names), and its license is there.
            for path, blob in SGEMM_BLOBS.items():
                self.assertEqual(git(dest, "rev-parse", "main:" + path).strip(), blob, path)
            self.assertIn("Copyright (c) 2023 Simon Boehm", git(dest, "show", "main:LICENSE.sgemm-cuda"))
            for b in expected["branches"]:
                log = git(dest, "log", "--format=%s", "main.." + b["branch"]).splitlines()
                self.assertEqual(log, [b["message"]], b["branch"])
                changed = set(git(dest, "diff", "--name-only", "main", b["branch"]).split())
                self.assertTrue(changed, b["branch"])
                if b["branch"].startswith("sgemm-"):  # a kernel and its launch: kgate.json only
                    self.assertEqual(changed, {"kgate.json"})
                    old, new = (sgemm_impl(git(dest, "show", rev + ":kgate.json"))
                                for rev in ("main", b["branch"]))
                    self.assertNotEqual(old["entry"], new["entry"], b["branch"])
                    # The stale launch is main's, to the letter; the others bring their own.
                    stale = b["branch"].endswith("-stale-launch")
                    self.assertEqual(old["launch"] == new["launch"], stale, b["branch"])
                elif b["branch"] == "docs-only":
                    self.assertEqual(changed, {"README.md"})
                elif b["branch"] == "comment-only":
                    self.assertEqual(changed, {"csrc/reduction_kernel.cu", "csrc/vectorAdd.cu"})
                    for path in changed:  # the code without comments is the same
                        code = [without_comments(git(dest, "show", rev + ":" + path))
                                for rev in ("main", b["branch"])]
                        self.assertEqual(code[0], code[1], path)
            # The same commits on every machine: fixed authors and dates.
            self.assertEqual(git(dest, "log", "-1", "--format=%an %ad", "--date=iso", "main").strip(),
                             "kgate bench 2026-01-01 00:00:00 +0000")


def shape(name, verdict, reason=""):
    return {"shape": name, "verdict": verdict, "reason": reason, "base_median_s": 1e-5,
            "head_median_s": 1e-5}


class VerdictTable(unittest.TestCase):
    def write(self, out, branch, code, kernels=None, notes=None):
        with open(os.path.join(out, branch + ".exit"), "w") as f:
            f.write("%d\n" % code)
        if kernels is not None:
            with open(os.path.join(out, branch + ".json"), "w") as f:
                json.dump({"notes": notes or [], "kernels": kernels}, f)
        with open(os.path.join(out, branch + ".log"), "w") as f:
            f.write("kgate: reading main and %s\nkgate: error: no GPU found\n" % branch)

    def test_right_and_wrong_branches(self):
        with tempfile.TemporaryDirectory() as out:
            kernel = lambda name, shapes: {"kernel": name, "head_compiled": True,
                                           "device": {"name": "NVIDIA H200"}, "shapes": shapes}
            self.write(out, "faster-reduce6", 0, [kernel("reduce", [
                shape("large-64m", "faster"), shape("edge-1", "same", "below the floor")])])
            # Right verdict, wrong reason: the overrun must be reported as one.
            self.write(out, "overrun-vector-add", 1, [kernel("vector_add", [
                shape("odd-50001", "incorrect", "wrong result: element 50001 of 'C'")])])
            self.write(out, "docs-only", 0, [], ["no kernel changed between main and docs-only"])
            # No report: the log says why, and nothing in it counts as a reason.
            self.write(out, "comment-only", 3)
            run = subprocess.run([sys.executable, os.path.join(THIRDPARTY, "verdict_table.py"),
                                  os.path.join(THIRDPARTY, "expected.json"), out],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            rows = {line.split("|")[1].strip(): line for line in run.stdout.splitlines()
                    if line.startswith("| ") and not line.startswith("| branch")}
            self.assertIn("Device: NVIDIA H200. 2 of 10", run.stdout)
            self.assertTrue(rows["faster-reduce6"].endswith("| yes |"), rows["faster-reduce6"])
            self.assertTrue(rows["docs-only"].endswith("| yes |"), rows["docs-only"])
            self.assertIn("**no**: no 'past the end' in the reasons", rows["overrun-vector-add"])
            self.assertIn("exit 3, expected 0", rows["comment-only"])
            self.assertIn("no GPU found", rows["comment-only"])
            self.assertIn("exit ?: no shapes", rows["regression-reduce0"])


class AaBiasSources(unittest.TestCase):
    def test_comment_and_plant_land_in_the_kernels(self):
        script = os.path.join(ROOT, "bench", "gpu", "aa_bias.py")
        with tempfile.TemporaryDirectory() as tmp:
            repo = os.path.join(tmp, "example")
            shutil.copytree(EXAMPLE, repo)
            before = open(os.path.join(repo, "csrc", "rmsnorm.cu")).read()
            subprocess.run([sys.executable, script, "comment", repo, "cuda"], check=True)
            after = open(os.path.join(repo, "csrc", "rmsnorm.cu")).read()
            self.assertTrue(after.startswith(before))
            self.assertRegex(after[len(before):], r"^\n// A/A: [^\n]*\n$")
            for steps in (1000, 2345):  # planting again replaces the first
                subprocess.run([sys.executable, script, "plant", repo, "gemv", "cuda", str(steps)],
                               check=True)
            text = open(os.path.join(repo, "csrc", "gemv.cu")).read()
            self.assertEqual(text.count("#define KGATE_PLANT_STEPS"), 1)
            self.assertIn("#define KGATE_PLANT_STEPS 2345", text)
            self.assertEqual(text.count("KGATE_PLANT();"), 1)
            # Right after the entry's opening brace.
            self.assertRegex(text, r"void\s+\w*\s*gemv\([^)]*\)\s*\{\n  KGATE_PLANT\(\);")
            subprocess.run([sys.executable, script, "plant", repo, "softmax", "host", "7"],
                           check=True)
            host = open(os.path.join(repo, "host", "softmax.cpp")).read()
            self.assertRegex(host, r"void softmax\([^)]*\) \{\n  KGATE_PLANT\(\);")
            self.assertIn("volatile long kgate_i", host)


if __name__ == "__main__":
    unittest.main()
