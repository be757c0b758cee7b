"""Checks an opensearch-benchmark run against Fathom (issue 20): the run's log holds no error
and its CSV report has real figures from the telemetry devices (node-stats, segment-stats,
shard-stats, recovery-stats) and the operations. Usage: python3 check.py REPORT.csv LOG"""

import csv
import sys

report, log = sys.argv[1], sys.argv[2]
rows = list(csv.reader(open(report)))
metrics = {}
for r in rows[1:]:
    if len(r) >= 4:
        metrics.setdefault((r[0], r[1]), r[2])
problems = []

def need(metric, task="", positive=True):
    v = metrics.get((metric, task))
    if v is None or v == "":
        problems.append(f"missing: {metric!r} {task!r}")
        return
    try:
        x = float(v)
    except ValueError:
        problems.append(f"not a number: {metric!r} {task!r} = {v!r}")
        return
    if positive and x <= 0:
        problems.append(f"not positive: {metric!r} {task!r} = {v!r}")

for m in ["Cumulative indexing time of primary shards", "Cumulative refresh time of primary shards",
          "Store size", "Segment count", "Total Young Gen GC count", "Total Old Gen GC count"]:
    need(m, positive=m.startswith(("Cumulative indexing", "Store", "Segment")))
for task in ["index-append", "match", "terms-errors", "date-histogram"]:
    need("Mean Throughput", task)
    need("error rate", task, positive=False)
    if metrics.get(("error rate", task)) not in (None, "0", "0.0", "0.00"):
        problems.append(f"errors in {task}: {metrics.get(('error rate', task))}")
bad = [line.rstrip() for line in open(log, errors="replace") if " ERROR " in line or "Traceback" in line]
problems += [f"log: {b}" for b in bad[:20]]
if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"opensearch-benchmark: {len(rows) - 1} report rows, no error in the log")
