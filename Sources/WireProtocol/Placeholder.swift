// WireProtocol
