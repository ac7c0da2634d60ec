internal import SystemInfo

/// How a `GRPCServer` listens, and the limits it enforces.
public struct ServerConfiguration: Sendable {
    /// A TCP listening address.
    public struct TCP: Sendable, Hashable {
        /// An IPv4 or IPv6 literal, or "localhost"; "0.0.0.0" or "::" for any address.
        public var host: String
        /// The port; 0 picks an ephemeral port (see `GRPCServer.waitUntilListening()`).
        public var port: Int
        /// Creates a TCP address.
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    /// The TCP address to listen on, if any.
    public var tcp: TCP?
    /// The Unix-domain socket path to listen on, if any; a stale socket file there is removed
    /// first, and the file is removed again on shutdown. The file's mode is 0600 whatever the
    /// umask: only the server's user may connect.
    public var unixSocketPath: String?
    /// The number of event-loop threads; defaults to the number of cores.
    public var eventLoopCount: Int
    /// The compression applied to responses when a handler does not choose, if the client
    /// accepts it.
    public var responseCompression: CompressionAlgorithm
    /// The encodings accepted on requests and offered in `grpc-accept-encoding`.
    public var enabledCompression: [CompressionAlgorithm]
    /// The most connections served at once; further ones are closed as soon as accepted, so a
    /// client sees a reset rather than a hang.
    public var maxConnections: Int
    /// SETTINGS_MAX_CONCURRENT_STREAMS advertised to clients; a stream beyond it is refused
    /// with RST_STREAM REFUSED_STREAM.
    public var maxConcurrentStreams: Int
    /// The most calls one peer may have running at once across all its connections; a call
    /// beyond it gets RESOURCE_EXHAUSTED at once, so one client opening many connections cannot
    /// take every handler from the others. A peer is a client address without its port; every
    /// Unix-socket client counts as one peer; behind a proxy the proxy is the peer. `nil`: no cap.
    public var maxConcurrentCallsPerPeer: Int?
    /// SETTINGS_MAX_HEADER_LIST_SIZE advertised and enforced per request.
    public var maxHeaderListSize: Int
    /// Request bytes one connection may hold in unfinished requests across all its streams;
    /// a stream pushing past it gets RESOURCE_EXHAUSTED. Bounds what one client can make the
    /// server buffer even within each method's `maxRequestBytes`.
    public var maxBufferedRequestBytesPerConnection: Int
    /// Connections without streams for this long are closed with GOAWAY; `nil` keeps them.
    /// Streams whose request has stalled (headers without the end of the request, then nothing
    /// for this long) do not keep a connection open: they are reset and it is closed too.
    public var idleTimeout: Duration?
    /// When set, a connection that has been silent this long is sent a PING; `keepaliveTimeout`
    /// later without any frame back it is closed (a peer that vanished without a FIN).
    public var keepaliveInterval: Duration?
    /// See `keepaliveInterval`.
    public var keepaliveTimeout: Duration
    /// PING frames allowed from a client per second before the connection is closed with
    /// GOAWAY ENHANCE_YOUR_CALM.
    public var maxPingsPerSecond: Int
    /// RST_STREAM frames from a client: burst and refill per second before GOAWAY (rapid reset).
    public var resetStreamBurst: Int
    /// See `resetStreamBurst`.
    public var resetStreamsPerSecond: Int
    /// How long a graceful shutdown waits for in-flight calls before closing their connections
    /// (which cancels their handlers); `nil` waits as long as they take.
    public var shutdownGracePeriod: Duration?
    /// Unsent response bytes per stream above which `ResponseWriter.write` suspends.
    public var streamWriteHighWater: Int
    /// Whether a handler starts on the connection's event-loop thread (`Task.immediate`) and
    /// runs there until its first suspension, saving two thread hops per call. Turn off when
    /// handlers do long synchronous work before their first `await`, which would hold up the
    /// other connections of that loop.
    public var startHandlersInline: Bool
    /// The most threads running handlers registered `ServerMethod.Execution.mayBlock` (and the
    /// web side's file reads) at once; the threads start as such work arrives and end when idle.
    public var maxBlockingThreads = 16
    /// The longest an event loop keeps polling for I/O without sleeping (`epoll_wait` with a zero
    /// timeout, yielding the core to any other runnable thread) after it last had something to do.
    ///
    /// A request that arrives within the window is read at once instead of after the thread's
    /// wake-up, which on a VM is a good part of a small call's round trip. Each loop learns how
    /// long to poll from the gaps in its own traffic, up to this window: with calls arriving
    /// back to back it polls, with sparse calls or none it sleeps at once (see
    /// `AdaptivePollWindow`). `.zero` turns polling off.
    public var busyPollWindow: Duration
    /// Told about every call when it ends, gRPC, Connect or gRPC-Web (for a call log or
    /// metrics); `nil` skips the bookkeeping. Web requests that call no method (`/healthz`,
    /// files, refusals answered with an HTTP status alone) are not calls.
    public var callObserver: CallObserver?
    /// What the port answers besides gRPC (over HTTP/1.1 and HTTP/2: Connect, gRPC-Web, health,
    /// metrics, files).
    public var web: WebConfiguration

