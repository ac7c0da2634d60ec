"""Asks a server's grpc.health.v1.Health/Check with grpcio and prints the status name.

Usage: health_check.py TARGET [SERVICE]
"""

import sys

import grpc

import stubs

((pb, pb_grpc),) = stubs.load("grpc/health/v1/health.proto")


def main():
    target = sys.argv[1]
    service = sys.argv[2] if len(sys.argv) > 2 else ""
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.HealthStub(channel)
        response = stub.Check(pb.HealthCheckRequest(service=service), timeout=10)
        print(pb.HealthCheckResponse.ServingStatus.Name(response.status))


if __name__ == "__main__":
    main()
