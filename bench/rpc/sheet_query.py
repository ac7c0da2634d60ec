"""Sheet queries over loopback gRPC: the generated queries against a `vi-continue serve` on the
100k synthetic catalog (bench/gen-catalog).

Usage:
  sheet_query.py prepare TARGET QUERIES DIR   checks that every query answers OK (a stock grpcio
                                              client, which also warms the server up) and writes
                                              DIR/NNNN.body, the framed request h2load posts
  sheet_query.py grpcio TARGET QUERIES ROUNDS times ROUNDS passes of sequential calls from the
                                              grpcio client (Python's own cost included)
  sheet_query.py summarize DIR                p50/p99 over h2load's --log-file rows in DIR/*.tsv
"""

import glob
import json
import os
import struct
import sys
import time

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "interop"))
import stubs  # noqa: E402

((search_pb, search_grpc),) = stubs.load("search.proto")


def requests(queries_path):
    with open(queries_path) as f:
        for line in f:
            query = json.loads(line)
            labels = [search_pb.Label(text=l["text"], confidence=l["confidence"]) for l in query["labels"]]
            yield search_pb.QueryRequest(descriptor=search_pb.Descriptor(labels=labels), limit=10)


def percentiles(values):
    values = sorted(values)
    pick = lambda p: values[min(len(values) - 1, int(len(values) * p))]  # noqa: E731
    return len(values), pick(0.50), pick(0.99)


def prepare(target, queries_path, directory):
    os.makedirs(directory, exist_ok=True)
    answered = 0
    with grpc.insecure_channel(target) as channel:
        query = search_grpc.VisualSearchStub(channel).Query
        for index, request in enumerate(requests(queries_path)):
            response = query(request, timeout=10)  # raises unless grpc-status is 0
            answered += bool(response.results)
            payload = request.SerializeToString()
            with open(os.path.join(directory, f"{index:04d}.body"), "wb") as f:
                f.write(struct.pack(">BI", 0, len(payload)) + payload)
    print(f"sheet query: {index + 1} queries answered OK, {answered} with results", file=sys.stderr)


def grpcio(target, queries_path, rounds):
    batch = list(requests(queries_path))
    micros = []
    with grpc.insecure_channel(target) as channel:
        query = search_grpc.VisualSearchStub(channel).Query
        for request in batch[:50]:
            query(request, timeout=10)
        for _ in range(int(rounds)):
            for request in batch:
                start = time.perf_counter_ns()
                query(request, timeout=10)
                micros.append((time.perf_counter_ns() - start) // 1000)
    n, p50, p99 = percentiles(micros)
    print(f"sheet query over loopback gRPC, grpcio client  n={n:6d}  p50 {p50:6d} µs  p99 {p99:6d} µs  "
          f"worst {max(micros):6d} µs")


def summarize(directory):
    micros = []
    for path in glob.glob(os.path.join(directory, "*.tsv")):
        with open(path) as f:
            for line in f:
                _, status, duration = line.split("\t")[:3]
                if status != "200":
                    raise SystemExit(f"summarize: {path}: HTTP status {status}")
                micros.append(int(duration))
    n, p50, p99 = percentiles(micros)
    print(f"sheet query over loopback gRPC, h2load client  n={n:6d}  p50 {p50:6d} µs  p99 {p99:6d} µs  "
          f"worst {max(micros):6d} µs")


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"prepare": prepare, "grpcio": grpcio, "summarize": summarize}[command](*args)
