"""Runs a test peer's steps: one line per step ("PASS name" / "FAIL name: why", the traceback on
stderr), never stopping at the first failure; returns how many failed."""

import sys
import traceback


def run(steps):
    failed = 0
    for step in steps:
        try:
            step()
            print("PASS", step.__name__, flush=True)
        except Exception:
            failed += 1
            print("FAIL", step.__name__ + ":", traceback.format_exc().strip().splitlines()[-1], flush=True)
            traceback.print_exc(file=sys.stderr)
    return failed
