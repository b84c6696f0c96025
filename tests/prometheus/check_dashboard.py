#!/usr/bin/env python3
"""check_dashboard.py: the Grafana dashboard loads and means what it says.

    check_dashboard.py DASHBOARD.json RULES.yml PROMFILE... [--promtool PATH]

The structure check (documented in README.md, "Prometheus and Grafana"):
  - strict JSON (no duplicate keys, no NaN), an object with title, uid
    (at most 40 of [A-Za-z0-9_-], Grafana's limit), an integer schemaVersion
    >= 36 (Grafana 9+), panels and templating.list;
  - templating: a variable of type datasource for prometheus, and every
    $variable an expression uses defined there (or a Grafana built-in);
  - panels: unique integer ids, a known type, a gridPos of integers inside
    the 24-column grid, no two panels overlapping; each non-row panel a
    title, the datasource variable, targets with unique refIds and a
    non-empty expr;
  - every stepcast_* metric an expression names is a family stepcast writes
    (the PROMFILEs: predict, serve and plan --format prom output) or a
    recording rule of RULES.yml (stepcast:* names), so a renamed metric
    cannot leave a panel empty;
  - with --promtool, every expression (Grafana's $__rate_interval and
    variables substituted) parses as PromQL: they are written as recording
    rules to a temporary file for `promtool check rules`.
Prints each problem; exit 1 when there is one.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

TYPES = {"row", "timeseries", "stat", "barchart", "table", "gauge", "bargauge", "text"}
BUILTINS = {"__rate_interval": "5m", "__interval": "1m", "__range": "1h"}

problems = []


def bad(msg):
    problems.append(msg)


def no_dupes(pairs):
    keys = [k for k, _ in pairs]
    for k in keys:
        if keys.count(k) > 1:
            raise ValueError("duplicate key %r" % k)
    return dict(pairs)


def reject_constant(name):
    raise ValueError("non-finite number %s" % name)


def main(argv):
    promtool = None
    if "--promtool" in argv:
        i = argv.index("--promtool")
        promtool = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    dash_path, rules_path, prom_files = argv[0], argv[1], argv[2:]
    with open(dash_path, encoding="utf-8") as f:
        try:
            d = json.load(f, object_pairs_hook=no_dupes, parse_constant=reject_constant)
        except ValueError as e:
            print("%s: not strict JSON: %s" % (dash_path, e))
            return 1
    if not isinstance(d, dict):
        print("%s: not an object" % dash_path)
        return 1
    for k in ("title", "uid", "schemaVersion", "panels", "templating"):
        if k not in d:
            bad("missing top-level key %r" % k)
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,40}", str(d.get("uid", ""))):
        bad("uid %r is not 1-40 of [A-Za-z0-9_-]" % d.get("uid"))
    sv = d.get("schemaVersion")
    if not isinstance(sv, int) or isinstance(sv, bool) or sv < 36:
        bad("schemaVersion %r is not an integer >= 36" % sv)

    variables = {}
    for v in (d.get("templating") or {}).get("list", []):
        if not isinstance(v, dict) or "name" not in v or "type" not in v:
            bad("templating variable without name or type: %r" % v)
            continue
        variables[v["name"]] = v
    ds_vars = [n for n, v in variables.items() if v["type"] == "datasource" and v.get("query") == "prometheus"]
    if not ds_vars:
        bad("no templating variable of type datasource for prometheus")
    ds_ref = "${%s}" % ds_vars[0] if ds_vars else None

    families = set()
    for p in prom_files:
        with open(p, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"# TYPE (\S+) ", line)
                if m:
                    families.add(m.group(1))
    records = set()
    with open(rules_path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*- record:\s*(\S+)", line)
            if m:
                records.add(m.group(1))
    if not families:
        bad("no metric families in %s" % " ".join(prom_files))

    ids, boxes, exprs = set(), [], []
    panels = d.get("panels") if isinstance(d.get("panels"), list) else []
    if not panels:
        bad("no panels")
    for p in panels:
        where = "panel %r" % p.get("title", p.get("id"))
        pid = p.get("id")
        if not isinstance(pid, int) or isinstance(pid, bool) or pid in ids:
            bad("%s: id %r is not a unique integer" % (where, pid))
        ids.add(pid)
        if p.get("type") not in TYPES:
            bad("%s: unknown type %r" % (where, p.get("type")))
        g = p.get("gridPos") or {}
        if not all(isinstance(g.get(k), int) and not isinstance(g.get(k), bool) for k in "xywh"):
            bad("%s: gridPos needs integer x, y, w, h" % where)
            continue
        if g["x"] < 0 or g["y"] < 0 or g["w"] < 1 or g["h"] < 1 or g["x"] + g["w"] > 24:
            bad("%s: gridPos %r is outside the 24-column grid" % (where, g))
        for other, og in boxes:
            if g["x"] < og["x"] + og["w"] and og["x"] < g["x"] + g["w"] and \
               g["y"] < og["y"] + og["h"] and og["y"] < g["y"] + g["h"]:
                bad("%s overlaps %s" % (where, other))
        boxes.append((where, g))
        if p.get("type") == "row":
            continue
        if not p.get("title"):
            bad("%s: no title" % where)
        if ds_ref and (p.get("datasource") or {}).get("uid") != ds_ref:
            bad("%s: datasource is not %s" % (where, ds_ref))
        targets = p.get("targets") or []
        if not targets:
            bad("%s: no targets" % where)
        refs = [t.get("refId") for t in targets]
        if len(set(refs)) != len(refs) or not all(refs):
            bad("%s: refIds %r are not unique and non-empty" % (where, refs))
        for t in targets:
            e = t.get("expr")
            if not isinstance(e, str) or not e.strip():
                bad("%s: target %r has no expr" % (where, t.get("refId")))
                continue
            exprs.append((where, e))

    for where, e in exprs:
        for var in re.findall(r"\$\{?(\w+)\}?", e):
            if var not in variables and var not in BUILTINS:
                bad("%s: $%s is not a templating variable" % (where, var))
        for name in re.findall(r"\b(stepcast[_:][A-Za-z0-9_:]*)", e):
            if name not in families and name not in records:
                bad("%s: %s is neither a family stepcast writes nor a recording rule" % (where, name))

    if promtool:
        with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
            f.write("groups:\n  - name: dashboard\n    rules:\n")
            for i, (where, e) in enumerate(exprs):
                s = e
                for k, v in BUILTINS.items():
                    s = s.replace("$" + k, v)
                s = re.sub(r"\$\{?(\w+)\}?", ".*", s)
                f.write("      - record: dashboard:expr_%d\n        expr: %s\n" % (i, json.dumps(s)))
            tmp = f.name
        r = subprocess.run([promtool, "check", "rules", tmp], capture_output=True, text=True)
        os.unlink(tmp)
        if r.returncode != 0:
            bad("promtool check rules on the dashboard's expressions:\n" + r.stdout + r.stderr)
        else:
            print("check_dashboard: promtool parsed all %d expressions" % len(exprs))

    for p in problems:
        print("check_dashboard: %s: %s" % (dash_path, p))
    if problems:
        return 1
    print("check_dashboard: %s: %d panels, %d expressions, %d metric families, %d recording rules: ok"
          % (dash_path, len(panels), len(exprs), len(families), len(records)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
