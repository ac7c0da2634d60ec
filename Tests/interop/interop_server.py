"""A grpcio server of the interop test service, for our Swift client to talk to.

Usage: interop_server.py [PORT]   Prints "listening PORT" once it serves; stops on SIGTERM or stdin EOF.
"""

import signal
import sys
import threading
import time
from concurrent import futures

import grpc

import stubs

((pb, pb_grpc),) = stubs.load("interop.proto")


def echo_metadata(context):
    metadata = dict(context.invocation_metadata())
    if "x-grpc-test-echo-initial" in metadata:
        context.send_initial_metadata([("x-grpc-test-echo-initial", metadata["x-grpc-test-echo-initial"])])
    if "x-grpc-test-echo-trailing-bin" in metadata:
        context.set_trailing_metadata([("x-grpc-test-echo-trailing-bin", metadata["x-grpc-test-echo-trailing-bin"])])


def compression_of(flag):
    return grpc.Compression.Gzip if flag.value else grpc.Compression.NoCompression


class InteropTest(pb_grpc.InteropTestServicer):
    def EmptyCall(self, request, context):
        return pb.Empty()

    def UnaryCall(self, request, context):
        echo_metadata(context)
        if request.sleep_ms:
            time.sleep(request.sleep_ms / 1000)
        if request.response_status.code:
            context.abort(grpc.StatusCode(_code(request.response_status.code)), request.response_status.message)
        if request.HasField("response_compressed"):
            context.set_compression(compression_of(request.response_compressed))
        return pb.SimpleResponse(payload=pb.Payload(body=b"\0" * request.response_size))

    def StreamingOutputCall(self, request, context):
        echo_metadata(context)
        for parameters in request.response_parameters:
            if parameters.interval_us:
                time.sleep(parameters.interval_us / 1e6)
            if not context.is_active():
                return
            yield pb.StreamingOutputCallResponse(payload=pb.Payload(body=b"\0" * parameters.size))
        if request.response_status.code:
            context.abort(grpc.StatusCode(_code(request.response_status.code)), request.response_status.message)

    def StreamingInputCall(self, request_iterator, context):
        size = sum(len(request.payload.body) for request in request_iterator)
        return pb.StreamingInputCallResponse(aggregated_payload_size=size)

    def FullDuplexCall(self, request_iterator, context):
        echo_metadata(context)
        for request in request_iterator:
            for parameters in request.response_parameters:
                if parameters.interval_us:
                    time.sleep(parameters.interval_us / 1e6)
                if not context.is_active():
                    return
                yield pb.StreamingOutputCallResponse(payload=pb.Payload(body=b"\0" * parameters.size))
            if request.response_status.code:
                context.abort(grpc.StatusCode(_code(request.response_status.code)), request.response_status.message)


def _code(number):
    for code in grpc.StatusCode:
        if code.value[0] == number:
            return code.value
    return grpc.StatusCode.UNKNOWN.value


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=32),
        options=[("grpc.max_receive_message_length", 8 << 20)],
    )
    pb_grpc.add_InteropTestServicer_to_server(InteropTest(), server)
    port = server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    print(f"listening {port}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    stop.wait()
    server.stop(grace=1).wait()


if __name__ == "__main__":
    main()
