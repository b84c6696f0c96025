#!/usr/bin/env python3
"""run_explain_sets.py: every option `stepcast explain` ranks is what its
--set overrides give: `predict SCENARIO --set ...` predicts the same step time.

    run_explain_sets.py STEPCAST SCENARIO...
"""
import json
import shlex
import subprocess
import sys


def main(argv):
    stepcast, scenarios = argv[0], argv[1:]
    fail = 0
    for sc in scenarios:
        x = json.loads(subprocess.run([stepcast, "explain", sc, "--top", "48", "--format", "json"],
                                      check=True, capture_output=True, text=True).stdout)
        if not x["options"]:
            print("run_explain_sets: FAIL %s: no options" % sc)
            fail = 1
        for o in x["options"]:
            r = subprocess.run([stepcast, "predict", sc, "--format", "json"] + shlex.split(o["set"]),
                               capture_output=True, text=True)
            # an option that does not fit is marked so: predict says it with exit 6
            want = 6 if o.get("oom") else 0
            if r.returncode != want:
                print("run_explain_sets: FAIL %s %s: predict exits %d, not %d: %s" % (sc, o["set"], r.returncode, want, r.stderr))
                fail = 1
                continue
            got = json.loads(r.stdout)["step_time_s"]
            if abs(got - o["step_time_s"]) > 1e-9 * abs(got):
                print("run_explain_sets: FAIL %s %s: explain %.9g s, predict %.9g s" % (sc, o["set"], o["step_time_s"], got))
                fail = 1
        print("run_explain_sets: %s: %d options reproduced by their --set" % (sc, len(x["options"])))
    return fail


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
