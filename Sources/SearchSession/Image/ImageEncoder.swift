internal import CJPEG
internal import CPNG

#if canImport(Glibc)
    internal import Glibc
#endif

/// Encodes RGB8 images as PNG or JPEG, for tests, fixtures and benchmarks.
package enum ImageEncoder {
    /// PNG bytes of a tightly packed RGB8 image.
    package static func png(width: Int, height: Int, rgb: [UInt8]) throws(SearchError) -> [UInt8] {
        precondition(rgb.count == width * height * 3)
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(width)
        image.height = png_uint_32(height)
        image.format = png_uint_32(PNG_FORMAT_RGB)
        var size = 0
        let ok = rgb.withUnsafeBytes { png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, 0, nil) }
        guard ok != 0, size > 0 else { throw SearchError(code: .imageDecoding, message: "PNG encoding failed") }
        var out = [UInt8](repeating: 0, count: size)
        let written = out.withUnsafeMutableBytes { output in
            rgb.withUnsafeBytes {
                png_image_write_to_memory(&image, output.baseAddress, &size, 0, $0.baseAddress, 0, nil)
            }
        }
        png_image_free(&image)
        guard written != 0 else { throw SearchError(code: .imageDecoding, message: "PNG encoding failed") }
        return Array(out.prefix(size))
    }

    /// JPEG bytes of a tightly packed RGB8 image at `quality` (1...100).
    package static func jpeg(width: Int, height: Int, rgb: [UInt8], quality: Int) throws(SearchError) -> [UInt8] {
        precondition(rgb.count == width * height * 3)
        let job = JPEGEncodeJob(width: width, height: height, rgb: rgb, quality: quality)
        defer { job.release() }
        if let message = runIsolated(job.run) {
            throw SearchError(code: .imageDecoding, message: "JPEG encoding: \(message)")
        }
        return job.output
    }
}

private final class JPEGEncodeJob: @unchecked Sendable {
    let width: Int
    let height: Int
    let rgb: UnsafeMutableBufferPointer<UInt8>
    let quality: Int
    let cinfo = UnsafeMutablePointer<jpeg_compress_struct>.allocate(capacity: 1)
    let errors = UnsafeMutablePointer<jpeg_error_mgr>.allocate(capacity: 1)
    let buffer = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>.allocate(capacity: 1)
    let size = UnsafeMutablePointer<UInt>.allocate(capacity: 1)
    var created = false
    var output: [UInt8] = []

    init(width: Int, height: Int, rgb: [UInt8], quality: Int) {
        self.width = width
        self.height = height
        self.quality = quality
        self.rgb = .allocate(capacity: rgb.count)
        _ = self.rgb.initialize(from: rgb)
        cinfo.initialize(to: jpeg_compress_struct())
        errors.initialize(to: jpeg_error_mgr())
        buffer.initialize(to: nil)
        size.initialize(to: 0)
    }

    func release() {
        if created { jpeg_destroy_compress(cinfo) }
        free(buffer.pointee)
        cinfo.deallocate()
        errors.deallocate()
        buffer.deallocate()
        size.deallocate()
        rgb.deallocate()
    }

    func run() {
        cinfo.pointee.err = jpeg_std_error(errors)
        errors.pointee.error_exit = isolatedJPEGErrorExit
        errors.pointee.output_message = { _ in }
        jpeg_CreateCompress(cinfo, JPEG_LIB_VERSION, MemoryLayout<jpeg_compress_struct>.size)
        created = true
        jpeg_mem_dest(cinfo, buffer, size)
        cinfo.pointee.image_width = JDIMENSION(width)
        cinfo.pointee.image_height = JDIMENSION(height)
        cinfo.pointee.input_components = 3
        cinfo.pointee.in_color_space = JCS_RGB
        jpeg_set_defaults(cinfo)
        jpeg_set_quality(cinfo, Int32(quality), 1)
        jpeg_start_compress(cinfo, 1)
        var row: UnsafeMutablePointer<UInt8>? = rgb.baseAddress
        while cinfo.pointee.next_scanline < cinfo.pointee.image_height {
            row = rgb.baseAddress! + Int(cinfo.pointee.next_scanline) * width * 3
            _ = jpeg_write_scanlines(cinfo, &row, 1)
        }
        jpeg_finish_compress(cinfo)
        output = Array(UnsafeBufferPointer(start: buffer.pointee, count: Int(size.pointee)))
    }
}
