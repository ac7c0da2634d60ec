#!/usr/bin/env python3
"""Writes the deterministic demo catalog of the music app: Examples/demo/catalog.jsonl.

Types album, artist, concert, track and playlist; slug ids for albums and artists, numbers for
concerts and tracks, UUIDs for playlists; categories two levels deep
(Music/Rock, Concerts/Jazz); attributes year, price, city and date; related links
album → artist → albums and concerts, track → album, playlist → tracks; English and German
display text; every album has a cover image file (drawn by gen-images.py). Run again and the output is byte-for-byte the same (fixed seed, sorted keys).

    Examples/demo/gen-catalog.py [--out Examples/demo/catalog.jsonl]
"""
import argparse
import json
import os
import random
import uuid

GENRES = {
    "Rock": ("Rock", ["guitar", "band", "live"]),
    "Jazz": ("Jazz", ["saxophone", "trumpet", "swing"]),
    "Pop": ("Pop", ["vocals", "dance", "hits"]),
    "Electronic": ("Elektronik", ["synth", "techno", "club"]),
    "Classical": ("Klassik", ["orchestra", "piano", "symphony"]),
    "Hip-Hop": ("Hip-Hop", ["rap", "beats", "turntables"]),
}
CITIES = [("Berlin", "Berlin"), ("Hamburg", "Hamburg"), ("Munich", "München"), ("Vienna", "Wien"),
          ("London", "London"), ("Paris", "Paris"), ("Cologne", "Köln"), ("Zurich", "Zürich")]
FIRST = ["Silver", "Midnight", "Electric", "Golden", "Velvet", "Crimson", "Northern", "Quiet", "Wild",
         "Blue", "Neon", "Paper", "Iron", "Glass", "Solar", "Lunar", "Hollow", "Bright", "Distant", "Crystal"]
SECOND = ["Foxes", "Rivers", "Engines", "Pilots", "Harbours", "Gardens", "Satellites", "Lanterns",
          "Wolves", "Echoes", "Tides", "Sparrows", "Machines", "Orchards", "Comets"]
WORDS = ["Road", "Light", "Summer", "Heart", "City", "Dreams", "Ocean", "Fire", "Shadows", "Morning",
         "Stories", "Horizon", "Garden", "Winter", "Signals", "Waves", "Mountain", "Letters", "Voices", "Rain"]
ADJ = ["Long", "Lost", "Open", "Last", "Second", "Slow", "Late", "Hidden", "Endless", "Broken", "Little"]
DE = {"Road": "Straße", "Light": "Licht", "Summer": "Sommer", "Heart": "Herz", "City": "Stadt",
      "Dreams": "Träume", "Ocean": "Ozean", "Fire": "Feuer", "Shadows": "Schatten", "Morning": "Morgen",
      "Stories": "Geschichten", "Horizon": "Horizont", "Garden": "Garten", "Winter": "Winter",
      "Signals": "Signale", "Waves": "Wellen", "Mountain": "Berg", "Letters": "Briefe", "Voices": "Stimmen",
      "Rain": "Regen"}


PLAYLIST_NAMESPACE = uuid.UUID("6f1c1a52-4a8e-4b8e-9d6a-2f0c6e1d7b3a")


