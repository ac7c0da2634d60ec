#!/usr/bin/env python3
"""Label quality by catalog: nDCG@10 of the sheet beside tantivy BM25 and SQLite FTS5 bm25.

    bench/quality/labels.py [--out bench/out/quality/labels] [--count 25000] [--binary PATH]
                            [--only music,shop] [--synonym-judgements]

Per catalog (bench/quality/README.md, "Labels"): the generator writes the catalog, its queries,
each query's ground truth (`--truth`) and its synonym groups (`--synonyms`); this script judges
every query from that ground truth, asks our sheet (`vi-continue query --batch`, in-process) and
the two peers of bench/search-peers.py (imported) on four runs — the labels as drawn and swapped
for a synonym (as a camera would say them), each without and with the catalog's synonyms — and
prints markdown tables: as drawn without beside swapped with synonyms (the earlier comparison),
then paired, the same queries without → with synonyms judged with the catalog's synonyms, then the
out-of-catalog empty rate. TUNE rows are marked; only TEST rows tell whether a change generalises.
"""
import argparse
import importlib.util
import json
import math
import os
import random
import subprocess
import sys
from importlib.machinery import SourceFileLoader

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCH)


def load(name, path):
    loader = SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


peers = load("search_peers", os.path.join(BENCH, "search-peers.py"))
library = load("gen_catalog_library", os.path.join(BENCH, "gen-catalog-library"))
words = peers.words

# name: (generator, split, extra generator arguments)
CATALOGS = {
    "music": ("gen-catalog", "tune", ["--out-of-catalog", "0.3"]),
    "shop": ("gen-catalog-shop", "tune", []),
    "sparse": ("gen-catalog-sparse", "tune", []),
    "listings": ("gen-catalog-listings", "test", []),
    "library": ("gen-catalog-library", "test", []),
}


def generate(name, out, count, python):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    files = {k: os.path.join(d, f"{k}.jsonl") for k in ("catalog", "queries", "truth", "synonyms")}
    if not all(os.path.exists(f) for f in files.values()):
        generator, _, extra = CATALOGS[name]
        subprocess.run([python, os.path.join(BENCH, generator), "--count", str(count), "--out", files["catalog"],
                        "--queries", files["queries"], "--truth", files["truth"], "--synonyms", files["synonyms"],
                        *extra], check=True, stdout=subprocess.DEVNULL)
    return files


def forms(word):
    """A folded word and its English plural or singular (the library generator's own rule), so a
    judged label `knife` is carried by `Knives` as the generator means it."""
    out = {word, library.plural(word)}
    out.update(s for s, p in library.IRREGULAR.items() if p == word)
    if word.endswith("ies"):
        out.add(word[:-3] + "y")
    if word.endswith("es"):
        out.add(word[:-2])
    if word.endswith("s"):
        out.add(word[:-1])
    return out


def synonym_forms(synonyms):
    """`forms` that also takes in every term of the groups of the word or of its singular or plural
    (and their forms): `movies` is carried by `Film` when `film` and `movie` are a group."""
    return lambda word: set().union(*(forms(w) for f in forms(word) for w in [f] + synonyms.get(f, [])))


def carries(entity_words, label, forms=forms):
    ws = words(label)
    return bool(ws) and all(forms(w) & entity_words for w in ws)


def judge(docs, queries, truths, forms=forms):
    """Graded relevance per query from the generator's ground truth.

    The labels that count are the ones the query's target entity carries (all of them when the
    query has no target: music's are about a category); an entity carries a label when each of
    its words (folded, in the singular or the plural) is in its title, tags or category path.
    Grade 3: the target (for music: an entity of the query's category carrying every label);
    2: another entity carrying every label; 1: carrying at least half of them; out-of-catalog
    queries have no relevant entity and are scored by whether the answer is empty. With
    `forms=synonym_forms(groups)` a word is carried through its synonyms too.
    """
    features = {}
    index = {}  # folded word → the refs carrying it
    for d in docs:
        ref = f'{d["type"]}/{d["id"]}'
        ws = set(words(" ".join([d["title"], d["category"].replace("/", " ")] + d["tags"])))
        features[ref] = (ws, d["category"])
        for w in ws:
            index.setdefault(w, set()).add(ref)

    def carriers(label):
        found = None
        for w in words(label):
            refs = set().union(*(index.get(f, set()) for f in forms(w)))
            found = refs if found is None else found & refs
        return found or set()

    judged = []
    for q, t in zip(queries, truths):
        if t["out_of_catalog"]:
            judged.append(None)
            continue
        labels = [label["text"] for label in q["labels"]]
        target = t.get("target")
        if target:
            labels = [label for label in labels if carries(features[target][0], label, forms)] or labels
        counts = {}
        for label in labels:
            for ref in carriers(label):
                counts[ref] = counts.get(ref, 0) + 1
        grades = {}
        for ref, n in counts.items():
            grade = 2 if n == len(labels) else 1 if 2 * n >= len(labels) else 0
            if not target and t.get("category") == features[ref][1] and grade == 2:
                grade = 3
            if grade:
                grades[ref] = grade
        if target:
            grades[target] = 3
        judged.append(grades)
    return judged


