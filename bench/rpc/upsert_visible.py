"""The grpcio client of bench/rpc/upsert-visible (see there): upserts of 100 entities between
Captures, each until a Query sees it, against a running `vi-continue serve`."""

import argparse
import json
import os
import re
import time

import grpc

import capture_search as cs

pb, pb_grpc = cs.pb, cs.pb_grpc


def stats(millis):
    s = sorted(millis)
    return {"n": len(s), "p50": s[len(s) // 2], "p90": s[int(len(s) * 0.9)],
            "p99": s[min(len(s) - 1, int(len(s) * 0.99))], "worst": s[-1]}


def line(name, s):
    print(f"{name:46} n={s['n']:4d}  p50 {s['p50']:6.1f} ms  p90 {s['p90']:6.1f} ms  p99 {s['p99']:6.1f} ms  "
          f"worst {s['worst']:6.1f} ms", flush=True)


def main():
    p = argparse.ArgumentParser()
    for name in ("--target", "--token-file", "--catalog", "--queries", "--state", "--log", "--json"):
        p.add_argument(name, required=True)
    p.add_argument("--writes", type=int, default=40)
    p.add_argument("--captures", type=int, default=60)
    a = p.parse_args()
    auth = (("authorization", "Bearer " + open(a.token_file).read().strip()),)
    stub = pb_grpc.VisualSearchStub(grpc.insecure_channel(a.target))
    queries = [json.loads(l) for l in open(a.queries)]
    # Each run on a kept state directory upserts the entities after the last run's.
    cursor_file = os.path.join(a.state, "bench-upsert-cursor")
    skip = int(open(cursor_file).read()) if os.path.exists(cursor_file) else 0
    batches, batch, read = [], [], 0
    with open(a.catalog) as f:
        for read, l in enumerate(f, 1):
            if read <= skip:
                continue
            e = json.loads(l)
            if "synonyms" in e:
                continue
            batch.append(cs.entity(e))
            if len(batch) == 100:
                batches.append(batch)
                batch = []
                if len(batches) == a.writes:
                    break
    with open(cursor_file, "w") as f:
        f.write(str(read))
    if len(batches) < a.writes:
        raise SystemExit(f"upsert-visible: the catalog has {len(batches)} batches of 100 left after line {skip}")

    acks, visible = [], []
    run = time.time_ns()
    for n, batch in enumerate(batches):
        for q in queries[n * a.captures // a.writes:(n + 1) * a.captures // a.writes]:
            stub.Capture(pb.CaptureRequest(descriptor=cs.descriptor(q), page_size=20), timeout=30)
        acknowledged, seen = cs.upsert_until_visible(stub, batch, f"zzvisible{run}x{n}", auth)
        acks.append(acknowledged / 1000)
        visible.append(seen / 1000)
    with open(a.log) as f:
        server = [float(m.group(1)) for l in f for m in [re.search(r"UpsertEntities OK ([0-9.]+)ms", l)] if m]
    result = {"acknowledged": stats(acks), "visible": stats(visible), "server": stats(server[-a.writes:])}
    line("UpsertEntities of 100, acknowledged (fsynced)", result["acknowledged"])
    line("UpsertEntities of 100, until a Query sees it", result["visible"])
    line("  the server's own time per UpsertEntities", result["server"])
    with open(a.json, "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
