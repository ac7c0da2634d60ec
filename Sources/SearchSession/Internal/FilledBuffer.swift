/// `count` copies of `value` in a buffer of its own, for loops that must not touch reference
/// counts (at least one element is allocated, so the base address is never nil); the owner
/// deallocates it through its base address.
func filledBuffer<T>(_ count: Int, _ value: T) -> UnsafeMutableBufferPointer<T> {
    let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(count, 1))
    buffer.initialize(repeating: value)
    return UnsafeMutableBufferPointer(rebasing: buffer[0..<count])
}
