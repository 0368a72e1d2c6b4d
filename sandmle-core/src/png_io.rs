//! PNG in and out: [`encode_png`] with fixed settings, so the same pixels
//! give the same bytes on every run and machine, and [`decode_png`] for
//! any 8- or 16-bit PNG an imported competition holds.
//!
//! The encoder writes 8-bit grey, RGB or RGBA with no row filter and
//! stored (uncompressed) deflate blocks, and no ancillary chunk (no time,
//! text or gamma): a file's size is a function of its width, height and
//! channels alone, so neither its size nor its metadata can carry a label.
//! Any PNG decoder reads these files, Python's `zlib` included.

use crate::error::{Error, Result};

/// Largest width or height decoded, in pixels.
pub const MAX_IMAGE_SIDE: u32 = 8192;

/// The most bytes one image may decode to: 64 MiB (a 4096 x 4096 RGBA
/// image). A small file can decode to far more (a PNG of one colour
/// compresses a thousandfold), so the budget is on the decoded size.
pub const MAX_DECODED_BYTES: u64 = 64 << 20;

/// Decoded pixels: 8 bits per sample, row-major, channels interleaved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pixels {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// 1 grey, 2 grey + alpha, 3 RGB, 4 RGBA.
    pub channels: u8,
    /// `width * height * channels` samples.
    pub data: Vec<u8>,
}

impl Pixels {
    /// The sample of channel `c` at `(x, y)`.
    pub fn at(&self, x: u32, y: u32, c: u8) -> u8 {
        let i = (y as usize * self.width as usize + x as usize) * self.channels as usize + c as usize;
        self.data.get(i).copied().unwrap_or(0)
    }
}

fn bad(what: &str, reason: impl std::fmt::Display) -> Error {
    Error::InvalidEnvironment { reason: format!("{what}: {reason}") }
}

/// Encodes 8-bit pixels as a PNG with fixed settings (see the module
/// docs).
///
/// # Errors
/// [`Error::InvalidEnvironment`] if `channels` is not 1, 3 or 4, a side is
/// zero or over [`MAX_IMAGE_SIDE`], or `data` has the wrong length.
pub fn encode_png(pixels: &Pixels) -> Result<Vec<u8>> {
    let Pixels { width, height, channels, data } = pixels;
    let color = match channels {
        1 => png::ColorType::Grayscale,
        3 => png::ColorType::Rgb,
        4 => png::ColorType::Rgba,
        c => return Err(bad("PNG encoding", format!("{c} channels (1, 3 or 4 are written)"))),
    };
    if *width == 0 || *height == 0 || *width > MAX_IMAGE_SIDE || *height > MAX_IMAGE_SIDE {
        return Err(bad("PNG encoding", format!("size {width}x{height}")));
    }
    if data.len() != *width as usize * *height as usize * *channels as usize {
        return Err(bad("PNG encoding", format!("{} samples for {width}x{height}x{channels}", data.len())));
    }
    let mut out = Vec::with_capacity(data.len() + *height as usize * 8 + 128);
    {
        let mut enc = png::Encoder::new(&mut out, *width, *height);
        enc.set_color(color);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::NoCompression);
        enc.set_filter(png::Filter::NoFilter);
        let mut writer = enc.write_header().map_err(|e| bad("PNG encoding", e))?;
        writer.write_image_data(data).map_err(|e| bad("PNG encoding", e))?;
        writer.finish().map_err(|e| bad("PNG encoding", e))?;
    }
    Ok(out)
}

/// Decodes a PNG into 8-bit samples: palettes expanded, 16-bit samples
/// cut to their high byte, bit depths under 8 scaled up.
///
/// # Errors
/// [`Error::InvalidEnvironment`] naming `what` (a file name) if the bytes
/// are not a PNG this decoder reads, or a side is over
/// [`MAX_IMAGE_SIDE`], or it would decode to more than
/// [`MAX_DECODED_BYTES`] (checked from its header, before anything is
/// allocated for its pixels).
pub fn decode_png(bytes: &[u8], what: &str) -> Result<Pixels> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    decoder.set_limits(png::Limits { bytes: 64 * 1024 * 1024 });
    let mut reader = decoder.read_info().map_err(|e| bad(what, format!("not a readable PNG ({e})")))?;
    let (width, height) = (reader.info().width, reader.info().height);
    if width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
        return Err(bad(what, format!("a {width}x{height} image is over the limit of {MAX_IMAGE_SIDE}")));
    }
    let size = reader.output_buffer_size().ok_or_else(|| bad(what, "image too large"))?;
    if size as u64 > MAX_DECODED_BYTES {
        return Err(bad(
            what,
            format!("a {width}x{height} image decodes to {size} bytes, over the budget of {MAX_DECODED_BYTES}"),
        ));
    }
    let mut data = vec![0; size];
    let frame = reader.next_frame(&mut data).map_err(|e| bad(what, format!("not a readable PNG ({e})")))?;
    let channels = match frame.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Err(bad(what, "an unexpanded palette")),
    };
    data.truncate(frame.buffer_size());
    if frame.bit_depth != png::BitDepth::Eight {
        return Err(bad(what, format!("bit depth {:?} after expansion", frame.bit_depth)));
    }
    Ok(Pixels { width: frame.width, height: frame.height, channels, data })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_sizes_depend_on_shape_alone() {
        let a = Pixels { width: 5, height: 3, channels: 3, data: (0..45).map(|i| (i * 5) as u8).collect() };
        let b = Pixels { data: vec![7; 45], ..a.clone() };
        let (ea, eb) = (encode_png(&a).unwrap(), encode_png(&b).unwrap());
        assert_eq!(decode_png(&ea, "a").unwrap(), a);
        assert_eq!(ea.len(), eb.len(), "a file's size must not depend on its content");
        assert_eq!(ea, encode_png(&a).unwrap());
    }

    /// An 8192 x 8192 RGBA PNG of one colour is a file of a few hundred
    /// kilobytes that decoded to 256 MiB on import; the budget refuses a
    /// file past it from its header.
    #[test]
    fn an_image_decoding_past_the_budget_is_refused_from_its_header() {
        let (w, h) = (4100u32, 4100u32);
        let mut file = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut file, w, h);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            enc.set_compression(png::Compression::Fast);
            let mut writer = enc.write_header().unwrap();
            writer.write_image_data(&vec![0u8; (w * h * 4) as usize]).unwrap();
        }
        assert!(file.len() < (4 << 20), "a small file: {}", file.len());
        let e = decode_png(&file, "big.png").unwrap_err().to_string();
        assert!(e.contains("over the budget"), "{e}");
    }

    #[test]
    fn refuses_garbage_and_bad_shapes() {
        assert!(decode_png(b"not a png", "x.png").is_err());
        assert!(encode_png(&Pixels { width: 2, height: 2, channels: 2, data: vec![0; 8] }).is_err());
        assert!(encode_png(&Pixels { width: 2, height: 2, channels: 1, data: vec![0; 3] }).is_err());
    }
}
