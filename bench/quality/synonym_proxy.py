#!/usr/bin/env python3
"""A tune-side proxy for synonyms used on both sides of the catalog (bench/quality/README.md).

    bench/quality/synonym_proxy.py [--share 0.4] [--out bench/out/quality/labels]

Takes the shop catalog that labels.py wrote (run it first), replaces, entity by entity and with
probability `--share` per group, the English word of each synonym group in its title, subtitle
and tags by another term of the group (seeded), and scores our sheet and the two peers on it
on labels.py's four runs (labels as drawn and swapped, each without and with synonyms), judged as labels.py judges and judged with
the catalog's synonyms. Queries and ground truth stay the shop's.
"""
import argparse
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labels as L  # noqa: E402


def replaced(source, target, groups, share, seed=7):
    """Writes `source`'s entities to `target` with group words replaced as described above.

    Returns, per entity (`type/id`), the words replaced in it: {folded word: its replacement}."""
    rng = random.Random(seed)
    changes = {}
    with open(source, encoding="utf-8") as f, open(target, "w", encoding="utf-8") as out:
        for line in f:
            e = json.loads(line)
            for group in groups:
                word, others = group[0], group[1:]
                pattern = re.compile(r"\b" + re.escape(word) + r"\b", re.I)
                text = " ".join([e["title"], e.get("subtitle", "")] + e.get("tags", []))
                if pattern.search(text) and rng.random() < share:
                    other = rng.choice(others)
                    e["title"] = pattern.sub(other.capitalize(), e["title"])
                    e["subtitle"] = pattern.sub(other, e.get("subtitle", ""))
                    e["tags"] = [pattern.sub(other, t) for t in e.get("tags", [])]
                    changes.setdefault(f'{e["type"]}/{e["id"]}', {})[" ".join(L.words(word))] = other
            out.write(json.dumps(e, ensure_ascii=False) + "\n")
    return changes


def following(queries, truths, changes):
    """The queries with each label that is a word replaced in the query's target replaced the same
    way: labels drawn from the entity as the catalog now has it, as every generator draws them."""
    out = []
    for q, t in zip(queries, truths):
        swap = changes.get(t.get("target") or "", {})
        out.append(dict(q, labels=[dict(label, text=swap.get(" ".join(L.words(label["text"])), label["text"]))
                                   for label in q["labels"]]))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.path.join(L.ROOT, "bench", "out", "quality", "labels"))
    p.add_argument("--share", type=float, default=0.4)
    p.add_argument("--labels-follow", action="store_true",
                   help="a query's label that is a word replaced in its target is replaced the same way")
    p.add_argument("--binary", default=os.path.join(L.ROOT, ".build", "release", "vi-continue"))
    a = p.parse_args()
    shop = os.path.join(a.out, "shop")
    d = os.path.join(a.out, f"shop-synonym-proxy-{a.share}" + ("-follow" if a.labels_follow else ""))
    os.makedirs(d, exist_ok=True)
    groups = [json.loads(line)["synonyms"] for line in open(os.path.join(shop, "synonyms.jsonl"), encoding="utf-8")]
    plain = os.path.join(d, "catalog-plain.jsonl")
    changes = replaced(os.path.join(shop, "catalog-plain.jsonl"), plain, groups, a.share)
    syn_catalog = os.path.join(d, "catalog-synonyms.jsonl")
    with open(syn_catalog, "w", encoding="utf-8") as out:
        out.write(open(os.path.join(shop, "synonyms.jsonl"), encoding="utf-8").read())
        out.write(open(plain, encoding="utf-8").read())
    docs = L.peers.read_docs(plain)
    queries = [json.loads(line) for line in open(os.path.join(shop, "queries.jsonl"), encoding="utf-8")]
    truths = [json.loads(line) for line in open(os.path.join(shop, "truth.jsonl"), encoding="utf-8")]
    if a.labels_follow:
        queries = following(queries, truths, changes)
    synonyms = L.synonym_map(groups)
    judgements = {"as labels.py judges": L.judge(docs, queries, truths),
                  "with the catalog's synonyms": L.judge(docs, queries, truths, L.synonym_forms(synonyms))}
    fts, tv = L.peers.fts5_sheet(docs), L.peers.tantivy_sheet(docs)
    routes = os.path.join(shop, "routes.json")
    swapped = L.with_synonyms(queries, synonyms, "shop")
    runs = {}
    for variant, qs, syn, catalog in L.runs_of(queries, swapped, synonyms, plain, syn_catalog):
        runs[("ours", variant)] = L.ours(a.binary, catalog, routes, qs, d)[0]
        runs[("tantivy", variant)] = [tv(q, syn) for q in qs]
        runs[("fts5", variant)] = [fts(q, syn) for q in qs]
    with open(os.path.join(d, "runs.json"), "w") as f:
        json.dump({f"{s}/{v}": r for (s, v), r in runs.items()}, f)
    print(f"shop with {a.share:.0%} of each group's English word replaced"
          + (", labels following their target" if a.labels_follow else "") + ": nDCG@10\n")
    print("The labels as drawn and swapped (labels.py), each without → with the catalog's synonyms.\n")
    print("| judged | queries | ours | tantivy | FTS5 | lead with synonyms |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, judged in judgements.items():
        for label, (without, with_) in (("as drawn", ("plain", "drawn+syn")), ("swapped", ("swapped", "synonyms"))):
            cells = []
            for system in ("ours", "tantivy", "fts5"):
                x, y = (L.score(runs[(system, v)], judged)[0] for v in (without, with_))
                cells.append(f"{x:.3f} → {y:.3f} ({y - x:+.3f})")
            o, t, f = (L.score(runs[(s, with_)], judged)[0] for s in ("ours", "tantivy", "fts5"))
            print(f"| {name} | {label} | " + " | ".join(cells) + f" | {o - max(t, f):+.3f} |")

if __name__ == "__main__":
    main()
