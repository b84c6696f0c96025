#!/usr/bin/env python3
"""Regenerate configs/schema/calibration.schema.json's parameters from
models/calibration.h (SC_CALIB_PARAMS), and the schema_version 2 parts
(a parameter's "range", "provenance", "fits") from the loader's tables in
sim/config/catalog_load.c, written out here (tests/unit/test_schema.c checks
that the two agree). Run from the repository root."""
import json, re
src = open('models/calibration.h').read()
# only the parameter list: the header's other X-macro lists are enums
src = src[src.index('#define SC_CALIB_PARAMS(X)'):]
src = src[:src.index('\n\n')]
pat = re.compile(r'X\((\w+),\s*"([^"]*)",\s*([-0-9.e+]+),\s*([-0-9.e+]+),\s*"((?:[^"\\]|\\.)*)"\)')
found = pat.findall(src)
assert len(found) == len(re.findall(r'^\s*X\(', src, re.M)), "unparsed X() lines"
def num(x):
    x = float(x)
    return int(x) if x == int(x) and abs(x) < 1e15 else x
p = 'configs/schema/calibration.schema.json'
s = json.load(open(p))
def text(n, desc, required=False):
    return {"type": "string", "minLength": 1 if required else 0, "maxLength": n - 1,
            "description": desc}
s.setdefault("$defs", {})
s["$defs"]["range"] = {
    "type": "object", "additionalProperties": False, "required": ["quantity", "min", "max"],
    "description": "Where a fitted parameter was measured (schema_version 2): the range of the "
                   "independent variable in the data that moved it; a prediction outside it warns.",
    "properties": {
        "quantity": {"enum": ["message_bytes", "gemm_dim", "copy_bytes"],
                     "description": "What min and max measure: collective size in bytes (nccl-tests "
                                    "convention), GEMM dimension in elements, bytes read plus written."},
        "min": {"type": "number", "minimum": 0, "description": "Smallest value in the fitted data."},
        "max": {"type": "number", "minimum": 0, "description": "Largest value in the fitted data."},
        "ranks_min": {"type": ["integer", "null"], "exclusiveMinimum": 0,
                      "description": "Smallest group size measured (message_bytes)."},
        "ranks_max": {"type": ["integer", "null"], "exclusiveMinimum": 0,
                      "description": "Largest group size measured (message_bytes)."}}}
s["$defs"]["bounds"] = {
    "type": "object", "additionalProperties": False, "required": ["min", "max", "source"],
    "description": "This profile's physical range of the parameter, inside the catalogue's "
                   "(models/calibration.h) range, for one GPU class.",
    "properties": {
        "min": {"type": "number", "description": "Smallest physical value for this GPU class."},
        "max": {"type": "number", "description": "Largest physical value for this GPU class."},
        "source": text(256, "The measurement or limit each end stands for.", True)}}
s["properties"]["schema_version"] = {
    "type": "integer", "minimum": 1, "maximum": 2,
    "description": "Version of this file format: 1, or 2 for a profile with ranges, provenance "
                   "and fits (written by `stepcast calibrate fit`)."}
s["properties"]["provenance"] = {
    "type": "object", "additionalProperties": False, "required": ["created", "tool"],
    "description": "Where a fitted profile comes from (schema_version 2).",
    "properties": {
        "created": text(128, "UTC date and time of the fit.", True),
        "tool": text(128, "Tool and version that wrote the profile.", True),
        "gpu": text(128, "GPU name as the measuring tool printed it."),
        "driver": text(128, "GPU driver version."),
        "cuda": text(128, "CUDA version."),
        "nccl": text(128, "NCCL version."),
        "instance": text(128, "Instance type the data was fitted against."),
        "base_profile": text(128, "Profile the unfitted parameters come from."),
        "inputs": text(384, "Measurement files.")}}
s["properties"]["fits"] = {
    "type": "array",
    "description": "Quality of each fit behind the profile (schema_version 2): whole collective "
                   "curves, the alpha-beta segment of each algorithm, GEMM and HBM sweeps.",
    "items": {
        "type": "object", "additionalProperties": False,
        "required": ["name", "kind", "points", "x_min", "x_max", "r2", "rms_rel_residual",
                     "max_rel_residual"],
        "properties": {
            "name": text(128, "What was fitted.", True),
            "kind": {"enum": ["curve", "segment", "gemm", "hbm"], "description": "Kind of fit."},
            "tier": text(16, "nvlink or efa (collectives)."),
            "algorithm": text(48, "The model's algorithm over a segment."),
            "params": text(384, "Parameters the fit moved, comma-separated."),
            "points": {"type": "integer", "exclusiveMinimum": 0, "description": "Measurements fitted."},
            "x_min": {"type": "number", "minimum": 0, "description": "Smallest independent variable (bytes or elements)."},
            "x_max": {"type": "number", "minimum": 0, "description": "Largest independent variable."},
            "r2": {"type": "number", "description": "Coefficient of determination (of log time for curves and GEMM sweeps, of time for segments and HBM)."},
            "rms_rel_residual": {"type": "number", "minimum": 0, "description": "Root mean square of predicted/measured - 1."},
            "max_rel_residual": {"type": "number", "minimum": 0, "description": "Largest |predicted/measured - 1|."},
            "alpha_s": {"type": ["number", "null"], "minimum": 0, "description": "Intercept of a segment or HBM fit, s."},
            "busbw_GBps": {"type": ["number", "null"], "minimum": 0, "description": "Bus bandwidth of a segment, bandwidth of an HBM fit, GB/s."},
            "x": {"type": "array", "maxItems": 128, "items": {"type": "number"},
                  "description": "Independent variable of each residual."},
            "residuals": {"type": "array", "maxItems": 128, "items": {"type": "number"},
                          "description": "predicted/measured - 1 at each x."}}}}
params = {}
for name, unit, lo, hi, desc in found:
    desc = desc.replace('\\"', '"')
    params[name] = {"type": "object", "additionalProperties": False, "required": ["value", "source"],
                    "description": "%s (%s)." % (desc[0].upper() + desc[1:], unit),
                    "properties": {"value": {"type": "number", "minimum": num(lo), "maximum": num(hi),
                                             "description": "Value, %s." % unit},
                                   "source": {"$ref": "#/$defs/source"},
                                   "range": {"$ref": "#/$defs/range"},
                                   "bounds": {"$ref": "#/$defs/bounds"},
                                   "prior": {"type": "number", "minimum": num(lo), "maximum": num(hi),
                                             "description": "Value before any fit (centre of validate --fit's prior), %s." % unit},
                                   "on_bound": text(256, "The measurement that puts the value on a bound of its range.")}}
s["properties"]["parameters"]["required"] = [f[0] for f in found]
s["properties"]["parameters"]["properties"] = params
with open(p, "w") as f:
    json.dump(s, f, indent=2)
    f.write("\n")
print(len(found), "parameters")
