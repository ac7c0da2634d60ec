#!/usr/bin/env python3
"""Peers for bench/search: SQLite FTS5 and tantivy on the same catalog, queries and judgements.

    bench/search-peers.py [catalog.jsonl] [queries.jsonl]

Writes bench/out/judgements.json (graded relevance per query, read by search-bench for nDCG@10)
and prints, per peer, latency p50/p99 of
- the sheet query (labels: OR across labels, AND within a label, top 10), with nDCG@10;
- the faceted search vi-continue's `search page 1 + facets` runs: every label's words ANDed (a
  session's selected chips), top 20, and the facets it computes over all hits: type; category
  with its ancestors (`Music` and `Music/Rock`); city; year and price in vi-continue's equal-width
  buckets (see NumberBuckets). bench/out/peer-facets.json holds FTS5's facet counts per query
  (checked here against tantivy's) for search-bench to check its own against.

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
        docs.append({k: e.get(k, "") for k in ("type", "id", "title", "subtitle", "category")}
                    | {"tags": e.get("tags", []), "attributes": e.get("attributes", {})})
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


def buckets(values):
    """vi-continue's NumberBuckets: a nice width (1, 2 or 5 × 10ⁿ) giving at most ten buckets."""
    lo, hi = min(values), max(values)
    integral = all(float(v).is_integer() for v in values)
    width = 1.0
    if hi > lo:
        raw = (hi - lo) / 10
        magnitude = 10.0 ** math.floor(math.log10(raw))
        width = next((m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw), 10 * magnitude)
        if integral:
            width = max(1.0, math.ceil(width))
    start = math.floor(lo / width) * width
    return start, width


def format_number(n):
    return str(int(n)) if float(n).is_integer() and abs(n) < 1e15 else repr(float(n))


def bucket_label(name, index):
    start, width = numeric[name]
    lo = start + index * width
    hi = lo + width - 1 if name == "year" else lo + width
    return f"{format_number(lo)}..{format_number(hi)}"


numeric = {name: buckets([d["attributes"][name] for d in docs if name in d["attributes"]]) for name in ("year", "price")}


def top_category(c):
    return c.split("/")[0]


def ndcg(ranked, grades):
    dcg = sum((2 ** grades.get(r, 0) - 1) / math.log2(i + 2) for i, r in enumerate(ranked[:10]))
    ideal = sorted(grades.values(), reverse=True)[:10]
    idcg = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def report(name, run, judge=True):
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
    quality = f"  nDCG@10 {statistics.mean(scores):.4f}" if judge else ""
    print(f"{name:44} n={len(lat):6d}  p50 {lat[len(lat)//2]:8.1f} µs  p99 {lat[int(len(lat)*0.99)]:8.1f} µs"
          + quality)


# SQLite FTS5, bm25 with the same field weights (title 3, tags 2, subtitle 1, category 0.5).
db = sqlite3.connect(":memory:")
db.execute("CREATE VIRTUAL TABLE e USING fts5(title, tags, subtitle, category, type UNINDEXED, ref UNINDEXED, "
           "cat UNINDEXED, top UNINDEXED, city UNINDEXED, year UNINDEXED, price UNINDEXED)")
db.executemany("INSERT INTO e VALUES (?,?,?,?,?,?,?,?,?,?,?)",
               [(d["title"], " ".join(d["tags"]), d["subtitle"], d["category"].replace("/", " "), d["type"],
                 f'{d["type"]}/{d["id"]}', d["category"], top_category(d["category"]),
                 d["attributes"].get("city"), d["attributes"].get("year"), d["attributes"].get("price"))
                for d in docs])
# The same facets as vi-continue's search: type, category and its ancestors, city, year and price buckets.
fts_facets = [("type", "SELECT type, count(*) FROM e WHERE e MATCH ? GROUP BY 1"),
              ("category", "SELECT cat, count(*) FROM e WHERE e MATCH ? AND cat != '' GROUP BY 1"),
              ("category", "SELECT top, count(*) FROM e WHERE e MATCH ? AND cat LIKE '%/%' GROUP BY 1"),
              ("city", "SELECT city, count(*) FROM e WHERE e MATCH ? AND city IS NOT NULL GROUP BY 1")]
for name, (start, width) in numeric.items():
    fts_facets.append((name, f"SELECT CAST(({name} - {start}) / {width} AS INTEGER), count(*) FROM e "
                             f"WHERE e MATCH ? AND {name} IS NOT NULL GROUP BY 1"))


def fts_query(q):
    return " OR ".join("(" + " AND ".join(f'"{w}"' for w in words(l["text"])) + ")" for l in q["labels"])


