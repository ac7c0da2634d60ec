"""Tries catalog writes and a read with a stock grpcio client, under each kind of credentials.

Usage: write_auth.py TARGET [TOKEN]
For each case (no authorization, a wrong token, and, given TOKEN, the token with the scheme as
"Bearer" and as "bearer"), sends UpsertEntities of one new entity, a Query that would find it, and
DeleteEntities of it; prints one JSON object: case -> {"upsert": CODE, "query": CODE, "delete":
CODE, "messages": [...]}, codes by name.
"""

import json
import sys

import grpc

import stubs

((pb, pb_grpc),) = stubs.load("search.proto")


def attempt(stub, metadata, tag):
    outcome = {"messages": []}
    entity = pb.Entity(type="album", id=f"auth-{tag}", title=f"Auth {tag}", category="Music/Test", tags=[f"auth{tag}"])
    descriptor = pb.Descriptor(labels=[pb.Label(text=f"auth{tag}", confidence=0.9)], source=pb.SOURCE_CAMERA)
    calls = [
        ("upsert", lambda: stub.UpsertEntities(pb.UpsertEntitiesRequest(entities=[entity]), metadata=metadata, timeout=10)),
        ("query", lambda: stub.Query(pb.QueryRequest(descriptor=descriptor, limit=5), timeout=10)),
        (
            "delete",
            lambda: stub.DeleteEntities(
                pb.DeleteEntitiesRequest(entities=[pb.EntityRef(type="album", id=f"auth-{tag}")]),
                metadata=metadata,
                timeout=10,
            ),
        ),
    ]
    for name, call in calls:
        try:
            response = call()
            outcome[name] = "OK"
            if name == "query":
                outcome["found"] = len(response.results)
        except grpc.RpcError as error:
            outcome[name] = error.code().name
            outcome["messages"].append(error.details())
    return outcome


def main():
    target = sys.argv[1]
    token = sys.argv[2] if len(sys.argv) > 2 else None
    cases = {"none": (), "wrong": (("authorization", "Bearer not-the-token"),)}
    if token:
        cases["right"] = (("authorization", f"Bearer {token}"),)
        cases["right-lowercase-scheme"] = (("authorization", f"bearer {token}"),)
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.VisualSearchStub(channel)
        print(json.dumps({name: attempt(stub, metadata, index) for index, (name, metadata) in enumerate(cases.items())}))


if __name__ == "__main__":
    main()
