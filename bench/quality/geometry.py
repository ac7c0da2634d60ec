#!/usr/bin/env python3
"""The hybrid rule of the engine's image path: global print, then geometric verification.

Reads image-bench --verify's dumps (per query: the print's shortlist of the nearest catalog items,
each with its distance and the inliers GeometricVerifier found) and chooses, on the TUNE split
only, the parameters of the rule the engine applies (ImageMatchRule):

- a strict print distance `t = s × the catalog's median nearest-other distance` (the catalog's own
  scale: pictures of one family lie closer together, and so do strangers to them): at d1 ≤ t the
  nearest item is answered without verification (this covers mirrored, blurred and small
  pictures, whose keypoints do not survive; the print is mirror-invariant);
- otherwise the shortlist's first `k` items within print distance `loose` are verified, and the
  one with the most inliers is answered when it has at least `n` (a crop or a tilt the print alone
  cannot place); else the answer is empty.

The objective is openset.py's — among settings leaving ≥ 0.95 of the tune held-out queries empty,
the best mean recall@1-with-rejection over the columns — with a safety margin of 2: the held-out
queries must stay empty even when twice as close to the catalog and with twice the chance inliers
they had on tune, since families never seen may come closer (ties: the larger margin-empty rate,
then the smaller s, k and loose, then the larger n).
The chosen rule is then applied unchanged to TEST, whose rows are the figures that count.

    geometry.py --out DIR        reads DIR/verify-<split>.json (and DIR/verify-test-10k.json for
                                 the timing at 10,000 catalog rows, when present)
"""
import argparse
import itertools
import json
import os

import numpy as np

from openset import EMPTY_TARGET

STRICT = [round(x, 4) for x in np.arange(0.0, 1.0001, 0.025)]  # × median catalog nearest-other
MARGIN = 2.0
INLIERS = list(range(4, 41))
SHORTLISTS = [1, 2, 3, 5]
LOOSE = [0.15, 0.2, 0.25, 0.3, 0.4, 2.0]


def verified_choice(query, k, loose):
    """The shortlist item with the most inliers among the first k within `loose`, and its inliers."""
    best_item, best_inliers = None, -1
    for entry in query["shortlist"][:k]:
        if entry["distance"] <= loose and entry["inliers"] > best_inliers:
            best_item, best_inliers = entry["item"], entry["inliers"]
    return best_item, best_inliers


def decide(query, t, n, k, loose, poor=None):
    """The rule's answer for one query: a catalog item, or None (answered empty).

    `poor` = (fewest keypoints, strict distance for pictures with fewer, keypoints per catalog item):
    a feature-poor nearest picture (smooth gradients, soft shapes) verifies nothing, so it is
    answered on a looser print distance of its own."""
    top = query["shortlist"][0] if query["shortlist"] else None
    if top is None:
        return None
    if top["distance"] <= t:
        return top["item"]
    if poor is not None and poor[2][top["item"]] < poor[0] and top["distance"] <= poor[1]:
        return top["item"]
    item, inliers = verified_choice(query, k, loose)
    return item if inliers >= n else None


def score(dump, t, n, k, loose, poor=None):
    recall = {}
    for column in dump["columns"]:
        answers = [decide(q, t, n, k, loose, poor) for q in column["queries"]]
        recall[column["name"]] = float(np.mean([a == q["answer"] for a, q in zip(answers, column["queries"])]))
    empty = float(np.mean([decide(h, t, n, k, loose, poor) is None for h in dump["heldout"]]))
    return recall, empty


POOR_KEYPOINTS = [0, 25, 50, 75, 100, 150, 200, 250, 301]  # 0: no feature-poor rule


