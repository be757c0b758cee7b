#!/usr/bin/env bash
# `_search` over HTTPS vs plain HTTP, timed by wrk (one thread, one keep-alive connection)
# against one `fathom` binary started twice: once as is (plain HTTP), once after
# `fathom setup-security` in a fresh config dir (security on: HTTPS with the demo certificates, every
# request authenticated as the demo admin and authorized). Prints each round's p50/p99 and the
# HTTPS/HTTP ratio of the median p50s (the goal: at most 1.3).
#   benches/wrk/https.sh target/release/fathom [seconds] [rounds]
# Needs wrk built with OpenSSL (Debian's is) and curl. Talks only to 127.0.0.1.
set -euo pipefail
BIN=${1:?usage: https.sh <fathom binary> [seconds] [rounds]}
SECS=${2:-10}
ROUNDS=${3:-3}
D=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; wait 2>/dev/null; rm -rf "$D"' EXIT
BODY='{"query":{"bool":{"must":[{"match":{"body":"quick fox"}}],"filter":[{"range":{"n":{"gte":100}}}]}},"size":10,"_source":false}'
python3 - "$D/bulk" <<'PY'
import json, sys, random
r = random.Random(7)
w = "quick brown fox jumps over lazy dog alpha beta gamma delta epsilon zeta eta theta".split()
with open(sys.argv[1], "w") as f:
    for i in range(20000):
        f.write(json.dumps({"index": {"_id": str(i)}}) + "\n")
        f.write(json.dumps({"body": " ".join(r.choice(w) for _ in range(12)), "n": i}) + "\n")
PY
cat > "$D/req.lua" <<LUA
wrk.method = "POST"
wrk.path = "/bench/_search"
wrk.headers["Content-Type"] = "application/json"
if os.getenv("FATHOM_AUTH") then wrk.headers["Authorization"] = os.getenv("FATHOM_AUTH") end
wrk.body = '$BODY'
done = function(summary, latency, requests)
  local errs = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format("RESULT requests=%d errors=%d p50_us=%.1f p99_us=%.1f\n", summary.requests, errs, latency:percentile(50), latency:percentile(99)))
end
LUA

# run MODE CONF_DIR: starts the node, loads the data, prints the median p50 (µs) of the rounds.
run() {
  local mode=$1 conf=$2 addr= curlopt=()
  # HTTPS runs with security on: every request authenticated (basic, cached login) and authorized.
  [ "$mode" = https ] && curlopt=(--cacert "$conf/root-ca.pem" -u "admin:$OPENSEARCH_INITIAL_ADMIN_PASSWORD")
  local auth=
  [ "$mode" = https ] && auth="Basic $(printf 'admin:%s' "$OPENSEARCH_INITIAL_ADMIN_PASSWORD" | base64 -w0)"
  FATHOM_PATH_CONF="$conf" "$BIN" -E path.data="$D/data-$mode" -E http.port=0 > "$D/log-$mode" 2>&1 &
  PID=$!
  for _ in $(seq 100); do
    addr=$(sed -n 's/^fathom listening on //p' "$D/log-$mode" | head -1)
    [ -n "$addr" ] && break
    sleep 0.1
  done
  [ -n "$addr" ] || { cat "$D/log-$mode" >&2; exit 1; }
  # The demo node certificate names localhost, not 127.0.0.1's IP only: curl by name.
  addr=${addr/127.0.0.1/localhost}
  curl -sf "${curlopt[@]}" -XPUT "$addr/bench" -H 'content-type: application/json' \
    -d '{"settings":{"number_of_shards":1,"number_of_replicas":0},"mappings":{"properties":{"body":{"type":"text"},"n":{"type":"long"}}}}' > /dev/null
  curl -sf "${curlopt[@]}" -XPOST "$addr/bench/_bulk" -H 'content-type: application/x-ndjson' --data-binary "@$D/bulk" > /dev/null
  curl -sf "${curlopt[@]}" -XPOST "$addr/bench/_forcemerge?max_num_segments=1" > /dev/null
  curl -sf "${curlopt[@]}" -XPOST "$addr/bench/_refresh" > /dev/null
  local hits
  hits=$(curl -sf "${curlopt[@]}" -XPOST "$addr/bench/_search" -H 'content-type: application/json' -d "$BODY" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["hits"]["hits"]))')
  [ "$hits" = 10 ] || { echo "expected 10 hits, got $hits" >&2; exit 1; }
  FATHOM_AUTH="$auth" wrk -t1 -c1 -d3s -s "$D/req.lua" "$addr" > /dev/null
  local p50s=()
  for r in $(seq "$ROUNDS"); do
    local line
    line=$(FATHOM_AUTH="$auth" wrk -t1 -c1 -d"${SECS}s" -s "$D/req.lua" "$addr" | grep '^RESULT')
    [ "$(sed 's/.*errors=\([0-9]*\).*/\1/' <<< "$line")" = 0 ] || { echo "wrk errors: $line" >&2; exit 1; }
    echo "$mode round $r: $line" >&2
    p50s+=("$(sed 's/.*p50_us=\([0-9.]*\).*/\1/' <<< "$line")")
  done
  kill $PID; wait $PID 2>/dev/null || true; PID=
  printf '%s\n' "${p50s[@]}" | sort -n | sed -n "$(( (ROUNDS + 1) / 2 ))p"
}

mkdir -p "$D/conf-http" "$D/conf-https"
export OPENSEARCH_INITIAL_ADMIN_PASSWORD=${OPENSEARCH_INITIAL_ADMIN_PASSWORD:-Fathom-Bench-4k!Qz}
FATHOM_PATH_CONF="$D/conf-https" "$BIN" setup-security > /dev/null
HTTP=$(run http "$D/conf-http")
HTTPS=$(run https "$D/conf-https")
echo "p50 http=${HTTP}us https=${HTTPS}us ratio=$(python3 -c "print(round($HTTPS / $HTTP, 3))")"
