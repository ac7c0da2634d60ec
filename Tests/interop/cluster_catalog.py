"""A grpcio client of instances sharing one catalog through Redis (scripts/cluster-test).

Usage: cluster_catalog.py [--tls-ca CA] [--token-file FILE] COMMAND ...
  cluster_catalog.py lag WRITER READER... [--rounds N]
      Upserts N entities, one call each, through WRITER and times how soon every READER serves
      each (polling Query for its own label); PASS when the p99 is at most 250 ms.
  cluster_catalog.py write WRITER --prefix P --count N --out FILE
      Upserts N entities on WRITER, recording each acknowledged one in FILE (JSON lines).
  cluster_catalog.py load WRITER --prefix P --seconds S --out FILE
      Upserts entities on WRITER for S seconds, retrying calls that fail UNAVAILABLE (Redis
      down); records each acknowledged one in FILE.
  cluster_catalog.py check TARGET... --acknowledged FILE...
      Waits (up to 60 s) until every TARGET reports SERVING and the same catalog version and
      digest (CatalogInfo), then checks that each acknowledged entity is served by every TARGET
      with the title written last.

Targets are grpcio targets: HOST:PORT or unix:PATH in clear, tls:HOST:PORT over TLS verified
against --tls-ca. Writes carry the token of --token-file as 'authorization: Bearer' (a write over
a Unix socket needs none). Prints PASS/FAIL lines; exits 1 on any failure.
"""

import argparse
import json
import statistics
import sys
import time

import grpc

import stubs
from channels import open_channel
import channels

((pb, pb_grpc), (health_pb, health_pb_grpc)) = stubs.load("search.proto", "grpc/health/v1/health.proto")


def label(prefix, i):
    """A label of letters only, one per entity, that nothing else in the catalog carries."""
    word = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        word = chr(ord("a") + r) + word
    return f"zq{prefix}{word}"


def entity(prefix, i, title=None):
    return pb.Entity(
        type="album", id=f"{prefix}-{i}", title=title or f"Cluster {prefix} {i}", category="Music/Cluster",
        tags=[label(prefix, i)])


def serves(stub, prefix, i, title):
    request = pb.QueryRequest(
        descriptor=pb.Descriptor(labels=[pb.Label(text=label(prefix, i), confidence=1)], source=pb.SOURCE_CAMERA),
        limit=5)
    results = stub.Query(request, timeout=5).results
    return any(r.entity.id == f"{prefix}-{i}" and r.title == title for r in results)


# The credentials writes carry: set from --token-file.
auth = ()


def lag(writer, readers, rounds):
    write = pb_grpc.VisualSearchStub(open_channel(writer))
    reads = [pb_grpc.VisualSearchStub(open_channel(r)) for r in readers]
    lags = []
    for i in range(rounds):
        e = entity("lag", i)
        write.UpsertEntities(pb.UpsertEntitiesRequest(entities=[e]), timeout=10, metadata=auth)
        start = time.perf_counter()
        waiting = list(reads)
        while waiting:
            waiting = [read for read in waiting if not serves(read, "lag", i, e.title)]
            if time.perf_counter() - start > 10:
                print(f"FAIL catalog lag: not every instance served lag-{i} within 10 s")
                return False
            if waiting:
                time.sleep(0.001)
        lags.append((time.perf_counter() - start) * 1000)
    lags.sort()
    p99 = lags[min(len(lags) - 1, int(len(lags) * 0.99))]
    ok = p99 <= 250
    print(
        f"{'PASS' if ok else 'FAIL'} catalog lag: a write through {writer} served by every instance: n={len(lags)} "
        f"p50 {statistics.median(lags):.1f} ms p99 {p99:.1f} ms worst {lags[-1]:.1f} ms (target p99 ≤ 250 ms)")
    print(f"SUMMARY catalog_lag_p50_ms={statistics.median(lags):.1f} catalog_lag_p99_ms={p99:.1f}")
    return ok


def write(writer, prefix, count, out):
    stub = pb_grpc.VisualSearchStub(open_channel(writer))
    with open(out, "a") as f:
        for i in range(count):
            e = entity(prefix, i)
            stub.UpsertEntities(pb.UpsertEntitiesRequest(entities=[e]), timeout=10, metadata=auth)
            f.write(json.dumps({"prefix": prefix, "i": i, "title": e.title}) + "\n")
            f.flush()
    print(f"PASS catalog write: {count} entities acknowledged by {writer}")
    return True


