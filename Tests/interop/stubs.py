"""Generates grpcio stubs from the project's own protos at test time, into a temp dir."""

import atexit
import importlib
import os
import shutil
import sys
import tempfile

from grpc_tools import protoc

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROTO_DIR = os.path.join(ROOT, "proto")


def load(*protos):
    """Compiles `protos` (paths relative to proto/) and returns their (pb2, pb2_grpc) modules.

    Each proto is compiled under a flattened file name (grpc/health/v1/health.proto becomes
    grpc_health_v1_health.proto) so its Python module cannot shadow the installed `grpc` package;
    the proto package, and so every method path, stays as written.
    """
    work = tempfile.mkdtemp(prefix="vi-continue-stubs-")
    # The modules are imported by the time the process exits, so the directory can go then.
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    sources = os.path.join(work, "proto")
    os.mkdir(sources)
    names = []
    for proto in protos:
        name = proto.replace("/", "_")
        shutil.copy(os.path.join(PROTO_DIR, proto), os.path.join(sources, name))
        names.append(name)
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    args = ["protoc", f"-I{sources}", f"-I{include}", f"--python_out={work}", f"--grpc_python_out={work}"]
    if protoc.main(args + names) != 0:
        raise SystemExit(f"protoc failed for {protos}")
    sys.path.insert(0, work)
    modules = []
    for name in names:
        module = name[: -len(".proto")]
        modules.append((importlib.import_module(module + "_pb2"), importlib.import_module(module + "_pb2_grpc")))
    return modules
