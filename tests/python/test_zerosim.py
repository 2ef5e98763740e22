"""The Python package (src/python/zerosim) over libzerosim.so: answers byte-identical to the
command line's --format json, errors as exceptions. Run by tests/python/run.py."""
import json
import os
import subprocess
import sys
import threading
import unittest

import zerosim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, os.environ.get("ZEROSIM", "zerosim"))


def cli(*args):
    """What the command line prints with --format json (its exit status aside)."""
    p = subprocess.run([CLI, *args, "--format", "json"], cwd=ROOT, capture_output=True, text=True)
    return p.stdout


class Identical(unittest.TestCase):
    """The raw answer is the command line's output, byte for byte."""

    def same(self, request, *args):
        rc, answer = zerosim.call_raw(request)
        self.assertEqual(answer, cli(*args), request)

    def test_estimate(self):
        self.same({"command": "estimate", "model": "llama-2-7b", "gpus": 8, "seq-len": 4096,
                   "checkpointing": "full"},
                  "estimate", "--model", "llama-2-7b", "--gpus", "8", "--seq-len", "4096",
                  "--checkpointing", "full")
        self.same({"command": "estimate", "model": "llama-2-70b", "gpus": 64, "seq_len": 4096,
                   "hardware": "h100-80gb", "strategy": "zero3"},
                  "estimate", "--model", "llama-2-70b", "--gpus", "64", "--seq-len", "4096",
                  "--hardware", "h100-80gb", "--strategy", "zero3")

    def test_nothing_fits(self):
        rc, answer = zerosim.call_raw({"command": "estimate", "model": "llama-2-70b", "gpus": 1})
        self.assertEqual(rc, 1)
        self.assertEqual(answer, cli("estimate", "--model", "llama-2-70b", "--gpus", "1"))

    def test_compare_plan(self):
        self.same({"command": "compare", "model": "llama-2-7b", "gpus": 8, "max-gpus": 16},
                  "compare", "--model", "llama-2-7b", "--gpus", "8", "--max-gpus", "16")
        self.same({"command": "plan", "model": "llama-2-7b", "max_gpus": 16, "no-pp": True},
                  "plan", "--model", "llama-2-7b", "--max-gpus", "16", "--no-pp")

    def test_sweep_validate(self):
        self.same({"command": "sweep", "model": "llama-2-7b", "gpus": [8, 16], "strategy": "zero2"},
                  "sweep", "--model", "llama-2-7b", "--gpus", "8,16", "--strategy", "zero2")
        runs = "tests/validation/published_runs.csv"
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            self.same({"command": "validate", "args": [runs]}, "validate", runs)
        finally:
            os.chdir(cwd)


class Package(unittest.TestCase):
    def test_issue_check(self):
        r = zerosim.estimate(model="llama-2-7b", gpus=8)
        want = json.loads(cli("estimate", "--model", "llama-2-7b", "--gpus", "8"))
        self.assertEqual(r["results"][0]["memory_bytes"]["total"],
                         want["results"][0]["memory_bytes"]["total"])
        self.assertEqual(r, want)

    def test_sweep_rows(self):
        rows = zerosim.sweep(model="llama-2-7b", gpus=[8, 16, 32], strategy="zero3")
        self.assertEqual([row["gpus"] for row in rows], [8, 16, 32])

    def test_misspelled_keyword(self):
        with self.assertRaises(TypeError) as c:
            zerosim.estimate(model="llama-2-7b", seq_lenn=4096)
        self.assertIn("did you mean --seq-len?", str(c.exception))

    def test_refused(self):
        with self.assertRaises(zerosim.Error) as c:
            zerosim.estimate(model="llama-2-7b", gpus=3, tp=2)
        self.assertEqual(c.exception.code, 2)
        self.assertIn("not a multiple of --tp 2", c.exception.message)
        with self.assertRaises(zerosim.Error) as c:
            zerosim.estimate(model="no-such-model")
        self.assertEqual(c.exception.code, 3)

    def test_lists(self):
        self.assertIn("llama-2-7b", zerosim.list_models())
        self.assertIn("a100-80gb", zerosim.list_hardware())
        self.assertTrue(zerosim.version())

    def test_threads(self):
        want = zerosim.estimate(model="llama-2-13b", gpus=16)
        got = []

        def work():
            for _ in range(5):
                got.append(zerosim.estimate(model="llama-2-13b", gpus=16) == want)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(got, [True] * 20)


