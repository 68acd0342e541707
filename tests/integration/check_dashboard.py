#!/usr/bin/python3
"""Checks a Grafana dashboard of deploy/grafana/ offline:

    check_dashboard.py DASHBOARD.json RULES.yml EXPOSITION OUT_RULES.yml
                       [--legends OUT_LEGENDS]

The dashboard must be one Grafana provisions as it is: a uid, a title,
panels that fit the 24-column grid without overlapping, each of them (but
rows) with a Prometheus query through the ${datasource} variable, and no
variable used that it does not define. Every series name a query reads
must be one gpuperfd exports (EXPOSITION: a /metrics answer in the text
format) or one of the recording rules of RULES.yml.

Writes the queries, their variables replaced, as recording rules to
OUT_RULES.yml, for `promtool check rules` to parse the PromQL; with
--legends, each query a line of OUT_LEGENDS, "PANEL<TAB>QUERY<TAB>LABELS":
the labels its legend shows, which each of its series must have. Prints
one line per fault and exits 1, or exits 0.
"""
import json
import re
import sys

import yaml

faults = []


def fault(where, why):
    faults.append(f"{where}: {why}")


# What Grafana puts in place of its built-in variables, for promtool.
BUILTINS = {"__rate_interval": "1m", "__interval": "15s", "__range": "1h"}
# PromQL's words that look like series names.
KEYWORDS = {"sum", "avg", "max", "min", "count", "topk", "bottomk", "quantile", "rate",
            "irate", "increase", "by", "without", "on", "ignoring", "group_left",
            "group_right", "or", "and", "unless", "vector", "label_values", "offset",
            "histogram_quantile", "stddev", "abs", "delta", "deriv", "time", "bool"}


def main():
    dash_path, rules_path, exposition_path, out_path = sys.argv[1:5]
    legends_path = sys.argv[6] if len(sys.argv) > 6 and sys.argv[5] == "--legends" else None
    legends = []
    with open(dash_path, encoding="utf-8") as f:
        dash = json.load(f)
    with open(rules_path, encoding="utf-8") as f:
        rules = yaml.safe_load(f)
    known = {r["record"] for g in rules["groups"] for r in g["rules"] if "record" in r}
    known.add("up")
    with open(exposition_path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("# TYPE "):
                known.add(line.split()[2])
            elif line and not line.startswith("#"):
                known.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    for field in ("uid", "title", "panels", "schemaVersion"):
        if field not in dash:
            fault(dash_path, f"no {field}")
    variables = {v["name"] for v in dash.get("templating", {}).get("list", [])}
    if "datasource" not in variables:
        fault(dash_path, "no datasource variable: the dashboard would be bound to one Prometheus")
    cells = {}
    out = []
    for p in dash.get("panels", []):
        where = f"panel {p.get('id')} '{p.get('title')}'"
        g = p.get("gridPos", {})
        x, y, w, h = g.get("x", -1), g.get("y", -1), g.get("w", 0), g.get("h", 0)
        if x < 0 or y < 0 or w <= 0 or h <= 0 or x + w > 24:
            fault(where, f"gridPos {g} is off Grafana's 24-column grid")
        for cx in range(max(x, 0), min(x + w, 24)):
            for cy in range(max(y, 0), max(y, 0) + h):
                if (cx, cy) in cells:
                    fault(where, f"overlaps panel {cells[(cx, cy)]}")
                    break
                cells[(cx, cy)] = p.get("id")
            else:
                continue
            break
        if p.get("type") == "row":
            continue
        if p.get("datasource", {}).get("uid") != "${datasource}":
            fault(where, "does not query through ${datasource}")
        targets = p.get("targets") or []
        if not targets:
            fault(where, "has no query")
        for t in targets:
            expr = t.get("expr", "")
            if not expr:
                fault(where, f"target {t.get('refId')} has no expr")
                continue
            for var in re.findall(r"\$\{?(\w+)\}?", expr):
                if var not in variables and var not in BUILTINS:
                    fault(where, f"uses ${var}, which the dashboard does not define")
            plain = re.sub(r"\$\{?(\w+)\}?",
                           lambda m: BUILTINS.get(m.group(1), ".*"), expr)
            # Series names: words before a selector or standing alone,
            # outside strings and label matchers.
            bare = re.sub(r'"[^"]*"', '""', plain)
            bare = re.sub(r"\{[^}]*\}", "{}", bare)
            bare = re.sub(r"\[[^\]]*\]", "[]", bare)
            bare = re.sub(r"(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", bare)
            for name in re.findall(r"[A-Za-z_:][A-Za-z0-9_:]*", bare):
                if name in KEYWORDS or re.fullmatch(r"\d.*|e\d+", name):
                    continue
                if name not in known:
                    fault(where, f"reads {name}, which neither gpuperfd nor the recording rules make")
            out.append({"record": f"dashboard:panel_{p.get('id')}_{t.get('refId')}",
                        "expr": plain})
            shown = re.findall(r"\{\{\s*(\w+)\s*\}\}", t.get("legendFormat", ""))
            legends.append(f"{p.get('title')}\t{' '.join(plain.split())}\t{' '.join(shown)}")
    with open(out_path, "w", encoding="utf-8") as f:
        yaml.safe_dump({"groups": [{"name": "dashboard", "rules": out}]}, f)
    if legends_path:
        with open(legends_path, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in legends))


main()
for f in faults:
    print(f"check_dashboard: {f}")
sys.exit(1 if faults else 0)
