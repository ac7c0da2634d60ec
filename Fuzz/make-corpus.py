"""Writes the seed corpus of every fuzz target into Fuzz/Corpus/<target>/.

Run with the project's venv (grpcio-tools compiles the protos): .venv/bin/python Fuzz/make-corpus.py
The output is committed; rerun only when the protos, the examples or the targets change.
"""

import hashlib
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "Corpus")


def write(target, name, data):
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def compile_protos():
    out = tempfile.mkdtemp(prefix="fuzz-corpus-")
    protos = ["search.proto", "interop.proto", "grpc/health/v1/health.proto"]
    subprocess.check_call(
        [sys.executable, "-m", "grpc_tools.protoc", "-I", os.path.join(ROOT, "proto"), "--python_out", out] + protos)
    sys.path.insert(0, out)
    sys.path.insert(0, os.path.join(out, "grpc", "health", "v1"))
    import search_pb2, interop_pb2, health_pb2  # noqa: E402
    return search_pb2, interop_pb2, health_pb2


def requests(pb, ipb, hpb):
    """Real request messages by the selector index of RequestMessageTarget.messageTypes."""
    descriptor = pb.Descriptor(
        labels=[pb.Label(text="guitar", confidence=0.9), pb.Label(text="concert", confidence=0.4)],
        feature_print=pb.FeaturePrint(model="vi-continue.print.v1", values=[0.25, -0.5, 1.0, 0.0]),
        source=pb.SOURCE_CAMERA, locale="de-DE")
    pixels = pb.Descriptor(pixel_buffer=pb.PixelBuffer(
        width=2, height=2, bytes_per_row=8, format=pb.PIXEL_FORMAT_BGRA8, data=bytes(range(16))))
    expression = pb.FilterExpression(all=pb.FilterList(expressions=[
        pb.FilterExpression(filter=pb.AttributeFilter(attribute="city", any_of=pb.ValueSet(values=["Paris"]))),
        pb.FilterExpression(**{"not": pb.FilterExpression(
            filter=pb.AttributeFilter(attribute="year", range=pb.NumberRange(min=1990, max=2001.5)))}),
    ]))
    entity = pb.Entity(type="album", id="little-morning", title="Little Morning", subtitle="An album",
                       category="Music/Jazz", tags=["jazz"], attributes=[pb.Attribute(name="year", number_value=1999)])
    return {
        "query": (0, [pb.QueryRequest(descriptor=descriptor, limit=8, max_distance=0.5),
                      pb.QueryRequest(descriptor=pixels)]),
        "capture": (1, [pb.CaptureRequest(descriptor=descriptor, page_size=20)]),
        "search": (2, [pb.SearchRequest(session_id="s-1", query="live", disabled_labels=["concert"],
                                        entity_types=["album"], categories=["Music"], where=expression,
                                        sort=pb.Sort(key=pb.SORT_KEY_ATTRIBUTE, attribute="year", descending=True),
                                        page_size=10, page_token="p2")]),
        "resolve": (3, [pb.ResolveRequest(url="music://album/little-morning?tab=credits"),
                        pb.ResolveRequest(entity=pb.EntityRef(type="artist", id="the-velvet-echoes"))]),
        "link": (4, [pb.LinkRequest(entity=pb.EntityRef(type="album", id="little-morning")),
                     pb.LinkRequest(destination=pb.Destination(screen="album", params=[
                         pb.Param(name="id", string_value="little-morning")]))]),
        # The second: numbers at Double's ends, whose span passes Double's range.
        "upsert": (5, [pb.UpsertEntitiesRequest(entities=[entity]), pb.UpsertEntitiesRequest(entities=[
            pb.Entity(type="album", id="edge-%d" % i, title="Edge", tags=["jazz"],
                      attributes=[pb.Attribute(name="year", number_value=value)])
            for i, value in enumerate((-1.7e308, 1.7e308))])]),
        "delete": (6, [pb.DeleteEntitiesRequest(entities=[pb.EntityRef(type="album", id="little-morning")])]),
        "health": (7, [hpb.HealthCheckRequest(service="vicontinue.v1.VisualSearch")]),
        "simple": (8, [ipb.SimpleRequest(response_size=10, payload=ipb.Payload(body=b"abc"),
                                         response_compressed=ipb.BoolValue(value=True))]),
        "streaming": (9, [ipb.StreamingOutputCallRequest(
            response_parameters=[ipb.ResponseParameters(size=4, interval_us=0)], payload=ipb.Payload(body=b"x"))]),
    }


