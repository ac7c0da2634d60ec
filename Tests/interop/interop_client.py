"""The gRPC interop cases of the four call shapes, run by grpcio.

Usage: interop_client.py TARGET [CASE ...]   (TARGET: host:port or unix:/path)
Prints one line per case ("PASS name" / "FAIL name: why") and exits 1 if any failed.
"""

import concurrent.futures
import sys
import time
import traceback

import grpc

import stubs

((pb, pb_grpc),) = stubs.load("interop.proto")

LARGE_REQUEST = 271828
LARGE_RESPONSE = 314159


def check(condition, why):
    if not condition:
        raise AssertionError(why)


def expect_status(call, code, message=None):
    try:
        call()
    except grpc.RpcError as error:
        check(error.code() == code, f"expected {code}, got {error.code()}: {error.details()!r}")
        if message is not None:
            check(error.details() == message, f"expected message {message!r}, got {error.details()!r}")
        return error
    raise AssertionError(f"expected {code}, got OK")


def empty_unary(stub, channel):
    response = stub.EmptyCall(pb.Empty())
    check(response == pb.Empty(), "response is not empty")


def large_unary(stub, channel):
    request = pb.SimpleRequest(response_size=LARGE_RESPONSE, payload=pb.Payload(body=b"\0" * LARGE_REQUEST))
    response = stub.UnaryCall(request)
    check(response.payload.body == b"\0" * LARGE_RESPONSE, "wrong payload")


def client_compressed_unary(stub, channel):
    for compressed in (True, False):
        request = pb.SimpleRequest(
            response_size=LARGE_RESPONSE,
            payload=pb.Payload(body=b"\0" * LARGE_REQUEST),
            expect_compressed=pb.BoolValue(value=compressed),
        )
        compression = grpc.Compression.Gzip if compressed else grpc.Compression.NoCompression
        response = stub.UnaryCall(request, compression=compression)
        check(len(response.payload.body) == LARGE_RESPONSE, "wrong payload size")
    # A request that claims compression the server cannot verify is rejected.
    request = pb.SimpleRequest(response_size=1, expect_compressed=pb.BoolValue(value=True))
    expect_status(lambda: stub.UnaryCall(request), grpc.StatusCode.INVALID_ARGUMENT)


def server_compressed_unary(stub, channel):
    for compressed in (True, False):
        request = pb.SimpleRequest(
            response_size=LARGE_RESPONSE,
            payload=pb.Payload(body=b"\0" * LARGE_REQUEST),
            response_compressed=pb.BoolValue(value=compressed),
        )
        response = stub.UnaryCall(request)
        check(response.payload.body == b"\0" * LARGE_RESPONSE, "wrong payload")


def server_streaming(stub, channel, compressed=None):
    sizes = [31415, 9, 2653, 58979]
    parameters = [pb.ResponseParameters(size=size) for size in sizes]
    if compressed is not None:
        for p in parameters:
            p.compressed.value = compressed
    responses = list(stub.StreamingOutputCall(pb.StreamingOutputCallRequest(response_parameters=parameters)))
    check([len(r.payload.body) for r in responses] == sizes, f"got sizes {[len(r.payload.body) for r in responses]}")


def server_compressed_streaming(stub, channel):
    sizes = [31415, 92653]
    parameters = [
        pb.ResponseParameters(size=sizes[0], compressed=pb.BoolValue(value=True)),
        pb.ResponseParameters(size=sizes[1], compressed=pb.BoolValue(value=False)),
    ]
    responses = list(stub.StreamingOutputCall(pb.StreamingOutputCallRequest(response_parameters=parameters)))
    check([len(r.payload.body) for r in responses] == sizes, "wrong sizes")