def ndcg(ranked, grades):
    dcg = sum((2 ** grades.get(r, 0) - 1) / math.log2(i + 2) for i, r in enumerate(ranked[:10]))
    ideal = sorted(grades.values(), reverse=True)[:10]
    idcg = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def synonym_map(groups):
    """Folded single word → every folded single word of its groups."""
    out = {}
    for g in groups:
        terms = [" ".join(words(t)) for t in g]
        terms = [t for t in terms if t and " " not in t]
        for t in terms:
            out.setdefault(t, set()).update(terms)
    return {k: sorted(v) for k, v in out.items()}


def with_synonyms(queries, synonyms, seed):
    """The queries as they would come with the synonyms in use: every label that is a term of a
    group becomes another term of it half of the time (a camera that says `Messer` or `couch`)."""
    rng = random.Random(seed)
    out = []
    for q in queries:
        labels = []
        for label in q["labels"]:
            key = " ".join(words(label["text"]))
            others = [t for t in synonyms.get(key, []) if t != key]
            if others and rng.random() < 0.5:
                label = dict(label, text=rng.choice(others))
            labels.append(label)
        out.append(dict(q, labels=labels))
    return out


# The four runs: (name, labels as drawn or swapped, synonyms supplied or not). "plain" and
# "synonyms" keep their earlier meaning (as drawn without, swapped with).
VARIANTS = ("plain", "drawn+syn", "swapped", "synonyms")


def runs_of(queries, swapped, synonyms, plain_catalog, syn_catalog):
    return (("plain", queries, None, plain_catalog), ("drawn+syn", queries, synonyms, syn_catalog),
            ("swapped", swapped, None, plain_catalog), ("synonyms", swapped, synonyms, syn_catalog))


def uses_group(q, synonyms):
    """Whether a label of the query has a word that is a term of a synonym group (or whose singular
    or plural is)."""
    return any(forms(w) & synonyms.keys() for label in q["labels"] for w in words(label["text"]))


def ours(binary, catalog, routes, queries, scratch):
    """Our sheet's refs per query (top 10) as served, and its direct matches alone (the sheet's
    related entities left out, the next matches moving up), from one `vi-continue query --batch`
    run at the longest limit: a sheet of 10 is its first 10 (a smaller limit gives a prefix)."""
    batch = os.path.join(scratch, "batch.jsonl")
    with open(batch, "w", encoding="utf-8") as f:
        for q in queries:
            texts = [label["text"] for label in q["labels"] if label["text"].strip()]
            f.write(json.dumps({"labels": texts, "limit": 20}, ensure_ascii=False) + "\n")
    run = subprocess.run([binary, "query", "--catalog", catalog, "--routes", routes, "--batch", batch, "--json"],
                         check=True, capture_output=True, text=True)
    answers = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    if len(answers) != len(queries) or any("error" in a for a in answers):
        bad = next((a for a in answers if "error" in a), {})
        sys.exit(f"labels: vi-continue answered {len(answers)} of {len(queries)} lines; {bad.get('error', '')}")
    served = [[f'{r["type"]}/{r["id"]}' for r in a["results"]][:10] for a in answers]
    direct = [[f'{r["type"]}/{r["id"]}' for r in a["results"] if r["match"] != "related"][:10] for a in answers]
    return served, direct