# HTTP/2 framing (RFC 9113) with HPACK literals without indexing and without Huffman coding.
def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def hpack_literal(name, value):
    def string(s):
        assert len(s) < 127
        return bytes([len(s)]) + s.encode()
    return b"\x00" + string(name) + string(value)


def request_frames(stream, path, message, extra_headers=(), end_stream=True):
    headers = [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "localhost"),
               ("content-type", "application/grpc"), ("te", "trailers")] + list(extra_headers)
    block = b"".join(hpack_literal(n, v) for n, v in headers)
    body = b"\x00" + struct.pack(">I", len(message)) + message
    return frame(0x1, 0x4, stream, block) + frame(0x0, 0x1 if end_stream else 0x0, stream, body)


SETTINGS = frame(0x4, 0, 0, struct.pack(">HI", 0x3, 100) + struct.pack(">HI", 0x4, 65535))
SETTINGS_ACK = frame(0x4, 0x1, 0)


def server_connection(reqs):
    paths = {"query": "Query", "capture": "Capture", "search": "Search", "resolve": "Resolve", "link": "Link",
             "upsert": "UpsertEntities", "delete": "DeleteEntities"}
    for key, method in paths.items():
        message = reqs[key][1][0].SerializeToString()
        write("server-connection", "unary-" + key,
              SETTINGS + request_frames(1, "/vicontinue.v1.VisualSearch/" + method, message))
    query = reqs["query"][1][0].SerializeToString()
    health = reqs["health"][1][0].SerializeToString()
    write("server-connection", "health-check", SETTINGS + request_frames(1, "/grpc.health.v1.Health/Check", health))
    write("server-connection", "health-watch", SETTINGS + request_frames(1, "/grpc.health.v1.Health/Watch", health))
    write("server-connection", "stream-query-two-streams",
          SETTINGS + SETTINGS_ACK + request_frames(1, "/vicontinue.v1.VisualSearch/StreamQuery", query)
          + request_frames(3, "/grpc.health.v1.Health/Check", health))
    write("server-connection", "timeout-and-metadata",
          SETTINGS + request_frames(1, "/vicontinue.v1.VisualSearch/Query", query,
                                    [("grpc-timeout", "100m"), ("x-trace-bin", "AAEC"), ("grpc-encoding", "identity")]))
    write("server-connection", "ping-window-rst",
          SETTINGS + frame(0x6, 0, 0, b"12345678") + frame(0x8, 0, 0, struct.pack(">I", 1 << 20))
          + request_frames(1, "/vicontinue.v1.VisualSearch/Query", query, end_stream=False)
          + frame(0x3, 0, 1, struct.pack(">I", 8)))
    # Extreme numbers, then a Capture that counts them into buckets (this once stopped the server).
    write("server-connection", "upsert-extreme-numbers-then-capture",
          SETTINGS + request_frames(1, "/vicontinue.v1.VisualSearch/UpsertEntities",
                                    reqs["upsert"][1][1].SerializeToString())
          + request_frames(3, "/vicontinue.v1.VisualSearch/Capture", reqs["capture"][1][0].SerializeToString()))
    write("server-connection", "unknown-method", SETTINGS + request_frames(1, "/no.Such/Method", b""))
    write("server-connection", "goaway", SETTINGS + frame(0x7, 0, 0, struct.pack(">II", 0, 0)))
    web_over_http2(reqs)


def web_request_frames(stream, method, path, headers=(), body=b""):
    """A non-gRPC request on an HTTP/2 stream (Connect, gRPC-Web, health, metrics, CORS)."""
    fields = [(":method", method), (":scheme", "http"), (":path", path), (":authority", "localhost")] + list(headers)
    block = b"".join(hpack_literal(n, v) for n, v in fields)
    if not body:
        return frame(0x1, 0x5, stream, block)
    return frame(0x1, 0x4, stream, block) + frame(0x0, 0x1, stream, body)


def web_over_http2(reqs):
    """The web protocols over HTTP/2, as browsers send them on the gRPC port."""
    query = reqs["query"][1][0].SerializeToString()
    framed = b"\x00" + struct.pack(">I", len(query)) + query
    json_query = b'{"descriptor":{"labels":[{"text":"jazz"}]},"limit":2}'
    path = "/vicontinue.v1.VisualSearch/Query"
    write("server-connection", "web-connect-json",
          SETTINGS + web_request_frames(1, "POST", path, [("content-type", "application/json")], json_query))
    write("server-connection", "web-connect-get",
          SETTINGS + web_request_frames(1, "GET", "/vicontinue.v1.VisualSearch/Resolve?encoding=json&message="
                                        "%7B%22url%22%3A%22music%3A%2F%2Falbum%2Flittle-morning%22%7D"))
    write("server-connection", "web-grpc-web-and-preflight",
          SETTINGS + web_request_frames(1, "POST", path, [("content-type", "application/grpc-web+proto")], framed)
          + web_request_frames(3, "OPTIONS", path, [("origin", "http://a"), ("access-control-request-method", "POST")]))
    write("server-connection", "web-healthz-metrics",
          SETTINGS + web_request_frames(1, "GET", "/healthz") + web_request_frames(3, "GET", "/metrics"))


