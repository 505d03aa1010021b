import type { ImageMimeType } from "./image-source.js";

// An image's size in pixels, read from its header only (no decoding): "a one-line text saying
// what it is (type, size, dimensions if cheap to read from the header)". Anything unexpected
// gives undefined, never a throw: the dimensions are a courtesy, not a check of the file.

export interface ImageDimensions {
  width: number;
  height: number;
}

const ascii = (bytes: Uint8Array, at: number, length: number) =>
  String.fromCharCode(...bytes.subarray(at, at + length));

function sized(width: number, height: number): ImageDimensions | undefined {
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** PNG: the first chunk is IHDR, whose data starts with the width and height (big-endian). */
function pngDimensions(view: DataView, bytes: Uint8Array): ImageDimensions | undefined {
  if (bytes.length < 24 || ascii(bytes, 12, 4) !== "IHDR") return undefined;
  return sized(view.getUint32(16), view.getUint32(20));
}

/** GIF: the logical screen size follows the 6-byte signature (little-endian). */
function gifDimensions(view: DataView, bytes: Uint8Array): ImageDimensions | undefined {
  if (bytes.length < 10) return undefined;
  return sized(view.getUint16(6, true), view.getUint16(8, true));
}

/** WebP: lossy (VP8), lossless (VP8L) and extended (VP8X) files keep the size in different places. */
function webpDimensions(view: DataView, bytes: Uint8Array): ImageDimensions | undefined {
  if (bytes.length < 16) return undefined;
  switch (ascii(bytes, 12, 4)) {
    case "VP8 ":
      // The key frame's start code, then 14-bit width and height.
      if (bytes.length < 30 || bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a)
        return undefined;
      return sized(view.getUint16(26, true) & 0x3fff, view.getUint16(28, true) & 0x3fff);
    case "VP8L": {
      if (bytes.length < 25 || bytes[20] !== 0x2f) return undefined;
      const bits = view.getUint32(21, true);
      return sized((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
    }
    case "VP8X": {
      if (bytes.length < 30) return undefined;
      const width = (bytes[24] ?? 0) | ((bytes[25] ?? 0) << 8) | ((bytes[26] ?? 0) << 16);
      const height = (bytes[27] ?? 0) | ((bytes[28] ?? 0) << 8) | ((bytes[29] ?? 0) << 16);
      return sized(width + 1, height + 1);
    }
    default:
      return undefined;
  }
}

/** JPEG start-of-frame markers (every SOFn except DHT C4, JPG C8 and DAC CC). */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** JPEG: walk the marker segments up to the first start-of-frame, which holds height then width. */
function jpegDimensions(view: DataView, bytes: Uint8Array): ImageDimensions | undefined {
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1] ?? 0;
    // Fill bytes, and markers that stand alone without a length.
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      at += 2;
      continue;
    }
    // Start of scan or end of image before any frame header: nothing to read.
    if (marker === 0xda || marker === 0xd9) return undefined;
    const length = view.getUint16(at + 2);
    if (length < 2) return undefined;
    if (isStartOfFrame(marker)) {
      if (at + 9 > bytes.length) return undefined;
      return sized(view.getUint16(at + 7), view.getUint16(at + 5));
    }
    at += 2 + length;
  }
  return undefined;
}

/** The width and height of an image of a sniffed type, when its header says so plainly. */
export function imageDimensions(bytes: Uint8Array, mimeType: ImageMimeType): ImageDimensions | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (mimeType) {
    case "image/png":
      return pngDimensions(view, bytes);
    case "image/gif":
      return gifDimensions(view, bytes);
    case "image/webp":
      return webpDimensions(view, bytes);
    case "image/jpeg":
      return jpegDimensions(view, bytes);
  }
}
