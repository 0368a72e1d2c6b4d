//! Images in the formats competitions ship: [`decode_image`] reads PNG,
//! JPEG and TIFF into the same 8-bit [`Pixels`], choosing the decoder from
//! the file's first bytes ([`ImageFormat::sniff`]), never from its name.
//!
//! PNG goes through [`decode_png`]; JPEG and TIFF through the `image`
//! crate's decoders (`zune-jpeg` and `tiff`), with the same limits: a
//! side over [`MAX_IMAGE_SIDE`] or a decoded size over
//! [`MAX_DECODED_BYTES`] is refused before the pixels are allocated.
//! Samples wider than 8 bits are scaled to 8 (`v * 255 / max`), floating
//! point samples clamped to `[0, 1]` then scaled, CMYK JPEGs converted to
//! RGB. An environment keeps every file's original bytes: decoding is for
//! the in-process tools (image features, DNA), never for what agents see.

use crate::error::{Error, Result};
use crate::png_io::{MAX_DECODED_BYTES, MAX_IMAGE_SIDE, Pixels, decode_png};
use serde::{Deserialize, Serialize};

/// An image file format the in-process tools decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ImageFormat {
    /// Portable Network Graphics.
    Png,
    /// JPEG (JFIF or Exif), baseline or progressive.
    Jpeg,
    /// TIFF, little- or big-endian.
    Tiff,
}

impl ImageFormat {
    /// The format whose signature `bytes` start with, if any.
    pub fn sniff(bytes: &[u8]) -> Option<ImageFormat> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageFormat::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(ImageFormat::Jpeg)
        } else if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") {
            Some(ImageFormat::Tiff)
        } else {
            None
        }
    }

    /// The format's usual file extension, with its dot (`.jpg`).
    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Png => ".png",
            ImageFormat::Jpeg => ".jpg",
            ImageFormat::Tiff => ".tif",
        }
    }
}

impl std::fmt::Display for ImageFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ImageFormat::Png => "PNG",
            ImageFormat::Jpeg => "JPEG",
            ImageFormat::Tiff => "TIFF",
        })
    }
}

fn bad(what: &str, reason: impl std::fmt::Display) -> Error {
    Error::InvalidEnvironment { reason: format!("{what}: {reason}") }
}

/// Decodes a PNG, JPEG or TIFF file into 8-bit samples (see the module
/// docs).
///
/// # Errors
/// [`Error::InvalidEnvironment`] naming `what` (a file name) if the bytes
/// are none of the three formats, are corrupt, or are over the limits.
pub fn decode_image(bytes: &[u8], what: &str) -> Result<Pixels> {
    let format = ImageFormat::sniff(bytes)
        .ok_or_else(|| bad(what, "not a PNG, JPEG or TIFF file (its first bytes are no image signature)"))?;
    let codec = match format {
        ImageFormat::Png => return decode_png(bytes, what),
        ImageFormat::Jpeg => image::ImageFormat::Jpeg,
        ImageFormat::Tiff => image::ImageFormat::Tiff,
    };
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), codec);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(MAX_DECODED_BYTES);
    reader.limits(limits);
    let decoded = reader.decode().map_err(|e| match e {
        image::ImageError::Limits(_) => bad(
            what,
            format!(
                "a {format} image over the limits ({MAX_IMAGE_SIDE} pixels a side, {MAX_DECODED_BYTES} bytes decoded)"
            ),
        ),
        other => bad(what, format!("not a readable {format} ({other})")),
    })?;
    let (width, height) = (decoded.width(), decoded.height());
    let color = decoded.color();
    let (channels, data) = match (color.has_color(), color.has_alpha()) {
        (false, false) => (1, decoded.into_luma8().into_raw()),
        (false, true) => (2, decoded.into_luma_alpha8().into_raw()),
        (true, false) => (3, decoded.into_rgb8().into_raw()),
        (true, true) => (4, decoded.into_rgba8().into_raw()),
    };
    Ok(Pixels { width, height, channels, data })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(format: image::ImageFormat, img: image::DynamicImage) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, format).unwrap();
        out.into_inner()
    }

    #[test]
    fn sniffs_formats_from_their_signatures_not_names() {
        assert_eq!(ImageFormat::sniff(b"\x89PNG\r\n\x1a\nrest"), Some(ImageFormat::Png));
        assert_eq!(ImageFormat::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), Some(ImageFormat::Jpeg));
        assert_eq!(ImageFormat::sniff(b"II*\0...."), Some(ImageFormat::Tiff));
        assert_eq!(ImageFormat::sniff(b"MM\0*...."), Some(ImageFormat::Tiff));
        assert_eq!(ImageFormat::sniff(b"GIF89a"), None);
        assert!(decode_image(b"GIF89a....", "x.gif").unwrap_err().to_string().contains("x.gif"));
    }

    #[test]
    fn sixteen_bit_tiff_is_scaled_to_eight_bits() {
        let img =
            image::ImageBuffer::<image::Luma<u16>, _>::from_fn(3, 2, |x, y| image::Luma([(x + 3 * y) as u16 * 13107]));
        let file = encoded(image::ImageFormat::Tiff, image::DynamicImage::ImageLuma16(img));
        let px = decode_image(&file, "a.tif").unwrap();
        assert_eq!((px.width, px.height, px.channels), (3, 2, 1));
        assert_eq!(px.data, vec![0, 51, 102, 153, 204, 255]);
    }

    #[test]
    fn a_truncated_jpeg_is_an_error_naming_the_file() {
        let e = decode_image(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 16], "cat.1.jpg").unwrap_err().to_string();
        assert!(e.contains("cat.1.jpg") && e.contains("JPEG"), "{e}");
    }
}
