#!/usr/bin/env bash
# Runs opensearch-benchmark (issue 20), unmodified, against a Fathom server at URL with a small
# custom workload and the node-stats, segment-stats, shard-stats and recovery-stats telemetry
# devices, then checks its log and report (check.py). Usage: run.sh OSB_BIN URL
set -euo pipefail
osb="$1"
url="$2"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
python3 "$here/make_workload.py" "$work/workload" 20000 >/dev/null
# The index exists before the run starts: the telemetry devices read its stats at the start
# (against a fresh cluster OpenSearch would answer 404 just the same and the log an ERROR).
python3 - "$url" "$work/workload/index.json" <<'PY'
import json, sys, urllib.request
url, body = sys.argv[1], open(sys.argv[2]).read()
req = urllib.request.Request(url + "/osb-logs", data=body.encode(), method="PUT", headers={"Content-Type": "application/json"})
try:
    urllib.request.urlopen(req, timeout=30).read()
except urllib.error.HTTPError as e:
    if e.code != 400:
        raise
PY
export BENCHMARK_HOME="$work/home"
mkdir -p "$BENCHMARK_HOME"
set +e
timeout 900 "$osb" run --workload-path="$work/workload" --pipeline=benchmark-only --target-hosts="${url#http://}" \
  --telemetry=node-stats,segment-stats,shard-stats,recovery-stats --results-format=csv \
  --results-file="$work/report.csv" --offline >"$work/console.log" 2>&1
rc=$?
set -e
log="$(find "$BENCHMARK_HOME" -name benchmark.log | head -1)"
if [ "$rc" -ne 0 ]; then tail -40 "$work/console.log"; [ -n "$log" ] && tail -60 "$log"; exit 1; fi
python3 "$here/check.py" "$work/report.csv" "$log"
rm -rf "$work"
