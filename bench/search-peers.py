#!/usr/bin/env python3
"""Peers for bench/search: SQLite FTS5 and tantivy on the same catalog, queries and judgements.

    bench/search-peers.py [catalog.jsonl] [queries.jsonl] [--peers fts5,tantivy] [--rounds 3]

Works on any catalog in the JSONL format (bench/gen-catalog, bench/gen-catalog-shop,
bench/gen-catalog-sparse). Its files go next to the queries file, so runs on different catalogs
(each with its own queries file, as bench/search-shapes lays them out) do not overwrite each other:
- judgements.json: graded relevance per query, read by search-bench for nDCG@10;
- peer-facets.json: the facet counts per query (FTS5's when it runs, else tantivy's), for
  search-bench to check its own against;
- peers.json: every timed row as {"n", "p50", "p99", "worst"} in µs, for bench/search-shapes, and
  tantivy's memory (bench/peer_memory.py) under "tantivy memory (MiB)";
- tantivy-index/: tantivy's index, on disk.

Per peer it prints latency p50, p99 and the worst call of
- the sheet query (labels: OR across labels, AND within a label, top 10), with nDCG@10;
- the faceted search vi-continue's `search page 1 + facets` runs: every label's words ANDed (a
  session's selected chips), top 20, and the facets over all hits;
- the same search's page 2 (hits 21–40) with the same facets, as vi-continue's `search page 2`
  recomputes them;
- the faceted search again over the queries whose AND query has hits, and over those with none
  (search-bench splits its own row the same way: strict hits, relaxed);
- tantivy's RSS in a process of its own that opens the index and runs the faceted searches
  (bench/peer_memory.py), beside which vi-continue's server RSS at the end of a Capture load stands.

Facets, the rule vi-continue's search follows (SearchEngine+Facets.swift): type; category with
all its ancestors (`Home`, `Home/Kitchen`, `Home/Kitchen/Knife`); and EVERY attribute the catalog
has: an attribute with any string value by value, a numeric one in vi-continue's equal-width
buckets (NumberBuckets, reproduced below; integral attributes get inclusive bounds). On
bench/gen-catalog's catalog that is the former fixed set (city, year, price). Each facet is one
aggregation (tantivy) or one GROUP BY (FTS5), as before, so a catalog with 40 attributes costs
the peers 42 of them per search, as it costs vi-continue 42 facets. tantivy answers at most
65,000 buckets per aggregation, so its timed searches return each attribute's 1,000 most frequent
values (it counts them all; vi-continue lists 100 by default), and its reference counts for
peer-facets.json are asked a group of attributes at a time (null for a query whose hits have more
than 60,000 values of one attribute: not compared).

Judgements (skipped when they would hold more than 40M query-entity pairs, as on sparse at 1M):
for each label word, an entity scores 2 when the word is in its tags or title and it
sits in the query's category, 1 when the word is in its tags or title elsewhere; a query's grade for
an entity is the sum over its labels.
"""
import argparse
import json
import math
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import tantivy
except ImportError:
    tantivy = None
if tantivy:
    # Words as the engine's analyzer makes them: split on what is not a letter or digit (in any
    # script), lower-cased, diacritics folded ("Łódź" → "lodz"). tantivy indexes with the same
    # analyzer, so a label finds what the engine finds, whatever the catalog's alphabet.
    folding = (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).filter(tantivy.Filter.lowercase())
               .filter(tantivy.Filter.ascii_fold()).build())
    words = folding.analyze
else:
    folding = None
    words = lambda s: re.findall(r"[a-z0-9]+", s.lower())  # noqa: E731
phrase = lambda s: " ".join(words(s))  # noqa: E731  a tag or a label as one key, folded like words
# The sheet's field weights, the same for both peers: title 3, tags 2, subtitle 1, category 0.5.
BOOSTS = {"title": 3.0, "tags": 2.0, "subtitle": 1.0, "category_text": 0.5}