def calibrate_poor(tune, gap, rule):
    """The feature-poor rule on top of the chosen one, on tune: the fewest keypoints a catalog
    picture needs to be verified, and the print distance (× the median gap) at which a picture with
    fewer is answered unverified; held-out queries must stay empty at half their distance (ties:
    the fewer keypoints, then the smaller distance)."""
    t = rule["s"] * gap
    keypoints = tune["catalog_keypoints"]
    best_key, best = None, None
    for fewest in POOR_KEYPOINTS:
        for fraction in [f for f in STRICT if f >= rule["s"]]:
            poor = (fewest, fraction * gap, keypoints)
            recall, _ = score(tune, t, rule["n"], rule["k"], rule["loose"], poor)
            # The margin as calibrate() takes it: held-out queries at half their print distance,
            # and their verified choice with twice its inliers.
            answered = []
            for h in tune["heldout"]:
                top = h["shortlist"][0]
                _, inliers = verified_choice(h, rule["k"], rule["loose"])
                answered.append(top["distance"] / MARGIN <= t
                                or (keypoints[top["item"]] < fewest and top["distance"] / MARGIN <= poor[1])
                                or inliers * MARGIN >= rule["n"])
            empty = 1 - float(np.mean(answered))
            reached = empty >= EMPTY_TARGET
            mean = float(np.mean(list(recall.values())))
            key = (reached, mean if reached else (mean + empty) / 2, empty, -fewest, -fraction)
            if best_key is None or key > best_key:
                best_key = key
                best = {"poor_keypoints": fewest, "poor_s": fraction, "tune_margin_empty_poor": empty}
    return best


def arrays(records, k, loose, answers=None):
    """Per record: the top item's distance and whether it is right, the verified choice's inliers
    and whether it is right (held-out records are never right)."""
    top_distance, top_right, inliers, verified_right = [], [], [], []
    for record in records:
        top = record["shortlist"][0]
        item, count = verified_choice(record, k, loose)
        top_distance.append(top["distance"])
        top_right.append(record.get("answer") is not None and top["item"] == record["answer"])
        inliers.append(count)
        verified_right.append(record.get("answer") is not None and item == record["answer"])
    return tuple(np.array(a) for a in (top_distance, top_right, inliers, verified_right))


def calibrate(tune, gap):
    """Every setting of the grid scored on tune, vectorised over (t, n) per (k, loose)."""
    best_key, best = None, None
    t_grid = np.array(STRICT)[:, None, None] * gap
    n_grid = np.array(INLIERS)[None, :, None]
    for k, loose in itertools.product(SHORTLISTS, LOOSE):
        column_recalls = []
        for column in tune["columns"]:
            distance, top_right, inliers, verified_right = arrays(column["queries"], k, loose)
            strict = distance[None, None, :] <= t_grid
            right = np.where(strict, top_right[None, None, :], (inliers[None, None, :] >= n_grid) & verified_right)
            column_recalls.append(right.mean(axis=2))
        mean = np.mean(column_recalls, axis=0)
        distance, _, inliers, _ = arrays(tune["heldout"], k, loose)
        answered = (distance[None, None, :] / MARGIN <= t_grid) | (inliers[None, None, :] * MARGIN >= n_grid)
        empty = 1 - answered.mean(axis=2)
        for ti, t in enumerate(STRICT):
            for ni, n in enumerate(INLIERS):
                reached = empty[ti, ni] >= EMPTY_TARGET
                m = float(mean[ti, ni])
                key = (reached, m if reached else (m + empty[ti, ni]) / 2, float(empty[ti, ni]), -t, -k, -loose, n)
                if best_key is None or key > best_key:
                    best_key = key
                    best = {"s": t, "n": n, "k": k, "loose": loose, "tune_margin_empty": float(empty[ti, ni])}
    return best


def engine_today(dump, threshold=0.12):
    """The engine's rule before verification: the nearest item when d1 ≤ its default max distance."""
    def answer(q):
        top = q["shortlist"][0]
        return top["item"] if top["distance"] <= threshold else None
    recall = {c["name"]: float(np.mean([answer(q) == q["answer"] for q in c["queries"]])) for c in dump["columns"]}
    return recall, float(np.mean([answer(h) is None for h in dump["heldout"]]))


def plain(dump):
    return {c["name"]: float(np.mean([q["shortlist"][0]["item"] == q["answer"] for q in c["queries"]]))
            for c in dump["columns"]}


