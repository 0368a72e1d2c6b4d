//! Image files beside an environment's tables: [`ImageSpec`] says where
//! they are and what they hold, [`ImageSet`] holds their bytes, and
//! [`ImageDna`] is their shape in a task's DNA.
//!
//! An image task keeps MLE-bench's layout: `train.csv` holds the id and the
//! label, `test.csv` the ids, and every row's image is a file in one folder
//! of `public/` (both splits together, `public/images/<id>.png`). The
//! folder is covered by a manifest in `private/images.sha256` (one
//! `sha256  file` line per image, sorted by name), which `grading.json`
//! hashes like any other file — so `grading.json` stays small however many
//! images there are, and a changed, added or removed image is caught.
//!
//! The in-process tools decode PNG, JPEG and TIFF ([`crate::decode_image`]);
//! files of any format are kept byte for byte, hashed and shown to agents'
//! programs alike.

use crate::error::{Error, Result};
use crate::fsutil::sha256_hex;
use crate::png_io::{Pixels, encode_png};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// Largest number of image files one environment may hold.
pub const MAX_IMAGES: usize = 1_000_000;

/// Largest image file read, in bytes.
pub const MAX_IMAGE_BYTES: u64 = 16 * 1024 * 1024;

/// Where a task's images are and what they hold. Part of the public
/// [`crate::TaskSpec`]: an agent is told it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageSpec {
    /// The folder of `public/` holding every row's image (`images`): one
    /// plain name, no `/`.
    pub dir: String,
    /// Appended to a row's id to name its file: `.png`, or empty when the
    /// ids carry their own extension (`0a1b.jpg`).
    pub suffix: String,
    /// Width in pixels, when every image has the same.
    pub width: Option<u32>,
    /// Height in pixels, when every image has the same.
    pub height: Option<u32>,
    /// Channels: 1 grey, 3 RGB, 4 RGBA, when every image has the same.
    pub channels: Option<u8>,
    /// The column of `train.csv` and `test.csv` whose value names each
    /// row's file, when rows share files: the parts of one item, such as a
    /// recording's one row per (recording, label) pair. `None` (absent
    /// from `grading.json`): the id column, one file per row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_column: Option<String>,
}

impl ImageSpec {
    /// PNG files named `<id>.png` in `public/images/`, of one size.
    pub fn png(width: u32, height: u32, channels: u8) -> ImageSpec {
        ImageSpec {
            dir: "images".into(),
            suffix: ".png".into(),
            width: Some(width),
            height: Some(height),
            channels: Some(channels),
            key_column: None,
        }
    }

    /// The column whose value names each row's file:
    /// [`ImageSpec::key_column`], else the task's id column.
    ///
    /// ```
    /// let mut spec = sandmle_core::ImageSpec::png(8, 8, 1);
    /// assert_eq!(spec.key("id"), "id");
    /// spec.key_column = Some("rec_id".into());
    /// assert_eq!(spec.key("id"), "rec_id");
    /// ```
    pub fn key<'a>(&'a self, id_column: &'a str) -> &'a str {
        self.key_column.as_deref().unwrap_or(id_column)
    }

    /// The file name of the row with this key (its id, or its
    /// [`ImageSpec::key_column`] value), inside [`ImageSpec::dir`].
    pub fn file_name(&self, id: &str) -> String {
        format!("{id}{}", self.suffix)
    }

    /// The file's path relative to `public/` (`images/17.png`) of the row
    /// with this key.
    pub fn public_path(&self, id: &str) -> String {
        format!("{}/{}", self.dir, self.file_name(id))
    }

    /// Checks that the folder is one plain name and the suffix has no
    /// path separator.
    ///
    /// # Errors
    /// [`Error::InvalidEnvironment`] saying which.
    pub fn check(&self) -> Result<()> {
        if !is_plain_name(&self.dir) {
            return Err(Error::InvalidEnvironment {
                reason: format!("image folder `{}` is not a plain name", self.dir),
            });
        }
        if self.suffix.contains(['/', '\\', '\0']) {
            return Err(Error::InvalidEnvironment {
                reason: format!("image suffix `{}` holds a separator", self.suffix),
            });
        }
        Ok(())
    }
}

/// Whether `name` can be one file or folder name: not empty, not `.` or
/// `..`, no separator or NUL, not hidden.
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\', '\0'])
}

/// An environment's image files: file name inside [`ImageSpec::dir`] →
/// bytes, in name order.
///
/// Each file's sha256 is computed once, when first asked for
/// ([`ImageSet::sha256`], [`ImageSet::manifest`]). A file added from its
/// pixels ([`EncodedImage`]) keeps them, so the in-process tools read
/// them without decoding the PNG; two sets are equal when they hold the
/// same names and bytes.
#[derive(Debug, Clone, Default)]
pub struct ImageSet {
    files: BTreeMap<String, ImageFile>,
}