    /// Creates a configuration.
    public init(
        tcp: TCP? = nil,
        unixSocketPath: String? = nil,
        eventLoopCount: Int = ServerConfiguration.defaultEventLoopCount,
        responseCompression: CompressionAlgorithm = .identity,
        enabledCompression: [CompressionAlgorithm] = [.identity, .gzip, .deflate],
        maxConnections: Int = 10_000,
        maxConcurrentStreams: Int = 100,
        maxConcurrentCallsPerPeer: Int? = nil,
        maxHeaderListSize: Int = 16 * 1024,
        maxBufferedRequestBytesPerConnection: Int = 64 << 20,
        idleTimeout: Duration? = nil,
        keepaliveInterval: Duration? = nil,
        keepaliveTimeout: Duration = .seconds(20),
        maxPingsPerSecond: Int = 100,
        resetStreamBurst: Int = 1000,
        resetStreamsPerSecond: Int = 33,
        shutdownGracePeriod: Duration? = .seconds(30),
        streamWriteHighWater: Int = 256 * 1024,
        startHandlersInline: Bool = true,
        busyPollWindow: Duration = ServerConfiguration.defaultBusyPollWindow,
        callObserver: CallObserver? = nil,
        web: WebConfiguration = WebConfiguration()
    ) {
        self.tcp = tcp
        self.unixSocketPath = unixSocketPath
        self.eventLoopCount = eventLoopCount
        self.responseCompression = responseCompression
        self.enabledCompression = enabledCompression
        self.maxConnections = maxConnections
        self.maxConcurrentStreams = maxConcurrentStreams
        self.maxConcurrentCallsPerPeer = maxConcurrentCallsPerPeer
        self.maxHeaderListSize = maxHeaderListSize
        self.maxBufferedRequestBytesPerConnection = maxBufferedRequestBytesPerConnection
        self.idleTimeout = idleTimeout
        self.keepaliveInterval = keepaliveInterval
        self.keepaliveTimeout = keepaliveTimeout
        self.maxPingsPerSecond = maxPingsPerSecond
        self.resetStreamBurst = resetStreamBurst
        self.resetStreamsPerSecond = resetStreamsPerSecond
        self.shutdownGracePeriod = shutdownGracePeriod
        self.streamWriteHighWater = streamWriteHighWater
        self.startHandlersInline = startHandlersInline
        self.busyPollWindow = busyPollWindow
        self.callObserver = callObserver
        self.web = web
    }

    /// The default `busyPollWindow`: off, so a server embedded in other work never spins
    /// unasked; `vi-continue serve` turns on 100 µs.
    public static let defaultBusyPollWindow: Duration = .zero

    /// The number of online processors.
    public static var defaultEventLoopCount: Int { max(1, Processors.allowed) }
}
