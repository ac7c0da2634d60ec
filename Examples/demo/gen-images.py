#!/usr/bin/env python3
"""Draws the demo catalog's album covers and the camera-like photos of some of them.

Every album of Examples/demo/catalog.jsonl gets a 256 × 256 JPEG cover under images/albums/, drawn
from a seed derived from the album id alone (so a cover never changes when other albums are added):
a two-colour background and one of several motifs (discs, stripes, a sunset over hills, a grid of
tiles, rays, rings, polygons), in a palette of its own, with the title and the artist set in
Pillow's bundled font. Then photos/ gets shots of a few covers the way a phone camera takes them:
cropped, turned a little, brighter or darker, softer, re-compressed, sometimes with a bit of table
around. A photo is named `<album-id>--<what was done>.jpg`, so one can tell which cover it shows.

Run it after gen-catalog.py (which lists the files as `image_file`); with the same Pillow version
the output is byte-for-byte the same.

    Examples/demo/gen-images.py
"""
import hashlib
import json
import math
import os
import random

from PIL import Image, ImageDraw, ImageEnhance, ImageFilter, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
SIDE = 256
MOTIFS = ["discs", "stripes", "sunset", "tiles", "rays", "rings", "polygons", "waves"]


def album_rng(album_id):
    return random.Random(int.from_bytes(hashlib.sha256(album_id.encode()).digest()[:8], "big"))


def hsv(h, s, v):
    """An RGB tuple from hue in turns, saturation and value in 0...1."""
    h = (h % 1.0) * 6
    i = int(h)
    f = h - i
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    r, g, b = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i % 6]
    return (round(r * 255), round(g * 255), round(b * 255))


def palette(rng):
    """Four colours: two for the background, two accents on other hues."""
    base = rng.random()
    spread = rng.choice([0.08, 0.33, 0.5, 0.16])
    return [
        hsv(base, rng.uniform(0.4, 0.9), rng.uniform(0.25, 0.6)),
        hsv(base + spread, rng.uniform(0.4, 0.9), rng.uniform(0.5, 0.95)),
        hsv(base + 0.5 + rng.uniform(-0.1, 0.1), rng.uniform(0.6, 1.0), rng.uniform(0.7, 1.0)),
        hsv(base + 0.25 + rng.uniform(-0.1, 0.1), rng.uniform(0.0, 0.7), rng.uniform(0.85, 1.0)),
    ]


def background(rng, a, b):
    img = Image.new("RGB", (SIDE, SIDE))
    px = img.load()
    angle = rng.uniform(0, math.pi)
    ca, sa = math.cos(angle), math.sin(angle)
    for y in range(SIDE):
        for x in range(SIDE):
            t = ((x - SIDE / 2) * ca + (y - SIDE / 2) * sa) / SIDE + 0.5
            t = min(max(t, 0), 1)
            px[x, y] = tuple(round(a[c] * (1 - t) + b[c] * t) for c in range(3))
    return img


def draw_motif(img, rng, motif, colours):
    d = ImageDraw.Draw(img)
    accent, light = colours[2], colours[3]
    if motif == "discs":
        for _ in range(rng.randint(3, 7)):
            r = rng.randint(15, 70)
            x, y = rng.randint(0, SIDE), rng.randint(0, SIDE)
            d.ellipse((x - r, y - r, x + r, y + r), fill=rng.choice([accent, light]))
    elif motif == "stripes":
        width = rng.randint(10, 28)
        slope = rng.uniform(-1.2, 1.2)
        for k in range(-SIDE, 2 * SIDE, width * 2):
            d.polygon([(k, 0), (k + width, 0), (k + width + slope * SIDE, SIDE), (k + slope * SIDE, SIDE)],
                      fill=accent)
    elif motif == "sunset":
        r = rng.randint(40, 80)
        cx, cy = rng.randint(60, 196), rng.randint(80, 150)
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=light)
        points = [(0, SIDE)]
        for x in range(0, SIDE + 32, 32):
            points.append((x, rng.randint(140, 210)))
        points.append((SIDE, SIDE))
        d.polygon(points, fill=accent)
    elif motif == "tiles":
        n = rng.choice([3, 4, 5])
        cell = SIDE // n
        for i in range(n):
            for j in range(n):
                if rng.random() < 0.5:
                    pad = rng.randint(2, 10)
                    d.rectangle((i * cell + pad, j * cell + pad, (i + 1) * cell - pad, (j + 1) * cell - pad),
                                fill=rng.choice([accent, light]))
    elif motif == "rays":
        cx, cy = rng.randint(0, SIDE), rng.randint(0, SIDE)
        n = rng.randint(6, 14)
        start = rng.uniform(0, math.pi)
        for k in range(n):
            a0 = start + k * 2 * math.pi / n
            a1 = a0 + math.pi / n
            d.polygon([(cx, cy), (cx + 400 * math.cos(a0), cy + 400 * math.sin(a0)),
                       (cx + 400 * math.cos(a1), cy + 400 * math.sin(a1))], fill=accent)
    elif motif == "rings":
        cx, cy = rng.randint(70, 186), rng.randint(70, 186)
        width = rng.randint(8, 18)
        for k, r in enumerate(range(180, 0, -width)):
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=[accent, light, colours[0]][k % 3])
    elif motif == "polygons":
        for _ in range(rng.randint(3, 6)):
            cx, cy, r = rng.randint(0, SIDE), rng.randint(0, SIDE), rng.randint(30, 90)
            sides = rng.randint(3, 6)
            turn = rng.uniform(0, math.pi)
            d.polygon([(cx + r * math.cos(turn + 2 * math.pi * k / sides), cy + r * math.sin(turn + 2 * math.pi * k / sides))
                       for k in range(sides)], fill=rng.choice([accent, light]))
    else:  # waves
        amplitude, period = rng.uniform(8, 24), rng.uniform(40, 110)
        phase = rng.uniform(0, 2 * math.pi)
        for k, base in enumerate(range(-20, SIDE + 40, rng.randint(30, 50))):
            points = [(x, base + amplitude * math.sin(phase + x * 2 * math.pi / period)) for x in range(0, SIDE + 8, 8)]
            d.polygon(points + [(SIDE, SIDE), (0, SIDE)], fill=[accent, light][k % 2])
            # Keep some background between the bands.
            d.polygon([(x, y + 10) for x, y in points] + [(SIDE, SIDE), (0, SIDE)], fill=colours[k % 2])