def slug(text):
    out = []
    for ch in text.lower():
        out.append(ch if ch.isascii() and ch.isalnum() else "-")
    return "-".join(p for p in "".join(out).split("-") if p)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "catalog.jsonl"))
    args = parser.parse_args()
    rng = random.Random(20261130)
    lines = [
        {"synonyms": ["guitar", "axe", "gitarre"]},
        {"synonyms": ["concert", "gig", "konzert", "show"]},
        {"synonyms": ["album", "record", "lp"]},
        {"synonyms": ["orchestra", "orchester"]},
    ]
    artists, albums, concerts, tracks = [], [], [], []
    names = set()
    while len(artists) < 60:
        name = f"The {rng.choice(FIRST)} {rng.choice(SECOND)}"
        if name in names:
            continue
        names.add(name)
        genre = rng.choice(sorted(GENRES))
        city = rng.choice(CITIES)
        artists.append({"id": slug(name), "name": name, "genre": genre, "city": city, "albums": [], "concerts": []})
    titles = set()
    for artist in artists:
        for _ in range(rng.randint(1, 3)):
            while True:
                word = rng.choice(WORDS)
                adj = rng.choice(ADJ)
                title = f"{adj} {word}"
                if title not in titles:
                    titles.add(title)
                    break
            album = {"id": slug(title), "title": title, "word": word, "adj": adj, "artist": artist,
                     "year": rng.randint(1965, 2025), "price": round(rng.uniform(7, 35), 2), "tracks": []}
            artist["albums"].append(album)
            albums.append(album)
    for i in range(110):
        artist = rng.choice(artists)
        city = rng.choice(CITIES)
        year = rng.choice([2025, 2026, 2026, 2027])
        date = f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        key = f"{artist['id']}-{slug(city[0])}-{date}"
        if any(c["key"] == key for c in concerts):
            continue
        # Concerts have numeric ids and playlists UUIDs, as a ticketing system and a playlist
        # service would hand them out; the route table types them accordingly.
        concert = {"id": str(1001 + len(concerts)), "key": key, "artist": artist, "city": city, "date": date,
                   "price": float(rng.choice([25, 35, 45, 59, 79, 99]))}
        artist["concerts"].append(concert)
        concerts.append(concert)
    for album in albums[:50]:
        for n in range(2):
            word = rng.choice(WORDS)
            title = f"{word} {('No. ' + str(n + 1)) if n else 'Song'}"
            track = {"id": str(5001 + len(tracks)), "title": title, "album": album,
                     "year": album["year"], "length": rng.randint(120, 420)}
            album["tracks"].append(track)
            tracks.append(track)

    def ref(kind, item):
        return {"type": kind, "id": item["id"]}

    entities = []
    for artist in artists:
        genre = artist["genre"]
        entities.append({
            "type": "artist", "id": artist["id"], "title": artist["name"],
            "subtitle": f"{genre} band from {artist['city'][0]}",
            "category": f"Music/{genre}", "tags": [genre.lower(), "band"] + GENRES[genre][1][:1],
            "attributes": {"city": artist["city"][0]},
            "image": f"https://img.example/artists/{artist['id']}.jpg",
            "thumbnail": f"https://img.example/artists/{artist['id']}_t.jpg",
            "related": [ref("album", a) for a in artist["albums"]] + [ref("concert", c) for c in artist["concerts"]],
            "localized": {"de": {"title": artist["name"],
                                 "subtitle": f"{GENRES[genre][0]}-Band aus {artist['city'][1]}"}},
            "link": f"music://artist/{artist['id']}",
        })
    for album in albums:
        artist = album["artist"]
        genre = artist["genre"]
        de_title = f"{album['title']} ({DE[album['word']]})"
        entities.append({
            "type": "album", "id": album["id"], "title": album["title"],
            "subtitle": f"{artist['name']} · {album['year']}",
            "category": f"Music/{genre}", "tags": [genre.lower(), "album"] + rng.sample(GENRES[genre][1], 2),
            "attributes": {"year": album["year"], "price": album["price"]},
            "image": f"https://img.example/albums/{album['id']}.jpg",
            "thumbnail": f"https://img.example/albums/{album['id']}_t.jpg",
            # The cover drawn by gen-images.py; the built-in print is computed from it at load.
            "image_file": f"images/albums/{album['id']}.jpg",
            "related": [ref("artist", artist)] + [ref("track", t) for t in album["tracks"]],
            "localized": {"de": {"title": de_title, "subtitle": f"{artist['name']} · {album['year']}"}},
            "link": f"music://album/{album['id']}",
        })
    for concert in concerts:
        artist = concert["artist"]
        genre = artist["genre"]
        entities.append({
            "type": "concert", "id": concert["id"], "title": f"{artist['name']} live in {concert['city'][0]}",
            "subtitle": f"{concert['date']} · {concert['city'][0]}",
            "category": f"Concerts/{genre}", "tags": ["concert", "live", genre.lower()],
            "attributes": {"city": concert["city"][0], "date": concert["date"], "price": concert["price"]},
            "image": f"https://img.example/concerts/{concert['id']}.jpg",
            "thumbnail": f"https://img.example/concerts/{concert['id']}_t.jpg",
            "related": [ref("artist", artist)],
            "localized": {"de": {"title": f"{artist['name']} live in {concert['city'][1]}",
                                 "subtitle": f"{concert['date']} · {concert['city'][1]}"}},
            "link": f"music://concert/{concert['id']}",
        })
    for track in tracks:
        album = track["album"]
        genre = album["artist"]["genre"]
        entities.append({
            "type": "track", "id": track["id"], "title": track["title"],
            "subtitle": f"{album['artist']['name']} — {album['title']}",
            "category": f"Music/{genre}", "tags": [genre.lower(), "track"],
            "attributes": {"year": track["year"], "length": track["length"]},
            "related": [ref("album", album)],
            "localized": {"de": {"title": track["title"],
                                 "subtitle": f"{album['artist']['name']} — {album['title']}"}},
            "link": f"music://track/{track['id']}",
        })
    for genre in sorted(GENRES):
        picks = [t for t in tracks if t["album"]["artist"]["genre"] == genre][:8]
        for mood, mood_de in [("Essentials", "Grundlagen"), ("Deep Cuts", "Raritäten"), ("Live Favourites", "Live-Favoriten")]:
            pid = str(uuid.uuid5(PLAYLIST_NAMESPACE, slug(f"{genre} {mood}")))
            entities.append({
                "type": "playlist", "id": pid, "title": f"{genre} {mood}",
                "subtitle": f"{len(picks)} tracks, hand-picked",
                "category": f"Music/{genre}", "tags": [genre.lower(), "playlist"],
                "attributes": {"tracks": len(picks)},
                "related": [ref("track", t) for t in picks],
                "localized": {"de": {"title": f"{GENRES[genre][0]}: {mood_de}",
                                     "subtitle": f"{len(picks)} Titel, handverlesen"}},
                "link": f"music://playlist/{pid}",
            })
    with open(args.out, "w", encoding="utf-8") as f:
        for line in lines + entities:
            f.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
    counts = {}
    for e in entities:
        counts[e["type"]] = counts.get(e["type"], 0) + 1
    print(f"wrote {len(entities)} entities {dict(sorted(counts.items()))} to {args.out}")


if __name__ == "__main__":
    main()
