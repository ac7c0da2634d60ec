// The fuzz target executable: `FuzzTargets TARGET [libFuzzer options] [CORPUS...]`.
//
// The target name is taken off the arguments and the rest goes to libFuzzer's driver, so every
// libFuzzer option works (`-max_total_time=60`, `-runs=0` to replay a crash file).

#if canImport(Glibc)
    import Glibc
#endif

/// The symbol libFuzzer's runtime refers to; every input goes to the selected target.
///
/// It must be defined here: with `-sanitize=fuzzer` the compiler also emits this symbol for
/// the file that holds the entry point, and a second definition elsewhere fails to link.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let target = selectedTarget else { return 0 }
    return target.test(UnsafeBufferPointer(start: data, count: size)) ? 0 : -1
}

let targets = [
    FuzzTarget(
        name: "server-connection",
        // The server allocates on its own threads, so libFuzzer's per-input leak check (run when
        // an input mallocs more than it frees) would fire on most inputs and cost ~100 ms each;
        // LeakSanitizer still checks the whole process at exit.
        options: ["-detect_leaks=0"],
        setUp: ServerConnectionTarget.setUp, test: ServerConnectionTarget.test),
    FuzzTarget(
        name: "web-connection", options: ["-detect_leaks=0"], setUp: ServerConnectionTarget.setUp,
        test: ServerConnectionTarget.testWithoutPreface),
    FuzzTarget(name: "request-message", test: RequestMessageTarget.test),
    FuzzTarget(name: "url-parser", setUp: URLParserTarget.setUp, test: URLParserTarget.test),
    FuzzTarget(name: "route-table", test: RouteTableTarget.test),
    FuzzTarget(name: "catalog-line", test: CatalogLineTarget.test),
    FuzzTarget(name: "catalog-log-entry", test: CatalogLogEntryTarget.test),
    FuzzTarget(name: "http1-request", test: HTTP1RequestTarget.test),
]

// The target is the first argument, or FUZZ_TARGET when libFuzzer re-runs this program for
// `-minimize_crash` or `-fork` (it passes only its own options), which the variable carries.
let arguments = CommandLine.arguments
let namedTarget = arguments.count >= 2 ? targets.first { $0.name == arguments[1] } : nil
let environmentTarget = getenv("FUZZ_TARGET").flatMap { name in targets.first { $0.name == String(cString: name) } }
guard let target = namedTarget ?? environmentTarget else {
    let names = targets.map(\.name).joined(separator: ", ")
    let usage = "usage: FuzzTargets TARGET [libFuzzer options] [CORPUS...]\ntargets: \(names)\n"
    _ = usage.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    exit(2)
}
setenv("FUZZ_TARGET", target.name, 1)
target.setUp()
selectedTarget = target

// The driver's arguments: the program, the target's options, then everything after the target
// name. They live for the whole run, so they are never freed.
var driverArguments: [UnsafeMutablePointer<CChar>?] = [CommandLine.unsafeArgv[0]]
driverArguments += target.options.map { strdup($0) }
driverArguments += ((namedTarget == nil ? 1 : 2)..<Int(CommandLine.argc)).map { CommandLine.unsafeArgv[$0] }
driverArguments.append(nil)
var argc = Int32(driverArguments.count - 1)
var argv: ArgumentVector = .allocate(capacity: driverArguments.count)
argv.initialize(from: driverArguments, count: driverArguments.count)
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzTestOneInput))
