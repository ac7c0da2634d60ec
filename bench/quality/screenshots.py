#!/usr/bin/env python3
"""Screenshots of each split's catalog pictures and held-out pictures, shown inside UI.

A screenshot shows its content pixel-exact, on a part of the screen, with UI around it. Per split,
every catalog picture is drawn into three screens, and every held-out picture (never in a catalog)
into the first of them:

    window   2560 × 1600: an app window, title bar and sidebar of text, the picture fitted into
             760 × 760 with a caption below (14–23 % of the screen)
    desktop  1920 × 1080: a plain desktop, the picture fitted into 560 × 560 in the middle (10–15 %)
    list     1280 × 800: a list screen, the picture as a 280-pixel-high thumbnail at the left beside
             rows of text (8–14 %)

Writes OUT/<split>/screenshots/*.png and OUT/<split>/screenshots.json:
{"queries": [{"file", "answer", "screen"}], "heldout": [{"file", "screen"}]}.

    screenshots.py [--out DIR]
"""
import argparse
import json
import os

from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SPLITS = ["tune", "test"]


def fitted(picture, box_w, box_h):
    scale = min(box_w / picture.width, box_h / picture.height)
    return picture.resize((max(1, round(picture.width * scale)), max(1, round(picture.height * scale))), Image.LANCZOS)


def text_lines(draw, x, y, width, lines, height):
    """Rows of 'text': dark bars of varying length, as a caption or a list shows."""
    for line in range(lines):
        length = width * (60 + (line * 37) % 40) // 100
        draw.rectangle([x, y + line * height * 2, x + length, y + line * height * 2 + height - 1], fill=(60, 60, 66))


def window(picture):
    screen = Image.new("RGB", (2560, 1600), (236, 236, 238))
    draw = ImageDraw.Draw(screen)
    draw.rectangle([0, 0, 2559, 55], fill=(52, 54, 60))
    draw.rectangle([0, 56, 419, 1599], fill=(222, 224, 228))
    text_lines(draw, 40, 120, 320, 20, 18)
    shown = fitted(picture, 760, 760)
    screen.paste(shown, (620, 200))
    text_lines(draw, 620, 200 + shown.height + 60, 1400, 8, 22)
    return screen


def desktop(picture):
    screen = Image.new("RGB", (1920, 1080), (38, 42, 50))
    shown = fitted(picture, 560, 560)
    screen.paste(shown, ((1920 - shown.width) // 2, (1080 - shown.height) // 2))
    return screen


def list_screen(picture):
    screen = Image.new("RGB", (1280, 800), (250, 250, 250))
    draw = ImageDraw.Draw(screen)
    draw.rectangle([0, 0, 1279, 63], fill=(30, 110, 220))
    shown = fitted(picture, 420, 280)
    screen.paste(shown, (60, 140))
    for row in range(3):
        text_lines(draw, 560, 140 + row * 200, 600, 3, 18)
    return screen


SCREENS = {"window": window, "desktop": desktop, "list": list_screen}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "quality", "images"))
    args = parser.parse_args()
    for split in SPLITS:
        manifest = json.load(open(os.path.join(args.out, split, "manifest.json")))
        folder = os.path.join(args.out, split, "screenshots")
        os.makedirs(folder, exist_ok=True)
        queries, heldout = [], []
        for answer, path in enumerate(manifest["gallery"]):
            picture = Image.open(path).convert("RGB")
            for name, draw in SCREENS.items():
                file = os.path.join(folder, f"{name}--{answer:03d}.png")
                draw(picture).save(file)
                queries.append({"file": file, "answer": answer, "screen": name})
        for k, item in enumerate(manifest["heldout"]):
            if item.get("variant", "camera") != "camera":
                continue
            file = os.path.join(folder, f"heldout-window--{k:03d}.png")
            window(Image.open(item["file"]).convert("RGB")).save(file)
            heldout.append({"file": file, "screen": "window"})
        with open(os.path.join(args.out, split, "screenshots.json"), "w") as f:
            json.dump({"queries": queries, "heldout": heldout}, f, indent=1)
        print(f"  {split}: {len(queries)} screenshots of catalog pictures, {len(heldout)} of held-out pictures")


if __name__ == "__main__":
    main()