def fts_all(q):
    return " AND ".join(f'"{w}"' for l in q["labels"] for w in words(l["text"]))


def run_fts(q):
    return [r[0] for r in db.execute(
        "SELECT ref FROM e WHERE e MATCH ? ORDER BY bm25(e, 3.0, 2.0, 1.0, 0.5) LIMIT 10", (fts_query(q),))]


def run_fts_faceted(q):
    m = fts_all(q)
    top = [r[0] for r in db.execute(
        "SELECT ref FROM e WHERE e MATCH ? ORDER BY bm25(e, 3.0, 2.0, 1.0, 0.5) LIMIT 20", (m,))]
    facets = {}
    for name, sql in fts_facets:
        for value, count in db.execute(sql, (m,)).fetchall():
            label = bucket_label(name, value) if name in numeric else value
            facets.setdefault(name, {})[label] = count
    return top, facets


report("sqlite fts5 (bm25, top 10)", run_fts)
report("sqlite fts5 (AND, top 20 + all facets)", lambda q: run_fts_faceted(q)[0], judge=False)
peer_facets = [run_fts_faceted(q)[1] for q in queries]
with open(os.path.join(HERE, "out", "peer-facets.json"), "w") as f:
    json.dump(peer_facets, f)

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
sb.add_text_field("category", stored=False, tokenizer_name="raw", fast=True)  # the category and its ancestors
sb.add_text_field("city", stored=False, tokenizer_name="raw", fast=True)
sb.add_integer_field("year", stored=False, fast=True)
sb.add_float_field("price", stored=False, fast=True)
schema = sb.build()
ix = tantivy.Index(schema)
w = ix.writer(heap_size=200_000_000, num_threads=1)
for d in docs:
    categories = [d["category"]] + ([top_category(d["category"])] if "/" in d["category"] else [])
    extra = {k: d["attributes"][k] for k in ("city", "year", "price") if k in d["attributes"]}
    if "year" in extra:
        extra["year"] = int(extra["year"])
    if "price" in extra:
        extra["price"] = float(extra["price"])
    w.add_document(tantivy.Document(title=d["title"], tags=" ".join(d["tags"]), subtitle=d["subtitle"],
                                    category_text=d["category"].replace("/", " "), ref=f'{d["type"]}/{d["id"]}',
                                    type=d["type"], category=categories, **extra))
w.commit()
ix.reload()
searcher = ix.searcher()
boosts = {"title": 3.0, "tags": 2.0, "subtitle": 1.0, "category_text": 0.5}
aggs = {"types": {"terms": {"field": "type", "size": 100}}, "cats": {"terms": {"field": "category", "size": 1000}},
        "cities": {"terms": {"field": "city", "size": 1000}}}
for name, (start, width) in numeric.items():
    aggs[name] = {"histogram": {"field": name, "interval": width, "offset": start % width, "min_doc_count": 1}}


def run_tantivy(q):
    text = " OR ".join("(" + " AND ".join(words(l["text"])) + ")" for l in q["labels"])
    query = ix.parse_query(text, list(boosts), field_boosts=boosts)
    return [searcher.doc(a)["ref"][0] for _, a in searcher.search(query, 10).hits]


def run_tantivy_faceted(q):
    text = " AND ".join(w for l in q["labels"] for w in words(l["text"]))
    query = ix.parse_query(text, list(boosts), field_boosts=boosts)
    top = [searcher.doc(a)["ref"][0] for _, a in searcher.search(query, 20).hits]
    return top, searcher.aggregate(query, aggs)


def tantivy_facets(result):
    """tantivy's aggregation answer in the shape of peer-facets.json."""
    facets = {}
    for key, name in (("types", "type"), ("cats", "category"), ("cities", "city")):
        for b in result[key]["buckets"]:
            facets.setdefault(name, {})[b["key"]] = b["doc_count"]
    for name, (start, width) in numeric.items():
        for b in result[name]["buckets"]:
            if b["doc_count"]:
                facets.setdefault(name, {})[bucket_label(name, round((b["key"] - start) / width))] = b["doc_count"]
    return facets


agree = sum(tantivy_facets(run_tantivy_faceted(q)[1]) == peer_facets[i] for i, q in enumerate(queries))
print(f"tantivy's facets equal FTS5's on {agree} of {len(queries)} queries")
report("tantivy (bm25, top 10)", run_tantivy)
report("tantivy (AND, top 20 + all facets)", lambda q: run_tantivy_faceted(q)[0], judge=False)
