"""Generates grpcio stubs from the project's own protos at test time, into a temp dir."""

import importlib
import os
import sys
import tempfile

from grpc_tools import protoc

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROTO_DIR = os.path.join(ROOT, "proto")


def load(*protos):
    """Compiles `protos` (paths relative to proto/) and returns their (pb2, pb2_grpc) modules."""
    out = tempfile.mkdtemp(prefix="vi-continue-stubs-")
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    args = ["protoc", f"-I{PROTO_DIR}", f"-I{include}", f"--python_out={out}", f"--grpc_python_out={out}"]
    if protoc.main(args + list(protos)) != 0:
        raise SystemExit(f"protoc failed for {protos}")
    sys.path.insert(0, out)
    modules = []
    for proto in protos:
        name = proto[: -len(".proto")].replace("/", ".")
        modules.append((importlib.import_module(name + "_pb2"), importlib.import_module(name + "_pb2_grpc")))
    return modules
