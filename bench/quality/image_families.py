#!/usr/bin/env python3
"""Builds the by-family image evaluation: catalogs, perturbed queries and held-out pictures per split.

Families are sources of pictures that scripts/setup installs (nothing is downloaded here); a family
is used whole on one side of a fixed split, so thresholds and weights tuned on the TUNE split have
never seen a picture, or a sibling of a picture, of the TEST split:

    split  catalog families                         held-out families (never in any catalog)
    tune   skimage, debian-artwork                  ukui-wallpapers
    test   mate-backgrounds, lomiri-wallpapers      gcompris

Near-identical pictures (pHash within NEAR_IDENTICAL bits, e.g. one wallpaper at two sizes) are
kept once, within and among families. Every catalog item is queried under each perturbation of
bench/image/gallery.py plus "rotate 15° + perspective"; each held-out picture is queried twice,
as a camera would take it: lightly cropped + JPEG, and tilted (rotate 15° + perspective) + JPEG.

Writes OUT/<split>/{catalog,queries,heldout}/ and OUT/<split>/manifest.json (the shape that
bench/image's image-bench reads, plus "families", "heldout" and "split"), OUT = bench/out/quality/images.

    image_families.py [--out DIR]
"""
import argparse
import glob
import io
import json
import os
import struct
import sys
import warnings

import imagehash
import numpy as np
import skimage.data
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "image"))
# The perturbations and image helpers are bench/image's own, imported rather than copied, so the two
# benchmarks perturb the same way.
from gallery import COLUMNS, SAMPLES, centre_crop, jpeg, png, rotate, to_image  # noqa: E402

from perspective import rotate_with_perspective  # noqa: E402

NEAR_IDENTICAL = 10  # pHash Hamming distance (of 64 bits) at or below which two pictures are one
MIN_SIDE = 200  # smaller pictures are icons or sprites, not photos or artwork
MIN_OPACITY = 0.5  # mean alpha below which a file is an overlay, not a picture

# ---------------------------------------------------------------- families


