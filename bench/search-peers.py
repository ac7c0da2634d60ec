#!/usr/bin/env python3
"""Peers for bench/search: SQLite FTS5 and tantivy on the same catalog, queries and judgements.

    bench/search-peers.py [catalog.jsonl] [queries.jsonl]

Writes bench/out/judgements.json (graded relevance per query, read by search-bench for nDCG@10)
and prints, per peer, sheet-query latency p50/p99 (labels: OR across labels, AND within a label,
top 10, plus type and category facet counts over all hits) and nDCG@10.

Judgements: for each label word, an entity scores 2 when the word is in its tags or title and it
sits in the query's category, 1 when the word is in its tags or title elsewhere; a query's grade for
an entity is the sum over its labels.
"""
import json
import math
import os
import re
import sqlite3
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
catalog = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "out", "catalog-100k.jsonl")
queries_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "out", "queries.jsonl")

docs = []
with open(catalog) as f:
    for line in f:
        e = json.loads(line)
        if "synonyms" in e:
            continue
        docs.append({k: e.get(k, "") for k in ("type", "id", "title", "subtitle", "category")} | {"tags": e.get("tags", [])})
queries = [json.loads(l) for l in open(queries_path)]
words = lambda s: re.findall(r"[a-z0-9]+", s.lower())

index = {}
for i, d in enumerate(docs):
    for w in set(words(d["title"]) + [t.lower() for t in d["tags"]]):
        index.setdefault(w, []).append(i)
judgements = []
for q in queries:
    grades = {}
    for label in q["labels"]:
        for i in index.get(label["text"].lower(), []):
            d = docs[i]
            grades[f'{d["type"]}/{d["id"]}'] = grades.get(f'{d["type"]}/{d["id"]}', 0) + (2 if d["category"] == q["category"] else 1)
    judgements.append(grades)
with open(os.path.join(HERE, "out", "judgements.json"), "w") as f:
    json.dump(judgements, f)


def ndcg(ranked, grades):
    dcg = sum((2 ** grades.get(r, 0) - 1) / math.log2(i + 2) for i, r in enumerate(ranked[:10]))
    ideal = sorted(grades.values(), reverse=True)[:10]
    idcg = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def report(name, run):
    for q in queries[:50]:
        run(q)  # warm-up
    lat, scores = [], []
    for _ in range(3):
        for qi, q in enumerate(queries):
            t = time.perf_counter()
            ranked = run(q)
            lat.append((time.perf_counter() - t) * 1e6)
            scores.append(ndcg(ranked, judgements[qi]))
    lat.sort()
    print(f"{name:34} n={len(lat):6d}  p50 {lat[len(lat)//2]:8.1f} µs  p99 {lat[int(len(lat)*0.99)]:8.1f} µs  "
          f"nDCG@10 {statistics.mean(scores):.4f}")


# SQLite FTS5, bm25 with the same field weights (title 3, tags 2, subtitle 1, category 0.5).
db = sqlite3.connect(":memory:")
db.execute("CREATE VIRTUAL TABLE e USING fts5(title, tags, subtitle, category, type UNINDEXED, ref UNINDEXED, cat UNINDEXED)")
db.executemany("INSERT INTO e VALUES (?,?,?,?,?,?,?)",
               [(d["title"], " ".join(d["tags"]), d["subtitle"], d["category"].replace("/", " "), d["type"],
                 f'{d["type"]}/{d["id"]}', d["category"]) for d in docs])


def fts_query(q):
    return " OR ".join("(" + " AND ".join(f'"{w}"' for w in words(l["text"])) + ")" for l in q["labels"])


def run_fts(q):
    m = fts_query(q)
    top = [r[0] for r in db.execute(
        "SELECT ref FROM e WHERE e MATCH ? ORDER BY bm25(e, 3.0, 2.0, 1.0, 0.5) LIMIT 10", (m,))]
    db.execute("SELECT type, count(*) FROM e WHERE e MATCH ? GROUP BY type", (m,)).fetchall()
    db.execute("SELECT cat, count(*) FROM e WHERE e MATCH ? GROUP BY cat", (m,)).fetchall()
    return top


report("sqlite fts5 (bm25 + facets)", run_fts)

try:
    import tantivy
except ImportError:
    print("tantivy: not installed (python3 -m venv .venv && .venv/bin/pip install tantivy)")
    sys.exit(0)

sb = tantivy.SchemaBuilder()
for field in ("title", "tags", "subtitle", "category_text"):
    sb.add_text_field(field, stored=False)
sb.add_text_field("ref", stored=True, tokenizer_name="raw")
sb.add_text_field("type", stored=False, tokenizer_name="raw", fast=True)
sb.add_text_field("category", stored=False, tokenizer_name="raw", fast=True)
schema = sb.build()
ix = tantivy.Index(schema)
w = ix.writer(heap_size=200_000_000, num_threads=1)
for d in docs:
    w.add_document(tantivy.Document(title=d["title"], tags=" ".join(d["tags"]), subtitle=d["subtitle"],
                                    category_text=d["category"].replace("/", " "), ref=f'{d["type"]}/{d["id"]}',
                                    type=d["type"], category=d["category"]))
w.commit()
ix.reload()
searcher = ix.searcher()
boosts = {"title": 3.0, "tags": 2.0, "subtitle": 1.0, "category_text": 0.5}
aggs = {"types": {"terms": {"field": "type"}}, "cats": {"terms": {"field": "category", "size": 100}}}


def run_tantivy(q):
    text = " OR ".join("(" + " AND ".join(words(l["text"])) + ")" for l in q["labels"])
    query = ix.parse_query(text, list(boosts), field_boosts=boosts)
    hits = searcher.search(query, 10).hits
    if hasattr(searcher, "aggregate"):
        searcher.aggregate(query, aggs)
    return [searcher.doc(a)["ref"][0] for _, a in hits]


report("tantivy (bm25 + facets)", run_tantivy)
