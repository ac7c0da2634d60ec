"""Large unary requests over loopback gRPC: Health/Check whose service name is N bytes long
(the server decodes it and answers NOT_FOUND: the transport, the message's decoding and little
else), against vi-continue and gRPC C++ in interleaved rounds, one call in flight from a stock
grpcio client. Prints p50, p90 and the worst call per server and size, and the p50 ratio."""
import argparse
import json
import time

import grpc

import capture_search as cs


def stats(millis):
    s = sorted(millis)
    return {"n": len(s), "p50": s[len(s) // 2], "p90": s[int(len(s) * 0.9)], "worst": s[-1]}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--server", action="append", required=True, help="NAME=HOST:PORT")
    p.add_argument("--sizes", default="16,65536,262144,1000000")
    p.add_argument("--calls", type=int, default=100)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--json", required=True)
    a = p.parse_args()
    servers = [s.split("=", 1) for s in a.server]
    sizes = [int(s) for s in a.sizes.split(",")]
    # Larger than any request sent here; grpcio's default send limit is 4 MiB already.
    options = [("grpc.max_receive_message_length", 16 << 20)]
    stubs = {
        name: cs.health_pb_grpc.HealthStub(grpc.insecure_channel(target, options=options))
        for name, target in servers
    }
    times = {(name, size): [] for name, _ in servers for size in sizes}
    for _ in range(a.rounds):
        for name, _ in servers:
            for size in sizes:
                request = cs.health_pb.HealthCheckRequest(service="s" * size)
                for call in range(a.calls + 5):
                    start = time.perf_counter_ns()
                    try:
                        stubs[name].Check(request, timeout=30)
                        raise SystemExit(f"large-request: {name} answered an unknown service as known")
                    except grpc.RpcError as error:
                        if error.code() != grpc.StatusCode.NOT_FOUND:
                            raise SystemExit(f"large-request: {name}, {size} bytes: {error.code()} {error.details()}")
                    if call >= 5:  # the first calls of a size warm the channel up
                        times[(name, size)].append((time.perf_counter_ns() - start) / 1e6)
    result = {}
    ours, peer = servers[0][0], servers[1][0]
    for size in sizes:
        row = {name: stats(times[(name, size)]) for name, _ in servers}
        row["p50 ratio"] = row[ours]["p50"] / row[peer]["p50"]
        result[str(size)] = row
        cells = "   ".join(
            f"{name} p50 {row[name]['p50']:6.2f} p90 {row[name]['p90']:6.2f} worst {row[name]['worst']:6.2f} ms"
            for name, _ in servers)
        print(f"{size:>9} bytes   {cells}   p50 {ours} ÷ {peer}: {row['p50 ratio']:.2f}")
    with open(a.json, "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