def score(rankings, judged):
    inside = [ndcg(r, g) for r, g in zip(rankings, judged) if g is not None]
    empty = [not r for r, g in zip(rankings, judged) if g is None]
    return sum(inside) / max(1, len(inside)), sum(empty) / max(1, len(empty)), len(inside), len(empty)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "quality", "labels"))
    p.add_argument("--count", type=int, default=25_000)
    p.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "vi-continue"))
    p.add_argument("--only", help="comma-separated catalog names")
    p.add_argument("--synonym-judgements", action="store_true",
                   help="judge a label as carried through the catalog's synonyms too, for both variants "
                        "(bench/quality/README.md, \"Labels\"); written to labels-synonym-judgements.json")
    a = p.parse_args()
    names = a.only.split(",") if a.only else list(CATALOGS)
    rows = []
    results = {}
    for name in names:
        files = generate(name, a.out, a.count, sys.executable)
        d = os.path.dirname(files["catalog"])
        docs = peers.read_docs(files["catalog"])
        queries = [json.loads(line) for line in open(files["queries"], encoding="utf-8")]
        truths = [json.loads(line) for line in open(files["truth"], encoding="utf-8")]
        groups = [json.loads(line)["synonyms"] for line in open(files["synonyms"], encoding="utf-8")]
        synonyms = synonym_map(groups)
        judged = judge(docs, queries, truths, synonym_forms(synonyms) if a.synonym_judgements else forms)
        judged_syn = judge(docs, queries, truths, synonym_forms(synonyms))
        # Our catalogs: without any synonym line (music's file has one), and with the generator's.
        plain = os.path.join(d, "catalog-plain.jsonl")
        with open(files["catalog"], encoding="utf-8") as src, open(plain, "w", encoding="utf-8") as dst:
            dst.writelines(line for line in src if not line.startswith('{"synonyms"'))
        syn_catalog = os.path.join(d, "catalog-synonyms.jsonl")
        with open(plain, encoding="utf-8") as src, open(syn_catalog, "w", encoding="utf-8") as dst:
            dst.writelines(open(files["synonyms"], encoding="utf-8").read())
            dst.writelines(src)
        # A route for every entity type: serve and the CLI leave out what no route opens.
        routes = os.path.join(d, "routes.json")
        subprocess.run([os.path.join(ROOT, "bench", "routes-for-catalog"), files["catalog"], routes], check=True)
        syn_queries = with_synonyms(queries, synonyms, name)
        fts = peers.fts5_sheet(docs)
        tv = peers.tantivy_sheet(docs)
        row = {"name": name, "split": CATALOGS[name][1], "groups": len(groups),
               "swapped": sum(x["labels"] != y["labels"] for x, y in zip(queries, syn_queries))}
        # Four runs: the labels as drawn and as a camera with the synonyms in use would say them
        # (swapped), each without and with the catalog's synonyms supplied. The first table pairs
        # plain/as drawn with supplied/swapped under the original judgements (the earlier report);
        # the paired table compares, on the same queries, not supplied with supplied.
        for variant, qs, syn, catalog in runs_of(queries, syn_queries, synonyms, plain, syn_catalog):
            served, direct = ours(a.binary, catalog, routes, qs, d)
            runs = {"ours": served, "ours matches": direct,
                    "tantivy": [tv(q, syn) for q in qs],
                    "fts5": [fts(q, syn) for q in qs]}
            for system, rankings in runs.items():
                row[(variant, system)] = score(rankings, judged)
                row[(variant, system, "syn")] = score(rankings, judged_syn)
                row[(variant, system, "syn", "group")] = score(
                    [r for r, q in zip(rankings, queries) if uses_group(q, synonyms)],
                    [j for j, q in zip(judged_syn, queries) if uses_group(q, synonyms)])
        rows.append(row)
        results[name] = {f"{v}/{s}" + ("/synonym-judgements" if j else ""): row[(v, s, "syn") if j else (v, s)]
                         for v in VARIANTS for s in ("ours", "ours matches", "tantivy", "fts5") for j in (False, True)}
        print(f"labels: {name} done", file=sys.stderr, flush=True)
    name = "labels-synonym-judgements.json" if a.synonym_judgements else "labels.json"
    with open(os.path.join(a.out, name), "w") as f:
        json.dump(results, f, indent=1)
    report(rows, a.synonym_judgements)


