"""Plain HTTP clients of `vi-continue serve`'s port, as a browser, curl, a proxy or a load balancer
would call it: Connect (JSON and protobuf, POST and GET), gRPC-Web (binary and text), health,
metrics, CORS, the web shell's files and the catalog's images. Messages are checked with protobuf's
own classes (json_format for JSON).

Usage: web_client.py HOST:PORT [--http2]
Over HTTP/1.1 (http.client) by default; with --http2 every request goes through
`curl --http2-prior-knowledge` (HTTP/2 in clear, as gRPC), and a last step checks that every
answer came over HTTP/2.
Prints "PASS step" / "FAIL step: why" per step; exits 1 if any step failed.
"""

import base64
import http.client
import json
import os
import struct
import subprocess
import sys
import tempfile
import urllib.parse

import peer_steps
import stubs
from google.protobuf import json_format

((pb, _), (hpb, _)) = stubs.load("search.proto", "grpc/health/v1/health.proto")
SERVICE = "/vicontinue.v1.VisualSearch/"


def request(target, method, path, body=None, headers=None):
    host, port = target.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    result = (response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    connection.close()
    return result


# The HTTP versions curl answered with, one per request made with --http2.
curl_versions = []


def curl_request(target, method, path, body=None, headers=None):
    """The same request as `request`, made by curl over HTTP/2 with prior knowledge (no upgrade)."""
    with tempfile.TemporaryDirectory() as directory:
        head_file, body_file = os.path.join(directory, "head"), os.path.join(directory, "body")
        command = ["curl", "-s", "--http2-prior-knowledge", "--max-time", "10", "-X", method, "-D", head_file,
                   "-o", body_file, "-w", "%{http_version}"]
        for name, value in (headers or {}).items():
            command += ["-H", name + ": " + value]
        if body is not None:
            command += ["--data-binary", "@-"]
        data = body.encode() if isinstance(body, str) else body
        done = subprocess.run(command + ["http://" + target + path], input=data, capture_output=True, check=True)
        curl_versions.append(done.stdout.decode())
        with open(head_file, "rb") as head:
            lines = head.read().decode().split("\r\n")
        with open(body_file, "rb") as answer:
            payload = answer.read()
    status = int(lines[0].split(" ")[1])
    fields = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            fields[name.strip().lower()] = value.strip()
    return status, fields, payload


def main():
    target = sys.argv[1]
    http2 = "--http2" in sys.argv[2:]
    origin = "http://" + target
    global request
    if http2:
        request = curl_request

    def connect_json_query():
        body = json.dumps({"descriptor": {"labels": [{"text": "jazz"}], "source": "SOURCE_CAMERA"}, "limit": 3})
        status, headers, data = request(target, "POST", SERVICE + "Query", body,
                                        {"content-type": "application/json", "connect-protocol-version": "1"})
        assert status == 200 and headers["content-type"] == "application/json", (status, headers, data)
        response = json_format.Parse(data, pb.QueryResponse())
        assert 0 < len(response.results) <= 3 and response.results[0].title == "Jazz Essentials", response

    def connect_proto_capture_and_search():
        capture = pb.CaptureRequest(descriptor=pb.Descriptor(labels=[pb.Label(text="rock")]), page_size=2)
        status, headers, data = request(target, "POST", SERVICE + "Capture", capture.SerializeToString(),
                                        {"content-type": "application/proto"})
        assert status == 200 and headers["content-type"] == "application/proto", (status, data)
        state = pb.SearchState.FromString(data)
        assert state.session_id and state.next_page_token and state.facets, state
        page = pb.SearchRequest(session_id=state.session_id, page_token=state.next_page_token)
        status, _, data = request(target, "POST", SERVICE + "Search", json_format.MessageToJson(page),
                                  {"content-type": "application/json"})
        assert status == 200, data
        second = json_format.Parse(data, pb.SearchState())
        first = {(r.entity.type, r.entity.id) for r in state.results}
        assert second.results and not first & {(r.entity.type, r.entity.id) for r in second.results}

    def connect_get_resolve_is_cacheable():
        message = json.dumps({"url": "music://album/little-morning"})
        query = urllib.parse.urlencode({"connect": "v1", "encoding": "json", "message": message})
        status, headers, data = request(target, "GET", SERVICE + "Resolve?" + query)
        assert status == 200 and "max-age" in headers.get("cache-control", ""), (status, headers, data)
        destination = json_format.Parse(data, pb.Destination())
        assert destination.screen == "album" and destination.entity.id == "little-morning", destination
        binary = base64.urlsafe_b64encode(pb.QueryRequest(
            descriptor=pb.Descriptor(labels=[pb.Label(text="vienna")])).SerializeToString()).decode().rstrip("=")
        status, _, data = request(target, "GET", SERVICE + "Query?encoding=proto&base64=1&message=" + binary)
        assert status == 200 and pb.QueryResponse.FromString(data).results, data

    def connect_errors():
        status, headers, data = request(target, "POST", SERVICE + "Resolve", '{"url":"nope://x"}',
                                        {"content-type": "application/json"})
        error = json.loads(data)
        assert status == 403 and error["code"] == "permission_denied" and "nope" in error["message"], data
        status, _, data = request(target, "POST", SERVICE + "Query", '{"limit":"many"}',
                                  {"content-type": "application/json"})
        assert status == 400 and json.loads(data)["code"] == "invalid_argument" and "limit" in data.decode(), data
        status, _, _ = request(target, "POST", SERVICE + "Query", "{}", {"content-type": "text/plain"})
        assert status == 415, status
        status, _, _ = request(target, "GET", SERVICE + "Capture?encoding=json&message=%7B%7D")
        assert status == 405, status  # a capture writes a session: POST only
        status, _, data = request(target, "POST", SERVICE + "UpsertEntities", '{"entities":[]}',
                                  {"content-type": "application/json"})
        # This server has no write token: TCP writes are refused whatever the protocol.
        assert status == 403 and json.loads(data)["code"] == "permission_denied", data

    def grpc_web_binary_and_text():
        frame = lambda message: b"\x00" + struct.pack(">I", len(message)) + message
        request_bytes = frame(pb.QueryRequest(descriptor=pb.Descriptor(labels=[pb.Label(text="jazz")]), limit=1)
                              .SerializeToString())
        for content_type, encode, decode in (
            ("application/grpc-web+proto", lambda b: b, lambda b: b),
            ("application/grpc-web-text", base64.b64encode, base64.b64decode),
        ):
            status, headers, data = request(target, "POST", SERVICE + "Query", encode(request_bytes),
                                            {"content-type": content_type, "x-grpc-web": "1"})
            assert status == 200 and headers["content-type"].startswith(content_type.split("+")[0]), headers
            body = decode(data)
            flag, length = body[0], struct.unpack(">I", body[1:5])[0]
            assert flag == 0 and pb.QueryResponse.FromString(body[5:5 + length]).results, body
            trailer = body[5 + length:]
            assert trailer[0] == 0x80 and b"grpc-status:0" in trailer, trailer
        status, _, data = request(target, "POST", "/grpc.health.v1.Health/Check", frame(b"\x0a\x03nop"),
                                  {"content-type": "application/grpc-web+proto"})
        assert status == 200 and b"grpc-status:5" in data, data

    def health_and_metrics():
        status, _, data = request(target, "GET", "/healthz")
        assert status == 200 and data == b"ok\n", (status, data)
        status, headers, data = request(target, "GET", "/metrics")
        text = data.decode()
        assert status == 200 and headers["content-type"].startswith("text/plain; version=0.0.4"), headers
        assert 'vi_continue_calls_total{method="/vicontinue.v1.VisualSearch/Query",status="OK"}' in text, text
        assert "vi_continue_call_duration_seconds_bucket" in text and "vi_continue_catalog_entities 406" in text, text
        assert "vi_continue_connections " in text, text

    def cors_same_origin_by_default():
        preflight = {"origin": "https://elsewhere.example", "access-control-request-method": "POST",
                     "access-control-request-headers": "content-type"}
        status, _, _ = request(target, "OPTIONS", SERVICE + "Query", headers=preflight)
        assert status == 403, status
        preflight["origin"] = origin
        status, headers, _ = request(target, "OPTIONS", SERVICE + "Query", headers=preflight)
        assert status == 204 and headers["access-control-allow-origin"] == origin, headers
        status, _, _ = request(target, "POST", SERVICE + "Query", "{}",
                               {"content-type": "application/json", "origin": "https://elsewhere.example"})
        assert status == 403, status

    def shell_files_and_images():
        status, headers, data = request(target, "GET", "/")
        assert status == 200 and headers["content-type"].startswith("text/html") and b"data-testid" in data
        status, headers, _ = request(target, "GET", "/app.js")
        assert status == 200 and headers["content-type"].startswith("text/javascript"), headers
        status, headers, data = request(target, "GET", "/catalog-images/album/little-morning")
        assert status == 200 and headers["content-type"] == "image/jpeg" and data[:2] == b"\xff\xd8", headers
        status, _, _ = request(target, "GET", "/catalog-images/album/no-such-album")
        assert status == 404, status

    def smuggling_is_refused():
        status, headers, data = request(target, "POST", SERVICE + "Query", "0\r\n\r\n",
                                        {"content-length": "5", "transfer-encoding": "chunked"})
        assert status == 400 and headers.get("connection") == "close", (status, headers, data)

    def answers_came_over_http2():
        status, _, _ = request(target, "GET", "/healthz")
        assert status == 200 and curl_versions and set(curl_versions) == {"2"}, curl_versions

    failed = peer_steps.run((
        connect_json_query, connect_proto_capture_and_search, connect_get_resolve_is_cacheable, connect_errors,
        grpc_web_binary_and_text, health_and_metrics, cors_same_origin_by_default, shell_files_and_images,
        answers_came_over_http2 if http2 else smuggling_is_refused))
    sys.exit(1 if failed else 0)

if __name__ == "__main__":
    main()
