"""opensearch-py's aggregations round trip (issue 17): `search(body={"aggs": ...})` and the
client's response helpers (`Search().aggs`, `response.aggregations.<name>.buckets`) over a real
Fathom server. Usage: python3 aggs_opensearch_py.py http://127.0.0.1:PORT (exit 0 = pass)."""

import sys

from opensearchpy import OpenSearch, Search

url = sys.argv[1]
client = OpenSearch(hosts=[url], timeout=30)
index = "py_aggs"
if client.indices.exists(index=index):
    client.indices.delete(index=index)
client.indices.create(
    index=index,
    body={
        "settings": {"number_of_shards": 3, "number_of_replicas": 0},
        "mappings": {"properties": {"tag": {"type": "keyword"}, "n": {"type": "long"}, "t": {"type": "date"}}},
    },
)
docs = [{"tag": "a" if i % 3 else "b", "n": i, "t": f"2024-01-{1 + i % 5:02d}T10:00:00Z"} for i in range(30)]
for i, d in enumerate(docs):
    client.index(index=index, id=str(i), body=d)
client.indices.refresh(index=index)

# The raw body API.
r = client.search(
    index=index,
    body={"size": 0, "aggs": {"tags": {"terms": {"field": "tag"}, "aggs": {"avg_n": {"avg": {"field": "n"}}}}}},
)
buckets = r["aggregations"]["tags"]["buckets"]
want = {}
for d in docs:
    want.setdefault(d["tag"], []).append(d["n"])
assert [b["key"] for b in buckets] == ["a", "b"], buckets
for b in buckets:
    ns = want[b["key"]]
    assert b["doc_count"] == len(ns), b
    assert abs(b["avg_n"]["value"] - sum(ns) / len(ns)) < 1e-9, b

# The DSL helpers: typed_keys responses parsed back into aggregation objects.
s = Search(using=client, index=index).extra(size=0)
s.aggs.bucket("per_day", "date_histogram", field="t", calendar_interval="day").metric("mx", "max", field="n")
s.aggs.metric("st", "stats", field="n")
resp = s.execute()
days = resp.aggregations.per_day.buckets
assert len(days) == 5, days
for day in days:
    ns = [d["n"] for d in docs if d["t"].startswith(day.key_as_string[:10])]
    assert day.doc_count == len(ns), day
    assert day.mx.value == max(ns), day
assert resp.aggregations.st.count == 30 and resp.aggregations.st.max == 29.0, resp.aggregations.st
client.indices.delete(index=index)
print("opensearch-py aggregations round trip: ok")
