/// The argument vector libFuzzer's driver takes and may rewrite.
typealias ArgumentVector = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

/// The per-input callback libFuzzer calls: the bytes and their count; returns 0 (or -1 to keep
/// the input out of the corpus).
typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

/// libFuzzer's entry point for programs that have their own `main`.
///
/// Linked from the libFuzzer runtime that `-sanitize=fuzzer` adds; using it instead of libFuzzer's
/// `main` lets this executable pick a target from its first argument before the driver starts.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<ArgumentVector>,
    _ callback: TestOneInput
) -> Int32

/// The target chosen on the command line; set once in `main.swift` before the driver starts.
nonisolated(unsafe) var selectedTarget: FuzzTarget?

/// One fuzz target: something that must neither crash nor break an invariant on any input.
///
/// A struct of functions rather than a protocol: Swift 6.3 crashes lowering calls on an
/// existential metatype in top-level code.
struct FuzzTarget {
    /// The name given on the command line and used for the corpus directory.
    var name: String

    /// libFuzzer options this target always runs with, before those given on the command line
    /// (which win, libFuzzer taking the last of a repeated option).
    var options: [String] = []

    /// Prepares shared state (a server, a table) once, before the first input.
    var setUp: () -> Void = {}

    /// Runs one input; a broken invariant traps (`precondition`), which libFuzzer reports as a
    /// crash and saves. Returns `false` when the input is not worth keeping in the corpus.
    var test: (UnsafeBufferPointer<UInt8>) -> Bool
}

/// LeakSanitizer's built-in suppressions, read at startup.
///
/// Swift keeps the pointer to a weak-reference side table in an object's refcount word shifted
/// and tagged, so LeakSanitizer cannot see it and reports every live side table as a leak.
@_cdecl("__lsan_default_suppressions")
func leakSanitizerSuppressions() -> UnsafePointer<CChar> {
    UnsafeRawPointer(StaticString("leak:formWeakReference\n").utf8Start).assumingMemoryBound(to: CChar.self)
}