def swift_unescape(literal):
    """The value of a Swift string literal's body: \\u{X}, \\t, \\n, \\r, \\0, \\\\ and \\"."""
    simple = {"t": "\t", "n": "\n", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}

    def replace(match):
        escape = match.group(1)
        if escape.startswith("u{"):
            return chr(int(escape[2:-1], 16))
        return simple.get(escape, escape)
    return re.sub(r"\\(u\{[0-9A-Fa-f]+\}|.)", replace, literal)


def url_parser():
    urls = set()
    tests = os.path.join(ROOT, "Tests", "RouterTests")
    for name in sorted(os.listdir(tests)):
        with open(os.path.join(tests, name), encoding="utf-8") as f:
            for literal in re.findall(r'"((?:[^"\\]|\\.)*)"', f.read()):
                if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", literal) and "\\(" not in literal:
                    urls.add(swift_unescape(literal).encode("utf-8", "surrogatepass"))
    for url in sorted(urls)[:120]:
        write("url-parser", hashlib.sha1(url).hexdigest()[:16], url)


def route_table():
    for path in ["Examples/routes.json", "Examples/demo/routes.json"]:
        with open(os.path.join(ROOT, path), "rb") as f:
            write("route-table", path.replace("/", "-"), f.read())
    write("route-table", "minimal",
          '{"version": 1, "schemes": ["app"], "routes": [{"name": "a", "pattern": "/a/{x}", "screen": "a"}]}')


def catalog_line():
    with open(os.path.join(ROOT, "Examples", "demo", "catalog.jsonl"), "rb") as f:
        lines = [line for line in f.read().split(b"\n") if line.strip()]
    for index in list(range(0, 6)) + list(range(6, len(lines), 40)):
        write("catalog-line", "demo-line-%03d" % index, lines[index] + b"\n")
    write("catalog-line", "print-and-localized",
          '{"type": "album", "id": "a-1", "title": "Blue Train", "feature_print": {"model": "m", "values": [0.5, 1]},'
          ' "localized": {"fr": {"title": "Train bleu"}}, "attributes": {"year": 1957, "label": "Blue Note"}}\n')


def leb128(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def log_string(text):
    data = text.encode("utf-8")
    return leb128(len(data)) + data


def log_entity(e):
    """An entity record of the catalog log's binary form (Sources/SearchSession/CatalogChange+Binary.swift)."""
    out = bytearray([1])
    for key in ["type", "id", "title", "subtitle", "category", "image", "thumbnail", "link"]:
        out += log_string(e.get(key, ""))
    tags = e.get("tags", [])
    out += leb128(len(tags)) + b"".join(log_string(t) for t in tags)
    attributes = sorted(e.get("attributes", {}).items())
    out += leb128(len(attributes))
    for name, value in attributes:
        out += log_string(name)
        out += (b"\x00" + log_string(value)) if isinstance(value, str) else (b"\x01" + struct.pack("<d", value))
    prints = e.get("prints", []) + ([e["feature_print"]] if "feature_print" in e else [])
    out += leb128(len(prints))
    for p in prints:
        out += log_string(p["model"]) + leb128(len(p["values"])) + b"".join(struct.pack("<f", v) for v in p["values"])
    related = e.get("related", [])
    out += leb128(len(related)) + b"".join(log_string(r["type"]) + log_string(r["id"]) for r in related)
    localized = sorted(e.get("localized", {}).items())
    out += leb128(len(localized))
    for locale, text in localized:
        out += log_string(locale) + log_string(text.get("title", "")) + log_string(text.get("subtitle", ""))
    return bytes(out)


def catalog_log_entry():
    import json
    with open(os.path.join(ROOT, "Examples", "demo", "catalog.jsonl"), "rb") as f:
        lines = [json.loads(line) for line in f.read().split(b"\n") if line.strip()]
    entities = [line for line in lines if "type" in line]  # not the synonym lines
    for start in range(0, 40, 8):
        batch = entities[start:start + 1 + start // 8]
        records = b"".join(leb128(len(r)) + r for r in map(log_entity, batch))
        write("catalog-log-entry", "upsert-%02d" % start, b"\x01u" + leb128(len(batch)) + records)
    refs = entities[:3]
    write("catalog-log-entry", "delete-3",
          b"\x01d" + leb128(len(refs)) + b"".join(log_string(e["type"]) + log_string(e["id"]) for e in refs))
    write("catalog-log-entry", "upsert-empty", b"\x01u\x00")
    # A log written before the binary form holds JSON (Swift's Codable form of the change).
    write("catalog-log-entry", "json-upsert",
          '{"upsert":{"_0":[{"type":"a","id":"1","title":"T","subtitle":"","category":"Music/Rock","tags":["x"],'
          '"attributes":{"n":{"number":{"_0":2}},"s":{"string":{"_0":"v"}}},"imageURL":"","thumbnailURL":"",'
          '"prints":[{"model":"m","values":[0.5,1]}],"related":[{"type":"b","id":"2"}],'
          '"localized":{"de":{"title":"T (de)","subtitle":""}},"link":"app://a/1"}]}}')
    write("catalog-log-entry", "json-delete", '{"delete":{"_0":[{"type":"a","id":"1"}]}}')


def http1_request():
    """Streams for HTTP1RequestTarget: the first byte picks the piece size, the rest is the stream."""
    streams = {
        "get": "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "connect-json": "POST /vicontinue.v1.VisualSearch/Query HTTP/1.1\r\nHost: a\r\n"
                        "Content-Type: application/json\r\nContent-Length: 34\r\n\r\n"
                        '{"descriptor":{"labels":[{"text":"jazz"}]}}'[:34],
        "chunked-trailers": "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                            "5;ext=1\r\nhello\r\n0\r\nX-T: y\r\n\r\n",
        "pipelined": "GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "smuggle-cl-te": "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "expect-continue": "PUT /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok",
        "grpc-web-text": "POST /vicontinue.v1.VisualSearch/Query HTTP/1.1\r\nHost: a\r\n"
                         "Content-Type: application/grpc-web-text\r\nContent-Length: 8\r\n\r\nAAAAAAA=",
    }
    for name, text in streams.items():
        for piece in (0, 7):
            write("http1-request", "%s-%d" % (name, piece), bytes([piece]) + text.encode())


def web_connection(pb):
    """HTTP/1.1 requests to the real service, as browsers and curl send them."""
    query = pb.QueryRequest(descriptor=pb.Descriptor(labels=[pb.Label(text="jazz")]), limit=2).SerializeToString()
    framed = b"\x00" + struct.pack(">I", len(query)) + query
    json_query = b'{"descriptor":{"labels":[{"text":"jazz"}]},"limit":2}'
    requests = {
        "healthz": b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n",
        "connect-json": b"POST /vicontinue.v1.VisualSearch/Query HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
                        b"Content-Length: %d\r\n\r\n%s" % (len(json_query), json_query),
        "connect-get": b"GET /vicontinue.v1.VisualSearch/Resolve?encoding=json&message=%7B%22url%22%3A%22music%3A%2F%2F"
                       b"album%2Flittle-morning%22%7D HTTP/1.1\r\nHost: a\r\n\r\n",
        "grpc-web": b"POST /vicontinue.v1.VisualSearch/Query HTTP/1.1\r\nHost: a\r\n"
                    b"Content-Type: application/grpc-web+proto\r\nContent-Length: %d\r\n\r\n%s" % (len(framed), framed),
        "capture-chunked": b"POST /vicontinue.v1.VisualSearch/Capture HTTP/1.1\r\nHost: a\r\nContent-Type: application/json"
                           b"\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(json_query), json_query),
        "pipelined-preflight": b"OPTIONS /vicontinue.v1.VisualSearch/Query HTTP/1.1\r\nHost: a\r\nOrigin: http://a\r\n"
                               b"Access-Control-Request-Method: POST\r\n\r\nGET /metrics HTTP/1.1\r\nHost: a\r\n\r\n",
    }
    for name, data in requests.items():
        write("web-connection", name, data)


def main():
    pb, ipb, hpb = compile_protos()
    web_connection(pb)
    reqs = requests(pb, ipb, hpb)
    for key, (selector, messages) in reqs.items():
        for index, message in enumerate(messages):
            write("request-message", "%s-%d" % (key, index), bytes([selector]) + message.SerializeToString())
    server_connection(reqs)
    url_parser()
    route_table()
    catalog_line()
    catalog_log_entry()
    http1_request()


if __name__ == "__main__":
    main()
