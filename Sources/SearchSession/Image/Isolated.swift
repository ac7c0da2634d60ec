internal import CJPEG
internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#endif

// libjpeg reports a fatal error by calling `error_exit`, which must not return, and Swift cannot
// `longjmp`. So libjpeg work runs on a thread of its own whose error handler ends that thread
// (`pthread_exit`); all memory the work touches is owned by the caller, which frees it after the
// join. The message is kept in thread-local storage and handed back.

private final class IsolatedWork: @unchecked Sendable {
    let body: () -> Void
    var failure: String?
    init(_ body: @escaping () -> Void) { self.body = body }
}

private let currentWorkKey: pthread_key_t = {
    var key: pthread_key_t = 0
    pthread_key_create(&key, nil)
    return key
}()

/// Runs `body` on a dedicated thread and returns libjpeg's fatal error message, if it raised one.
func runIsolated(_ body: @escaping () -> Void) -> String? {
    let work = IsolatedWork(body)
    let context = Unmanaged.passRetained(work)
    var thread: pthread_t = 0
    let status = pthread_create(
        &thread, nil,
        { raw in
            let work = Unmanaged<IsolatedWork>.fromOpaque(raw!).takeUnretainedValue()
            pthread_setspecific(currentWorkKey, raw)
            work.body()
            return nil
        }, context.toOpaque())
    if status != 0 {
        context.release()
        return "cannot start a decoding thread (error \(status))"
    }
    pthread_join(thread, nil)
    context.release()
    return work.failure
}

/// libjpeg's `error_exit` for isolated work: records the message and ends the thread.
let isolatedJPEGErrorExit: @convention(c) (j_common_ptr?) -> Void = { cinfo in
    var buffer = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
    if let cinfo, let format = cinfo.pointee.err.pointee.format_message {
        format(cinfo, &buffer)
    }
    let message = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if let raw = pthread_getspecific(currentWorkKey) {
        Unmanaged<IsolatedWork>.fromOpaque(raw).takeUnretainedValue().failure = message
    }
    pthread_exit(nil)
}