/// One file of an [`ImageSet`].
#[derive(Debug, Clone)]
struct ImageFile {
    bytes: Vec<u8>,
    sha256: OnceLock<String>,
    /// What the bytes decode to, when the set encoded them.
    pixels: Option<Arc<Pixels>>,
}

impl PartialEq for ImageSet {
    fn eq(&self, other: &ImageSet) -> bool {
        self.files.len() == other.files.len()
            && self.files.iter().zip(&other.files).all(|((n, a), (m, b))| n == m && a.bytes == b.bytes)
    }
}

impl Eq for ImageSet {}

/// An image encoded as a PNG ([`encode_png`]) with its pixels and its
/// sha256: made only here, so the three always agree.
#[derive(Debug, Clone)]
pub struct EncodedImage {
    bytes: Vec<u8>,
    sha256: String,
    pixels: Arc<Pixels>,
}

impl EncodedImage {
    /// Encodes `pixels`.
    ///
    /// # Errors
    /// As [`encode_png`].
    pub fn new(pixels: Pixels) -> Result<EncodedImage> {
        let bytes = encode_png(&pixels)?;
        let sha256 = sha256_hex(&bytes);
        Ok(EncodedImage { bytes, sha256, pixels: Arc::new(pixels) })
    }

    /// The PNG file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The sha256 of [`EncodedImage::bytes`], in hex.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// The pixels, which the bytes decode to.
    pub fn pixels(&self) -> &Pixels {
        &self.pixels
    }
}

impl ImageSet {
    /// No images.
    pub fn new() -> ImageSet {
        ImageSet::default()
    }

    /// Adds (or replaces) one file.
    ///
    /// # Errors
    /// [`Error::InvalidEnvironment`] if `name` is not a plain file name.
    pub fn insert(&mut self, name: impl Into<String>, bytes: Vec<u8>) -> Result<()> {
        self.insert_file(name.into(), ImageFile { bytes, sha256: OnceLock::new(), pixels: None })
    }

    /// Adds (or replaces) one file from its encoding, keeping its pixels
    /// and digest.
    ///
    /// # Errors
    /// As [`ImageSet::insert`].
    pub fn insert_encoded(&mut self, name: impl Into<String>, image: EncodedImage) -> Result<()> {
        let EncodedImage { bytes, sha256, pixels } = image;
        self.insert_file(name.into(), ImageFile { bytes, sha256: OnceLock::from(sha256), pixels: Some(pixels) })
    }

    fn insert_file(&mut self, name: String, file: ImageFile) -> Result<()> {
        if !is_plain_name(&name) {
            return Err(Error::InvalidEnvironment { reason: format!("image file name `{name}` is not a plain name") });
        }
        self.files.insert(name, file);
        Ok(())
    }

    /// One file's sha256, in hex (computed on first use).
    pub fn sha256(&self, name: &str) -> Option<&str> {
        self.files.get(name).map(|f| f.sha256.get_or_init(|| sha256_hex(&f.bytes)).as_str())
    }

    /// One file's pixels, when it was added from them
    /// ([`ImageSet::insert_encoded`]); `None` otherwise (decode its bytes).
    pub fn pixels(&self, name: &str) -> Option<&Pixels> {
        self.files.get(name).and_then(|f| f.pixels.as_deref())
    }

    /// One file's bytes.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.files.get(name).map(|f| f.bytes.as_slice())
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// `true` when there are no files.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// `(name, bytes)` in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files.iter().map(|(n, f)| (n.as_str(), f.bytes.as_slice()))
    }

    /// Total bytes.
    pub fn total_bytes(&self) -> usize {
        self.files.values().map(|f| f.bytes.len()).sum()
    }

    /// Only the files whose names are in `names` (the images of the rows a
    /// shrink keeps).
    pub fn retain_names<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> ImageSet {
        let files = names
            .into_iter()
            .filter_map(|n| self.files.get_key_value(n).map(|(k, v)| (k.clone(), v.clone())))
            .collect();
        ImageSet { files }
    }

    /// The manifest: one `sha256  name` line per file, in name order (the
    /// format `sha256sum -c` reads, run inside the image folder).
    pub fn manifest(&self) -> Vec<u8> {
        let mut out = String::with_capacity(self.files.len() * 80);
        for name in self.files.keys() {
            out.push_str(self.sha256(name).unwrap_or_default());
            out.push_str("  ");
            out.push_str(name);
            out.push('\n');
        }
        out.into_bytes()
    }
}