def timing(dump, rule):
    """Per-query CPU ms of print + scan + (keypoints and verification when the rule needs them: as
    the engine does, the query's keypoints are found only when the nearest picture is not answered
    on its print and some shortlisted picture lies within the loose distance)."""
    poor = (rule["poor_keypoints"], rule["poor_s"] * rule["gap"], dump["catalog_keypoints"])
    def cost(q):
        base = q["print_ms"] + q["scan_ms"]
        always = base + q["keypoints_ms"] + q["verify_ms"]
        shortlist = q["shortlist"]
        if not shortlist:
            return base, always
        top = shortlist[0]
        if top["distance"] <= rule["t"]:
            return base, always
        if top["distance"] <= poor[1] and poor[2][top["item"]] < poor[0]:
            return base, always
        if not any(e["distance"] <= rule["loose"] for e in shortlist[:rule["k"]]):
            return base, always
        return always, always
    queries = [q for c in dump["columns"] for q in c["queries"]] + dump["heldout"]
    as_served, always = zip(*(cost(q) for q in queries))
    def stats(values):
        values = np.array(values)
        return f"p50 {np.percentile(values, 50):.2f} / p99 {np.percentile(values, 99):.2f} / worst {values.max():.2f}"
    return stats(as_served), stats(always), len(queries)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    dumps = {}
    for split in ("tune", "test"):
        with open(os.path.join(args.out, f"verify-{split}.json")) as f:
            dumps[split] = json.load(f)
    gaps = {}
    for split in ("tune", "test"):
        with open(os.path.join(args.out, f"ours-{split}.json")) as f:
            gaps[split] = float(np.median([c["distance"] for c in json.load(f)["catalog_nearest_other"]]))
    rule = calibrate(dumps["tune"], gaps["tune"])
    rule.update(calibrate_poor(dumps["tune"], gaps["tune"], rule))
    with open(os.path.join(args.out, "geometry-rule.json"), "w") as f:
        json.dump(dict(rule, median_catalog_gap=gaps), f, indent=1)
    print("\n### print + geometric verification (ImageMatchRule), calibrated on tune, applied to test\n")
    print(f"rule: answer the nearest item at print distance ≤ {rule['s']:g} × the catalog's median "
          f"nearest-other distance (tune {rule['s'] * gaps['tune']:.4f}, test {rule['s'] * gaps['test']:.4f}); "
          f"else verify the first {rule['k']} within {rule['loose']:g} and answer the one with the most "
          f"inliers when ≥ {rule['n']} (tune held-out empty with the margin of {MARGIN:g}: "
          f"{rule['tune_margin_empty']:.3f})")
    print(f"feature-poor pictures: a nearest catalog picture with fewer than {rule['poor_keypoints']} keypoints "
          f"is answered unverified at print distance ≤ {rule['poor_s']:g} × the median gap (tune "
          f"{rule['poor_s'] * gaps['tune']:.4f}, test {rule['poor_s'] * gaps['test']:.4f}; tune held-out empty "
          f"with the margin: {rule['tune_margin_empty_poor']:.3f})")
    names = [c["name"] for c in dumps["test"]["columns"]]
    rows = []
    for split in ("tune", "test"):
        dump = dumps[split]
        today_recall, today_empty = engine_today(dump)
        rule["t"] = rule["s"] * gaps[split]
        new_recall, new_empty = score(dump, rule["t"], rule["n"], rule["k"], rule["loose"])
        poor = (rule["poor_keypoints"], rule["poor_s"] * gaps[split], dump["catalog_keypoints"])
        poor_recall, poor_empty = score(dump, rule["t"], rule["n"], rule["k"], rule["loose"], poor)
        nearest = plain(dump)
        rows.append((f"{split}: nearest (no rejection)", nearest, None))
        rows.append((f"{split}: engine before (d1 ≤ 0.12)", today_recall, today_empty))
        rows.append((f"{split}: print + verification", new_recall, new_empty))
        rows.append((f"{split}: + feature-poor pictures on the print", poor_recall, poor_empty))
    header = ["recall@1"] + names + ["worst", "held-out empty"]
    print("\n| " + " | ".join(header) + " |")
    print("|" + " --- |" * len(header))
    for label, recall, empty in rows:
        cells = [f"{recall[n]:.3f}" for n in names] + [f"{min(recall.values()):.3f}",
                                                        "n/a" if empty is None else f"{empty:.3f}"]
        print("| " + " | ".join([label] + cells) + " |")
    print("\nCPU ms per query (one core; print + scan + keypoints + verification of the shortlist):\n")
    timed = [("test", dumps["test"])]
    padded = os.path.join(args.out, "verify-test-10k.json")
    if os.path.exists(padded):
        with open(padded) as f:
            timed.append(("test, padded", json.load(f)))
    for label, dump in timed:
        as_served, always, count = timing(dump, dict(rule, t=rule["s"] * gaps["test"], gap=gaps["test"]))
        print(f"- {label}, {dump['catalog_size']} catalog rows, {count} queries: as served {as_served}; "
              f"verifying every query {always}")


if __name__ == "__main__":
    main()
