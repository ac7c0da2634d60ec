"""The grpcio client of bench/rpc/write-load (see there): Capture latency with no writes and under
a steady stream of UpsertEntities, and how soon an upsert of 100 entities is visible to a Query."""

import argparse
import json
import multiprocessing
import os
import sys
import time

import grpc

sys.path.insert(0, os.path.dirname(__file__))
from capture_search import (  # noqa: E402
    descriptor, entity, line, pb, pb_grpc, rss_kib, stats, timed, upsert_until_visible)


def batches(catalog, count, size=100):
    """`count` batches of `size` catalog entities each, as Entity messages (ids cycle over the file)."""
    entities = []
    with open(catalog) as f:
        for l in f:
            e = json.loads(l)
            if "synonyms" in e:
                continue
            entities.append(entity(e))
            if len(entities) >= count * size:
                break
    return [entities[i * size % len(entities):][:size] for i in range(count)]


def bearer(token_file):
    """The metadata that lets a TCP client write: the token of serve's --write-token-file."""
    with open(token_file) as f:
        return (("authorization", "Bearer " + f.read().strip()),)


def writer(target, auth, catalog, per_second, seconds, batch_size, out):
    """Sends `per_second` entities a second as UpsertEntities of `batch_size`, for `seconds`."""
    channel = grpc.insecure_channel(target)
    # Requests are serialized before the clock starts: this client shares a core with the reader
    # whose Capture latency is measured, and building 1,000 protobuf entities a second in Python
    # would take that core from it. Every batch still changes its entities (a subtitle of its own).
    upsert_bytes = channel.unary_unary(
        "/vicontinue.v1.VisualSearch/UpsertEntities", request_serializer=None, response_deserializer=None)

    def upsert(request, timeout):
        return upsert_bytes(request, timeout=timeout, metadata=auth)

    calls = max(1, per_second // batch_size)
    pool = batches(catalog, 50, batch_size)
    requests = []
    for n in range(int(calls * seconds) + 1):
        batch = pool[n % len(pool)]
        for e in batch:
            e.subtitle = f"load {n}"
        requests.append(pb.UpsertEntitiesRequest(entities=batch).SerializeToString())
    interval = 1 / calls
    micros, sent = [], 0
    start = time.perf_counter()
    n = 0
    while time.perf_counter() - start < seconds and n < len(requests):
        due = start + n * interval
        now = time.perf_counter()
        if due > now:
            time.sleep(due - now)
        _, us = timed(upsert, requests[n])
        micros.append(us)
        sent += batch_size
        n += 1
    out.put({"acks": stats(micros), "entities per second": sent / (time.perf_counter() - start)})
    channel.close()


def cpu_seconds(pid):
    """The CPU time process `pid` has used so far (user and system)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settle(pid, limit=60):
    """Waits until the server uses under 2 % of a core over half a second: the merges the
    visibility rounds started have finished, so the idle Captures are timed on an idle server."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = cpu_seconds(pid)
        time.sleep(0.5)
        if cpu_seconds(pid) - before <= 0.01:
            return
    print(f"write-load: the server was still busy {limit} s after the visibility rounds", file=sys.stderr)


class TokenAges:
    """How long page tokens outlive their snapshot under writes: every half second one Capture's
    page token is kept, and page 2 is asked for with it once it is 1, 2, 5, 10 and 20 s old
    (answered, or FAILED_PRECONDITION once the engine dropped its snapshot). These calls are not
    in the latency figures."""
    ages = (1, 2, 5, 10, 20)

    def __init__(self, stub, requests):
        self.stub, self.requests = stub, requests
        self.kept, self.next_probe, self.probes = [], time.perf_counter(), 0
        self.answered = {age: 0 for age in self.ages}
        self.refused = {age: 0 for age in self.ages}

    def step(self):
        now = time.perf_counter()
        if now >= self.next_probe:
            self.next_probe = now + 0.5
            state = self.stub.Capture(self.requests[self.probes * 7 % len(self.requests)], timeout=30)
            self.probes += 1
            if state.next_page_token:
                self.kept.append([now, state.session_id, state.next_page_token, 0])
        for probe in self.kept:
            born, session, token, checked = probe
            if checked < len(self.ages) and now - born >= self.ages[checked]:
                age = self.ages[checked]
                try:
                    self.stub.Search(pb.SearchRequest(session_id=session, page_token=token), timeout=30)
                    self.answered[age] += 1
                except grpc.RpcError as error:
                    if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                        raise
                    self.refused[age] += 1
                probe[3] += 1

    def summary(self):
        return {f"{age} s": {"answered": self.answered[age], "start again": self.refused[age]}
                for age in self.ages if self.answered[age] + self.refused[age]}


def captures(stub, requests, seconds, tokens=None):
    micros, i = [], 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        micros.append(timed(stub.Capture, requests[i % len(requests)])[1])
        if tokens is not None:
            tokens.step()
        i += 1
    return stats(micros)


def main():
    p = argparse.ArgumentParser()
    for name in ("--target", "--catalog", "--queries", "--json"):
        p.add_argument(name, required=True)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--token-file", required=True, help="serve's --write-token-file")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--idle-seconds", type=float, default=20)
    p.add_argument("--rate", type=int, default=1000)
    p.add_argument("--visibility-rounds", type=int, default=50)
    a = p.parse_args()
    auth = bearer(a.token_file)
    queries = [json.loads(l) for l in open(a.queries)]
    channel = grpc.insecure_channel(a.target)
    stub = pb_grpc.VisualSearchStub(channel)
    result = {"server rss before": rss_kib(a.pid) / 1024}

    # How soon 100 upserted entities show: each round marks its batch with a word of its own.
    pool = batches(a.catalog, a.visibility_rounds)
    visible = []
    for n, batch in enumerate(pool):
        visible.append(upsert_until_visible(stub, batch, f"zzvisible{n}", auth)[1])
    result["100 upserts until visible"] = stats(visible)
    line("UpsertEntities of 100 until a Query sees it", result["100 upserts until visible"], target=False)

    settle(a.pid)
    requests = [pb.CaptureRequest(descriptor=descriptor(q), page_size=20) for q in queries]
    for r in requests[:50]:
        stub.Capture(r, timeout=30)  # warm-up
    result["Capture, no writes"] = captures(stub, requests, a.idle_seconds)
    line("Capture, no writes", result["Capture, no writes"])

    out = multiprocessing.Queue()
    process = multiprocessing.Process(
        target=writer, args=(a.target, auth, a.catalog, a.rate, a.seconds, 100, out))
    process.start()
    tokens = TokenAges(stub, requests)
    result["Capture under writes"] = captures(stub, requests, a.seconds, tokens)
    process.join()
    result["page tokens under writes, by age"] = tokens.summary()
    written = out.get()
    result["writes"] = written
    line(f"Capture under {a.rate} upserts/s", result["Capture under writes"])
    line("UpsertEntities of 100 (acknowledged, fsynced)", written["acks"], target=False)
    ratio = result["Capture under writes"]["p99"] / max(result["Capture, no writes"]["p99"], 1)
    result["p99 under writes ÷ idle"] = ratio
    print(f"entities upserted per second: {written['entities per second']:.0f}; "
          f"Capture p99 under writes ÷ idle: {ratio:.2f} (target ≤ 1.5: {'met' if ratio <= 1.5 else 'MISSED'})")
    print("page 2 under writes, by the token's age: " + ", ".join(
        f"{age}: {n['answered']} answered, {n['start again']} start again"
        for age, n in result["page tokens under writes, by age"].items()))
    result["server rss after"] = rss_kib(a.pid) / 1024
    result["server rss peak"] = rss_kib(a.pid, "VmHWM") / 1024
    print(f"server RSS: {result['server rss before']:.1f} MiB before, {result['server rss after']:.1f} MiB after "
          f"(peak {result['server rss peak']:.1f} MiB)")
    channel.close()
    with open(a.json, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
