#!/usr/bin/env python3
"""Writes Tests/SearchAPITests/Golden/proto-json.jsonl: messages built with protobuf's Python
implementation, each with its binary form and the JSON protobuf's own printer (json_format) makes
of it, so the Swift JSON mapping is checked against the reference in both directions.

Usage: scripts/proto-json-goldens.py OUT_FILE   (scripts/generate-proto runs it)

Each line: {"type": full proto name, "binary": hex of the wire bytes, "json": the reference JSON,
compact}. The JSON is json_format.MessageToDict re-serialized without spaces and with UTF-8 kept
as UTF-8, which is what the Swift writer produces.
"""

import json
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "interop"))

import stubs  # noqa: E402
from google.protobuf import json_format  # noqa: E402

(search, _), (interop, _), (health, _) = stubs.load(
    "search.proto", "interop.proto", "grpc/health/v1/health.proto")


def messages():
    """Every message shape the mapping has to get right, with edge values."""
    q = search.QueryRequest(limit=5, max_distance=0.0)  # a set optional at its default is written
    d = q.descriptor
    d.labels.add(text='guitar "live"\\ \n\t\x01 Gitarre ü 🎸', confidence=0.1)
    d.labels.add(text="b", confidence=1e8)
    d.labels.add(text="c", confidence=1e-7)
    d.labels.add(text="d", confidence=3)
    d.labels.add(text="e", confidence=float("inf"))
    d.labels.add(text="f", confidence=-0.0001)
    d.pixel_buffer.width = 2
    d.pixel_buffer.height = 1
    d.pixel_buffer.bytes_per_row = 8
    d.pixel_buffer.format = search.PIXEL_FORMAT_BGRA8
    d.pixel_buffer.data = bytes(range(250, 256)) + b"\x00\xff"
    d.feature_print.model = "vi-print-1"
    d.feature_print.values.extend([0.25, -1.5, 123456789.0, 3.4e38, 1.17549435e-38, 0.0])
    d.source = search.SOURCE_SCREENSHOT
    d.locale = "de-DE"
    yield q
    yield search.QueryRequest()  # every field at its default: {}
    yield search.QueryRequest(descriptor=search.Descriptor())  # a set empty message: {"descriptor":{}}
    unknown = search.QueryRequest()
    unknown.descriptor.source = 7  # a number this version does not know is written as a number
    yield unknown

    for length in (0, 1, 2, 3, 4, 5):  # base64 with 0, 2 and 1 padding characters
        yield search.PixelBuffer(data=bytes(range(length)))

    s = search.SearchRequest(session_id="s1", query="red boots", page_size=20, page_token="t")
    s.disabled_labels.append("red")
    s.entity_types.extend(["album", "artist"])
    f = s.filters.add(attribute="year")
    f.range.min = 1990
    f.range.max = 1999.5
    s.where.all.expressions.add().filter.attribute = "city"
    s.where.all.expressions[0].filter.any_of.values.extend(["Köln", ""])
    negated = getattr(s.where.all.expressions.add(), "not")  # `not` is a Python keyword
    negated.filter.attribute = "price"
    negated.filter.range.min = 0
    s.sort.key = search.SORT_KEY_ATTRIBUTE
    s.sort.attribute = "year"
    s.sort.descending = True
    yield s

    state = search.SearchState(
        session_id="abc", query_text="jazz", next_page_token="p2", total_hits=2**60 + 1,
        expires_at_unix_ms=-1, source=search.SOURCE_CAMERA, locale="en-US")
    state.chips.add(text="jazz", selected=True, confidence=0.9)
    facet = state.facets.add(name="type", kind=search.FACET_KIND_TYPE, more_values=3)
    facet.values.add(value="album", count=12, selected=True)
    facet.values.add(value="track", count=2**53 + 1)
    applied = state.applied_filters.add(label="year 1990–1999")
    applied.filter.attribute = "year"
    applied.filter.range.min = 1990
    result = state.results.add(
        title="Lost Road", subtitle="Live", deep_link="demo://album/42", score=0.75,
        match=search.MATCH_KIND_TEXT_AND_IMAGE, distance=0.0, category="Music/Jazz")
    result.entity.type = "album"
    result.entity.id = "42"
    result.matched_terms.extend(["lost", "road"])
    result.related_to.type = "artist"
    result.related_to.id = "7"
    state.relaxations.add(kind=1, subject="vienna", explanation="dropped")
    state.sort.key = search.SORT_KEY_TITLE
    state.browse_categories.add(value="Music", count=40)
    yield state

    yield search.ResolveRequest(url="demo://album/42?tab=tracks")
    resolve = search.ResolveRequest()
    resolve.entity.type = "album"
    resolve.entity.id = "42"
    yield resolve

    destination = search.Destination(
        screen="AlbumScreen", canonical_url="https://example.test/album/42", fallback=False, route="album")
    destination.params.add(name="id", kind=search.PARAM_KIND_INT, int_value=-(2**63))
    destination.params.add(name="tab", kind=search.PARAM_KIND_STRING, string_value="", from_query=True)
    destination.params.add(name="zero", kind=search.PARAM_KIND_INT, int_value=0)
    destination.entity.type = "album"
    destination.entity.id = "42"
    yield destination

    upsert = search.UpsertEntitiesRequest()
    entity = upsert.entities.add(
        type="album", id="42", title="Lost Road", category="Music/Jazz", link="demo://album/42")
    entity.tags.extend(["vinyl", "live"])
    entity.attributes.add(name="year", number_value=1999)
    entity.attributes.add(name="price", number_value=12.5)
    entity.attributes.add(name="tiny", number_value=1e-300)
    entity.attributes.add(name="huge", number_value=1.7976931348623157e308)
    entity.attributes.add(name="city", string_value="Wien")
    entity.prints.add(model="vi-print-1", values=[0.5])
    entity.related.add(type="artist", id="7")
    entity.localized.add(locale="de", title="Verlorene Straße")
    yield upsert

    yield search.CatalogUpdateResponse(applied=3, catalog_version=18446744073709551615)
    yield search.CheckRoutesRequest()
    yield health.HealthCheckResponse(status=health.HealthCheckResponse.SERVING)
    yield interop.SimpleRequest(
        response_size=314159, payload=interop.Payload(body=b"\x00\x01\xfe\xff"),
        response_compressed=interop.BoolValue(value=False), response_status=interop.EchoStatus(code=-3))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    lines = []
    for message in messages():
        reference = json_format.MessageToDict(message)
        lines.append(json.dumps({
            "type": message.DESCRIPTOR.full_name,
            "binary": message.SerializeToString(deterministic=True).hex(),
            "json": json.dumps(reference, separators=(",", ":"), ensure_ascii=False),
        }, ensure_ascii=False))
    os.makedirs(os.path.dirname(argv[1]), exist_ok=True)
    with open(argv[1], "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
