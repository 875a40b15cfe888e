#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   tests/pkg/prom.sh
#
# The ready-made operations (pkg/prometheus, pkg/grafana), as make
# check's prom-rules stage checks them:
# - promtool check rules, then promtool test rules: the recording rules'
#   values and each alert's firing, pending and labels on series shaped
#   as the exporter writes them;
# - every query of the dashboard (its panels' and its variables') parses
#   as PromQL (promtool check rules on them), Grafana's variables set;
# - every series the rules and the dashboard read is one the exporter
#   writes (user/out/out_prom.c, user/cmd/cmd_export.c) or a rule
#   records.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

promtool check rules pkg/prometheus/iolat.rules.yml
(cd pkg/prometheus && promtool test rules iolat.rules.test.yml)

python3 - "$tmp" <<'PY'
import json, re, sys
tmp = sys.argv[1]
dash = json.load(open("pkg/grafana/iolat.json"))
exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
for v in dash["templating"]["list"]:
    q = v.get("query", "")
    m = re.fullmatch(r"label_values\((.*), *\w+\)", q)
    if m:
        exprs.append(m.group(1))
    elif v["type"] == "query":
        sys.exit("prom: the dashboard's variable %s: %r is not label_values()" % (v["name"], q))
subst = {"$__rate_interval": "5m", "$instance": ".*", "$device": ".*"}
with open(tmp + "/dashboard.rules.yml", "w") as f:
    f.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, e in enumerate(exprs):
        for k, v in subst.items():
            e = e.replace(k, v)
        if "$" in e:
            sys.exit("prom: a variable left in %r" % e)
        f.write("      - record: dashboard_query_%d\n        expr: %s\n" % (i, json.dumps(e)))
rules = open("pkg/prometheus/iolat.rules.yml").read()
recorded = set(re.findall(r"^\s*- record: (\S+)", rules, re.M))
src = open("user/out/out_prom.c").read() + open("user/cmd/cmd_export.c").read()
written = set(re.findall(r"\b(iolat_[a-z_]+)", src))
read = set()
for e in exprs + [rules]:
    read |= set(re.findall(r"\b([a-z_]+:[a-z0-9_:]+|iolat_[a-z_]+)\b", e))
missing = []
for n in sorted(read):
    base = re.sub(r"_(bucket|sum|count)$", "", n)
    if n not in recorded and n not in written and base not in written:
        missing.append(n)
if missing:
    sys.exit("prom: series that nothing writes: %s" % ", ".join(missing))
print("prom: the dashboard's %d queries; %d series read by rules and dashboard, each written by the exporter or recorded" % (len(exprs), len(read)))
PY
promtool check rules "$tmp/dashboard.rules.yml"
