#!/usr/bin/env python3
"""Scores the peers on the tune and test manifests written by image_families.py.

Peers: imagehash's pHash (Hamming distance), a colour histogram (joint RGB 8 × 8 × 8, chi-square)
and a fused global descriptor (a gradient-orientation histogram beside an HSV histogram and colour
moments, L1; the weight between gradient and colour is chosen on the tune split). For each: recall@1
per column, and open-set rejection with one distance threshold calibrated on the tune split only and
applied to the test split (openset.py states the rule).

Writes OUT/peers-tune.json, OUT/peers-test.json (and the raw neighbours, OUT/neighbours-<peer>-<split>.json,
for a later look), OUT = bench/out/quality/images.

    peers.py [--out DIR]
"""
import argparse
import json
import os

import imagehash
import numpy as np
from PIL import Image

import openset

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SPLITS = ["tune", "test"]
DESCRIPTOR_SIDE = 128  # descriptors look at a thumbnail: enough for global colour and gradient statistics
FUSION_WEIGHTS = [0.2, 0.35, 0.5, 0.65, 0.8]  # gradient share of the fused distance, tried on tune


def thumbnail(path):
    img = Image.open(path).convert("RGB")
    img.thumbnail((DESCRIPTOR_SIDE, DESCRIPTOR_SIDE), Image.BILINEAR)
    return img


# ------------------------------------------------------------------ descriptors

def phash_bits(path):
    return imagehash.phash(Image.open(path).convert("RGB")).hash.flatten()


def rgb_histogram(img):
    a = np.asarray(img, dtype=np.int64) // 32
    h = np.bincount((a[..., 0] * 64 + a[..., 1] * 8 + a[..., 2]).ravel(), minlength=512).astype(np.float64)
    return h / h.sum()


def gradient_orientations(img, bins=12):
    """Magnitude-weighted histogram of unsigned gradient orientations over the whole picture: it does
    not care where an edge is, so it survives crops, and a small turn moves it only a little."""
    g = np.asarray(img.convert("L"), dtype=np.float64)
    gx = np.zeros_like(g)
    gy = np.zeros_like(g)
    gx[:, 1:-1] = g[:, 2:] - g[:, :-2]
    gy[1:-1, :] = g[2:, :] - g[:-2, :]
    magnitude = np.hypot(gx, gy)
    angle = np.mod(np.arctan2(gy, gx), np.pi)
    h = np.bincount(np.minimum((angle / np.pi * bins).astype(int), bins - 1).ravel(), magnitude.ravel(), bins)
    return h / max(h.sum(), 1e-9)


