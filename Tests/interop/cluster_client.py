"""A grpcio client of two vi-continue instances sharing Redis sessions behind nginx (scripts/cluster-test).

Usage:
  cluster_client.py continue NGINX TARGET...
      Captures sessions through NGINX and continues each (first page, next page, a refinement) on
      every TARGET and through NGINX; every page must be byte-identical wherever it is asked.
  cluster_client.py load NGINX --kill PID --survivor TARGET [--workers N] [--before N] [--after N]
      Captures and continues through NGINX from N threads, retrying calls that fail UNAVAILABLE
      (or are cut off); after --before acknowledged captures it sends SIGKILL to PID (one
      instance) and goes on for --after more. Then every acknowledged session must still load,
      through NGINX and directly on the survivor, with the very page the capture returned.
  cluster_client.py --tls-ca CA tls tls:HOST:PORT
      Checks the proxy's TLS: a client verifying against CA gets SERVING; one trusting only the
      system's CAs, and one in clear, get no answer.

Targets are grpcio targets: HOST:PORT or unix:PATH in clear, tls:HOST:PORT over TLS verified
against --tls-ca (given before the command). Prints one PASS/FAIL line per step and a
summary line "SUMMARY key=value ..."; exits 1 on any failure.
"""

import argparse
import os
import signal
import sys
import threading
import time

import grpc

import stubs
from channels import open_channel
import channels

((pb, pb_grpc), (health_pb, health_pb_grpc)) = stubs.load("search.proto", "grpc/health/v1/health.proto")

# Labels that the demo catalog matches in different ways, so sessions differ.
DESCRIPTORS = [
    ["rock"],
    ["jazz", "piano"],
    ["classical", "orchestra"],
    ["guitar", "amp"],
    ["concert", "live"],
    ["album"],
    ["drums"],
    ["zzqxv"],  # matches nothing: still a session with relaxations
]

# What a call through a proxy in front of a dying instance may fail with: refused (UNAVAILABLE
# from nginx's 502), or cut off mid-stream (grpcio reports UNKNOWN/INTERNAL for a reset stream).
RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}
RETRY_BUDGET_S = 10.0


def descriptor(i):
    labels = DESCRIPTORS[i % len(DESCRIPTORS)]
    return pb.Descriptor(labels=[pb.Label(text=t, confidence=0.9) for t in labels], source=pb.SOURCE_CAMERA)


def page_bytes(state):
    return state.SerializeToString(deterministic=True)


class Retrying:
    """Calls a method, retrying retryable failures until a deadline; counts what it retried."""

    def __init__(self):
        self.lock = threading.Lock()
        self.retries = {}

    def call(self, method, request):
        deadline = time.monotonic() + RETRY_BUDGET_S
        while True:
            try:
                return method(request, timeout=5)
            except grpc.RpcError as error:
                if error.code() not in RETRYABLE or time.monotonic() > deadline:
                    raise
                with self.lock:
                    self.retries[error.code().name] = self.retries.get(error.code().name, 0) + 1
                time.sleep(0.02)


def continue_everywhere(nginx, targets):
    channels = {t: open_channel(t) for t in [nginx] + targets}
    stubs_by_target = {t: pb_grpc.VisualSearchStub(c) for t, c in channels.items()}
    front = stubs_by_target[nginx]
    checked = 0
    try:
        for i in range(len(DESCRIPTORS) * 2):
            state = front.Capture(pb.CaptureRequest(descriptor=descriptor(i), page_size=3), timeout=10)
            asks = {
                "first page": pb.SearchRequest(session_id=state.session_id),
                "next page": pb.SearchRequest(session_id=state.session_id, page_token=state.next_page_token),
                "albums only": pb.SearchRequest(session_id=state.session_id, entity_types=["album"]),
            }
            for name, request in asks.items():
                if name == "next page" and not state.next_page_token:
                    continue
                pages = {}
                for t, stub in stubs_by_target.items():
                    try:
                        pages[t] = page_bytes(stub.Search(request, timeout=10))
                    except grpc.RpcError as error:
                        print(f"FAIL continue: session {state.session_id} {name} on {t}: "
                              f"{error.code().name} {error.details()}")
                        return False
                if name == "first page":
                    pages["capture"] = page_bytes(state)
                if len(set(pages.values())) != 1:
                    differing = sorted(t for t, p in pages.items() if p != pages[nginx])
                    print(f"FAIL continue: session {state.session_id} {name} differs on {differing}")
                    return False
                checked += 1
    finally:
        for c in channels.values():
            c.close()
    print(f"PASS continue: {checked} pages identical on {len(channels)} targets (nginx + {len(targets)} direct)")
    print(f"SUMMARY continued_pages={checked} targets={len(channels)}")
    return True


