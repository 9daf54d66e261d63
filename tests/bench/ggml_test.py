#!/usr/bin/env python3
"""bench/ggml without a GPU: make_repo.sh replays ggml's history (real git) and
every needed file at every tag is upstream's blob (0 lines changed); the
manifests are what glue_manifests.py writes; every case's tags exist; kgate
check compiles every case's kernels at its base and head for sm_90 (nvcc); the
independent harness's shapes are kgate.json's; the verdict table reads gate
and harness reports as run_gpu.sh writes them."""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GGML = os.path.join(ROOT, "bench", "ggml")


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True,
                          check=True).stdout


def read(path):
    with open(path) as f:
        return f.read()


def load(name):
    return json.loads(read(os.path.join(GGML, name)))


def jsonc(text):
    return json.loads("\n".join(re.sub(r"^\s*//.*$|\s//\s.*$", "", l) for l in text.splitlines()))


class Replay(unittest.TestCase):
    repo = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.repo = os.path.join(cls.tmp, "replay")
        run = subprocess.run(["bash", os.path.join(GGML, "make_repo.sh"), cls.repo],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise AssertionError("make_repo.sh failed: " + run.stderr)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def tree(self, rev):
        out = {}
        for line in git(self.repo, "ls-tree", "-r", rev).splitlines():
            meta, path = line.split("\t", 1)
            out[path] = meta.split()[2]
        return out

    def test_every_tag_holds_upstreams_blobs(self):
        upstream = load("upstream.json")
        state = dict(upstream["first"]["blobs"])
        commits = [upstream["first"]] + upstream["commits"]
        self.assertEqual(int(git(self.repo, "rev-list", "--count", "HEAD")), len(commits))
        for n, c in enumerate(commits):
            for path, blob in c.get("changed", {}).items():
                if blob is None:
                    state.pop(path, None)
                else:
                    state[path] = blob
            tree = self.tree("up/" + c["short"])
            for path in upstream["files"]:
                self.assertEqual(tree.get(path), state.get(path), "%s at up/%s" % (path, c["short"]))
            # Everything else is the glue: kgate.json and ref/.
            extra = {p for p in tree if p not in upstream["files"]}
            self.assertTrue(extra <= {"kgate.json"} | {p for p in extra if p.startswith("ref/")}, extra)
            if n:  # upstream's author, date and subject
                log = git(self.repo, "log", "-1", "--format=%an%n%aI%n%s%n%b", "up/" + c["short"])
                author, date, subject = log.splitlines()[:3]
                self.assertEqual((author, subject), (c["author"], c["subject"]))
                self.assertIn("upstream: " + c["commit"], log)
        self.assertIn("Permission is hereby granted", git(self.repo, "show", "up/3e12f441:LICENSE"))

    def test_each_commits_parent_tag_is_the_commit_before_it(self):
        for c in load("upstream.json")["commits"]:
            parent = git(self.repo, "rev-parse", "up/%s^" % c["short"]).strip()
            self.assertEqual(git(self.repo, "rev-parse", "up/" + c["parent"][:8]).strip(), parent)

    def test_the_same_hashes_on_every_build(self):
        # Fixed committer and upstream dates: a second build gives the same commit ids.
        again = os.path.join(self.tmp, "again")
        subprocess.run(["bash", os.path.join(GGML, "make_repo.sh"), again], capture_output=True, check=True)
        self.assertEqual(git(again, "rev-parse", "HEAD"), git(self.repo, "rev-parse", "HEAD"))

    def test_cases_name_tags_and_kernels_of_the_replay(self):
        for case in load("cases.json")["cases"]:
            manifest = jsonc(git(self.repo, "show", case["head"] + ":kgate.json"))
            names = {k["name"] for k in manifest["kernels"]}
            git(self.repo, "rev-parse", case["base"])
            for k in case["kernels"]:
                self.assertIn(k["kernel"], names, case["commit"])
                self.assertTrue(k["why"] and k["expect"], case["commit"])
            # The case's head is the upstream commit of that name.
            self.assertIn("upstream: " + case["commit"], git(self.repo, "log", "-1", "--format=%b", case["head"]))
        # At least two cases change a kernel's signature, one of them into a struct.
        changes = [c["signature_change"] for c in load("cases.json")["cases"] if "signature_change" in c]
        self.assertGreaterEqual(len(changes), 2)
        self.assertTrue(any("struct" in c for c in changes))

    def test_kgate_check_compiles_every_case_at_base_and_head(self):
        kgate = os.environ.get("KGATE_TEST_BINARY")
        if not kgate or not os.path.exists(kgate):
            self.skipTest("no kgate binary (set KGATE_TEST_BINARY)")
        if not shutil.which("nvcc") and not os.path.exists("/usr/local/cuda/bin/nvcc"):
            self.skipTest("no nvcc: the kernels compile with nvcc")
        env = dict(os.environ, KGATE_CACHE_DIR=os.path.join(self.tmp, "cache"),
                   PATH=os.environ.get("PATH", "") + ":/usr/local/cuda/bin")
        jobs = set()
        for case in load("cases.json")["cases"]:
            base_kernels = {k["name"] for k in jsonc(git(self.repo, "show", case["base"] + ":kgate.json"))["kernels"]}
            for k in case["kernels"]:
                jobs.add((case["head"], k["kernel"]))
                if k["kernel"] in base_kernels:  # else new in the head
                    jobs.add((case["base"], k["kernel"]))
        jobs.add(("up/3e12f441", ""))  # and every kernel at the last commit

        def check(job):
            rev, kernel = job
            tree = os.path.join(self.tmp, "trees", rev.replace("/", "_") + "-" + (kernel or "all"))
            os.makedirs(tree)
            subprocess.run("git -C %s archive %s | tar x -C %s" % (self.repo, rev, tree), shell=True, check=True)
            args = [kgate, "check", tree, "--arch", "sm_90"] + (["--kernel", kernel] if kernel else [])
            return job, subprocess.run(args, capture_output=True, text=True, env=env)

        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            for (rev, kernel), run in pool.map(check, sorted(jobs)):
                self.assertEqual(run.returncode, 0, "%s %s:\n%s%s" % (rev, kernel, run.stdout, run.stderr))


    def test_the_harness_builds_and_its_parameters_are_the_cubins(self):
        if not shutil.which("nvcc") and not os.path.exists("/usr/local/cuda/bin/nvcc"):
            self.skipTest("no nvcc: the harness's cubins compile with nvcc")
        out = os.path.join(self.tmp, "harness")
        build = subprocess.run(["bash", os.path.join(GGML, "harness", "build.sh"), out, self.repo],
                               capture_output=True, text=True)
        self.assertEqual(build.returncode, 0, build.stderr)
        sides = [l.split("\t") for l in read(os.path.join(out, "kernels.tsv")).splitlines()]
        self.assertTrue(all(s[5].startswith("_Z") for s in sides), sides)
        # Every contract's parameter sizes are the compiled kernel's (read from the cubins,
        # no driver needed).
        check = subprocess.run([os.path.join(out, "ggml_harness"), out, "--check-params"],
                               capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        self.assertRegex(check.stdout, r"check-params: (\d+) of \1 contracts match their cubins")


class Glue(unittest.TestCase):
    def test_the_manifests_are_what_glue_manifests_writes(self):
        run = subprocess.run([sys.executable, os.path.join(GGML, "glue_manifests.py"), "--check"],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)

    def test_the_harness_times_kgates_shapes(self):
        # contracts.cpp's shape tables, by kernel, against the last manifest's.
        text = read(os.path.join(GGML, "harness", "contracts.cpp"))
        table = text[text.index("all_shapes()"):text.index("return shapes;")]
        blocks = dict(re.findall(r'\{"(\w+)",\s*(rows_4096|\{.*?\}\}\})', table, re.S))
        rows_4096 = re.search(r"rows_4096 = \{(.*?)\};", table, re.S).group(1)
        manifest = jsonc(read(os.path.join(GGML, "glue", "3e12f441", "kgate.json")))
        order = {"rms": ["ncols", "nrows", "nch", "ld"], "norm": ["ncols", "nrows", "nch", "ld"],
                 "group": ["w", "h", "c", "n", "groups"], "soft": ["ncols", "rows", "heads"],
                 "reduce": ["ncols"], "argmax": ["ncols"]}
        for k in manifest["kernels"]:
            body = rows_4096 if blocks.get(k["name"]) == "rows_4096" else blocks.get(k["name"], "")
            self.assertTrue(body, "no harness shapes for " + k["name"])
            got = [(n, t == "true", [int(x) for x in v.split(",")])
                   for n, t, v in re.findall(r'\{"([\w.-]+)", (true|false), \{([\d, ]+)\}\}', body)]
            names = order[k["name"].split("_")[0]]
            want = [(s["name"], s["phase"] != "edge", [s[v] for v in names]) for s in k["shapes"]]
            self.assertEqual([(n, t, v[:len(names)]) for n, t, v in got], want, k["name"])

    def test_sides_name_an_instantiation_per_era(self):
        run = subprocess.run([sys.executable, os.path.join(GGML, "harness", "sides.py"),
                              os.path.join(GGML, "cases.json"), os.path.join(GGML, "upstream.json")],
                             capture_output=True, text=True, check=True)
        sides = [l.split("\t") for l in run.stdout.splitlines()]
        by = {(s[0], s[1], s[2]): s for s in sides}
        # 58450487 moves rms_norm's small rows from a warp to 256 threads; 91f96a96 the long
        # softmax rows into shared memory.
        self.assertEqual(by[("58450487", "rms_norm_f32_small", "base")][6], "rms_norm_f32<32, false, false>")
        self.assertEqual(by[("58450487", "rms_norm_f32_small", "head")][6], "rms_norm_f32<256, false, false>")
        self.assertEqual(by[("91f96a96", "soft_max_f32_smem_optin", "base")][6], "soft_max_f32<false, 0, 0, float>")
        self.assertEqual(by[("91f96a96", "soft_max_f32_smem_optin", "head")][6], "soft_max_f32<true, 0, 0, float>")
        self.assertNotIn(("63d8a6ba", "rms_norm_mul_f32", "head"), by)  # new: nothing to time against


class VerdictTable(unittest.TestCase):
    def test_expected_and_unexpected_verdicts_and_ratios(self):
        with tempfile.TemporaryDirectory() as out:
            def gate(name, code, shapes):
                with open(os.path.join(out, name + ".exit"), "w") as f:
                    f.write("%d\n" % code)
                if shapes is not None:
                    kernel = name.split("-", 1)[1]
                    with open(os.path.join(out, name + ".json"), "w") as f:
                        json.dump({"kernels": [{"kernel": kernel, "device": {"name": "NVIDIA H200"},
                                                "shapes": shapes}]}, f)
                with open(os.path.join(out, name + ".log"), "w") as f:
                    f.write("kgate: error: no GPU found\n")

            def shape(name, verdict, ratio, timing="gate"):
                return {"shape": name, "verdict": verdict, "timing": timing, "interval": {"estimate": ratio},
                        "base_median_s": 1e-5, "head_median_s": 1e-5 * ratio, "reason": ""}

            gate("e9cae642-reduce_rows_f32_1row", 0, [shape("row-4096", "faster", 0.2),
                                                     shape("row-65536", "same", 1.0),
                                                     shape("edge-33", "same", 1.0, "off")])
            gate("e689b63c-soft_max_f32", 3, None)
            with open(os.path.join(out, "harness.json"), "w") as f:
                json.dump({"device": "NVIDIA H200", "results": [
                    {"case": "e9cae642", "kernel": "reduce_rows_f32_1row", "shape": "row-4096",
                     "ratio": 0.21, "low": 0.2, "high": 0.22, "check": "ok"},
                    {"case": "e9cae642", "kernel": "reduce_rows_f32_1row", "shape": "row-65536",
                     "ratio": 0.05, "low": 0.04, "high": 0.06, "check": "ok",
                     # The kernels' own durations, where recorded, are what is compared.
                     "kernel_ratio": 0.06, "kernel_low": 0.055, "kernel_high": 0.065}]}, f)
            run = subprocess.run([sys.executable, os.path.join(GGML, "verdict_table.py"),
                                  os.path.join(GGML, "cases.json"), out], capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            rows = {tuple(c.strip() for c in l.split("|")[1:4]): l for l in run.stdout.splitlines()
                    if l.startswith("| ") and not l.startswith("| commit")}
            ok = rows[("e9cae642", "reduce_rows_f32_1row", "row-4096")]
            self.assertIn("| faster | faster | 0.200 | 0.210 [0.200, 0.220] | ok | yes | yes (-1.0) |", ok)
            wrong = rows[("e9cae642", "reduce_rows_f32_1row", "row-65536")]
            self.assertIn("| 0.060 [0.055, 0.065] (events 0.050) |", wrong)
            self.assertIn("| **no** | **no** (+94.0) |", wrong)
            self.assertIn("| checked |", rows[("e9cae642", "reduce_rows_f32_1row", "edge-33")])
            self.assertIn("e689b63c-soft_max_f32: no report (exit 3): kgate: error: no GPU found", run.stdout)
            self.assertIn("Device: NVIDIA H200.", run.stdout)


if __name__ == "__main__":
    unittest.main()
