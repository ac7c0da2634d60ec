// A picture reduced in the browser to what the server's print needs, sent as RGBA pixels: the
// server decodes no file format it did not have to, and the upload stays small.

/** The longest side the picture is reduced to. */
const longestSide = 512;

/** The proto3 JSON of a PixelBuffer holding `source` (an ImageBitmap, image or video frame). */
export function pixelBufferOf(source) {
  const width = source.videoWidth || source.width;
  const height = source.videoHeight || source.height;
  const scale = Math.min(1, longestSide / Math.max(width, height));
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  const context = canvas.getContext("2d");
  context.drawImage(source, 0, 0, canvas.width, canvas.height);
  const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
  return {
    width: canvas.width,
    height: canvas.height,
    bytesPerRow: canvas.width * 4,
    format: "PIXEL_FORMAT_RGBA8",
    data: base64(pixels),
  };
}

function base64(bytes) {
  let binary = "";
  const step = 0x8000; // String.fromCharCode takes a bounded number of arguments
  for (let start = 0; start < bytes.length; start += step) {
    binary += String.fromCharCode.apply(null, bytes.subarray(start, start + step));
  }
  return btoa(binary);
}
