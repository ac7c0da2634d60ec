#!/usr/bin/env python3
"""Builds the image-recall gallery and its perturbed queries, and scores the hash peers on them.

Gallery: scikit-image's bundled sample images (skimage.data, the ones that ship inside the wheel),
plus distractors cut from them — each image's 3 × 3 grid of tiles — so a query must beat hundreds
of look-alikes of the same colours and textures, not twenty unrelated pictures. Queries: every
gallery item under each perturbation (one file per item and column; JPEG where the perturbation
compresses, PNG otherwise). The peers, imagehash's pHash and dHash, answer each query by the
nearest Hamming distance (a tie at the top earns 1/k if the right item is among the k tied).

Writes OUT/manifest.json (gallery and queries, read by image-bench) and OUT/peers.json (recall@1
per column and ms per hash), under OUT = bench/out/image by default.

    gallery.py [--out DIR]
"""
import argparse
import io
import json
import math
import os
import time
import warnings

import imagehash
import numpy as np
import skimage.data
from PIL import Image, ImageEnhance, ImageFilter, ImageOps

# The samples bundled with scikit-image (no download); `cat` is `chelsea` again, and the
# synthetic ones (binary_blobs, checkerboard) are left out as they are not pictures.
SAMPLES = ["astronaut", "brick", "camera", "cell", "chelsea", "clock", "coffee", "coins", "colorwheel",
           "grass", "gravel", "horse", "hubble_deep_field", "immunohistochemistry", "logo", "microaneurysms",
           "moon", "page", "retina", "rocket", "shepp_logan_phantom", "text"]
MAX_SIDE = 512


def to_image(array):
    a = np.asarray(array)
    if a.dtype == bool:
        a = a.astype(np.uint8) * 255
    elif a.dtype != np.uint8:
        a = a.astype(np.float64)
        a = (255 * (a - a.min()) / max(a.max() - a.min(), 1e-9)).astype(np.uint8)
    img = Image.fromarray(a)
    if img.mode == "RGBA":
        white = Image.new("RGB", img.size, (255, 255, 255))
        white.paste(img, mask=img.split()[3])
        img = white
    img = img.convert("RGB")
    if max(img.size) > MAX_SIDE:
        s = MAX_SIDE / max(img.size)
        img = img.resize((round(img.width * s), round(img.height * s)), Image.LANCZOS)
    return img


