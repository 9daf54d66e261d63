#!/usr/bin/env python3
"""bench/candle without a GPU: make_repo.sh replays candle's history with every
upstream file byte for byte at every tag (the git blob ids of upstream.json),
kgate compiles every case's base and head for sm_90 (all but the one base that
upstream broke), the harness's spec has the shapes kgate.json has, and the
verdict table says right or wrong per shape from reports in kgate's format."""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CANDLE = os.path.join(ROOT, "bench", "candle")


def load(path):
    with open(path) as f:
        return json.load(f)


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True,
                          check=True).stdout


def manifest_at(repo, tag):
    text = git(repo, "show", "up/%s:kgate.json" % tag)
    return json.loads(re.sub(r"//[^\n]*", "", text))


class Expr:
    """kgate.json's integer expressions (docs/manifest.md, "The expression language"), enough
    of them for this manifest: C's operators and precedence, ?:, ceil_div, min, ceil_log2."""
    LEVELS = [["||"], ["&&"], ["|"], ["^"], ["&"], ["==", "!=", "<=", ">=", "<", ">"], ["<<", ">>"],
              ["+", "-"], ["*", "/", "%"]]

    def __init__(self, text, names):
        self.tokens = re.findall(r"\d+|[A-Za-z_]\w*|\|\||&&|==|!=|<=|>=|<<|>>|\S", text)
        self.pos, self.names = 0, names

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self):
        self.pos += 1
        return self.tokens[self.pos - 1]

    def value(self):
        v = self.conditional()
        assert self.peek() is None, self.tokens
        return v

    def conditional(self):
        c = self.binary(0)
        if self.peek() == "?":
            self.take()
            a = self.conditional()
            assert self.take() == ":"
            b = self.conditional()
            return a if c else b
        return c

    def binary(self, level):
        if level == len(self.LEVELS):
            return self.unary()
        v = self.binary(level + 1)
        while self.peek() in self.LEVELS[level]:
            op, r = self.take(), self.binary(level + 1)
            v = {"||": lambda: int(bool(v or r)), "&&": lambda: int(bool(v and r)),
                 "|": lambda: v | r, "^": lambda: v ^ r, "&": lambda: v & r,
                 "==": lambda: int(v == r), "!=": lambda: int(v != r), "<=": lambda: int(v <= r),
                 ">=": lambda: int(v >= r), "<": lambda: int(v < r), ">": lambda: int(v > r),
                 "<<": lambda: v << r, ">>": lambda: v >> r, "+": lambda: v + r,
                 "-": lambda: v - r, "*": lambda: v * r,
                 "/": lambda: int(v / r), "%": lambda: v - r * int(v / r)}[op]()
        return v

    def unary(self):
        t = self.take()
        if t == "-":
            return -self.unary()
        if t == "!":
            return int(not self.unary())
        if t == "(":
            v = self.conditional()
            assert self.take() == ")"
            return v
        if t.isdigit():
            return int(t)
        if self.peek() == "(":
            self.take()
            args = [self.conditional()]
            while self.peek() == ",":
                self.take()
                args.append(self.conditional())
            assert self.take() == ")"
            return {"ceil_div": lambda a, b: -(-a // b), "min": min, "max": max,
                    "ceil_log2": lambda a: (a - 1).bit_length()}[t](*args)
        return self.names[t]


def evaluate(expr, names):
    return expr if isinstance(expr, int) else Expr(str(expr), names).value()


def variables(kernel, shape):
    """A shape's variables with the kernel's lets, in an order where each comes after those it reads."""
    names = {k: v for k, v in shape.items() if isinstance(v, int)}
    lets = dict(kernel.get("let", {}))
    while lets:
        for name, expr in list(lets.items()):
            try:
                names[name] = evaluate(expr, names)
                del lets[name]
            except KeyError:
                pass
    return names


ARG_BYTES = {"size_t": 8, "uint32": 4, "int32": 4, "float": 4, "uint8_t": 1}


def kgate_binary():
    for path in (os.environ.get("KGATE_TEST_BINARY", ""), os.path.join(ROOT, "build", "kgate")):
        if path and os.access(path, os.X_OK):
            return path
    return None


def spec_shapes(path):
    """{(case, kernel): {shape: (variables, timed)}} from harness/spec.txt."""
    out, case, kernel = {}, None, None
    with open(path) as f:
        lines = f.read().splitlines()
    for line in lines:
        words = line.split("#")[0].split()
        if not words:
            continue
        if words[0] == "case":
            case = words[1]
        elif words[0] == "kernel":
            kernel = words[1]
            out[(case, kernel)] = {}
        elif words[0] == "shape":
            values = dict(w.split("=") for w in words[2:] if "=" in w)
            out[(case, kernel)][words[1]] = ({k: int(v) for k, v in values.items()},
                                             "untimed" not in words)
    return out


class Replay(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.repo = os.path.join(cls.tmp.name, "candle")
        run = subprocess.run(["bash", os.path.join(CANDLE, "make_repo.sh"), cls.repo],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        cls.upstream = load(os.path.join(CANDLE, "upstream.json"))
        cls.cases = load(os.path.join(CANDLE, "cases.json"))["cases"]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_upstream_file_is_upstreams_blob_at_every_tag(self):
        commits = self.upstream["commits"]
        tags = git(self.repo, "tag", "--list", "up/*").split()
        self.assertEqual(sorted(tags), sorted("up/" + c["short"] for c in commits))
        for c in commits:
            tag = "up/" + c["short"]
            files = set(git(self.repo, "ls-tree", "-r", "--name-only", tag, "candle-kernels").split())
            self.assertEqual(files, set(c["blobs"]), tag)
            for path, blob in c["blobs"].items():
                self.assertEqual(git(self.repo, "rev-parse", "%s:%s" % (tag, path)).strip(), blob,
                                 "%s %s differs from upstream" % (tag, path))
            for lic, blob in self.upstream["license_blobs"].items():
                self.assertEqual(git(self.repo, "rev-parse", "%s:%s" % (tag, lic)).strip(), blob)

    def test_lines_changed_counts_none_and_sees_a_changed_file(self):
        script = os.path.join(CANDLE, "lines_changed.py")
        run = subprocess.run([sys.executable, script, self.repo], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("lines changed: 0", run.stdout)
        self.assertIn("| up/645459794 | 8 | 8 | 0 |", run.stdout)
        # One line more in reduce.cu at a tag: no longer upstream's blob.
        copy = os.path.join(self.tmp.name, "changed")
        subprocess.run(["git", "clone", "-q", self.repo, copy], check=True)
        git(copy, "fetch", "-q", "origin", "refs/tags/*:refs/tags/*")
        git(copy, "checkout", "-q", "up/645459794")
        with open(os.path.join(copy, "candle-kernels", "src", "reduce.cu"), "a") as f:
            f.write("// changed\n")
        git(copy, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "changed")
        git(copy, "tag", "-f", "up/645459794")
        run = subprocess.run([sys.executable, script, copy], capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        self.assertIn("up/645459794 candle-kernels/src/reduce.cu differs from upstream", run.stderr)
        self.assertIn("| up/645459794 | 8 | 7 | 0 |", run.stdout)

    def test_history_is_upstreams_order_with_upstreams_dates(self):
        entries = git(self.repo, "log", "--reverse", "--format=%H", "main").split()
        commits = self.upstream["commits"]
        self.assertEqual(len(entries), len(commits))
        for sha, c in zip(entries, commits):
            self.assertEqual(git(self.repo, "rev-parse", "up/%s^{commit}" % c["short"]).strip(), sha)
            body = git(self.repo, "log", "-1", "--format=%s%n%b%n%aI", sha)
            self.assertIn(c["subject"], body)
            self.assertIn("upstream: huggingface/candle@" + c["commit"], body)
            self.assertIn(c["author_date"][:19], git(self.repo, "log", "-1", "--format=%cI", sha))
        # A launcher-only commit changes kgate.json and nothing of upstream's.
        for c in commits:
            if c.get("launcher_only"):
                changed = git(self.repo, "diff", "--name-only", "up/%s^" % c["short"], "up/" + c["short"])
                self.assertEqual(changed.split(), ["kgate.json"], c["short"])

    def test_each_case_names_kernels_of_both_revisions(self):
        self.assertGreaterEqual(len(self.cases), 6)
        self.assertGreaterEqual(sum(c["signature_change"] for c in self.cases), 2)
        for c in self.cases:
            base = {k["name"] for k in manifest_at(self.repo, c["base"])["kernels"]}
            head = manifest_at(self.repo, c["head"])["kernels"]
            for k in c["kernels"]:
                self.assertIn(k["kernel"], {h["name"] for h in head}, c["id"])
                new = all(e["verdict"] == "new" for e in k["expect"]) and k["harness"]["base_variant"] == "-"
                self.assertEqual(k["kernel"] not in base, new, (c["id"], k["kernel"]))
            # The head is upstream's commit, the base the replayed commit before it.
            parent = git(self.repo, "rev-parse", "up/%s^" % c["head"]).strip()
            self.assertEqual(parent, git(self.repo, "rev-parse", "up/%s^{commit}" % c["base"]).strip())

    def test_the_harness_spec_has_kgate_jsons_shapes(self):
        spec = spec_shapes(os.path.join(CANDLE, "harness", "spec.txt"))
        for c in self.cases:
            head = {k["name"]: k for k in manifest_at(self.repo, c["head"])["kernels"]}
            for k in c["kernels"]:
                shapes = spec[(c["id"], k["kernel"])]
                declared = head[k["kernel"]]["shapes"]
                self.assertEqual(list(shapes), [s["name"] for s in declared], (c["id"], k["kernel"]))
                for s in declared:
                    variables = {n: v for n, v in s.items() if n not in ("name", "phase", "timing")}
                    values, timed = shapes[s["name"]]
                    values = {n: v for n, v in values.items() if n != "unbatched"}
                    self.assertEqual(values, variables, (c["id"], k["kernel"], s["name"]))
                    self.assertEqual(timed, s.get("timing") != "off", (c["id"], s["name"]))

    def test_the_harness_launches_each_side_as_its_kgate_json_does(self):
        harness = os.path.join(self.tmp.name, "candle_ab")
        clock = os.path.join(CANDLE, "..", "harness_clock")  # as build_harness.sh compiles it
        build = subprocess.run(["g++", "-std=c++17", "-O2", "-I/usr/local/cuda/include", "-I" + clock,
                                *sorted(os.path.join(CANDLE, "harness", f)
                                        for f in os.listdir(os.path.join(CANDLE, "harness"))
                                        if f.endswith(".cpp")), os.path.join(clock, "kernel_clock.cpp"),
                                "-ldl", "-lpthread", "-o", harness],
                               capture_output=True, text=True)
        if build.returncode != 0 and "cuda.h" in build.stderr:
            self.skipTest("no CUDA toolkit headers")
        self.assertEqual(build.returncode, 0, build.stderr)
        run = subprocess.run([harness, "--describe", os.path.join(CANDLE, "harness", "spec.txt")],
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(run.returncode, 0, run.stderr)
        cases = {c["id"]: c for c in self.cases}
        manifests = {}
        lines = run.stdout.splitlines()
        self.assertGreater(len(lines), 300)
        for line in lines:
            case, kernel, shape_name, side, grid, block, sizes, info = line.split()
            tag = cases[case][side]
            if tag not in manifests:
                manifests[tag] = {k["name"]: k for k in manifest_at(self.repo, tag)["kernels"]}
            k = manifests[tag][kernel]
            shape = next(s for s in k["shapes"] if s["name"] == shape_name)
            names = variables(k, shape)
            want = [8 if a["type"].endswith("*") else ARG_BYTES[a["type"]] for a in k["args"]]
            where = (case, kernel, shape_name, side)
            self.assertEqual([int(x) for x in sizes.split(",")], want, where)
            self.assertEqual(int(grid), evaluate(k["launch"]["grid"][0], names), where)
            self.assertEqual(int(block), evaluate(k["launch"]["block"][0], names), where)
            # The layout each side passes: kgate.json's given contents, or NULL where it says so.
            arg = next((a for a in k["args"] if a["name"] == "info"), None)
            if arg is None:
                self.assertEqual(info, "-", where)
            elif "null" in arg and evaluate(arg["null"], names):
                self.assertEqual(info, "NULL", where)
            elif "formula" in arg["init"]:
                want = [evaluate(arg["init"]["formula"], dict(names, i=i))
                        for i in range(evaluate(arg["count"], names))]
                self.assertEqual(info, ",".join(map(str, want)), where)
            else:
                want = [evaluate(v, names) for v in arg["init"]["values"]]
                self.assertEqual(info, ",".join(map(str, want)), where)

    def test_kgate_compiles_every_case_for_sm_90(self):
        kgate = kgate_binary()
        if not kgate:
            self.skipTest("no kgate binary (set KGATE_TEST_BINARY)")
        env = dict(os.environ, KGATE_CACHE_DIR=os.path.join(self.tmp.name, "cache"))
        checked = {}
        for c in self.cases:
            for side in ("base", "head"):
                tag = c[side]
                if tag in checked:
                    continue
                tree = os.path.join(self.tmp.name, "tree-" + tag)
                os.makedirs(tree)
                archive = subprocess.run(["git", "-C", self.repo, "archive", "up/" + tag],
                                         capture_output=True, check=True).stdout
                subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
                run = subprocess.run([kgate, "check", tree, "--arch", "sm_90"],
                                     capture_output=True, text=True, env=env, timeout=1200)
                checked[tag] = run
        for tag, run in checked.items():
            if tag == "b60064780":
                # upstream's own bug: silu_fwd casts to scalar_t, which does not exist; every
                # unary.cu kernel fails, the others compile.
                self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
                failed = sorted(l.split()[0] for l in run.stdout.splitlines() if l.endswith(" fail"))
                self.assertEqual(failed, ["usilu_bf16", "usilu_f32"], run.stdout)
                self.assertIn('candle-kernels/src/unary.cu:60: error: identifier "scalar_t" is undefined',
                              run.stdout)
            else:
                self.assertEqual(run.returncode, 0, "up/%s: %s%s" % (tag, run.stdout, run.stderr))


def shape(name, verdict, ratio=None):
    s = {"shape": name, "verdict": verdict, "reason": "", "base_median_s": None, "head_median_s": None}
    if ratio is not None:
        s.update(base_median_s=1e-5, head_median_s=1e-5 * ratio,
                 interval={"estimate": ratio, "low": ratio - 0.01, "high": ratio + 0.01})
    return s


class VerdictTable(unittest.TestCase):
    def test_right_and_wrong_shapes_and_magnitudes(self):
        with tempfile.TemporaryDirectory() as out:
            def write(name, code, shapes):
                with open(os.path.join(out, name + ".exit"), "w") as f:
                    f.write("%d\n" % code)
                with open(os.path.join(out, name + ".json"), "w") as f:
                    json.dump({"kernels": [{"kernel": name.split("-", 1)[1], "shapes": shapes,
                                            "device": {"name": "NVIDIA H200"}}]}, f)
            write("645459794-rmsnorm_bf16", 0, [
                shape("prefill-4096x768", "faster", 0.30), shape("prefill-4096x4096", "same", 1.00)])
            write("645459794-rmsnorm_bf16.b64", 0, [shape("decode-64x896", "same", 1.01)])
            untimed = dict(shape("edge-1x1", "checked"), timing="off")
            write("645459794-rmsnorm_bf16.b1", 1, [untimed, shape("decode-1x896", "slower", 2.0)])
            with open(os.path.join(out, "645459794-layernorm_bf16.exit"), "w") as f:
                f.write("3\n")
            with open(os.path.join(out, "645459794-layernorm_bf16.log"), "w") as f:
                f.write("kgate: reading up/1df2bddcc and up/645459794\nkgate: error: no GPU found\n")
            with open(os.path.join(out, "harness.tsv"), "w") as f:
                w = csv.writer(f, delimiter="\t")
                w.writerow(["case", "kernel", "shape", "base_us", "head_us", "ratio", "ci_lo", "ci_hi",
                            "samples", "base_kernel_us", "head_kernel_us", "kernel_ratio", "kernel_ci_lo",
                            "kernel_ci_hi", "base_status", "head_status", "agree"])
                # Events only (no kernel durations recorded): the events' ratio is compared.
                w.writerow(["645459794", "rmsnorm_bf16", "prefill-4096x768", "40", "12", "0.31", "0.30",
                            "0.32", "200", "-", "-", "-", "-", "-", "ok", "ok", "within-tol"])
                # Kernel durations recorded: they are compared, the events' ratio shown beside.
                w.writerow(["645459794", "rmsnorm_bf16", "prefill-4096x4096", "6", "6.6", "1.10", "1.0",
                            "1.2", "200", "4", "4.2", "1.05", "1.04", "1.06", "ok", "ok", "identical"])
            run = subprocess.run([sys.executable, os.path.join(CANDLE, "verdict_table.py"),
                                  os.path.join(CANDLE, "cases.json"), out], capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            rows = {tuple(c.strip() for c in l.split("|")[1:3]): l for l in run.stdout.splitlines()
                    if l.startswith("| rmsnorm_bf16")}
            self.assertIn("| faster | faster |", rows[("rmsnorm_bf16", "prefill-4096x768")])
            self.assertTrue(rows[("rmsnorm_bf16", "prefill-4096x768")].endswith("| yes | yes |"))
            # Expected slower: a same is wrong.
            self.assertIn("| slower | same |", rows[("rmsnorm_bf16.b64", "decode-64x896")])
            self.assertIn("| **no** |", rows[("rmsnorm_bf16.b64", "decode-64x896")])
            # Right verdict, magnitudes 5 points apart.
            self.assertIn("**no** (-5.0 points, 4.8% of the ratio)", rows[("rmsnorm_bf16", "prefill-4096x4096")])
            self.assertIn("| 1.050 [1.040, 1.060] (events 1.100) |", rows[("rmsnorm_bf16", "prefill-4096x4096")])
            self.assertIn("| (exit) | 0 | 0 |", rows[("rmsnorm_bf16", "(exit)")])
            self.assertIn("| (exit) | 1 | 0 | | | | **no** |", rows[("rmsnorm_bf16.b64", "(exit)")])
            # A shape that is not timed is expected "checked".
            self.assertIn("| checked | checked |", rows[("rmsnorm_bf16.b1", "edge-1x1")])
            self.assertIn("| slower | slower |", rows[("rmsnorm_bf16.b1", "decode-1x896")])
            self.assertIn("Device: NVIDIA H200.", run.stdout)
            # A kernel with no report says why, from its log; a case not run says so.
            self.assertIn("| layernorm_bf16 | * | - | exit 3, expected 0: kgate: error: no GPU found |",
                          run.stdout)
            self.assertIn("## 121a71e01: Fix the silu cuda kernel. (#1710)\n\nNot run.", run.stdout)

    def test_a_shape_apart_from_the_harness_but_inside_its_placements(self):
        columns = ["case", "kernel", "shape", "base_us", "head_us", "ratio", "ci_lo", "ci_hi",
                   "samples", "base_kernel_us", "head_kernel_us", "kernel_ratio", "kernel_ci_lo",
                   "kernel_ci_hi", "base_status", "head_status", "agree"]

        def harness_file(path, rows):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                w = csv.writer(f, delimiter="\t")
                w.writerow(columns)
                for shape_name, ratio in rows:
                    w.writerow(["645459794", "layernorm_bf16.b1", shape_name, "2", "20", ratio, ratio,
                                ratio, "400", "2", "20", ratio, ratio, ratio, "ok", "ok", "identical"])

        with tempfile.TemporaryDirectory() as out:
            name = "645459794-layernorm_bf16.b1"
            with open(os.path.join(out, name + ".exit"), "w") as f:
                f.write("0\n")
            with open(os.path.join(out, name + ".json"), "w") as f:
                json.dump({"kernels": [{"kernel": "layernorm_bf16.b1", "device": {"name": "NVIDIA H200"},
                                        "shapes": [shape("decode-1x896", "slower", 9.08),
                                                   shape("odd-1x1000", "slower", 10.27)]}]}, f)
            harness_file(os.path.join(out, "harness.tsv"), [("decode-1x896", "9.80"), ("odd-1x1000", "10.99")])
            # Elsewhere in memory the harness reads decode-1x896 within 2 points of kgate, odd-1x1000 not.
            harness_file(os.path.join(out, "placements", "p1000", "harness-645459794.tsv"),
                         [("decode-1x896", "9.10"), ("odd-1x1000", "10.80")])
            harness_file(os.path.join(out, "placements", "p4200", "harness-645459794.tsv"),
                         [("decode-1x896", "9.50"), ("odd-1x1000", "10.60")])
            run = subprocess.run([sys.executable, os.path.join(CANDLE, "verdict_table.py"),
                                  os.path.join(CANDLE, "cases.json"), out], capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            rows = {tuple(c.strip() for c in l.split("|")[1:3]): l for l in run.stdout.splitlines()
                    if l.startswith("| layernorm_bf16")}
            inside = rows[("layernorm_bf16.b1", "decode-1x896")]
            self.assertIn("; 3 placements 9.100 to 9.800", inside)
            self.assertIn("**no** (-72.0 points, 7.3% of the ratio), within the harness's range over 3 placements |",
                          inside)
            outside = rows[("layernorm_bf16.b1", "odd-1x1000")]
            self.assertTrue(outside.endswith("**no** (-72.0 points, 6.6% of the ratio) |"), outside)
            self.assertIn("on 0 of 2 shapes both timed, kgate's estimate and the harness's ratio agree "
                          "within 2 points; of the other 2, 1 lie within 2 points of the harness's own "
                          "range over its 3 placements of the buffers.", run.stdout)


if __name__ == "__main__":
    unittest.main()
