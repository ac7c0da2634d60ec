"""grpcio channels for the cluster clients: in clear, or over TLS verified against a test CA."""

import grpc

# The CA certificate (PEM file) that TLS targets are verified against; set from --tls-ca.
ca_file = None


def open_channel(target):
    """HOST:PORT or unix:PATH in clear; tls:HOST:PORT over TLS, its certificate verified against
    `ca_file` and its name (HOST) checked, as a client of a TLS-terminating proxy would."""
    if target.startswith("tls:"):
        if ca_file is None:
            raise SystemExit(f"{target}: a tls: target needs --tls-ca")
        with open(ca_file, "rb") as f:
            credentials = grpc.ssl_channel_credentials(root_certificates=f.read())
        return grpc.secure_channel(target[len("tls:"):], credentials)
    return grpc.insecure_channel(target)