def skimage_family():
    """The sample pictures inside scikit-image's wheel (skimage/data/), as bench/image uses them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [(name, to_image(getattr(skimage.data, name)())) for name in SAMPLES]


def open_picture(path):
    """The picture at `path`, or None for a translucent overlay (a wallpaper meant to lie over a
    colour the user picks, mostly transparent: on its own it is a blank sheet, not a picture)."""
    img = Image.open(path)
    img.draft("RGB", (1024, 1024))  # JPEG: decode at a reduced scale, the result is ≤ 512 px anyway
    rgba = np.asarray(img.convert("RGBA"))
    if rgba[..., 3].mean() < MIN_OPACITY * 255:
        return None
    return to_image(rgba)


def files_family(patterns):
    paths = sorted({p for pattern in patterns for p in glob.glob(pattern)})
    pictures = [(os.path.splitext(os.path.basename(p))[0], open_picture(p)) for p in paths]
    return [(name, img) for name, img in pictures if img is not None]


def debian_artwork_family():
    """desktop-base: one picture per theme (the boot-menu artwork; the login and splash screens are
    the same artwork again)."""
    paths = sorted(p for p in glob.glob("/usr/share/desktop-base/*-theme/grub/grub-16x9.png")
                   if not os.path.islink(os.path.dirname(os.path.dirname(p))))  # active-theme is a link
    return [(p.split("/")[-3], open_picture(p)) for p in paths]


def webp_blobs(data):
    """The WebP files stored inside a Qt resource bundle (.rcc), which keeps them uncompressed."""
    at = 0
    while (at := data.find(b"RIFF", at)) >= 0:
        if data[at + 8:at + 12] == b"WEBP":
            size = struct.unpack("<I", data[at + 4:at + 8])[0]
            yield data[at:at + 8 + size]
        at += 4


GCOMPRIS_RCC = "/usr/share/gcompris-qt/rcc"
# Activities whose pictures are photographs or paintings of things (not drawings of letters or UI).
GCOMPRIS_ACTIVITIES = ["explore_monuments", "explore_world_animals", "explore_farm_animals",
                       "explore_world_music", "details"]


def gcompris_family():
    items = []
    for activity in GCOMPRIS_ACTIVITIES:
        path = os.path.join(GCOMPRIS_RCC, activity + ".rcc")
        if not os.path.exists(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        for k, blob in enumerate(webp_blobs(data)):
            try:
                img = Image.open(io.BytesIO(blob))
                img.load()
            except OSError:
                continue
            if min(img.size) >= MIN_SIDE:
                items.append((f"{activity}-{k:03d}", to_image(np.asarray(img.convert("RGBA")))))
    return items


# name → (source, loader). The source is what README.md and the manifest cite.
FAMILIES = {
    "skimage": ("PyPI scikit-image: skimage/data/*", skimage_family),
    "debian-artwork": ("Debian desktop-base: /usr/share/desktop-base/*-theme/grub/grub-16x9.png",
                       debian_artwork_family),
    "ukui-wallpapers": ("Debian ukui-wallpapers: /usr/share/backgrounds/*",
                        lambda: files_family([f"/usr/share/backgrounds/{n}" for n in UKUI])),
    "mate-backgrounds": ("Debian mate-backgrounds: /usr/share/backgrounds/mate/*/*",
                         lambda: files_family(["/usr/share/backgrounds/mate/*/*.jpg",
                                               "/usr/share/backgrounds/mate/*/*.png"])),
    "lomiri-wallpapers": ("Debian lomiri-wallpapers-16.04: /usr/share/backgrounds/*_by_*.jpg",
                          lambda: files_family(["/usr/share/backgrounds/*_by_*.jpg"])),
    "gcompris": ("Debian gcompris-qt-data: WebP inside /usr/share/gcompris-qt/rcc/{"
                 + ",".join(GCOMPRIS_ACTIVITIES) + "}.rcc", gcompris_family),
}
# ukui-wallpapers shares /usr/share/backgrounds with lomiri: its files by name.
UKUI = ["calla.png", "fluent-color.png", "string.jpg", "rollpaper.png", "city.png", "focal-ubuntukylin.png",
        "2004default.jpg", "firstgeneration.jpg", "the-mouse.jpg", "rhythm.jpg", "goldfish.png", "desert.png"]

SPLITS = {
    "tune": {"catalog": ["skimage", "debian-artwork"], "heldout": ["ukui-wallpapers"]},
    "test": {"catalog": ["mate-backgrounds", "lomiri-wallpapers"], "heldout": ["gcompris"]},
}

# ---------------------------------------------------------------- deduplication


def deduplicate(families):
    """Keeps the first of every group of near-identical pictures, in split and family order, so a
    picture never stands on both sides of the split nor twice in a catalog. Returns the kept
    families and the list of (dropped, kept-as) names."""
    kept_hashes, kept, dropped = [], {}, []
    for family, items in families.items():
        kept[family] = []
        for name, img in items:
            h = imagehash.phash(img)
            twin = next((k for k, kh in kept_hashes if h - kh <= NEAR_IDENTICAL), None)
            if twin is None:
                kept_hashes.append((f"{family}/{name}", h))
                kept[family].append((name, img))
            else:
                dropped.append((f"{family}/{name}", twin))
    return kept, dropped


# ---------------------------------------------------------------- queries

ROTATE_PERSPECTIVE = ("rotate15+perspective",
                      lambda img, i: ("png", png(rotate_with_perspective(img, 15 if i % 2 else -15, i))), False)
QUERY_COLUMNS = COLUMNS + [ROTATE_PERSPECTIVE]

# A held-out picture as a camera would bring it: slightly cropped and JPEG-compressed, straight or tilted.
HELDOUT_VARIANTS = [
    ("camera", lambda img, i: jpeg(centre_crop(img, 0.92), 70)),
    ("camera-tilted", lambda img, i: jpeg(rotate_with_perspective(img, 15 if i % 2 else -15, i), 70)),
]


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def build_split(split, families, out):
    base = os.path.join(out, split)
    for sub in ("catalog", "queries", "heldout"):
        os.makedirs(os.path.join(base, sub), exist_ok=True)
    catalog = [(family, name, img) for family in SPLITS[split]["catalog"] for name, img in families[family]]
    manifest = {"split": split, "gallery": [], "families": [], "columns": [], "heldout": []}
    for family, name, img in catalog:
        manifest["gallery"].append(write(os.path.join(base, "catalog", f"{family}--{name}.png"), png(img)))
        manifest["families"].append(family)
    for column, perturb, photometric in QUERY_COLUMNS:
        queries = []
        for i, (family, name, img) in enumerate(catalog):
            ext, data = perturb(img, i)
            path = write(os.path.join(base, "queries", f"{column}--{family}--{name}.{ext}"), data)
            queries.append({"file": path, "answer": i})
        manifest["columns"].append({"name": column, "photometric": photometric, "queries": queries})
    i = 0
    for family in SPLITS[split]["heldout"]:
        for name, img in families[family]:
            for variant, perturb in HELDOUT_VARIANTS:
                path = write(os.path.join(base, "heldout", f"{variant}--{family}--{name}.jpg"), perturb(img, i))
                manifest["heldout"].append({"file": path, "family": family, "variant": variant})
            i += 1
    with open(os.path.join(base, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "quality", "images"))
    args = parser.parse_args()
    order = [f for split in SPLITS.values() for side in ("catalog", "heldout") for f in split[side]]
    loaded = {name: FAMILIES[name][1]() for name in order}
    missing = [name for name, items in loaded.items() if not items]
    if missing:
        sys.exit(f"image_families: no pictures for {', '.join(missing)}: run scripts/setup")
    families, dropped = deduplicate(loaded)
    summary = {"families": {}, "near_identical_dropped": dropped, "splits": SPLITS}
    for name in order:
        summary["families"][name] = {"source": FAMILIES[name][0], "found": len(loaded[name]),
                                     "kept": len(families[name])}
    for split in SPLITS:
        m = build_split(split, families, args.out)
        summary[split] = {"catalog": len(m["gallery"]), "columns": len(m["columns"]), "heldout": len(m["heldout"])}
    with open(os.path.join(args.out, "families.json"), "w") as f:
        json.dump(summary, f, indent=1)
    for name in order:
        s = summary["families"][name]
        print(f"  {name:18} {s['kept']:3} pictures ({s['found'] - s['kept']} near-identical dropped)  {s['source']}")
    for split in SPLITS:
        s = summary[split]
        print(f"  {split}: catalog {s['catalog']} items × {s['columns']} columns, {s['heldout']} held-out queries")


if __name__ == "__main__":
    main()