def hsv_colour(img):
    """An 8 × 3 × 3 HSV histogram plus each channel's mean and standard deviation (the colour moments)."""
    hsv = np.asarray(img.convert("HSV"), dtype=np.int64)
    h = np.bincount((hsv[..., 0] * 8 // 256 * 9 + hsv[..., 1] * 3 // 256 * 3 + hsv[..., 2] * 3 // 256).ravel(),
                    minlength=72).astype(np.float64)
    moments = np.concatenate([hsv.reshape(-1, 3).mean(0), hsv.reshape(-1, 3).std(0)]) / 255
    return np.concatenate([h / h.sum(), moments / moments.size])


# ------------------------------------------------------------------ distances (queries × catalog)

def hamming(q, c):
    return (q[:, None, :] != c[None, :, :]).sum(axis=2) / q.shape[1]


def chi_square(q, c):
    s = q[:, None, :] + c[None, :, :]
    return 0.5 * np.where(s > 0, (q[:, None, :] - c[None, :, :]) ** 2 / np.where(s > 0, s, 1), 0).sum(axis=2)


def l1(q, c):
    return 0.5 * np.abs(q[:, None, :] - c[None, :, :]).sum(axis=2)


# ------------------------------------------------------------------ per split

def manifest_files(manifest):
    files = list(manifest["gallery"])
    for column in manifest["columns"]:
        files += [q["file"] for q in column["queries"]]
    return files + [h["file"] for h in manifest["heldout"]]


def describe(manifest):
    """Every image of the manifest described once by each peer: {peer: {file: vector}}."""
    out = {"pHash": {}, "colour histogram": {}, "gradient": {}, "colour": {}}
    for path in manifest_files(manifest):
        out["pHash"][path] = phash_bits(path)
        img = thumbnail(path)
        out["colour histogram"][path] = rgb_histogram(img)
        out["gradient"][path] = gradient_orientations(img)
        out["colour"][path] = hsv_colour(img)
    return out


def distances_for(features, metric, catalog, files):
    return metric(np.array([features[f] for f in files]), np.array([features[f] for f in catalog]))


def run_of(manifest, distance):
    """A run (openset.py's shape) for one peer, given distance(files) → files × catalog distances."""
    catalog = manifest["gallery"]
    columns = {}
    for column in manifest["columns"]:
        files = [q["file"] for q in column["queries"]]
        columns[column["name"]] = openset.neighbour_records(distance(files), [q["answer"] for q in column["queries"]])
    return {"columns": columns,
            "heldout": openset.neighbour_records(distance([h["file"] for h in manifest["heldout"]])),
            "catalog_nearest_other": openset.catalog_nearest_other(distance(catalog))}


def peer_distances(described, gradient_weight):
    def fused(catalog):
        def d(files):
            return (gradient_weight * distances_for(described["gradient"], l1, catalog, files)
                    + (1 - gradient_weight) * distances_for(described["colour"], l1, catalog, files))
        return d
    return {
        "pHash": lambda catalog: lambda files: distances_for(described["pHash"], hamming, catalog, files),
        "colour histogram": lambda catalog: lambda files: distances_for(described["colour histogram"], chi_square,
                                                                         catalog, files),
        "fused gradient+colour": fused,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "quality", "images"))
    args = parser.parse_args()
    manifests = {s: json.load(open(os.path.join(args.out, s, "manifest.json"))) for s in SPLITS}
    described = {s: describe(manifests[s]) for s in SPLITS}

    # The fusion weight is the one weight a peer has: chosen by mean plain recall@1 on tune only.
    def fused_run(split, w):
        return run_of(manifests[split], peer_distances(described[split], w)["fused gradient+colour"](
            manifests[split]["gallery"]))
    weight = max(FUSION_WEIGHTS, key=lambda w: np.mean(list(openset.plain_recall(fused_run("tune", w)).values())))

    runs = {s: {name: run_of(manifests[s], make(manifests[s]["gallery"]))
                for name, make in peer_distances(described[s], weight).items()} for s in SPLITS}
    rejection = {name: openset.open_set_report(runs["tune"][name], runs["test"][name], ["d1 ≤ t"])["d1 ≤ t"]
                 for name in runs["tune"]}
    for split in SPLITS:
        result = {"split": split, "fused_gradient_weight": weight, "peers": {}}
        for name, run in runs[split].items():
            r = rejection[name]
            entry = {"recall": openset.plain_recall(run), "threshold": r["parameters"][0]}
            if split == "tune":
                entry.update(heldout_empty=r["tune_empty"], mean_recall_with_rejection=r["tune_mean_recall"])
            else:
                entry.update(heldout_empty=r["test_empty"], recall_with_rejection=r["test_recall"],
                             mean_recall_with_rejection=r["test_mean_recall"])
            result["peers"][name] = entry
            slug = name.replace(" ", "-").replace("+", "-")
            with open(os.path.join(args.out, f"neighbours-{slug}-{split}.json"), "w") as f:
                json.dump(run, f)
        with open(os.path.join(args.out, f"peers-{split}.json"), "w") as f:
            json.dump(result, f, indent=1)
    print(f"  peers scored on {', '.join(SPLITS)} (fused descriptor: gradient weight {weight} chosen on tune)")


if __name__ == "__main__":
    main()
