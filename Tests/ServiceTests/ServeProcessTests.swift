import Testing

/// The suites that start real `vi-continue serve` processes and load them hard (crash, drain,
/// flood, limits, call log). They run one at a time: on a small machine, parallel floods would
/// measure each other rather than the server.
@Suite(.serialized) enum ServeProcessTests {}
