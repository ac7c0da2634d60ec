#!/usr/bin/env python3
"""tantivy's memory on the faceted searches, in a process of its own.

    bench/peer_memory.py INDEX_DIR SPEC.json [--rounds 2]

bench/search-peers.py builds tantivy's index in INDEX_DIR (on disk, memory-mapped when opened, as
vi-continue's persisted index is) and writes SPEC.json: the AND text of every query, the field
boosts and the aggregations (type, category, every attribute). This process opens that index the
way a server would and runs every query as vi-continue's Capture answers it (top 20 and all
facets), `--rounds` times, then prints one JSON object with its RSS (MiB):
- "interpreter": after importing tantivy, before opening the index (Python's own share);
- "opened": after opening the index and its searcher;
- "end": after the searches; "peak": the most it held (VmHWM);
- "end less interpreter": what the index and its searches hold, the figure to set beside
  vi-continue's server RSS at the end of bench/rpc/capture-search (whose process holds a gRPC
  server, sessions and its own runtime too).
The catalog is never read here, so none of it sits in this process's memory.
"""
import argparse
import json


def rss_mib(key="VmRSS"):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("index_dir")
    parser.add_argument("spec")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with open(args.spec) as f:
        spec = json.load(f)

    import tantivy

    interpreter = rss_mib()
    index = tantivy.Index.open(args.index_dir)
    # The same analyzer the index was built with (bench/search-peers.py), for parsing the queries.
    index.register_tokenizer("folding", tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
                             .filter(tantivy.Filter.lowercase()).filter(tantivy.Filter.ascii_fold()).build())
    index.reload()
    searcher = index.searcher()
    opened = rss_mib()
    boosts = spec["boosts"]
    answered = 0
    for _ in range(args.rounds):
        for text in spec["queries"]:
            query = index.parse_query(text, list(boosts), field_boosts=boosts)
            top = [searcher.doc(address)["ref"][0] for _, address in searcher.search(query, 20).hits]
            searcher.aggregate(query, spec["aggregations"])
            answered += bool(top)
    end = rss_mib()
    print(json.dumps({"interpreter": interpreter, "opened": opened, "end": end, "peak": rss_mib("VmHWM"),
                      "end less interpreter": end - interpreter, "searches": args.rounds * len(spec["queries"]),
                      "with hits": answered}))


if __name__ == "__main__":
    main()
