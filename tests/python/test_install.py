"""`pip install ./src/python` (issue 25 item 2): into a fresh virtual environment, offline, with
each Python at hand (Debian's /usr/bin/python3 and the python3 on PATH); the installed package
then works from a clean process (no PYTHONPATH, ZEROSIM_LIB or ZEROSIM_DATA, another working
directory) with its own copy of the library and the catalogs, and answers what the CLI does."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import zerosim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, os.environ.get("ZEROSIM", "zerosim"))

CHECK = r"""
import json, os, sys, zerosim
here = os.path.dirname(zerosim.__file__)
r = zerosim.estimate(model="llama-2-7b", gpus=8)
print(json.dumps({"file": zerosim.__file__, "lib": zerosim.library_path(),
    "data": os.environ.get("ZEROSIM_DATA"), "api": zerosim.api_version(), "version": zerosim.version(),
    "answer": r, "fits": r.fits, "models": len(zerosim.list_models()),
    "page": zerosim.report(model="llama-2-7b", gpus=8)[:15]}))
"""


def interpreters():
    """Distinct Python executables to install with: this one, Debian's, the one on PATH."""
    seen, out = set(), []
    for p in (sys.executable, "/usr/bin/python3", shutil.which("python3")):
        if p and os.path.exists(p):
            real = subprocess.run([p, "-c", "import sys; print(sys.prefix, sys.version)"],
                                  capture_output=True, text=True).stdout
            if real and real not in seen:
                seen.add(real)
                out.append(p)
    return out


class PipInstall(unittest.TestCase):
    def install_and_run(self, py):
        if subprocess.run([py, "-m", "pip", "--version"], capture_output=True).returncode != 0:
            self.skipTest("no pip for %s" % py)
        tmp = tempfile.mkdtemp(prefix="zs-pip-")
        try:
            venv = os.path.join(tmp, "venv")
            r = subprocess.run([py, "-m", "venv", "--without-pip", venv], capture_output=True, text=True)
            if r.returncode != 0:
                self.skipTest("%s -m venv: %s" % (py, r.stderr.strip()[-200:]))
            vpy = os.path.join(venv, "bin", "python")
            r = subprocess.run([py, "-m", "pip", "--python", vpy, "install", "--no-index",
                                "--no-build-isolation", "--no-deps", os.path.join(ROOT, "src", "python")],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout[-800:] + r.stderr[-800:])
            env = {k: v for k, v in os.environ.items()
                   if k not in ("PYTHONPATH", "ZEROSIM_LIB", "ZEROSIM_DATA", "PYTHONHOME")}
            r = subprocess.run([vpy, "-c", CHECK], cwd=tmp, env=env, capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr[-800:])
            return json.loads(r.stdout), venv
        finally:
            self.addCleanup(shutil.rmtree, tmp, True)

    def test_each_python(self):
        want = json.loads(subprocess.run([CLI, "estimate", "--model", "llama-2-7b", "--gpus", "8",
                                          "--format", "json"], cwd=ROOT, capture_output=True,
                                         text=True).stdout)
        n_models = len(zerosim.list_models())  # the source tree's package over the repository's
        pys = interpreters()
        self.assertTrue(pys)
        for py in pys:
            with self.subTest(python=py):
                got, venv = self.install_and_run(py)
                # The installed copy, its own library and catalogs: nothing from the source tree.
                self.assertTrue(got["file"].startswith(venv), got["file"])
                self.assertTrue(got["lib"].startswith(venv), got["lib"])
                self.assertTrue(got["data"].startswith(venv), got["data"])
                self.assertEqual(got["answer"], want)
                self.assertEqual(got["fits"], {r["strategy"]: r["fits"] for r in want["results"]})
                self.assertEqual(got["api"], 1)
                self.assertEqual(got["models"], n_models)
                self.assertEqual(got["page"], "<!DOCTYPE html>")


if __name__ == "__main__":
    unittest.main()
