#!/usr/bin/env python3
"""Prints the by-family image tables (markdown) from the peers' JSON and our print's dumps.

Per split: recall@1 per column (plain nearest, no rejection) for our print and each peer, and the
held-out empty rate of each method with its threshold calibrated on tune. Then, for our print,
what each simple rejection rule calibrated on TUNE gives on TEST (openset.RULES).

    report.py [--out DIR]      reads OUT/peers-<split>.json and OUT/ours-<split>.json
"""
import argparse
import json
import os

import numpy as np

import openset

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SPLITS = ["tune", "test"]


def our_run(dump):
    """image-bench --dump's JSON as an openset run."""
    def record(q):
        return {k: q[k] for k in ("nearest", "d1", "second", "d2")} | (
            {"answer": q["answer"]} if q.get("answer") is not None else {})
    return {"columns": {c["name"]: [record(q) for q in c["queries"]] for c in dump["columns"]},
            "heldout": [record(h) for h in dump["heldout"]],
            "catalog_nearest_other": [c["distance"] for c in dump["catalog_nearest_other"]]}


def fmt(x):
    return "n/a" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.3f}"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def recall_table(split, our_name, ours, ours_rejection, peers):
    methods = [our_name] + list(peers["peers"])
    recalls = [openset.plain_recall(ours) if ours else None] + [p["recall"] for p in peers["peers"].values()]
    columns = list(peers["peers"][next(iter(peers["peers"]))]["recall"])
    rows = [[c] + [fmt(r[c]) if r else "n/a" for r in recalls] for c in columns]
    rows.append(["**mean**"] + [fmt(float(np.mean(list(r.values())))) if r else "n/a" for r in recalls])
    key = "tune_empty" if split == "tune" else "test_empty"
    empties = [ours_rejection[key] if ours_rejection else None] + [p["heldout_empty"] for p in peers["peers"].values()]
    rows.append(["held-out empty (d1 threshold from tune)"] + [fmt(e) for e in empties])
    key = "tune_mean_recall" if split == "tune" else "test_mean_recall"
    with_rejection = [ours_rejection[key] if ours_rejection else None] + [
        p["mean_recall_with_rejection"] for p in peers["peers"].values()]
    rows.append(["mean recall@1 with that rejection"] + [fmt(x) for x in with_rejection])
    return table(["recall@1 (" + split + ")"] + methods, rows)


def rules_table(our_name, report):
    header = ["rule (calibrated on tune)", "parameters", "tune empty", "tune mean R@1", "TEST empty",
              "TEST mean R@1", "TEST worst column"]
    rows = []
    for name, r in report.items():
        worst = min(r["test_recall"], key=r["test_recall"].get)
        rows.append([name, ", ".join(f"{p:.4g}" for p in r["parameters"]), fmt(r["tune_empty"]),
                     fmt(r["tune_mean_recall"]), fmt(r["test_empty"]), fmt(r["test_mean_recall"]),
                     f"{worst} {fmt(r['test_recall'][worst])}"])
    return table(header, rows)


def per_column_table(report, plain):
    names = list(report)
    rows = [[c, fmt(plain[c])] + [fmt(report[n]["test_recall"][c]) for n in names] for c in plain]
    return table(["TEST recall@1 with rejection", "no rejection"] + names, rows)


def screenshot_table(out):
    """The engine's sheet on screenshots (bench/quality/screenshots.py), as SCREENSHOT and as CAMERA."""
    answers = {}
    for s in SPLITS:
        path = os.path.join(out, f"screenshots-{s}.json")
        if os.path.exists(path):
            answers[s] = json.load(open(path))
    if not answers:
        return
    print("\n### the engine on screenshots (sheet, limit 1, default max distance)\n")
    rows = []
    for s, report in answers.items():
        screens = sorted({q["screen"] for q in report["queries"]})
        for source in ("screenshot", "camera"):
            cells = [s, source]
            for screen in screens:
                shots = [q for q in report["queries"] if q["screen"] == screen]
                # An answer of nothing is a key left out (Swift's encoder skips nil).
                cells.append(fmt(float(np.mean([q.get(source) == q["answer"] for q in shots]))))
            held = report["heldout"]
            cells.append(fmt(float(np.mean([q.get(source) is None for q in held]))) if held else "n/a")
            rows.append(cells)
        times = sorted(q["screenshot_ms"] for q in report["queries"])
        rows.append([s, "screenshot path time", f"p50 {times[len(times) // 2]:.1f} ms",
                     f"p99 {times[min(len(times) - 1, len(times) * 99 // 100)]:.1f} ms", "", ""])
    print(table(["split", "source"] + [f"recall@1 {n}" for n in screens] + ["held-out screenshots empty"], rows))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "quality", "images"))
    args = parser.parse_args()
    peers = {s: json.load(open(os.path.join(args.out, f"peers-{s}.json"))) for s in SPLITS}
    dumps = {}
    for s in SPLITS:
        path = os.path.join(args.out, f"ours-{s}.json")
        if os.path.exists(path):
            dumps[s] = json.load(open(path))
    runs = {s: our_run(d) for s, d in dumps.items()}
    our_name = dumps["test"]["model"] if "test" in dumps else "our print (not built)"
    report = openset.open_set_report(runs["tune"], runs["test"]) if len(runs) == 2 else None
    for s in SPLITS:
        print(f"\n### {s} split\n")
        print(recall_table(s, our_name, runs.get(s), report and report["d1 ≤ t"], peers[s]))
    if report:
        print(f"\n### {our_name}: rejection rules calibrated on tune, applied to test\n")
        print(f"(calibration: best tune mean recall@1-with-rejection among parameters leaving ≥ "
              f"{openset.EMPTY_TARGET} of tune held-out empty; see openset.py)\n")
        print(rules_table(our_name, report))
        print()
        print(per_column_table(report, openset.plain_recall(runs["test"])))
        # The engine's own decision today: an image match is answered at d1 ≤ its default max
        # distance (FeaturePrinter.defaultMaxDistance), the same for every catalog.
        threshold = dumps["test"].get("default_max_distance")
        if threshold is not None:
            print(f"\n### the engine today: answered at d1 ≤ {threshold:g} (its default max distance)\n")
            rows = []
            for s in SPLITS:
                recall, empty = openset.evaluate(runs[s], openset.RULES["d1 ≤ t"], [threshold])
                worst = min(recall, key=recall.get)
                rows.append([s, fmt(empty), fmt(float(np.mean(list(recall.values())))), f"{worst} {fmt(recall[worst])}"])
            print(table(["split", "held-out empty", "mean recall@1 with rejection", "worst column"], rows))
    screenshot_table(args.out)
    with open(os.path.join(args.out, "ours-rules.json"), "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