def read_docs(path):
    """The catalog's entities (synonym lines skipped) with the fields the peers index."""
    docs = []
    with open(path) as f:
        for line in f:
            e = json.loads(line)
            if "synonyms" in e:
                continue
            docs.append({k: e.get(k, "") for k in ("type", "id", "title", "subtitle", "category")}
                        | {"tags": e.get("tags", []), "attributes": e.get("attributes", {})})
    return docs


def sheet_words(q, synonyms=None):
    """Per label with words, per word, its alternatives: the word, and with `synonyms` (a map from
    a folded word to its group's folded words) every word of its group."""
    out = []
    for label in q["labels"]:
        ws = words(label["text"])
        if ws:
            out.append([sorted(set((synonyms or {}).get(w, [w])) | {w}) for w in ws])
    return out


def fts_query(q, synonyms=None):
    """The sheet as an FTS5 MATCH: OR across labels, AND within a label."""
    return " OR ".join("(" + " AND ".join("(" + " OR ".join(f'"{a}"' for a in alts) + ")" for alts in label) + ")"
                       for label in sheet_words(q, synonyms))


def tantivy_text(q, synonyms=None):
    """The sheet in tantivy's query language: OR across labels, AND within a label."""
    return " OR ".join("(" + " AND ".join("(" + " OR ".join(alts) + ")" for alts in label) + ")"
                       for label in sheet_words(q, synonyms))