def gallery():
    items = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in SAMPLES:
            img = to_image(getattr(skimage.data, name)())
            items.append((name, img))
            w, h = img.size
            for row in range(3):
                for col in range(3):
                    box = (col * w // 3, row * h // 3, (col + 1) * w // 3, (row + 1) * h // 3)
                    items.append((f"{name}-tile{row}{col}", img.crop(box)))
    return items


def centre_crop(img, f):
    w, h = img.size
    cw, ch = round(w * f), round(h * f)
    x0, y0 = (w - cw) // 2, (h - ch) // 2
    return img.crop((x0, y0, x0 + cw, y0 + ch))


def corner_crop(img, f, index):
    w, h = img.size
    cw, ch = round(w * f), round(h * f)
    x0 = 0 if index % 2 == 0 else w - cw
    y0 = 0 if (index // 2) % 2 == 0 else h - ch
    return img.crop((x0, y0, x0 + cw, y0 + ch))


def rotate(img, degrees):
    """Turned about the centre and cut to the largest centred rectangle with no empty corners."""
    w, h = img.size
    a = math.radians(abs(degrees))
    turned = img.rotate(degrees, resample=Image.BICUBIC)
    # The largest axis-aligned rectangle of the original's aspect inside the turned image.
    s = min(w / (w * math.cos(a) + h * math.sin(a)), h / (w * math.sin(a) + h * math.cos(a)))
    return centre_crop(turned, s)


def jpeg(img, quality):
    b = io.BytesIO()
    img.save(b, "JPEG", quality=quality)
    return b.getvalue()


def png(img):
    b = io.BytesIO()
    img.save(b, "PNG", compress_level=1)
    return b.getvalue()


# name → (perturbation giving encoded bytes, photometric?)
COLUMNS = [
    ("jpeg-q20", lambda img, i: ("jpg", jpeg(img, 20)), True),
    ("scale-0.25", lambda img, i: ("png", png(img.resize((max(1, img.width // 4), max(1, img.height // 4)),
                                                          Image.BILINEAR, reducing_gap=2.0))), True),
    ("bright+40%", lambda img, i: ("png", png(ImageEnhance.Brightness(img).enhance(1.4))), True),
    ("contrast-0.6", lambda img, i: ("png", png(ImageEnhance.Contrast(img).enhance(0.6))), True),
    ("blur-r2", lambda img, i: ("png", png(img.filter(ImageFilter.GaussianBlur(2)))), True),
    ("crop-80%", lambda img, i: ("png", png(centre_crop(img, 0.8))), False),
    ("crop-60%", lambda img, i: ("png", png(centre_crop(img, 0.6))), False),
    ("corner-70%", lambda img, i: ("png", png(corner_crop(img, 0.7, i))), False),
    ("rotate-10", lambda img, i: ("png", png(rotate(img, 10))), False),
    ("mirror", lambda img, i: ("png", png(ImageOps.mirror(img))), False),
    ("crop80+jpeg30+bright1.2", lambda img, i: ("jpg", jpeg(ImageEnhance.Brightness(centre_crop(img, 0.8)).enhance(1.2),
                                                            30)), False),
]


def recall(gallery_hashes, query_hashes, answers):
    g = np.array([h.hash.flatten() for h in gallery_hashes])
    total = 0.0
    for qh, answer in zip(query_hashes, answers):
        d = (g != qh.hash.flatten()).sum(axis=1)
        best = d.min()
        tied = np.flatnonzero(d == best)
        if answer in tied:
            total += 1 / len(tied)
    return total / len(answers)


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(root, "bench", "out", "image"))
    args = parser.parse_args()
    os.makedirs(os.path.join(args.out, "gallery"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "queries"), exist_ok=True)
    items = gallery()
    manifest = {"gallery": [], "columns": []}
    for name, img in items:
        path = os.path.join(args.out, "gallery", name + ".png")
        with open(path, "wb") as f:
            f.write(png(img))
        manifest["gallery"].append(path)
    hashers = {"pHash": imagehash.phash, "dHash": imagehash.dhash}
    peers = {"recall": {k: {} for k in hashers}, "ms_per_hash": {}}
    gallery_hashes = {}
    for key, fn in hashers.items():
        start = time.perf_counter()
        gallery_hashes[key] = [fn(img) for _, img in items]
        peers["ms_per_hash"][key] = (time.perf_counter() - start) * 1000 / len(items)
    for column, perturb, photometric in COLUMNS:
        queries, query_images = [], []
        for i, (name, img) in enumerate(items):
            ext, data = perturb(img, i)
            path = os.path.join(args.out, "queries", f"{column}--{name}.{ext}")
            with open(path, "wb") as f:
                f.write(data)
            queries.append({"file": path, "answer": i})
            query_images.append(Image.open(io.BytesIO(data)).convert("RGB"))
        manifest["columns"].append({"name": column, "photometric": photometric, "queries": queries})
        answers = [q["answer"] for q in queries]
        for key, fn in hashers.items():
            peers["recall"][key][column] = recall(gallery_hashes[key], [fn(q) for q in query_images], answers)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    with open(os.path.join(args.out, "peers.json"), "w") as f:
        json.dump(peers, f, indent=1)
    print(f"gallery: {len(items)} images ({len(SAMPLES)} samples + {len(items) - len(SAMPLES)} tiles), "
          f"{len(COLUMNS)} perturbations × {len(items)} queries → {args.out}")


if __name__ == "__main__":
    main()
