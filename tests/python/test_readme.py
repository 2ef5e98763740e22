"""The README's notebook-style example (the python block of "### Python" under "As a library")
runs as written: the sweep over GPU counts into a DataFrame and a plot. Skipped, saying why,
where pandas or matplotlib is missing (Debian: python3-pandas, python3-matplotlib)."""
import os
import re
import unittest

import zerosim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def example():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("### Python"):text.index("## Architecture")]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


class Readme(unittest.TestCase):
    def test_example(self):
        try:
            import pandas  # noqa: F401
            import matplotlib
        except ImportError as e:
            self.skipTest("the README example needs pandas and matplotlib: %s" % e)
        matplotlib.use("Agg")  # no display
        ns = {}
        exec(compile(example(), "README.md", "exec"), ns)
        df, gib = ns["df"], ns["gib"]
        rows = zerosim.sweep(model="llama-2-70b", hardware="h100-80gb", gpus="8:128:x2",
                             strategy="zero1,zero2,zero3", seq_len=4096, checkpointing="full")
        self.assertEqual(len(df), len(rows))
        self.assertEqual(sorted(set(df["gpus"])), [8, 16, 32, 64, 128])
        self.assertEqual(list(gib.columns), ["zero1", "zero2", "zero3"])
        # ZeRO-3 shards everything: its memory per GPU falls as GPUs are added, below ZeRO-1's.
        z3 = list(gib["zero3"])
        self.assertEqual(z3, sorted(z3, reverse=True))
        self.assertTrue((gib["zero3"] < gib["zero1"]).all())
        self.assertEqual(len(ns["ax"].get_lines()), 4)  # three strategies and the HBM line
        self.assertTrue(ns["r"].fits["zero3"])


if __name__ == "__main__":
    unittest.main()