class Results(unittest.TestCase):
    """The answers stay the JSON (dicts) and read as objects: .fits, .memory, .step."""

    def setUp(self):
        self.want = json.loads(cli("estimate", "--model", "llama-2-7b", "--gpus", "8"))
        self.r = zerosim.estimate(model="llama-2-7b", gpus=8)

    def test_dict_and_properties(self):
        self.assertIsInstance(self.r, dict)
        self.assertEqual(json.loads(json.dumps(self.r)), self.want)
        rows = {x["strategy"]: x for x in self.want["results"]}
        self.assertEqual(self.r.fits, {k: x["fits"] for k, x in rows.items()})
        self.assertEqual(self.r.memory, {k: x["memory_bytes"]["total"] for k, x in rows.items()})
        self.assertEqual(self.r.step, {k: x["step_time_seconds"]["total"] for k, x in rows.items()})
        # 7B on 8 x 80 GB: DDP's 16 bytes per parameter of model states alone (112 GB) do not fit.
        self.assertFalse(self.r.fits["ddp"])
        self.assertTrue(self.r.fits["zero3"])

    def test_framework_keys(self):
        r = zerosim.compare(model="llama-2-7b", gpus=8, max_gpus=8, framework="all")
        keys = list(r.fits)
        self.assertIn("deepspeed:zero3", keys)
        self.assertEqual(len(keys), len(r["results"]))

    def test_sweep_rows(self):
        rows = zerosim.sweep(model="llama-2-7b", gpus=[8, 16], strategy="zero3")
        want = [json.loads(x) for x in cli("sweep", "--model", "llama-2-7b", "--gpus", "8,16",
                                           "--strategy", "zero3").splitlines()]
        self.assertEqual(rows, want)
        self.assertEqual(rows.memory, [x["memory_bytes.total"] for x in want])
        self.assertEqual(rows.step, [x["step_time_seconds.total"] for x in want])
        self.assertEqual(rows.fits, [x["fits"] for x in want])
        self.assertEqual(rows[0].memory, want[0]["memory_bytes.total"])

    def test_plan(self):
        p = zerosim.plan(model="llama-2-7b", max_gpus=16)
        self.assertEqual(p.memory[p["ranked"][0]["strategy"]], p["ranked"][0]["memory_bytes"]["total"])
        self.assertTrue(all(p.fits.values()))

    def test_dataframe(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed for %s (Debian: python3-pandas)" % sys.executable)
        df = zerosim.sweep(model="llama-2-7b", gpus=[8, 16, 32], strategy="zero3").to_dataframe()
        self.assertEqual(list(df["gpus"]), [8, 16, 32])
        self.assertEqual(list(df["memory_bytes.total"]),
                         zerosim.sweep(model="llama-2-7b", gpus=[8, 16, 32], strategy="zero3").memory)
        e = self.r.to_dataframe()
        self.assertEqual(list(e["strategy"]), [x["strategy"] for x in self.want["results"]])
        self.assertEqual(list(e["memory_bytes.total"]), [x["memory_bytes"]["total"]
                                                         for x in self.want["results"]])

    def test_dataframe_without_pandas(self):
        saved = sys.modules.get("pandas")
        sys.modules["pandas"] = None  # import pandas now raises ImportError
        try:
            with self.assertRaises(ImportError) as c:
                self.r.to_dataframe()
            self.assertIn("needs pandas", str(c.exception))
        finally:
            if saved is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved


class Report(unittest.TestCase):
    def test_page_and_version(self):
        self.assertEqual(zerosim.api_version(), 1)
        page = zerosim.report(model="llama-2-7b", gpus=8)
        p = subprocess.run([CLI, "report", "--model", "llama-2-7b", "--gpus", "8", "-o", "-"], cwd=ROOT,
                           capture_output=True, text=True)
        self.assertEqual(page, p.stdout)
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        with self.assertRaises(TypeError):
            zerosim.report(model="llama-2-7b", gpuss=8)

    def test_output_file(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "plan.html")
            page = zerosim.report(model="llama-2-7b", gpus=8, output=path)
            with open(path, encoding="utf-8") as f:
                self.assertEqual(f.read(), page)


if __name__ == "__main__":
    unittest.main()