def custom_metadata(stub, channel):
    initial = ("x-grpc-test-echo-initial", "test_initial_metadata_value")
    trailing = ("x-grpc-test-echo-trailing-bin", b"\xab\xab\xab")
    request = pb.SimpleRequest(response_size=LARGE_RESPONSE, payload=pb.Payload(body=b"\0" * LARGE_REQUEST))
    response, call = stub.UnaryCall.with_call(request, metadata=[initial, trailing])
    check(initial in call.initial_metadata(), f"initial metadata not echoed: {call.initial_metadata()}")
    check(trailing in call.trailing_metadata(), f"trailing metadata not echoed: {call.trailing_metadata()}")
    stream = stub.StreamingOutputCall(
        pb.StreamingOutputCallRequest(response_parameters=[pb.ResponseParameters(size=LARGE_RESPONSE)]),
        metadata=[initial, trailing],
    )
    list(stream)
    check(initial in stream.initial_metadata(), "streaming initial metadata not echoed")
    check(trailing in stream.trailing_metadata(), "streaming trailing metadata not echoed")


def status_code_and_message(stub, channel):
    message = "test status message"
    status = pb.EchoStatus(code=2, message=message)
    expect_status(lambda: stub.UnaryCall(pb.SimpleRequest(response_status=status)), grpc.StatusCode.UNKNOWN, message)
    stream = stub.StreamingOutputCall(pb.StreamingOutputCallRequest(response_status=status))
    expect_status(lambda: list(stream), grpc.StatusCode.UNKNOWN, message)


def special_status_message(stub, channel):
    message = "\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈\t\n"
    status = pb.EchoStatus(code=2, message=message)
    expect_status(lambda: stub.UnaryCall(pb.SimpleRequest(response_status=status)), grpc.StatusCode.UNKNOWN, message)


def unimplemented_method(stub, channel):
    call = channel.unary_unary("/vicontinue.testing.v1.InteropTest/UnimplementedCall")
    expect_status(lambda: call(b""), grpc.StatusCode.UNIMPLEMENTED)


def unimplemented_service(stub, channel):
    call = channel.unary_unary("/vicontinue.testing.v1.UnimplementedService/UnimplementedCall")
    expect_status(lambda: call(b""), grpc.StatusCode.UNIMPLEMENTED)


def cancel_after_first_response(stub, channel):
    parameters = [pb.ResponseParameters(size=31415, interval_us=20000) for _ in range(50)]
    stream = stub.StreamingOutputCall(pb.StreamingOutputCallRequest(response_parameters=parameters))
    first = next(stream)
    check(len(first.payload.body) == 31415, "wrong first payload")
    stream.cancel()
    expect_status(lambda: list(stream), grpc.StatusCode.CANCELLED)


def timeout_on_sleeping_server(stub, channel):
    request = pb.SimpleRequest(response_size=1, sleep_ms=5000)
    started = time.monotonic()
    expect_status(lambda: stub.UnaryCall(request, timeout=0.05), grpc.StatusCode.DEADLINE_EXCEEDED)
    check(time.monotonic() - started < 4, "the deadline was not enforced")
    parameters = [pb.ResponseParameters(size=1, interval_us=2_000_000)]
    stream = stub.StreamingOutputCall(pb.StreamingOutputCallRequest(response_parameters=parameters), timeout=0.05)
    expect_status(lambda: list(stream), grpc.StatusCode.DEADLINE_EXCEEDED)


def concurrent_large_unary(stub, channel):
    request = pb.SimpleRequest(response_size=LARGE_RESPONSE, payload=pb.Payload(body=b"\0" * LARGE_REQUEST))
    futures = [stub.UnaryCall.future(request) for _ in range(1000)]
    for future in futures:
        check(len(future.result(timeout=120).payload.body) == LARGE_RESPONSE, "wrong payload")


def client_streaming(stub, channel):
    sizes = [27182, 8, 1828, 45904]
    requests = (pb.StreamingInputCallRequest(payload=pb.Payload(body=b"\0" * size)) for size in sizes)
    response = stub.StreamingInputCall(requests)
    check(response.aggregated_payload_size == 74922, f"aggregated {response.aggregated_payload_size}")


class Pinger:
    """Requests fed one at a time to a full-duplex call, so each waits for the previous answer."""

    def __init__(self):
        import queue

        self.queue = queue.Queue()

    def send(self, request):
        self.queue.put(request)

    def close(self):
        self.queue.put(None)

    def __iter__(self):
        while True:
            request = self.queue.get()
            if request is None:
                return
            yield request


