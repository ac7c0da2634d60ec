"""Summary table of one catalog's run of bench/search-shapes (see there).

    shapes_summary.py DIR NAME ROLE

Reads DIR/search-bench.json, DIR/peers.json and DIR/capture-search.json (whichever exist) and
prints a Markdown table: row | ours p50 / p99 / worst | tantivy p50 / p99 / worst | p99 ratio.
"""
import json
import os
import re
import sys

# (our row, our file, tantivy's row or None, target note)
ROWS = [
    ("sheet query (labels, limit 10)", "search-bench", "tantivy (bm25, top 10)", ""),
    ("search page 1 + facets", "search-bench", "tantivy (AND, top 20 + all facets)", ""),
    ("search page 1 + facets, strict hits", "search-bench", "tantivy (AND, top 20 + all facets), hits", ""),
    ("search page 1 + facets, relaxed", "search-bench", "tantivy (AND, top 20 + all facets), no hit", ""),
    ("capture (search page 1 of a fresh session)", "search-bench", "tantivy (AND, top 20 + all facets)", ""),
    ("search page 2", "search-bench", "tantivy (AND, page 2 + all facets)", ""),
    ("search + category + year filter", "search-bench", None, ""),
    ("floor: health check over gRPC", "capture-search", None, ""),
    ("Capture over gRPC", "capture-search", None, "p99 ≤ 2 ms, worst ≤ 10 ms"),
    ("Search page 2 over gRPC", "capture-search", None, "p99 ≤ 2 ms, worst ≤ 10 ms"),
    ("Search page 2 after its Capture over gRPC", "capture-search", None, "p99 ≤ 2 ms, worst ≤ 10 ms"),
]


def load(directory, name):
    try:
        with open(os.path.join(directory, name + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def t(us):
    return f"{us:.0f} µs" if us < 1000 else f"{us / 1000:.1f} ms"


def triple(r):
    return f"{t(r['p50'])} / {t(r['p99'])} / {t(r['worst'])}" if r else "—"


def main():
    directory, name, role = sys.argv[1:4]
    files = {k: load(directory, k) for k in ("search-bench", "peers", "capture-search")}
    print(f"\n### {name} ({role})\n")
    print("| row | ours p50 / p99 / worst | tantivy p50 / p99 / worst | p99 ours ÷ tantivy | target |")
    print("|---|---|---|---|---|")
    for ours, source, peer, target in ROWS:
        o = files[source].get(ours)
        p = files["peers"].get(peer) if peer else None
        ratio = f"{o['p99'] / p['p99']:.2f}" if o and p and p["p99"] else "—"
        if target and o:
            met = o["p99"] <= 2000 and o["worst"] <= 10000
            target += " " + ("met" if met else "**missed**")
        label = ours + (" (loopback, grpcio client)" if source == "capture-search" else "")
        print(f"| {label} | {triple(o)} | {triple(p) if peer else '— (no peer row)'} | {ratio} | {target} |")
    sb, cs = files["search-bench"], files["capture-search"]
    facts = []
    if "index build" in sb:
        facts.append(f"index build {sb['index build']['seconds']:.2f} s")
    if "rss after load" in sb:
        facts.append(f"search-bench RSS after load {sb['rss after load']['MiB']:.0f} MiB")
    if "upsert of 100" in sb:
        facts.append(f"in-process upsert of 100 {sb['upsert of 100']['seconds'] * 1000:.0f} ms")
    if "start to first Query" in cs:
        facts.append(f"server start to first Query {cs['start to first Query']['seconds']:.2f} s")
    if "server rss after load" in cs:
        facts.append(f"server RSS after load {cs['server rss after load']['MiB']:.0f} MiB")
    if "server rss at end" in cs:
        # The targets, held after the Capture load (what serving costs, not what starting does):
        # ≤ 64 MiB at 100k entities, ≤ 500 MiB at 1M.
        rss = cs["server rss at end"]["MiB"]
        limit, size = (500, "1M") if name.endswith("-1m") else (64, "100k")
        facts.append(f"server RSS at the end {rss:.0f} MiB (peak {cs['server rss at end']['peak MiB']:.0f} MiB; "
                     f"target ≤ {limit} MiB at {size}: {'met' if rss <= limit else '**missed**'})")
    memory = files["peers"].get("tantivy memory (MiB)")
    if memory:
        facts.append(f"tantivy's RSS after its faceted searches {memory['end']:.0f} MiB in a process of its own "
                     f"({memory['end less interpreter']:.0f} MiB beyond Python's)")
    if "upsert until visible" in cs:
        facts.append(f"UpsertEntities of 100 over gRPC {cs['UpsertEntities of 100']['ms']:.0f} ms, visible to a Query "
                     f"after {cs['upsert until visible']['ms']:.0f} ms")
    try:
        text = open(os.path.join(directory, "search-bench.txt")).read()
        m = re.search(r"facets equal to the peers' on .*", text)
        if m:
            facts.append(m.group(0))
    except OSError:
        pass
    if facts:
        print("\n" + "; ".join(facts) + ".")


if __name__ == "__main__":
    main()
