#!/usr/bin/env bash
# One command for the search benchmarks: generate the catalog (once), run the peers (SQLite FTS5,
# tantivy when .venv has it), vi-continue's in-process engine on the same data and queries, and
# the same sheet queries over loopback gRPC against `vi-continue serve` (bench/rpc/sheet-query).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f bench/out/catalog-100k.jsonl ]] || bench/gen-catalog
python=python3
[[ -x .venv/bin/python ]] && python=.venv/bin/python
"$python" bench/search-peers.py bench/out/catalog-100k.jsonl bench/out/queries.jsonl
swift build -c release --package-path bench/search >/dev/null
bench/search/.build/release/search-bench bench/out/catalog-100k.jsonl bench/out/queries.jsonl
bench/rpc/sheet-query
