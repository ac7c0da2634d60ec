#!/usr/bin/env bash
# One command for the search benchmarks on bench/gen-catalog's catalog: generate it (once), run the
# peers (SQLite FTS5, tantivy when .venv has it), vi-continue's in-process engine on the same data
# and queries, the same sheet queries over loopback gRPC against `vi-continue serve`
# (bench/rpc/sheet-query), "More results" over loopback gRPC — Capture and Search page 2, the
# server's RSS after load, an upsert until visible (bench/rpc/capture-search) — and the start
# time from a persisted index (bench/rpc/start-time).
#
# Usage: bench/search.sh [--million]
#   --million  also a 1M-entity catalog, generated on the fly into bench/out (not committed):
#              capture-search and start-time on it.
# Catalogs of other shapes, with tantivy in the same run: bench/search-shapes.
set -euo pipefail
cd "$(dirname "$0")/.."
million=0
[[ ${1:-} == --million ]] && million=1
[[ -f bench/out/catalog-100k.jsonl ]] || bench/gen-catalog
python=python3
[[ -x .venv/bin/python ]] && python=.venv/bin/python
"$python" bench/search-peers.py bench/out/catalog-100k.jsonl bench/out/queries.jsonl
# A local package's build keeps its dependency's old file list: after files are added to the
# engine it fails to find them until that build folder is made again.
swift build -c release --package-path bench/search >/dev/null 2>&1 \
  || { rm -rf bench/search/.build && swift build -c release --package-path bench/search >/dev/null; }
swift build -c release --product vi-continue >/dev/null
bench/search/.build/release/search-bench bench/out/catalog-100k.jsonl bench/out/queries.jsonl
bench/rpc/sheet-query
bench/rpc/capture-search bench/out/catalog-100k.jsonl bench/out/queries.jsonl --no-build
bench/rpc/start-time bench/out/catalog-100k.jsonl --no-build
if [[ $million == 1 ]]; then
  dir=bench/out/music-1m
  mkdir -p "$dir"
  if [[ ! -s $dir/catalog.jsonl ]]; then
    "$python" bench/gen-catalog --count 1000000 --out "$dir/catalog.jsonl" --queries "$dir/queries.jsonl"
  fi
  bench/rpc/capture-search "$dir/catalog.jsonl" "$dir/queries.jsonl" --rounds 1 --out "$dir" --no-build
  bench/rpc/start-time "$dir/catalog.jsonl" --no-build
fi