def fts5_sheet(docs):
    """A function answering the sheet's top 10 refs from SQLite FTS5 (bm25, BOOSTS) over `docs`."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE s USING fts5(title, tags, subtitle, category, ref UNINDEXED)")
    db.executemany("INSERT INTO s VALUES (?, ?, ?, ?, ?)",
                   [(d["title"], " ".join(d["tags"]), d["subtitle"], d["category"].replace("/", " "),
                     f'{d["type"]}/{d["id"]}') for d in docs])

    def run(q, synonyms=None, k=10):
        match = fts_query(q, synonyms)
        if not match:
            return []
        return [r[0] for r in db.execute(
            "SELECT ref FROM s WHERE s MATCH ? ORDER BY bm25(s, 3.0, 2.0, 1.0, 0.5) LIMIT ?", (match, k))]
    return run


def tantivy_sheet(docs):
    """A function answering the sheet's top 10 refs from tantivy (BM25, BOOSTS) over `docs`."""
    sb = tantivy.SchemaBuilder()
    for field in BOOSTS:
        sb.add_text_field(field, stored=False, tokenizer_name="folding")
    sb.add_text_field("ref", stored=True, tokenizer_name="raw")
    ix = tantivy.Index(sb.build())
    ix.register_tokenizer("folding", folding)
    w = ix.writer(heap_size=100_000_000, num_threads=1)
    for d in docs:
        w.add_document(tantivy.Document(title=d["title"], tags=" ".join(d["tags"]), subtitle=d["subtitle"],
                                        category_text=d["category"].replace("/", " "), ref=f'{d["type"]}/{d["id"]}'))
    w.commit()
    ix.reload()
    searcher = ix.searcher()

    def run(q, synonyms=None, k=10):
        text = tantivy_text(q, synonyms)
        if not text:
            return []
        query = ix.parse_query(text, list(BOOSTS), field_boosts=BOOSTS)
        return [searcher.doc(a)["ref"][0] for _, a in searcher.search(query, k).hits]
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("catalog", nargs="?", default=os.path.join(HERE, "out", "catalog-100k.jsonl"))
    parser.add_argument("queries", nargs="?", default=os.path.join(HERE, "out", "queries.jsonl"))
    parser.add_argument("--peers", default="fts5,tantivy", help="comma-separated: fts5, tantivy")
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over the queries")
    args = parser.parse_args()
    peers = set(args.peers.split(","))
    out_dir = os.path.dirname(os.path.abspath(args.queries))

    start = time.perf_counter()
    docs = read_docs(args.catalog)
    queries = [json.loads(l) for l in open(args.queries)]
    print(f"peers: {len(docs)} entities, {len(queries)} queries read in {time.perf_counter() - start:.1f} s")

    # Judgements: an entity is relevant to a label that is one of its title's words or one of its tags.
    index = {}
    for i, d in enumerate(docs):
        for w in set(words(d["title"]) + [phrase(t) for t in d["tags"]]):
            index.setdefault(w, []).append(i)
    # Every judged (query, entity) pair is kept: on sparse at 1M that would be ~170M pairs (~20 GB), so
    # past JUDGED_PAIRS the judgements are skipped and no nDCG is reported (latency rows only).
    JUDGED_PAIRS = 40_000_000
    pairs = sum(len(index.get(phrase(l["text"]), [])) for q in queries for l in q["labels"])
    judgements_path = os.path.join(out_dir, "judgements.json")
    judgements = None
    if pairs <= JUDGED_PAIRS:
        judgements = []
        for q in queries:
            grades = {}
            for label in q["labels"]:
                for i in index.get(phrase(label["text"]), []):
                    d = docs[i]
                    grades[f'{d["type"]}/{d["id"]}'] = grades.get(f'{d["type"]}/{d["id"]}', 0) + (2 if d["category"] == q["category"] else 1)
            judgements.append(grades)
        with open(judgements_path, "w") as f:
            json.dump(judgements, f)
    else:
        print(f"peers: {pairs} judged pairs exceed {JUDGED_PAIRS}: no judgements, no nDCG@10")
        if os.path.exists(judgements_path):
            os.remove(judgements_path)
    del index

    # Every attribute, string (any string value) or numeric, as vi-continue's snapshot classifies them.
    attribute_names, string_attributes, ranges = set(), set(), {}
    for d in docs:
        for name, value in d["attributes"].items():
            attribute_names.add(name)
            if isinstance(value, str):
                string_attributes.add(name)
            else:
                lo, hi, integral = ranges.get(name, (value, value, True))
                ranges[name] = (min(lo, value), max(hi, value), integral and float(value).is_integer())
    attribute_names = sorted(attribute_names)
    cardinality = {name: len({d["attributes"][name] for d in docs if name in d["attributes"]}) for name in string_attributes}


    def buckets(lo, hi, integral):
        """vi-continue's NumberBuckets: a nice width (1, 2 or 5 × 10ⁿ) giving at most ten buckets."""
        width = 1.0
        if hi > lo:
            raw = (hi - lo) / 10
            magnitude = 10.0 ** math.floor(math.log10(raw))
            width = next((m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw), 10 * magnitude)
            if integral:
                width = max(1.0, math.ceil(width))
        start = math.floor(lo / width) * width
        return start, width, integral


    numeric = {name: buckets(*r) for name, r in ranges.items() if name not in string_attributes}
    print(f"peers: facets on type, category (with ancestors), {len(string_attributes)} string and "
          f"{len(numeric)} numeric attributes")


    def format_number(n):
        return str(int(n)) if float(n).is_integer() and abs(n) < 1e15 else repr(float(n))


    def bucket_label(name, index):
        start, width, integral = numeric[name]
        lo = start + index * width
        hi = lo + width - 1 if integral else lo + width
        return f"{format_number(lo)}..{format_number(hi)}"


    def value_label(name, value):
        if name in string_attributes and not isinstance(value, str):
            return format_number(value)  # a number among strings: vi-continue shows its description
        return value


    def ancestors(c):
        parts = c.split("/") if c else []
        return ["/".join(parts[:k]) for k in range(1, len(parts) + 1)]


    def ndcg(ranked, grades):
        dcg = sum((2 ** grades.get(r, 0) - 1) / math.log2(i + 2) for i, r in enumerate(ranked[:10]))
        ideal = sorted(grades.values(), reverse=True)[:10]
        idcg = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
        return dcg / idcg if idcg else 0.0


    rows = {}


    def report(name, run, judge=True, subset=None):
        judge = judge and judgements is not None
        chosen = range(len(queries)) if subset is None else subset
        if not chosen:
            return
        for qi in list(chosen)[:50]:
            run(queries[qi])  # warm-up
        lat, scores = [], []
        for _ in range(args.rounds):
            for qi in chosen:
                q = queries[qi]
                t = time.perf_counter()
                ranked = run(q)
                lat.append((time.perf_counter() - t) * 1e6)
                if judge:
                    scores.append(ndcg(ranked, judgements[qi]))
        lat.sort()
        p50, p99, worst = lat[len(lat) // 2], lat[min(len(lat) - 1, int(len(lat) * 0.99))], lat[-1]
        rows[name] = {"n": len(lat), "p50": p50, "p99": p99, "worst": worst}
        quality = f"  nDCG@10 {statistics.mean(scores):.4f}" if judge else ""
        print(f"{name:44} n={len(lat):6d}  p50 {p50:8.1f} µs  p99 {p99:8.1f} µs  worst {worst:9.1f} µs" + quality,
              flush=True)
        with open(os.path.join(out_dir, "peers.json"), "w") as f:
            json.dump(rows, f, indent=1)


    def fts_all(q):
        return " AND ".join(f'"{w}"' for l in q["labels"] for w in words(l["text"]))


    peer_facets = None
    if "fts5" in peers:
        # SQLite FTS5, bm25 with the same field weights (title 3, tags 2, subtitle 1, category 0.5).
        # Categories are facetted through a side table of (row, category or ancestor).
        db = sqlite3.connect(":memory:")
        columns = [f'"a_{n}" UNINDEXED' for n in attribute_names]
        db.execute("CREATE VIRTUAL TABLE e USING fts5(title, tags, subtitle, category, type UNINDEXED, ref UNINDEXED"
                   + "".join(", " + c for c in columns) + ")")
        db.executemany(f"INSERT INTO e VALUES ({','.join('?' * (6 + len(attribute_names)))})",
                       [(d["title"], " ".join(d["tags"]), d["subtitle"], d["category"].replace("/", " "), d["type"],
                         f'{d["type"]}/{d["id"]}', *[d["attributes"].get(n) for n in attribute_names]) for d in docs])
        db.execute("CREATE TABLE c (doc INTEGER, cat TEXT)")
        db.executemany("INSERT INTO c VALUES (?, ?)", [(i + 1, c) for i, d in enumerate(docs) for c in ancestors(d["category"])])
        db.execute("CREATE INDEX c_doc ON c (doc)")
        fts_facets = [("type", "SELECT type, count(*) FROM e WHERE e MATCH ? GROUP BY 1"),
                      ("category", "SELECT c.cat, count(*) FROM e JOIN c ON c.doc = e.rowid WHERE e MATCH ? GROUP BY 1")]
        for name in attribute_names:
            if name in numeric:
                start, width, _ = numeric[name]
                fts_facets.append((name, f'SELECT CAST(("a_{name}" - {start}) / {width} AS INTEGER), count(*) FROM e '
                                         f'WHERE e MATCH ? AND "a_{name}" IS NOT NULL GROUP BY 1'))
            else:
                fts_facets.append((name, f'SELECT "a_{name}", count(*) FROM e WHERE e MATCH ? AND "a_{name}" IS NOT NULL GROUP BY 1'))

        def run_fts(q):
            return [r[0] for r in db.execute(
                "SELECT ref FROM e WHERE e MATCH ? ORDER BY bm25(e, 3.0, 2.0, 1.0, 0.5) LIMIT 10", (fts_query(q),))]

        def run_fts_faceted(q, offset=0):
            m = fts_all(q)
            top = [r[0] for r in db.execute(
                "SELECT ref FROM e WHERE e MATCH ? ORDER BY bm25(e, 3.0, 2.0, 1.0, 0.5) LIMIT 20 OFFSET ?", (m, offset))]
            facets = {}
            for name, sql in fts_facets:
                for value, count in db.execute(sql, (m,)).fetchall():
                    label = bucket_label(name, value) if name in numeric else value_label(name, value)
                    facets.setdefault(name, {})[label] = count
            return top, facets

        report("sqlite fts5 (bm25, top 10)", run_fts)
        report("sqlite fts5 (AND, top 20 + all facets)", lambda q: run_fts_faceted(q)[0], judge=False)
        peer_facets = [run_fts_faceted(q)[1] for q in queries]
        db.close()

    if "tantivy" not in peers:
        return
    if not tantivy:
        print("tantivy: not installed (python3 -m venv .venv && .venv/bin/pip install tantivy)")
        return

    start = time.perf_counter()
    sb = tantivy.SchemaBuilder()
    for field in ("title", "tags", "subtitle", "category_text"):
        sb.add_text_field(field, stored=False, tokenizer_name="folding")
    sb.add_text_field("ref", stored=True, tokenizer_name="raw")
    sb.add_text_field("type", stored=False, tokenizer_name="raw", fast=True)
    sb.add_text_field("category", stored=False, tokenizer_name="raw", fast=True)  # the category and its ancestors
    for name in attribute_names:  # attributes as a_<name>, clear of the fixed fields
        if name in numeric:
            sb.add_float_field(f"a_{name}", stored=False, fast=True)
        else:
            sb.add_text_field(f"a_{name}", stored=False, tokenizer_name="raw", fast=True)
    schema = sb.build()
    # On disk, as a server would keep it (and as vi-continue keeps its persisted index), so that a
    # process of its own can open it for the memory row below.
    index_dir = os.path.join(out_dir, "tantivy-index")
    shutil.rmtree(index_dir, ignore_errors=True)
    os.makedirs(index_dir)
    ix = tantivy.Index(schema, path=index_dir)
    ix.register_tokenizer("folding", folding)
    w = ix.writer(heap_size=200_000_000, num_threads=1)
    for d in docs:
        extra = {f"a_{k}": (float(v) if k in numeric else value_label(k, v)) for k, v in d["attributes"].items()}
        w.add_document(tantivy.Document(title=d["title"], tags=" ".join(d["tags"]), subtitle=d["subtitle"],
                                        category_text=d["category"].replace("/", " "), ref=f'{d["type"]}/{d["id"]}',
                                        type=d["type"], category=ancestors(d["category"]), **extra))
    w.commit()
    ix.reload()
    searcher = ix.searcher()
    print(f"tantivy: index built in {time.perf_counter() - start:.1f} s")
    boosts = BOOSTS
    # tantivy refuses an aggregation answer of more than 65,000 buckets in all, and archive's
    # attributes have 180,000 values. So the timed searches ask each attribute's terms aggregation
    # for its 1,000 most frequent values (tantivy still counts every value; ours lists 100 a facet
    # by default); the reference counts (peer-facets.json) ask for every value, a group of
    # attributes at a time.
    top_values = 1000
    bucket_limit = 60_000

    def terms(name, size):
        return {"terms": {"field": f"a_{name}", "size": size, "segment_size": size}}

    fixed_aggs = {"types": {"terms": {"field": "type", "size": 1000}},
                  "cats": {"terms": {"field": "category", "size": 100_000}}}
    for name in attribute_names:
        if name in numeric:
            start, width, _ = numeric[name]
            fixed_aggs[f"a_{name}"] = {"histogram": {"field": f"a_{name}", "interval": width,
                                                     "offset": start % width, "min_doc_count": 1}}
    aggs = dict(fixed_aggs)
    for name in attribute_names:
        if name not in numeric:
            aggs[f"a_{name}"] = terms(name, min(top_values, max(1, cardinality[name])))
    groups, in_group = [[]], 0
    for name in sorted((n for n in attribute_names if n not in numeric), key=lambda n: cardinality[n]):
        if groups[-1] and in_group + cardinality[name] > bucket_limit:
            groups.append([])
            in_group = 0
        groups[-1].append(name)
        in_group += cardinality[name]


    def run_tantivy(q):
        query = ix.parse_query(tantivy_text(q), list(boosts), field_boosts=boosts)
        return [searcher.doc(a)["ref"][0] for _, a in searcher.search(query, 10).hits]


    def run_tantivy_faceted(q, offset=0):
        text = " AND ".join(w for l in q["labels"] for w in words(l["text"]))
        query = ix.parse_query(text, list(boosts), field_boosts=boosts)
        top = [searcher.doc(a)["ref"][0] for _, a in searcher.search(query, 20, offset=offset).hits]
        return top, searcher.aggregate(query, aggs)


    def tantivy_facets(result):
        """tantivy's aggregation answer in the shape of peer-facets.json."""
        facets = {}
        for key, name in (("types", "type"), ("cats", "category")):
            for b in result[key]["buckets"]:
                facets.setdefault(name, {})[b["key"]] = b["doc_count"]
        for name in attribute_names:
            for b in result[f"a_{name}"]["buckets"]:
                if not b["doc_count"]:
                    continue
                if name in numeric:
                    start, width, _ = numeric[name]
                    facets.setdefault(name, {})[bucket_label(name, round((b["key"] - start) / width))] = b["doc_count"]
                else:
                    facets.setdefault(name, {})[b["key"]] = b["doc_count"]
        return facets


    def exact_facets(q):
        """Every value's count, or None when one attribute has more values among the hits than
        tantivy answers in one aggregation (not compared)."""
        query = ix.parse_query(" AND ".join(w for l in q["labels"] for w in words(l["text"])), list(boosts),
                               field_boosts=boosts)
        result = searcher.aggregate(query, fixed_aggs)
        for group in groups:
            result.update(searcher.aggregate(
                query, {f"a_{n}": terms(n, min(bucket_limit, max(1, cardinality[n]))) for n in group}))
        if any(len(result[f"a_{n}"]["buckets"]) >= bucket_limit for g in groups for n in g):
            return None
        return tantivy_facets(result)

    ours = [exact_facets(q) for q in queries]
    if None in ours:
        print(f"tantivy: {ours.count(None)} of {len(queries)} queries have an attribute with more than "
              f"{bucket_limit} values among their hits: their counts are not compared")
    if peer_facets is not None:
        agree = sum(t == p for t, p in zip(ours, peer_facets))
        print(f"tantivy's facets equal FTS5's on {agree} of {len(queries)} queries")
    else:
        peer_facets = ours
    with open(os.path.join(out_dir, "peer-facets.json"), "w") as f:
        json.dump(peer_facets, f)
    report("tantivy (bm25, top 10)", run_tantivy)
    report("tantivy (AND, top 20 + all facets)", lambda q: run_tantivy_faceted(q)[0], judge=False)
    report("tantivy (AND, page 2 + all facets)", lambda q: run_tantivy_faceted(q, offset=20)[0], judge=False)
    # The faceted row split as search-bench splits its own: queries whose AND query has hits, and those
    # with none (vi-continue relaxes those; here they answer nothing).
    with_hits = [i for i, q in enumerate(queries)
                 if searcher.search(ix.parse_query(" AND ".join(w for l in q["labels"] for w in words(l["text"])),
                                                   list(boosts), field_boosts=boosts), 1).count]
    without = [i for i in range(len(queries)) if i not in set(with_hits)]
    report("tantivy (AND, top 20 + all facets), hits", lambda q: run_tantivy_faceted(q)[0], judge=False, subset=with_hits)
    report("tantivy (AND, top 20 + all facets), no hit", lambda q: run_tantivy_faceted(q)[0], judge=False, subset=without)

    # tantivy's memory, in a process that opens the index and runs the faceted searches
    # (bench/peer_memory.py): this one holds the whole catalog as Python objects.
    spec_path = os.path.join(out_dir, "tantivy-memory-spec.json")
    with open(spec_path, "w") as f:
        json.dump({"queries": [" AND ".join(w for l in q["labels"] for w in words(l["text"])) for q in queries],
                   "boosts": boosts, "aggregations": aggs}, f)
    measured = subprocess.run([sys.executable, os.path.join(HERE, "peer_memory.py"), index_dir, spec_path,
                               "--rounds", str(args.rounds)], capture_output=True, text=True, check=True)
    memory = json.loads(measured.stdout)
    rows["tantivy memory (MiB)"] = memory
    with open(os.path.join(out_dir, "peers.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print(f"tantivy RSS in a process of its own, after {memory['searches']} faceted searches: "
          f"{memory['end']:.1f} MiB ({memory['end less interpreter']:.1f} MiB beyond the "
          f"{memory['interpreter']:.1f} MiB of Python with tantivy imported; {memory['opened']:.1f} MiB "
          f"once opened, peak {memory['peak']:.1f} MiB)", flush=True)


if __name__ == "__main__":
    main()
