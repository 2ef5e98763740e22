"""Run the Python package's tests (tests/python/test_*.py) and end with "N passed, N failed"
(tests/total.sh sums that line). Usage: python3 tests/python/run.py; exits 1 on a failure."""
import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "src", "python"))
suite = unittest.defaultTestLoader.discover(here, pattern="test_*.py")
result = unittest.TextTestRunner(verbosity=1).run(suite)
failed = len(result.failures) + len(result.errors)
for test, reason in result.skipped:
    print("skipped: %s: %s" % (test.id(), reason))
print("%d passed, %d failed" % (result.testsRun - failed, failed))
sys.exit(1 if failed else 0)