def cover(album):
    rng = album_rng(album["id"])
    colours = palette(rng)
    img = background(rng, colours[0], colours[1])
    draw_motif(img, rng, MOTIFS[rng.randrange(len(MOTIFS))], colours)
    # Title and artist on a band, top or bottom, like a sleeve.
    d = ImageDraw.Draw(img)
    title_font = ImageFont.load_default(size=24)
    small_font = ImageFont.load_default(size=14)
    top = rng.random() < 0.5
    y = 10 if top else SIDE - 56
    ink = (250, 250, 245) if sum(colours[0]) < 380 else (20, 20, 24)
    d.rectangle((0, y - 6, SIDE, y + 48), fill=colours[0])
    d.text((12, y), album["title"], font=title_font, fill=ink)
    d.text((12, y + 29), album["artist"], font=small_font, fill=ink)
    return img


def save_jpeg(img, path, quality):
    img.save(path, "JPEG", quality=quality, optimize=True)


# Photos: (album index among the albums, what the camera did). Indices spread over the catalog.
PHOTO_SHOTS = [
    (0, "cropped"), (7, "tilted"), (13, "bright"), (21, "dark"), (29, "on-table"), (36, "blurry"),
    (44, "cropped-tilted"), (52, "low-quality"), (61, "corner"), (69, "bright-cropped"), (77, "on-table"),
    (85, "tilted"), (93, "soft-dark"), (101, "cropped"), (109, "low-quality"), (116, "corner"),
]


def photo(img, what, rng):
    """A camera-like shot of a cover: what = the kinds of change, joined by '-'."""
    shot = img.resize((480, 480), Image.BICUBIC)
    if "on-table" in what:
        # The cover lies on a table, a little turned, filling most of the frame.
        table = Image.new("RGB", (560, 560), (118, 92, 70))
        noise = Image.effect_noise((560, 560), 18).convert("RGB")
        table = Image.blend(table, noise, 0.25)
        turned = shot.rotate(rng.uniform(-8, 8), resample=Image.BICUBIC, expand=True, fillcolor=(118, 92, 70))
        table.paste(turned, ((560 - turned.width) // 2, (560 - turned.height) // 2))
        shot = table.crop((30, 30, 530, 530))
    if "tilted" in what:
        angle = rng.choice([-1, 1]) * rng.uniform(6, 11)
        shot = shot.rotate(angle, resample=Image.BICUBIC)
        shot = shot.crop((48, 48, 432, 432))  # cut the empty corners away
    if "cropped" in what:
        f = rng.uniform(0.72, 0.82)
        side = int(shot.width * f)
        x0 = rng.randint(0, shot.width - side)
        y0 = rng.randint(0, shot.height - side)
        shot = shot.crop((x0, y0, x0 + side, y0 + side))
    if "corner" in what:
        side = int(shot.width * 0.7)
        x0 = rng.choice([0, shot.width - side])
        y0 = rng.choice([0, shot.height - side])
        shot = shot.crop((x0, y0, x0 + side, y0 + side))
    if "bright" in what:
        shot = ImageEnhance.Brightness(shot).enhance(rng.uniform(1.25, 1.4))
    if "dark" in what:
        shot = ImageEnhance.Brightness(shot).enhance(rng.uniform(0.6, 0.7))
    if "blurry" in what or "soft" in what:
        shot = shot.filter(ImageFilter.GaussianBlur(rng.uniform(1.5, 2.5)))
    # Camera sizes and compression.
    shot = shot.resize((360, round(360 * shot.height / shot.width)), Image.BICUBIC)
    quality = 25 if "low-quality" in what else rng.randint(55, 80)
    return shot, quality


def main():
    catalog = os.path.join(HERE, "catalog.jsonl")
    entities = [json.loads(line) for line in open(catalog, encoding="utf-8")]
    albums = []
    for e in entities:
        if e.get("type") == "album":
            artist = e["subtitle"].split(" · ")[0]
            albums.append({"id": e["id"], "title": e["title"], "artist": artist, "file": e.get("image_file")})
    os.makedirs(os.path.join(HERE, "images", "albums"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "photos"), exist_ok=True)
    total = 0
    for album in albums:
        expected = f"images/albums/{album['id']}.jpg"
        if album["file"] != expected:
            raise SystemExit(f"album {album['id']}: image_file is {album['file']!r}, expected {expected!r}; "
                             "run gen-catalog.py first")
        path = os.path.join(HERE, expected)
        save_jpeg(cover(album), path, 88)
        total += os.path.getsize(path)
    for index, what in PHOTO_SHOTS:
        album = albums[index]
        rng = album_rng(album["id"] + "/" + what)
        shot, quality = photo(cover(album), what, rng)
        path = os.path.join(HERE, "photos", f"{album['id']}--{what}.jpg")
        save_jpeg(shot, path, quality)
        total += os.path.getsize(path)
    print(f"wrote {len(albums)} covers and {len(PHOTO_SHOTS)} photos, {total / 1e6:.2f} MB in all")


if __name__ == "__main__":
    main()
