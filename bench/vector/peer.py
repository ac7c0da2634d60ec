#!/usr/bin/env python3
"""Writes the exact-scan benchmark's data and times faiss IndexFlatL2 on it, on one thread.

Data: 100,000 base vectors and 200 queries of 128 dimensions, Gaussian from a fixed seed and
L2-normalised (so the L2 order of faiss and the cosine order of our scan are the same order).
Writes OUT/base.f32 and OUT/queries.f32 (little-endian float32, row after row), OUT/faiss-ids.i64
(each query's 10 nearest, nearest first) and OUT/faiss.json (ms per query: one query per call,
as a service answers, and the whole batch in one call, where faiss uses a matrix product).

    peer.py [--out DIR] [--n 100000] [--d 128] [--queries 200]
"""
import argparse
import json
import os
import time

import faiss
import numpy as np


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(root, "bench", "out", "vector"))
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--d", type=int, default=128)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(20261130)
    base = rng.standard_normal((args.n, args.d), dtype=np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    queries = rng.standard_normal((args.queries, args.d), dtype=np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    base.astype("<f4").tofile(os.path.join(args.out, "base.f32"))
    queries.astype("<f4").tofile(os.path.join(args.out, "queries.f32"))

    faiss.omp_set_num_threads(1)
    index = faiss.IndexFlatL2(args.d)
    index.add(base)
    for q in queries[:20]:  # warm-up
        index.search(q[None, :], 10)
    rounds = []
    for _ in range(3):
        start = time.perf_counter()
        ids = []
        for q in queries:
            _, i = index.search(q[None, :], 10)
            ids.append(i[0])
        rounds.append((time.perf_counter() - start) * 1000 / len(queries))
    np.array(ids, dtype="<i8").tofile(os.path.join(args.out, "faiss-ids.i64"))
    start = time.perf_counter()
    _, batch_ids = index.search(queries, 10)
    batch_ms = (time.perf_counter() - start) * 1000 / len(queries)
    assert (batch_ids == np.array(ids)).all()
    with open(os.path.join(args.out, "faiss.json"), "w") as f:
        json.dump({"n": args.n, "d": args.d, "queries": args.queries, "ms_per_query": sorted(rounds)[1],
                   "ms_per_query_batched": batch_ms, "faiss": faiss.__version__}, f)
    print(f"faiss {faiss.__version__} IndexFlatL2, 1 thread: {sorted(rounds)[1]:.3f} ms per query "
          f"(one per call), {batch_ms:.3f} ms per query in one batch of {args.queries}")


if __name__ == "__main__":
    main()
