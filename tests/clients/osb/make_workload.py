"""Writes a small opensearch-benchmark workload (issue 20) into DIR: an index of generated log
lines, bulk indexing with two clients, refresh, force merge, a match query, a filtered terms
aggregation and a date histogram. Usage: python3 make_workload.py DIR [DOCS]"""

import json
import os
import random
import sys

out = sys.argv[1]
docs = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
os.makedirs(out, exist_ok=True)
rng = random.Random(20)
words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november".split()
levels = ["info", "info", "info", "warn", "error"]
path = os.path.join(out, "documents.json")
with open(path, "w") as f:
    for i in range(docs):
        d = {
            "@timestamp": f"2026-11-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00Z",
            "level": rng.choice(levels),
            "service": f"svc-{rng.randrange(20)}",
            "latency_ms": rng.randrange(1, 2000),
            "message": " ".join(rng.choice(words) for _ in range(12)),
        }
        f.write(json.dumps(d) + "\n")
size = os.path.getsize(path)
index = {
    "settings": {"index.number_of_shards": 2, "index.number_of_replicas": 0},
    "mappings": {
        "properties": {
            "@timestamp": {"type": "date"},
            "level": {"type": "keyword"},
            "service": {"type": "keyword"},
            "latency_ms": {"type": "long"},
            "message": {"type": "text"},
        }
    },
}
with open(os.path.join(out, "index.json"), "w") as f:
    json.dump(index, f)
search = lambda name, body: {  # noqa: E731
    "operation": {"name": name, "operation-type": "search", "index": "osb-logs", "body": body},
    "clients": 1,
    "warmup-iterations": 5,
    "iterations": 40,
}
workload = {
    "version": 2,
    "description": "Fathom's opensearch-benchmark smoke workload",
    "indices": [{"name": "osb-logs", "body": "index.json"}],
    "corpora": [
        {
            "name": "osb-logs",
            "documents": [{"source-file": "documents.json", "document-count": docs, "uncompressed-bytes": size}],
        }
    ],
    "schedule": [
        {"operation": {"operation-type": "delete-index"}},
        {"operation": {"operation-type": "create-index"}},
        {
            "name": "check-cluster-health",
            "operation": {
                "operation-type": "cluster-health",
                "index": "osb-logs",
                "request-params": {"wait_for_status": "green"},
                "retry-until-success": True,
            },
        },
        {"operation": {"name": "index-append", "operation-type": "bulk", "bulk-size": 1000}, "clients": 2},
        {"operation": {"name": "refresh", "operation-type": "refresh"}},
        {"operation": {"name": "force-merge", "operation-type": "force-merge", "max-num-segments": 1}},
        search("match", {"query": {"match": {"message": "alpha bravo"}}}),
        search(
            "terms-errors",
            {"size": 0, "query": {"term": {"level": "error"}}, "aggs": {"svc": {"terms": {"field": "service"}}}},
        ),
        search(
            "date-histogram",
            {"size": 0, "aggs": {"d": {"date_histogram": {"field": "@timestamp", "calendar_interval": "day"}}}},
        ),
    ],
}
with open(os.path.join(out, "workload.json"), "w") as f:
    json.dump(workload, f, indent=2)
print(out)
