"""The grpcio peer of bench/rpc: Health/Check SERVING and VisualSearch/Query with a fixed answer.

Usage: grpcio_server.py PORT QUERY_RESPONSE_FILE

The answer is the serialized QueryResponse vi-continue gave for the benchmark's request, so the
same message bytes go on the wire as from the other servers. grpc.aio, grpcio's faster server.
"""

import asyncio
import os
import sys

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "interop"))
import stubs  # noqa: E402

(search_pb, search_grpc), (health_pb, health_grpc) = stubs.load("search.proto", "grpc/health/v1/health.proto")


class Health(health_grpc.HealthServicer):
    async def Check(self, request, context):
        if request.service not in ("", "vicontinue.v1.VisualSearch"):
            await context.abort(grpc.StatusCode.NOT_FOUND, "unknown service")
        return health_pb.HealthCheckResponse(status=health_pb.HealthCheckResponse.SERVING)


class Search(search_grpc.VisualSearchServicer):
    def __init__(self, fixed):
        self.fixed = fixed

    async def Query(self, request, context):
        return self.fixed


async def serve(port, response_file):
    with open(response_file, "rb") as f:
        fixed = search_pb.QueryResponse.FromString(f.read())
    server = grpc.aio.server()
    health_grpc.add_HealthServicer_to_server(Health(), server)
    search_grpc.add_VisualSearchServicer_to_server(Search(fixed), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print(f"grpcio_server: serving on 127.0.0.1:{port}", file=sys.stderr, flush=True)
    await server.wait_for_termination()


if __name__ == "__main__":
    asyncio.run(serve(int(sys.argv[1]), sys.argv[2]))