def ping_pong(stub, channel):
    request_sizes = [27182, 8, 1828, 45904]
    response_sizes = [31415, 9, 2653, 58979]
    pinger = Pinger()
    stream = stub.FullDuplexCall(iter(pinger))
    for request_size, response_size in zip(request_sizes, response_sizes):
        pinger.send(
            pb.StreamingOutputCallRequest(
                response_parameters=[pb.ResponseParameters(size=response_size)],
                payload=pb.Payload(body=b"\0" * request_size),
            )
        )
        response = next(stream)
        check(len(response.payload.body) == response_size, f"got {len(response.payload.body)} for {response_size}")
    pinger.close()
    check(list(stream) == [], "responses after the last request")
    check(stream.code() == grpc.StatusCode.OK, f"ended with {stream.code()}")


def empty_stream(stub, channel):
    stream = stub.FullDuplexCall(iter([]))
    check(list(stream) == [], "responses to no request")
    check(stream.code() == grpc.StatusCode.OK, f"ended with {stream.code()}")


def cancel_after_begin(stub, channel):
    pinger = Pinger()
    future = stub.StreamingInputCall.future(iter(pinger))
    future.cancel()
    check(future.cancelled(), "the call was not cancelled")
    pinger.close()


def cancel_after_first_full_duplex_response(stub, channel):
    pinger = Pinger()
    stream = stub.FullDuplexCall(iter(pinger))
    pinger.send(
        pb.StreamingOutputCallRequest(
            response_parameters=[pb.ResponseParameters(size=31415)], payload=pb.Payload(body=b"\0" * 27182)
        )
    )
    response = next(stream)
    check(len(response.payload.body) == 31415, "wrong first payload")
    stream.cancel()
    expect_status(lambda: list(stream), grpc.StatusCode.CANCELLED)
    pinger.close()


def timeout_on_sleeping_full_duplex(stub, channel):
    pinger = Pinger()
    stream = stub.FullDuplexCall(iter(pinger), timeout=0.05)
    pinger.send(pb.StreamingOutputCallRequest(response_parameters=[pb.ResponseParameters(size=1, interval_us=2_000_000)]))
    expect_status(lambda: list(stream), grpc.StatusCode.DEADLINE_EXCEEDED)
    pinger.close()


CASES = {
    "empty_unary": empty_unary,
    "large_unary": large_unary,
    "client_compressed_unary": client_compressed_unary,
    "server_compressed_unary": server_compressed_unary,
    "server_streaming": server_streaming,
    "server_compressed_streaming": server_compressed_streaming,
    "custom_metadata": custom_metadata,
    "status_code_and_message": status_code_and_message,
    "special_status_message": special_status_message,
    "unimplemented_method": unimplemented_method,
    "unimplemented_service": unimplemented_service,
    "cancel_after_first_response": cancel_after_first_response,
    "timeout_on_sleeping_server": timeout_on_sleeping_server,
    "concurrent_large_unary": concurrent_large_unary,
    "client_streaming": client_streaming,
    "ping_pong": ping_pong,
    "empty_stream": empty_stream,
    "cancel_after_begin": cancel_after_begin,
    "cancel_after_first_full_duplex_response": cancel_after_first_full_duplex_response,
    "timeout_on_sleeping_full_duplex": timeout_on_sleeping_full_duplex,
}


def main():
    target, names = sys.argv[1], sys.argv[2:] or list(CASES)
    options = [("grpc.max_receive_message_length", 8 << 20), ("grpc.enable_retries", 0)]
    failed = 0
    with grpc.insecure_channel(target, options=options) as channel:
        grpc.channel_ready_future(channel).result(timeout=10)
        stub = pb_grpc.InteropTestStub(channel)
        for name in names:
            try:
                CASES[name](stub, channel)
                print(f"PASS {name}", flush=True)
            except Exception as error:  # report every case, never stop at the first failure
                failed += 1
                detail = "".join(traceback.format_exception_only(type(error), error)).strip()
                print(f"FAIL {name}: {detail}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