def load_with_kill(nginx, kill_pid, survivor, workers, before, after):
    retrying = Retrying()
    acknowledged = {}  # session id -> capture page bytes
    lock = threading.Lock()
    stop = threading.Event()
    errors = []
    killed_at = [None]

    def worker(index):
        with open_channel(nginx) as channel:
            stub = pb_grpc.VisualSearchStub(channel)
            i = index
            while not stop.is_set():
                i += workers
                try:
                    state = retrying.call(stub.Capture, pb.CaptureRequest(descriptor=descriptor(i), page_size=4))
                    # Continue at once, most likely on the other instance: the page must match.
                    again = retrying.call(stub.Search, pb.SearchRequest(session_id=state.session_id))
                except grpc.RpcError as error:
                    errors.append(f"{error.code().name}: {error.details()}")
                    stop.set()
                    return
                with lock:
                    acknowledged[state.session_id] = page_bytes(state)
                if page_bytes(again) != page_bytes(state):
                    errors.append(f"session {state.session_id}: Search right after Capture gave another page")
                    stop.set()
                    return

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(workers)]
    started = time.monotonic()
    for t in threads:
        t.start()
    deadline = started + 40
    while not stop.is_set() and time.monotonic() < deadline:
        with lock:
            count = len(acknowledged)
        if killed_at[0] is None and count >= before:
            os.kill(kill_pid, signal.SIGKILL)
            killed_at[0] = count
        if killed_at[0] is not None and count >= killed_at[0] + after:
            break
        time.sleep(0.005)
    stop.set()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started

    if killed_at[0] is None:
        errors.append(f"only {len(acknowledged)} captures acknowledged before the deadline; nothing was killed")
    elif len(acknowledged) < killed_at[0] + after and not errors:
        errors.append(f"only {len(acknowledged) - killed_at[0]} captures acknowledged after the kill")

    # Every acknowledged session, through nginx and directly on the survivor: same page.
    lost = []
    differing = []
    for target in [nginx, survivor]:
        with open_channel(target) as channel:
            stub = pb_grpc.VisualSearchStub(channel)
            for session_id, page in acknowledged.items():
                try:
                    state = retrying.call(stub.Search, pb.SearchRequest(session_id=session_id))
                except grpc.RpcError as error:
                    lost.append(f"{target} {session_id}: {error.code().name} {error.details()}")
                    continue
                if page_bytes(state) != page:
                    differing.append(f"{target} {session_id}")

    for e in errors[:5]:
        print(f"FAIL load: {e}")
    for e in lost[:5]:
        print(f"FAIL lost session: {e}")
    for e in differing[:5]:
        print(f"FAIL other page: {e}")
    ok = not errors and not lost and not differing
    retries = ",".join(f"{k}:{v}" for k, v in sorted(retrying.retries.items())) or "none"
    print(
        f"{'PASS' if ok else 'FAIL'} load: {len(acknowledged)} sessions acknowledged by {workers} clients in "
        f"{elapsed:.1f} s, instance killed after {killed_at[0]}; {len(lost)} lost, {len(differing)} with another "
        f"page; retried {retries}"
    )
    print(
        f"SUMMARY acknowledged={len(acknowledged)} killed_after={killed_at[0]} lost={len(lost)} "
        f"differing={len(differing)} retries={retries} seconds={elapsed:.1f}"
    )
    return ok


def tls_checks(front):
    """The proxy speaks TLS only, with a certificate that verifies against the test CA (and not
    against the system's CAs): a client that checks it gets an answer, the others none."""
    host = front[len("tls:"):]

    def health(channel):
        try:
            with channel:
                status = health_pb_grpc.HealthStub(channel).Check(health_pb.HealthCheckRequest(), timeout=5).status
                return health_pb.HealthCheckResponse.ServingStatus.Name(status)
        except grpc.RpcError as error:
            return error.code().name

    # An instance reports SERVING once it has caught up with the shared catalog: wait for that,
    # as a load balancer would.
    deadline = time.monotonic() + 30
    verified = health(open_channel(front))
    while verified != "SERVING" and time.monotonic() < deadline:
        time.sleep(0.05)
        verified = health(open_channel(front))
    system_roots = health(grpc.secure_channel(host, grpc.ssl_channel_credentials()))
    clear = health(grpc.insecure_channel(host))
    ok = verified == "SERVING" and system_roots != "SERVING" and clear != "SERVING"
    print(
        f"{'PASS' if ok else 'FAIL'} tls: verified against the test CA: {verified}; against the system CAs: "
        f"{system_roots}; in clear: {clear}")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    c = commands.add_parser("continue")
    c.add_argument("nginx")
    c.add_argument("targets", nargs="+")
    load = commands.add_parser("load")
    load.add_argument("nginx")
    load.add_argument("--kill", type=int, required=True)
    load.add_argument("--survivor", required=True)
    load.add_argument("--workers", type=int, default=8)
    load.add_argument("--before", type=int, default=150)
    load.add_argument("--after", type=int, default=150)
    tls = commands.add_parser("tls")
    tls.add_argument("front")
    parser.add_argument("--tls-ca", help="the CA certificate tls:HOST:PORT targets are verified against")
    args = parser.parse_args()
    channels.ca_file = args.tls_ca
    if args.command == "continue":
        ok = continue_everywhere(args.nginx, args.targets)
    elif args.command == "tls":
        ok = tls_checks(args.front)
    else:
        ok = load_with_kill(args.nginx, args.kill, args.survivor, args.workers, args.before, args.after)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
