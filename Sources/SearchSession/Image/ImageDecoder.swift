internal import CJPEG
internal import CPNG
internal import Foundation

/// Decodes PNG and JPEG files into RGB8 pixel buffers with libpng and libjpeg-turbo.
public enum ImageDecoder {
    /// The largest image accepted, in pixels (a 16K × 16K picture would need 768 MiB).
    public static let maximumPixels = 100_000_000

    /// Reads and decodes a PNG or JPEG file, told apart by its signature.
    ///
    /// - Parameter path: The image file.
    /// - Returns: An RGB8 pixel buffer with tightly packed rows.
    /// - Throws: ``SearchError/Code/imageDecoding`` when the file cannot be read or decoded.
    public static func decode(path: String) throws(SearchError) -> PixelBuffer {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SearchError(code: .imageDecoding, message: "cannot read image \(path)")
        }
        do {
            return try decode(Array(data))
        } catch {
            throw SearchError(code: error.code, message: "\(path): \(error.message)", cause: error.cause)
        }
    }

    /// Decodes PNG or JPEG bytes.
    ///
    /// - Parameter bytes: The encoded image.
    /// - Returns: An RGB8 pixel buffer with tightly packed rows.
    /// - Throws: ``SearchError/Code/imageDecoding``.
    public static func decode(_ bytes: [UInt8]) throws(SearchError) -> PixelBuffer {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return try decodePNG(bytes) }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return try decodeJPEG(bytes) }
        throw SearchError(code: .imageDecoding, message: "not a PNG or JPEG image")
    }

    static func decodePNG(_ bytes: [UInt8]) throws(SearchError) -> PixelBuffer {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        let begun = bytes.withUnsafeBytes { raw in
            png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count)
        }
        guard begun != 0 else { throw pngError(&image) }
        let width = Int(image.width)
        let height = Int(image.height)
        guard width > 0, height > 0, width * height <= maximumPixels else {
            png_image_free(&image)
            throw SearchError(code: .imageDecoding, message: "PNG dimensions \(width)×\(height) are out of range")
        }
        image.format = png_uint_32(PNG_FORMAT_RGB)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let finished = pixels.withUnsafeMutableBytes { out in
            png_image_finish_read(&image, nil, out.baseAddress, png_int_32(width * 3), nil)
        }
        guard finished != 0 else { throw pngError(&image) }
        return PixelBuffer(width: width, height: height, bytesPerRow: width * 3, format: .rgb8, bytes: pixels)
    }

    private static func pngError(_ image: inout png_image) -> SearchError {
        let message = withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        png_image_free(&image)
        return SearchError(code: .imageDecoding, message: "PNG: \(message)")
    }

    static func decodeJPEG(_ bytes: [UInt8]) throws(SearchError) -> PixelBuffer {
        let job = JPEGDecodeJob(bytes)
        defer { job.release() }
        let failure = runIsolated(job.run)
        if let message = failure ?? job.failure {
            throw SearchError(code: .imageDecoding, message: "JPEG: \(message)")
        }
        return PixelBuffer(
            width: job.width, height: job.height, bytesPerRow: job.width * 3, format: .rgb8, bytes: job.pixels)
    }
}

/// The state of one JPEG decode, owned by the calling thread so that nothing leaks when libjpeg's
/// error handler abandons the decoding thread.
private final class JPEGDecodeJob: @unchecked Sendable {
    let input: UnsafeMutableBufferPointer<UInt8>
    let cinfo = UnsafeMutablePointer<jpeg_decompress_struct>.allocate(capacity: 1)
    let errors = UnsafeMutablePointer<jpeg_error_mgr>.allocate(capacity: 1)
    var created = false
    var width = 0
    var height = 0
    var pixels: [UInt8] = []
    var failure: String?

    init(_ bytes: [UInt8]) {
        input = .allocate(capacity: max(bytes.count, 1))
        _ = input.initialize(from: bytes)
        cinfo.initialize(to: jpeg_decompress_struct())
        errors.initialize(to: jpeg_error_mgr())
    }

    func release() {
        if created { jpeg_destroy_decompress(cinfo) }
        cinfo.deallocate()
        errors.deallocate()
        input.deallocate()
    }

    func run() {
        cinfo.pointee.err = jpeg_std_error(errors)
        errors.pointee.error_exit = isolatedJPEGErrorExit
        errors.pointee.output_message = { _ in }
        jpeg_CreateDecompress(cinfo, JPEG_LIB_VERSION, MemoryLayout<jpeg_decompress_struct>.size)
        created = true
        jpeg_mem_src(cinfo, input.baseAddress, UInt(input.count))
        guard jpeg_read_header(cinfo, 1) == JPEG_HEADER_OK else {
            failure = "no image in the stream"
            return
        }
        cinfo.pointee.out_color_space = JCS_RGB
        let headerWidth = Int(cinfo.pointee.image_width)
        let headerHeight = Int(cinfo.pointee.image_height)
        guard headerWidth > 0, headerHeight > 0, headerWidth * headerHeight <= ImageDecoder.maximumPixels else {
            failure = "dimensions \(headerWidth)×\(headerHeight) are out of range"
            return
        }
        _ = jpeg_start_decompress(cinfo)
        let outWidth = Int(cinfo.pointee.output_width)
        let outHeight = Int(cinfo.pointee.output_height)
        let components = Int(cinfo.pointee.output_components)
        guard components == 3 else {
            failure = "unexpected \(components) output components"
            return
        }
        let stride = outWidth * 3
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * outHeight)
        defer { out.deallocate() }
        var row: UnsafeMutablePointer<UInt8>? = out
        while cinfo.pointee.output_scanline < cinfo.pointee.output_height {
            row = out + Int(cinfo.pointee.output_scanline) * stride
            if jpeg_read_scanlines(cinfo, &row, 1) == 0 { break }
        }
        _ = jpeg_finish_decompress(cinfo)
        width = outWidth
        height = outHeight
        pixels = Array(UnsafeBufferPointer(start: out, count: stride * outHeight))
    }
}
