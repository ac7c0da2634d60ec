"""The benchmark's calls, made with stock grpcio: request bodies for h2load, the reference answer,
and a check that a server really answers them (grpc-status 0, the reference bytes).

Usage:
  calls.py bodies DIR           writes DIR/health.body and DIR/query.body: the 5-byte gRPC
                                envelope plus the serialized request, as h2load posts them
  calls.py capture TARGET DIR   asks TARGET (vi-continue) the query and keeps the serialized
                                answer in DIR/query.response, the C++ and grpcio peers' answer
  calls.py check TARGET DIR     calls both methods on TARGET; exits 1 unless each answers OK with
                                exactly the reference bytes

h2load counts any HTTP 200 as a success, even when grpc-status says the call failed, so every
server is checked here before it is measured.
"""

import os
import struct
import sys

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "interop"))
import stubs  # noqa: E402

(search_pb, search_grpc), (health_pb, health_grpc) = stubs.load("search.proto", "grpc/health/v1/health.proto")

# The small fixed sheet query: one label on the bundled demo catalog, the default limit.
QUERY = search_pb.QueryRequest(
    descriptor=search_pb.Descriptor(labels=[search_pb.Label(text="jazz", confidence=0.9)]), limit=5
)
HEALTH = health_pb.HealthCheckRequest(service="")


def envelope(message):
    payload = message.SerializeToString()
    return struct.pack(">BI", 0, len(payload)) + payload


def bodies(directory):
    with open(os.path.join(directory, "health.body"), "wb") as f:
        f.write(envelope(HEALTH))
    with open(os.path.join(directory, "query.body"), "wb") as f:
        f.write(envelope(QUERY))


def capture(target, directory):
    with grpc.insecure_channel(target) as channel:
        response = search_grpc.VisualSearchStub(channel).Query(QUERY, timeout=10)
    if not response.results:
        raise SystemExit("capture: the reference query found nothing; the benchmark needs a real answer")
    with open(os.path.join(directory, "query.response"), "wb") as f:
        f.write(response.SerializeToString())


def check(target, directory):
    with open(os.path.join(directory, "query.response"), "rb") as f:
        reference = f.read()
    with grpc.insecure_channel(target) as channel:
        grpc.channel_ready_future(channel).result(timeout=10)
        health = health_grpc.HealthStub(channel).Check(HEALTH, timeout=10)
        if health.status != health_pb.HealthCheckResponse.SERVING:
            raise SystemExit(f"check {target}: Health/Check said {health.status}, not SERVING")
        response, call = search_grpc.VisualSearchStub(channel).Query.with_call(QUERY, timeout=10)
        if call.code() != grpc.StatusCode.OK:
            raise SystemExit(f"check {target}: Query ended {call.code()}")
        if response.SerializeToString() != reference:
            raise SystemExit(f"check {target}: Query answered other bytes than the reference")
    print(f"check {target}: Health SERVING, Query OK ({len(reference)} response bytes)")


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"bodies": bodies, "capture": capture, "check": check}[command](*args)
