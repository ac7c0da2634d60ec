import Foundation
import ServeTestSupport
import Testing

@testable import WireProtocol

enum GrpcioProbe {
    static let available: Bool = {
        guard let process = try? InteropTests.python(["-c", "import grpc"]) else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
}

/// Interoperability with the stock grpcio (Python) client and server; skipped where the
/// `grpc` Python module is not installed.
@Suite(.enabled(if: GrpcioProbe.available, "needs python3 with grpcio"))
struct InteropTests {
    static func python(_ arguments: [String], stdin: Pipe? = nil, stdout: Pipe? = nil) throws -> Process {
        let process = Process()
        // scripts/setup installs grpcio into the package's .venv; fall back to python3 on PATH.
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let venvPython = packageRoot.appendingPathComponent(".venv/bin/python").path
        if FileManager.default.isExecutableFile(atPath: venvPython) {
            process.executableURL = URL(fileURLWithPath: venvPython)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3"] + arguments
        }
        if let stdin { process.standardInput = stdin }
        process.standardOutput = stdout ?? FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    static func script(_ name: String, _ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "wire-interop-\(getpid())-\(name).py"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let clientScript = #"""
        import sys, json, grpc
        out = {}
        ch = grpc.insecure_channel(sys.argv[1])
        unary = ch.unary_unary('/test.Echo/Unary')
        resp, call = unary.with_call(b'hello', metadata=[('x-key', 'v'), ('x-blob-bin', b'\x00\x01\xff')])
        out['unary'] = resp.decode()
        out['initial'] = sorted([k, v if isinstance(v, str) else v.hex()] for k, v in call.initial_metadata())
        out['trailing'] = sorted([k, v if isinstance(v, str) else v.hex()] for k, v in call.trailing_metadata())
        big = bytes(range(256)) * 1000
        out['gzip'] = unary(big, compression=grpc.Compression.Gzip) == big
        out['deflate'] = unary(big, compression=grpc.Compression.Deflate) == big
        try:
            ch.unary_unary('/test.Echo/Fail')(b'')
        except grpc.RpcError as e:
            out['fail'] = [e.code().value[0], e.details(), [[k, v.hex()] for k, v in e.trailing_metadata() if k.endswith('-bin')]]
        out['stream'] = [len(m) for m in ch.unary_stream('/test.Echo/Stream')(b'\x03\xe8')]
        try:
            ch.unary_unary('/test.Echo/Sleep')(b'x', timeout=0.2)
        except grpc.RpcError as e:
            out['deadline'] = e.code().value[0]
        try:
            ch.unary_unary('/no.Such/Method')(b'')
        except grpc.RpcError as e:
            out['unimplemented'] = e.code().value[0]
        print(json.dumps(out))
        """#

    @Test func aGrpcioClientTalksToOurServer() async throws {
        let observations = Observations()
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 2)
        configuration.responseCompression = .gzip
        try await withServer(configuration, observations: observations) { _, addresses in
            let path = try Self.script("client", Self.clientScript)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let output = Pipe()
            let process = try Self.python([path, "127.0.0.1:\(addresses.tcpPort!)"], stdout: output)
            // Read off the pool: the server under test needs the cooperative pool.
            let data = await readToEnd(output)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let json = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(json["unary"] as? String == "hello")
            let initial = json["initial"] as? [[String]] ?? []
            #expect(initial.contains(["echo-x-key", "v"]))
            #expect(initial.contains(["echo-x-blob-bin", "0001ff"]))
            let trailing = json["trailing"] as? [[String]] ?? []
            #expect(trailing.contains(["trailer-x-key", "v"]))
            #expect(json["gzip"] as? Bool == true)
            #expect(json["deflate"] as? Bool == true)
            let fail = json["fail"] as? [Any] ?? []
            #expect(fail.first as? Int == Status.Code.failedPrecondition.rawValue)
            #expect(fail.dropFirst().first as? String == "no\tway ☃ 100%\r\n")
            #expect((fail.last as? [[String]])?.first == ["detail-bin", "000102"])
            #expect((json["stream"] as? [Int])?.count == 1000)
            #expect(json["deadline"] as? Int == Status.Code.deadlineExceeded.rawValue)
            #expect(json["unimplemented"] as? Int == Status.Code.unimplemented.rawValue)
        }
    }

    static let serverScript = #"""
        import sys, grpc
        from concurrent import futures
        def unary(req, ctx):
            md = dict(ctx.invocation_metadata())
            ctx.send_initial_metadata([('echo-x-key', md.get('x-key', '')), ('echo-bin', md.get('x-blob-bin', b''))])
            ctx.set_trailing_metadata([('t-key', 'tv')])
            return req
        def fail(req, ctx):
            ctx.abort(grpc.StatusCode.NOT_FOUND, 'nope \u2603 50%')
        def stream(req, ctx):
            for i in range(int.from_bytes(req, 'big')):
                yield bytes([i % 256]) * 10
        handler = grpc.method_handlers_generic_handler('test.Echo', {
            'Unary': grpc.unary_unary_rpc_method_handler(unary),
            'Fail': grpc.unary_unary_rpc_method_handler(fail),
            'Stream': grpc.unary_stream_rpc_method_handler(stream),
        })
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=8), compression=grpc.Compression.Gzip)
        server.add_generic_rpc_handlers((handler,))
        port = server.add_insecure_port('127.0.0.1:0')
        server.start()
        print(port, flush=True)
        sys.stdin.read()
        server.stop(0)
        """#

    @Test func ourClientTalksToAGrpcioServer() async throws {
        let path = try Self.script("server", Self.serverScript)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let input = Pipe()
        let output = Pipe()
        let process = try Self.python([path], stdin: input, stdout: output)
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        // The peer's first line, read off the pool (which the in-process servers of other tests
        // need while the peer starts).
        let line = try await offThePool { () throws -> String in
            var bytes: [UInt8] = []
            while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != 10 {
                bytes.append(byte)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        let port = try #require(Int(line))
        let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: port))
        var metadata: Metadata = ["x-key": "v"]
        metadata.add("x-blob-bin", [0, 1, 0xFF])
        let response = try await client.unary(path: "/test.Echo/Unary", request: Array("hi".utf8), metadata: metadata)
        #expect(response.message == Array("hi".utf8))
        #expect(response.initialMetadata.first(named: "echo-x-key") == .string("v"))
        #expect(response.initialMetadata.first(named: "echo-bin") == .binary([0, 1, 0xFF]))
        #expect(response.trailingMetadata.first(named: "t-key") == .string("tv"))
        let big = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 7) }
        for algorithm in [CompressionAlgorithm.gzip, .deflate, .identity] {
            let echoed = try await client.unary(
                path: "/test.Echo/Unary", request: big, options: CallOptions(compression: algorithm))
            #expect(echoed.message == big)
        }
        let error = await expectRPCError(.notFound) { _ = try await client.unary(path: "/test.Echo/Fail", request: []) }
        #expect(error?.message == "nope ☃ 50%")
        var count = 0
        for try await message in try await client.serverStreaming(path: "/test.Echo/Stream", request: [0x01, 0xF4]) {
            #expect(message == [UInt8](repeating: UInt8(count % 256), count: 10))
            count += 1
        }
        #expect(count == 500)
        await expectRPCError(.unimplemented) { _ = try await client.unary(path: "/test.Echo/Nope", request: []) }
        await client.close()
    }
}
