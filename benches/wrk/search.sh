#!/usr/bin/env bash
# One `_search` over HTTP, timed by wrk (a C client, one keep-alive connection) against a real
# `fathom` binary: p50/p99 latency, requests per second, and the server's CPU per request (from
# /proc/<pid>/stat before and after the timed run). Used to measure what a server-side feature
# adds to a search by running two binaries (e.g. before and after it) one after another:
#   benches/wrk/search.sh target/release/fathom [seconds] [rounds]
# WRK_QUERY=cheap times a query that matches nothing (fixed per-request costs).
# Needs wrk (Debian: apt-get install wrk). Talks only to 127.0.0.1.
set -euo pipefail
BIN=${1:?usage: search.sh <fathom binary> [seconds] [rounds]}
SECS=${2:-10}
ROUNDS=${3:-3}
D=$(mktemp -d)
"$BIN" -E path.data="$D/data" -E http.port=0 > "$D/log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$D"' EXIT
ADDR=
for _ in $(seq 100); do
  ADDR=$(sed -n 's/^fathom listening on //p' "$D/log" | head -1)
  [ -n "$ADDR" ] && break
  sleep 0.1
done
[ -n "$ADDR" ] || { cat "$D/log"; exit 1; }
curl -sf -XPUT "$ADDR/bench" -H 'content-type: application/json' \
  -d '{"settings":{"number_of_shards":1,"number_of_replicas":0},"mappings":{"properties":{"body":{"type":"text"},"n":{"type":"long"}}}}' > /dev/null
python3 - "$D/bulk" <<'PY'
import json, sys, random
r = random.Random(7)
w = "quick brown fox jumps over lazy dog alpha beta gamma delta epsilon zeta eta theta".split()
with open(sys.argv[1], "w") as f:
    for i in range(20000):
        f.write(json.dumps({"index": {"_id": str(i)}}) + "\n")
        f.write(json.dumps({"body": " ".join(r.choice(w) for _ in range(12)), "n": i}) + "\n")
PY
curl -sf -XPOST "$ADDR/bench/_bulk" -H 'content-type: application/x-ndjson' --data-binary "@$D/bulk" > /dev/null
curl -sf -XPOST "$ADDR/bench/_refresh" > /dev/null
curl -sf -XPOST "$ADDR/bench/_forcemerge?max_num_segments=1" > /dev/null
curl -sf -XPOST "$ADDR/bench/_refresh" > /dev/null
# WRK_QUERY=cheap: a term query for a word no document has, so the figures are mostly the
# request's fixed costs (HTTP, parsing, tasks, counters); default: a scored bool query, top 10.
if [ "${WRK_QUERY:-}" = cheap ]; then
  BODY='{"query":{"term":{"body":"absent"}},"size":10}'
  WANT=0
else
  BODY='{"query":{"bool":{"must":[{"match":{"body":"quick fox"}}],"filter":[{"range":{"n":{"gte":100}}}]}},"size":10,"_source":false}'
  WANT=10
fi
HITS=$(curl -sf -XPOST "$ADDR/bench/_search" -H 'content-type: application/json' -d "$BODY" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["hits"]["hits"]))')
[ "$HITS" = "$WANT" ] || { echo "expected $WANT hits, got $HITS"; exit 1; }
cat > "$D/req.lua" <<LUA
wrk.method = "POST"
wrk.path = "/bench/_search"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '$BODY'
done = function(summary, latency, requests)
  local errs = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format("RESULT requests=%d errors=%d p50_us=%.1f p99_us=%.1f\n", summary.requests, errs, latency:percentile(50), latency:percentile(99)))
end
LUA
cpu() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
TICK=$(getconf CLK_TCK)
wrk -t1 -c1 -d3s -s "$D/req.lua" "$ADDR" > /dev/null
for r in $(seq "$ROUNDS"); do
  C0=$(cpu)
  OUT=$(wrk -t1 -c1 -d"${SECS}s" -s "$D/req.lua" "$ADDR")
  C1=$(cpu)
  LINE=$(grep '^RESULT' <<< "$OUT")
  REQ=$(sed 's/.*requests=\([0-9]*\).*/\1/' <<< "$LINE")
  ERR=$(sed 's/.*errors=\([0-9]*\).*/\1/' <<< "$LINE")
  [ "$ERR" = 0 ] || { echo "wrk saw $ERR errors"; exit 1; }
  CPU_US=$(python3 -c "print(round(($C1 - $C0) / $TICK * 1e6 / $REQ, 1))")
  echo "round $r: $LINE rps=$((REQ / SECS)) server_cpu_us_per_req=$CPU_US"
done