/// Parses a manifest written by [`ImageSet::manifest`]: name → sha256.
///
/// # Errors
/// [`Error::InvalidEnvironment`] for a malformed line, an unsafe or
/// repeated name, or more than [`MAX_IMAGES`] lines.
pub fn parse_manifest(bytes: &[u8]) -> Result<BTreeMap<String, String>> {
    let bad = |reason: String| Error::InvalidEnvironment { reason: format!("images.sha256: {reason}") };
    let text = std::str::from_utf8(bytes).map_err(|_| bad("not UTF-8".into()))?;
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if out.len() >= MAX_IMAGES {
            return Err(bad(format!("more than {MAX_IMAGES} images")));
        }
        let (hash, name) = line.split_once("  ").ok_or_else(|| bad(format!("line {} is not `sha256  name`", i + 1)))?;
        if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad(format!("line {} has no sha256", i + 1)));
        }
        if !is_plain_name(name) {
            return Err(bad(format!("line {} names `{name}`, not a plain file name", i + 1)));
        }
        if out.insert(name.to_string(), hash.to_ascii_lowercase()).is_some() {
            return Err(bad(format!("`{name}` is listed twice")));
        }
    }
    Ok(out)
}

/// The images of a task's DNA: their shape, without their content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageDna {
    /// Width in pixels (the median width when they differ).
    pub width: u32,
    /// Height in pixels (the median height when they differ).
    pub height: u32,
    /// Channels: 1 grey, 3 RGB, 4 RGBA.
    pub channels: u8,
    /// Mean pixel intensity over all images and channels, in `[0, 1]`.
    pub mean_intensity: f64,
    /// Standard deviation of the pixel intensity, in `[0, 1]`.
    pub sd_intensity: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file added from its pixels keeps pixels its bytes decode to and
    /// the digest of its bytes; a set equals one holding the same bytes
    /// read back, and a replaced file forgets the old pixels and digest.
    #[test]
    fn encoded_images_keep_what_their_bytes_decode_to() {
        for channels in [1u8, 3, 4] {
            let data = (0..6 * 4 * usize::from(channels)).map(|i| (i * 29 % 256) as u8).collect();
            let pixels = Pixels { width: 6, height: 4, channels, data };
            let image = EncodedImage::new(pixels.clone()).unwrap();
            assert_eq!(crate::png_io::decode_png(image.bytes(), "x").unwrap(), pixels);
            assert_eq!(image.sha256(), sha256_hex(image.bytes()));
            let mut set = ImageSet::new();
            set.insert_encoded("x.png", image.clone()).unwrap();
            assert_eq!(set.pixels("x.png"), Some(&pixels));
            assert_eq!(set.sha256("x.png"), Some(image.sha256()));
            let mut read = ImageSet::new();
            read.insert("x.png", image.bytes().to_vec()).unwrap();
            assert_eq!(read.pixels("x.png"), None, "bytes alone are decoded by the reader");
            assert_eq!(read.sha256("x.png"), Some(image.sha256()));
            assert_eq!(set, read);
            assert_eq!(set.manifest(), read.manifest());
            set.insert("x.png", vec![1, 2, 3]).unwrap();
            assert_eq!((set.pixels("x.png"), set.sha256("x.png")), (None, Some(sha256_hex(&[1, 2, 3]).as_str())));
            assert_ne!(set, read);
        }
    }

    #[test]
    fn manifest_round_trips_and_refuses_unsafe_names() {
        let mut set = ImageSet::new();
        set.insert("b.png", vec![1, 2]).unwrap();
        set.insert("a.png", vec![3]).unwrap();
        let parsed = parse_manifest(&set.manifest()).unwrap();
        assert_eq!(parsed.keys().collect::<Vec<_>>(), ["a.png", "b.png"]);
        assert_eq!(parsed["a.png"], sha256_hex(&[3]));
        assert!(set.insert("../answers.csv", vec![]).is_err());
        assert!(set.insert(".hidden", vec![]).is_err());
        let hostile = format!("{}  ../../private/answers.csv\n", "0".repeat(64));
        assert!(parse_manifest(hostile.as_bytes()).is_err());
        let twice = format!("{h}  a.png\n{h}  a.png\n", h = "0".repeat(64));
        assert!(parse_manifest(twice.as_bytes()).is_err());
    }

    #[test]
    fn spec_refuses_a_folder_that_is_a_path() {
        let mut spec = ImageSpec::png(32, 32, 3);
        assert!(spec.check().is_ok());
        spec.dir = "../private".into();
        assert!(spec.check().is_err());
        spec.dir = "images".into();
        spec.suffix = "/x".into();
        assert!(spec.check().is_err());
    }
}
