"""grpcio's reflection clients against a server: what grpcurl and friends do first.

Usage: reflection_client.py TARGET
Prints one line per check ("PASS name" / "FAIL name: why") and exits 1 if any failed.

v1alpha goes through grpcio-reflection's own ProtoReflectionDescriptorDatabase; v1 (which
grpcio-reflection has no client for) through stubs generated from proto/grpc/reflection/v1.
Either way every method's input and output type, and every message type they reach, must
resolve in a DescriptorPool built from nothing but the server's answers.
"""

import json
import sys
import traceback
import urllib.error
import urllib.request

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

import stubs

((reflection_v1, reflection_v1_grpc),) = stubs.load("grpc/reflection/v1/reflection.proto")

SERVED = {
    "vicontinue.v1.VisualSearch",
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
}
VISUAL_SEARCH_METHODS = {
    "Query", "StreamQuery", "Capture", "Search", "Resolve", "Link", "UpsertEntities", "DeleteEntities",
    "CatalogInfo", "ExplainRoute", "CheckRoutes",
}


def check(condition, why):
    if not condition:
        raise AssertionError(why)


def resolve_every_type(pool, services):
    """Finds each service in `pool`, and each message type its methods reach; returns the count."""
    seen = set()

    def visit(message):
        if message.full_name in seen:
            return
        seen.add(message.full_name)
        check(pool.FindMessageTypeByName(message.full_name) is message, f"{message.full_name} not in the pool")
        for field in message.fields:
            if field.message_type is not None:
                visit(field.message_type)
            if field.enum_type is not None:
                pool.FindEnumTypeByName(field.enum_type.full_name)

    for name in services:
        service = pool.FindServiceByName(name)
        check(service.methods, f"{name} has no methods")
        for method in service.methods:
            visit(method.input_type)
            visit(method.output_type)
    return len(seen)


def v1alpha_lists_services(channel):
    database = ProtoReflectionDescriptorDatabase(channel)
    services = set(database.get_services())
    check(services == SERVED, f"listed {sorted(services)}")


def v1alpha_resolves_every_type(channel):
    database = ProtoReflectionDescriptorDatabase(channel)
    pool = descriptor_pool.DescriptorPool(database)
    methods = {method.name for method in pool.FindServiceByName("vicontinue.v1.VisualSearch").methods}
    check(methods == VISUAL_SEARCH_METHODS, f"VisualSearch methods: {sorted(methods)}")
    count = resolve_every_type(pool, sorted(SERVED))
    check(count > 20, f"only {count} message types reached")


def v1_answers_a_stream_of_questions(channel):
    stub = reflection_v1_grpc.ServerReflectionStub(channel)
    requests = [
        reflection_v1.ServerReflectionRequest(list_services="*"),
        reflection_v1.ServerReflectionRequest(file_containing_symbol="vicontinue.v1.VisualSearch"),
        reflection_v1.ServerReflectionRequest(file_containing_symbol="grpc.health.v1.Health"),
        reflection_v1.ServerReflectionRequest(file_containing_symbol="no.such.Symbol"),
    ]
    responses = list(stub.ServerReflectionInfo(iter(requests)))
    check(len(responses) == len(requests), f"{len(responses)} answers to {len(requests)} questions")
    listed = {service.name for service in responses[0].list_services_response.service}
    check(listed == SERVED, f"listed {sorted(listed)}")
    pool = descriptor_pool.DescriptorPool()
    for response in responses[1:3]:
        check(response.HasField("file_descriptor_response"), f"no files: {response}")
        # Imports come first, and a file goes out once per stream: add them as they come.
        for serialized in response.file_descriptor_response.file_descriptor_proto:
            pool.Add(descriptor_pb2.FileDescriptorProto.FromString(serialized))
    resolve_every_type(pool, ["vicontinue.v1.VisualSearch", "grpc.health.v1.Health"])
    missing = responses[3]
    check(missing.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0], f"unknown symbol: {missing}")


def streams_are_refused_over_http1(channel, target):
    """Connect unary and gRPC-Web over HTTP/1.1 carry one request: a stream of them is UNIMPLEMENTED."""
    url = f"http://{target}/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
    connect = urllib.request.Request(url, data=b'{"listServices": "*"}', headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(connect, timeout=10)
        raise AssertionError("Connect: answered OK")
    except urllib.error.HTTPError as error:
        body = json.loads(error.read())
        check(body.get("code") == "unimplemented", f"Connect: {error.code} {body}")
    message = reflection_v1.ServerReflectionRequest(list_services="*").SerializeToString()
    frame = b"\0" + len(message).to_bytes(4, "big") + message
    grpc_web = urllib.request.Request(url, data=frame, headers={"Content-Type": "application/grpc-web+proto"})
    with urllib.request.urlopen(grpc_web, timeout=10) as response:
        body = response.read()
    check(b"grpc-status:12" in body, f"gRPC-Web: {body!r}")


CHECKS = [
    v1alpha_lists_services,
    v1alpha_resolves_every_type,
    v1_answers_a_stream_of_questions,
    streams_are_refused_over_http1,
]


def main():
    target = sys.argv[1]
    failed = 0
    with grpc.insecure_channel(target) as channel:
        grpc.channel_ready_future(channel).result(timeout=10)
        for check_case in CHECKS:
            try:
                if check_case is streams_are_refused_over_http1:
                    check_case(channel, target)
                else:
                    check_case(channel)
                print(f"PASS {check_case.__name__}", flush=True)
            except Exception as error:  # report every check, never stop at the first failure
                failed += 1
                detail = "".join(traceback.format_exception_only(type(error), error)).strip()
                print(f"FAIL {check_case.__name__}: {detail}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
