"""Summarizes bench/rpc runs: QPS, p50 and p99 per server, method and load, then the ratios.

Usage: summarize.py RUNS_DIR

RUNS_DIR holds one NAME.out (h2load's report) and NAME.tsv (its --log-file: start time in µs,
HTTP status, µs to the end of the response) per run, NAME being server~method~load~round.
QPS is the measured requests over the measured time summed across rounds; p50 and p99 are taken
over every request of every round. A run with a failed request, or a status other than 200, stops
the summary: h2load would have counted it as served.
"""

import collections
import os
import re
import sys

SERVER_ORDER = ["vi-continue", "grpc-c++", "grpcio", "nginx+2x vi-continue"]


def percentile(sorted_values, fraction):
    index = min(len(sorted_values) - 1, max(0, int(round(fraction * len(sorted_values) + 0.5)) - 1))
    return sorted_values[index]


def main(runs):
    requests = collections.Counter()
    seconds = collections.Counter()
    wire_bytes = collections.Counter()
    latencies = collections.defaultdict(list)
    for name in sorted(os.listdir(runs)):
        if not name.endswith(".out"):
            continue
        key = tuple(name[: -len(".out")].split("~")[:3])
        with open(os.path.join(runs, name)) as f:
            report = f.read()
        finished = re.search(r"finished in ([\d.]+)(m?s), ([\d.]+) req/s", report)
        counts = re.search(r"requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed", report)
        traffic = re.search(r"traffic: \S+ \((\d+)\) total", report)
        if not (finished and counts and traffic):
            raise SystemExit(f"summarize: {name}: no h2load report:\n{report}")
        if int(counts.group(4)) or counts.group(2) != counts.group(3):
            raise SystemExit(f"summarize: {name}: failed requests:\n{report}")
        done = int(counts.group(2))
        if done == 0:
            raise SystemExit(f"summarize: {name}: no request completed:\n{report}")
        requests[key] += done
        seconds[key] += done / float(finished.group(3))
        wire_bytes[key] += int(traffic.group(1))
        # h2load logs status 0 for a request that straddles the end of the warm-up (its :status
        # came during the warm-up; seen through nginx). Such a request was served (the report
        # counts it as succeeded, and sometimes as 2xx too), and at most one per call in flight
        # straddles each boundary, so up to 2 × in-flight such rows are allowed; any other status
        # stops the summary.
        straddling = 2 * int(key[2])
        with open(os.path.join(runs, name[: -len(".out")] + ".tsv")) as f:
            for line in f:
                _, status, micros = line.split("\t")[:3]
                if status == "0" and straddling > 0:
                    straddling -= 1
                elif status != "200":
                    raise SystemExit(f"summarize: {name}: HTTP status {status}")
                latencies[key].append(int(micros))

    rows = {}
    print(f"{'server':<22}{'method':<14}{'in flight':>10}{'QPS':>10}{'p50 µs':>9}{'p99 µs':>9}{'B/call':>8}")
    order = sorted(requests, key=lambda k: (k[1], int(k[2]), SERVER_ORDER.index(k[0])))
    for key in order:
        values = sorted(latencies[key])
        qps = requests[key] / seconds[key]
        p50, p99 = percentile(values, 0.50), percentile(values, 0.99)
        rows[key] = (qps, p50, p99)
        print(
            f"{key[0]:<22}{key[1]:<14}{key[2]:>10}{qps:>10.0f}{p50:>9}{p99:>9}"
            f"{wire_bytes[key] / requests[key]:>8.0f}"
        )

    print()
    print("ratios (targets: QPS ≥ 1.5× gRPC C++, p50 ≤ 0.7× gRPC C++, QPS ≥ 8× grpcio)")
    for method, load in sorted({(k[1], k[2]) for k in rows}, key=lambda x: (x[0], int(x[1]))):
        ours = rows.get(("vi-continue", method, load))
        cpp = rows.get(("grpc-c++", method, load))
        py = rows.get(("grpcio", method, load))
        if not ours:
            continue
        parts = []
        if cpp:
            parts.append(f"QPS/C++ {ours[0] / cpp[0]:.2f}×  p50/C++ {ours[1] / cpp[1]:.2f}×")
        if py:
            parts.append(f"QPS/grpcio {ours[0] / py[0]:.2f}×")
        print(f"  {method:<12} {load:>2} in flight: " + "   ".join(parts))


if __name__ == "__main__":
    main(sys.argv[1])