def report(rows, synonym_judgements=False):
    print("## Labels: nDCG@10 of the sheet per catalog (in-catalog queries), without and with synonyms\n")
    if synonym_judgements:
        print("Judged with the catalog's synonyms: a label is carried through a synonym of its words too.\n")
    print("\"ours\" is the sheet as served: related entities (a product's brand, an album's artist) of a top")
    print("result the labels identify (a label is its title) take every third slot after it, and the")
    print("judgements, made from labels alone, count them as irrelevant; \"matches\" is the same ranking")
    print("with them left out.\n")
    print("| catalog | split | queries (in / out) | ours | ours matches | tantivy | FTS5 | ours − best peer "
          "| matches − best peer | ours +syn | matches +syn | tantivy +syn | FTS5 +syn | ours − best peer +syn |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in sorted(rows, key=lambda r: (r["split"] != "tune", r["name"])):
        cells = []
        for variant in ("plain", "synonyms"):
            o, m, t, f = (r[(variant, s)][0] for s in ("ours", "ours matches", "tantivy", "fts5"))
            cells += [f"{o:.3f}", f"{m:.3f}", f"{t:.3f}", f"{f:.3f}", f"{o - max(t, f):+.3f}"]
            if variant == "plain":
                cells.append(f"{m - max(t, f):+.3f}")
        n_in, n_out = r[("plain", "ours")][2:]
        split = "tune" if r["split"] == "tune" else "**TEST**"
        print(f"| {r['name']} | {split} | {n_in} / {n_out} | " + " | ".join(cells) + " |")
    paired(rows)
    print("\n## Labels: out-of-catalog queries (labels the catalog does not have)\n")
    print("| catalog | split | queries | ours answered empty | tantivy answered empty | FTS5 answered empty "
          "| ours empty +syn |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in sorted(rows, key=lambda r: (r["split"] != "tune", r["name"])):
        e = [r[("plain", s)][1] for s in ("ours", "tantivy", "fts5")]
        empty_syn = min(r[(v, "ours")][1] for v in VARIANTS)
        print(f"| {r['name']} | {r['split']} | {r[('plain', 'ours')][3]} | {e[0]:.3f} | {e[1]:.3f} | {e[2]:.3f} "
              f"| {empty_syn:.3f} |")
    print("\nSynonym groups per catalog (queries with a label swapped for a synonym): "
          + ", ".join(f"{r['name']} {r['groups']} ({r['swapped']})" for r in rows))


def paired(rows):
    """The synonyms' own effect: on the same queries, nDCG@10 without the catalog's synonyms
    supplied → with them (to us as catalog lines, to the peers as query expansion), judged with the
    catalog's synonyms (an entity carrying a synonym of a label carries the label); over all
    in-catalog queries, then over those with a word of a group (the only ones synonyms change)."""
    print("\n## Labels: synonyms supplied or not, on the same queries (judged with the catalog's synonyms)\n")
    print("Each cell: without synonyms → with them. \"swapped\": every label that is a term of a group")
    print("replaced by another term half of the time, as a camera would say it; \"as drawn\": the labels")
    print("as generated. \"lead\": ours minus the best peer, with synonyms.")
    for title, key in (("all in-catalog queries", ()), ("in-catalog queries with a word of a group", ("group",))):
        print(f"\n{title}:\n")
        print("| catalog | split | queries | swapped: ours | tantivy | FTS5 | lead "
              "| as drawn: ours | tantivy | FTS5 | lead |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in sorted(rows, key=lambda r: (r["split"] != "tune", r["name"])):
            cells = []
            for without, with_ in (("swapped", "synonyms"), ("plain", "drawn+syn")):
                for system in ("ours", "tantivy", "fts5"):
                    a, b = r[(without, system, "syn", *key)][0], r[(with_, system, "syn", *key)][0]
                    cells.append(f"{a:.3f} → {b:.3f} ({b - a:+.3f})")
                o, t, f = (r[(with_, s, "syn", *key)][0] for s in ("ours", "tantivy", "fts5"))
                cells.append(f"{o - max(t, f):+.3f}")
            split = "tune" if r["split"] == "tune" else "**TEST**"
            n = r[("plain", "ours", "syn", *key)][2]
            if n == 0:
                cells = ["–"] * len(cells)
            print(f"| {r['name']} | {split} | {n} | " + " | ".join(cells) + " |")

if __name__ == "__main__":
    main()