def load(writer, prefix, seconds, out):
    stub = pb_grpc.VisualSearchStub(open_channel(writer))
    acknowledged, failed = 0, 0
    end = time.monotonic() + seconds
    i = 0
    with open(out, "a") as f:
        while time.monotonic() < end:
            e = entity(prefix, i)
            try:
                stub.UpsertEntities(pb.UpsertEntitiesRequest(entities=[e]), timeout=5, metadata=auth)
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    print(f"FAIL catalog load: {error.code().name}: {error.details()}")
                    return False
                failed += 1
                time.sleep(0.01)
                continue
            f.write(json.dumps({"prefix": prefix, "i": i, "title": e.title}) + "\n")
            f.flush()
            acknowledged += 1
            i += 1
    print(f"PASS catalog load: {acknowledged} writes acknowledged, {failed} refused UNAVAILABLE while Redis was down")
    return True


def check(targets, files):
    channels = {t: open_channel(t) for t in targets}
    acknowledged = {}
    for name in files:
        for line in open(name):
            w = json.loads(line)
            acknowledged[(w["prefix"], w["i"])] = w["title"]
    deadline = time.monotonic() + 60
    while True:
        infos, statuses = {}, {}
        for t, channel in channels.items():
            try:
                statuses[t] = health_pb.HealthCheckResponse.ServingStatus.Name(
                    health_pb_grpc.HealthStub(channel).Check(health_pb.HealthCheckRequest(), timeout=5).status)
                infos[t] = pb_grpc.VisualSearchStub(channel).CatalogInfo(pb.CatalogInfoRequest(), timeout=30)
            except grpc.RpcError as error:
                statuses[t] = error.code().name
        same = len({(i.catalog_version, i.digest) for i in infos.values()}) == 1 and len(infos) == len(targets)
        if same and all(s == "SERVING" for s in statuses.values()):
            break
        if time.monotonic() > deadline:
            described = ", ".join(
                f"{t}: {statuses.get(t)} v{infos[t].catalog_version if t in infos else '?'} "
                f"{infos[t].digest if t in infos else ''}" for t in targets)
            print(f"FAIL catalog check: the instances did not converge in 60 s: {described}")
            return False
        time.sleep(0.1)
    missing = []
    for t, channel in channels.items():
        stub = pb_grpc.VisualSearchStub(channel)
        for (prefix, i), title in acknowledged.items():
            if not serves(stub, prefix, i, title):
                missing.append(f"{t} {prefix}-{i}")
    info = next(iter(infos.values()))
    ok = not missing
    print(
        f"{'PASS' if ok else 'FAIL'} catalog check: {len(targets)} instances SERVING at version "
        f"{info.catalog_version}, {info.entity_count} entities, digest {info.digest}; "
        f"{len(acknowledged)} acknowledged writes, {len(missing)} missing{': ' + ', '.join(missing[:5]) if missing else ''}")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    c = commands.add_parser("lag")
    c.add_argument("writer")
    c.add_argument("readers", nargs="+")
    c.add_argument("--rounds", type=int, default=50)
    c = commands.add_parser("write")
    c.add_argument("writer")
    c.add_argument("--prefix", required=True)
    c.add_argument("--count", type=int, required=True)
    c.add_argument("--out", required=True)
    c = commands.add_parser("load")
    c.add_argument("writer")
    c.add_argument("--prefix", required=True)
    c.add_argument("--seconds", type=float, required=True)
    c.add_argument("--out", required=True)
    c = commands.add_parser("check")
    c.add_argument("targets", nargs="+")
    c.add_argument("--acknowledged", nargs="+", default=[])
    parser.add_argument("--token-file", help="the write token of the instances (serve --write-token-file)")
    parser.add_argument("--tls-ca", help="the CA certificate tls:HOST:PORT targets are verified against")
    args = parser.parse_args()
    channels.ca_file = args.tls_ca
    if args.token_file:
        global auth
        with open(args.token_file) as f:
            auth = (("authorization", "Bearer " + f.read().strip()),)
    if args.command == "lag":
        ok = lag(args.writer, args.readers, args.rounds)
    elif args.command == "write":
        ok = write(args.writer, args.prefix, args.count, args.out)
    elif args.command == "load":
        ok = load(args.writer, args.prefix, args.seconds, args.out)
    else:
        ok = check(args.targets, args.acknowledged)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
