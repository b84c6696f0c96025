#!/usr/bin/env python3
"""Regenerate configs/schema/calibration.schema.json's parameters from
models/calibration.h (SC_CALIB_PARAMS). Run from the repository root."""
import json, re
src = open('models/calibration.h').read()
pat = re.compile(r'X\((\w+),\s*"([^"]*)",\s*([-0-9.e+]+),\s*([-0-9.e+]+),\s*"((?:[^"\\]|\\.)*)"\)')
found = pat.findall(src)
assert len(found) == len(re.findall(r'^\s*X\(', src, re.M)), "unparsed X() lines"
def num(x):
    x = float(x)
    return int(x) if x == int(x) and abs(x) < 1e15 else x
p = 'configs/schema/calibration.schema.json'
s = json.load(open(p))
params = {}
for name, unit, lo, hi, desc in found:
    desc = desc.replace('\\"', '"')
    params[name] = {"type": "object", "additionalProperties": False, "required": ["value", "source"],
                    "description": "%s (%s)." % (desc[0].upper() + desc[1:], unit),
                    "properties": {"value": {"type": "number", "minimum": num(lo), "maximum": num(hi),
                                             "description": "Value, %s." % unit},
                                   "source": {"$ref": "#/$defs/source"}}}
s["properties"]["parameters"]["required"] = [f[0] for f in found]
s["properties"]["parameters"]["properties"] = params
with open(p, "w") as f:
    json.dump(s, f, indent=2)
    f.write("\n")
print(len(found), "parameters")
