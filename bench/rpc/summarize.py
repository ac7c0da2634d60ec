"""Summarizes bench/rpc runs: QPS, p50 and p99 per server, method and load, then the ratios.

Usage: summarize.py RUNS_DIR

RUNS_DIR holds one NAME.out (h2load's report) and NAME.tsv (its --log-file: start time in µs,
HTTP status, µs to the end of the response) per run, NAME being server~method~load~round.
QPS is the measured requests over the measured time summed across rounds; p50 and p99 are taken
over every request of every round. The ratios come twice: from those totals, and as the median
over rounds of each round's own ratio (the servers of one round ran minutes apart at most, so
that pairing shrugs off a noisy stretch of the machine). "floor" is the do-nothing server
(floor/floor.c): a server's p50 minus the floor's is its own time, the rest being h2load and the
kernel, so the last column compares that part alone. A run with a failed request, or a status other than 200, stops
the summary: h2load would have counted it as served.
"""

import collections
import os
import re
import statistics
import sys

WIDTHS = (9, 9, 12, 21)
SERVER_ORDER = ["vi-continue", "vi-continue uncached", "grpc-c++", "grpcio", "floor", "nginx+2x vi-continue"]


def percentile(sorted_values, fraction):
    index = min(len(sorted_values) - 1, max(0, int(round(fraction * len(sorted_values) + 0.5)) - 1))
    return sorted_values[index]


def main(runs):
    requests = collections.Counter()
    seconds = collections.Counter()
    wire_bytes = collections.Counter()
    latencies = collections.defaultdict(list)
    round_qps = {}
    round_p50 = {}
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
        round_key = key + (name[: -len(".out")].split("~")[3],)
        round_qps[round_key] = float(finished.group(3))
        seconds[key] += done / float(finished.group(3))
        wire_bytes[key] += int(traffic.group(1))
        # h2load logs status 0 for a request that straddles the end of the warm-up (its :status
        # came during the warm-up; seen through nginx). Such a request was served (the report
        # counts it as succeeded, and sometimes as 2xx too), and at most one per call in flight
        # straddles each boundary, so up to 2 × in-flight such rows are allowed; any other status
        # stops the summary.
        straddling = 2 * int(key[2])
        round_latencies = []
        with open(os.path.join(runs, name[: -len(".out")] + ".tsv")) as f:
            for line in f:
                _, status, micros = line.split("\t")[:3]
                if status == "0" and straddling > 0:
                    straddling -= 1
                elif status != "200":
                    raise SystemExit(f"summarize: {name}: HTTP status {status}")
                latencies[key].append(int(micros))
                round_latencies.append(int(micros))
        round_p50[round_key] = percentile(sorted(round_latencies), 0.50)

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
    print(f"{'server method in flight':<52}{'QPS/C++':>9}{'p50/C++':>9}{'QPS/grpcio':>12}{'p50 above floor/C++':>21}")
    rounds = sorted({k[3] for k in round_qps})
    groups = sorted({(k[0], k[1], k[2]) for k in rows if k[0].startswith("vi-continue")},
                    key=lambda k: (k[1], int(k[2]), SERVER_ORDER.index(k[0])))
    for ours_name, method, load in groups:

        def ratios(qps, p50):
            """QPS/C++, p50/C++, QPS/grpcio and (p50 − floor)/(C++ p50 − floor), None where missing."""
            ours = (ours_name, method, load)
            cpp, py, floor = ("grpc-c++", method, load), ("grpcio", method, load), ("floor", method, load)
            out = [None] * 4
            if ours in qps and cpp in qps:
                out[0], out[1] = qps[ours] / qps[cpp], p50[ours] / p50[cpp]
                if floor in p50 and p50[cpp] > p50[floor]:
                    out[3] = (p50[ours] - p50[floor]) / (p50[cpp] - p50[floor])
            if ours in qps and py in qps:
                out[2] = qps[ours] / qps[py]
            return out

        total = ratios({k: v[0] for k, v in rows.items()}, {k: v[1] for k, v in rows.items()})
        per_round = [
            ratios(
                {k[:3]: v for k, v in round_qps.items() if k[3] == r},
                {k[:3]: v for k, v in round_p50.items() if k[3] == r},
            )
            for r in rounds
        ]
        medians = [
            statistics.median(values) if (values := [x[i] for x in per_round if x[i] is not None]) else None
            for i in range(4)
        ]

        def cells(values):
            return "".join(f"{'—' if v is None else f'{v:.2f}×':>{w}}" for v, w in zip(values, WIDTHS))

        label = f"{ours_name} {method} {load}"
        print(f"{label:<34}{'totals':<18}{cells(total)}")
        print(f"{'':<34}{'per-round median':<18}{cells(medians)}")


if __name__ == "__main__":
    main(sys.argv[1])
