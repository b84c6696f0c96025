#!/usr/bin/env python3
"""Copy fitted parameters (value and source) from a profile that
`stepcast validate --collectives --fit ... --output FITTED` wrote into a
committed profile, keeping the committed file's layout (only the changed
entries are rewritten).

Usage: apply-profile-fit.py FITTED.json PROFILE.json P1,P2,... [--source-prefix TEXT]
"""
import json
import re
import sys


def main():
    fitted, profile, names = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    prefix = ""
    if len(sys.argv) > 5 and sys.argv[4] == "--source-prefix":
        prefix = sys.argv[5]
    f = json.load(open(fitted))["parameters"]
    text = open(profile).read()
    for n in names:
        val, src = f[n]["value"], prefix + f[n]["source"]
        if len(src) > 383:
            src = src[:380] + "..."
        pat = re.compile(r'("%s":\s*\{\s*"value":\s*)([^,\s]+)(,\s*"source":\s*)("(?:[^"\\]|\\.)*")' % re.escape(n))
        if not pat.search(text):
            sys.exit("parameter %s not found in %s" % (n, profile))
        text = pat.sub(lambda m: m.group(1) + repr(float(val)).replace("e-0", "e-") + m.group(3)
                       + json.dumps(src, ensure_ascii=False), text, count=1)
    json.loads(text)
    open(profile, "w").write(text)


main()
