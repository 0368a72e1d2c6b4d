//! JPEG and TIFF decoding checked against Pillow: the fixtures and the
//! samples Pillow decodes from them were written by
//! `tests/fixtures/images/make.py`.

use sandmle_core::{ImageFormat, decode_image};
use serde_json::Value;
use std::path::Path;

fn fixtures() -> (std::path::PathBuf, Value) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/images");
    let json = std::fs::read_to_string(dir.join("pillow.json")).unwrap();
    (dir, serde_json::from_str(&json).unwrap())
}

fn samples(v: &Value) -> Vec<i64> {
    v.as_array().unwrap().iter().map(|s| s.as_i64().unwrap()).collect()
}

/// Lossless files decode to Pillow's samples exactly; JPEGs to within the
/// rounding of two IDCT and upsampling implementations (libjpeg-turbo's
/// and zune-jpeg's).
#[test]
fn every_fixture_decodes_as_pillow_decodes_it() {
    let (dir, pillow) = fixtures();
    for (name, want) in pillow["files"].as_object().unwrap() {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let px = decode_image(&bytes, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(u64::from(px.width), want["width"].as_u64().unwrap(), "{name}");
        assert_eq!(u64::from(px.height), want["height"].as_u64().unwrap(), "{name}");
        let got: Vec<i64> = px.data.iter().map(|&s| i64::from(s)).collect();
        if let Some(raw) = want.get("samples16") {
            // 16-bit samples scale to 8 bits: v * 255 / 65535, rounded.
            let expected: Vec<i64> = samples(raw).iter().map(|v| (v * 255 + 32767) / 65535).collect();
            assert_eq!(px.channels, 1, "{name}");
            let worst = got.iter().zip(&expected).map(|(a, b)| (a - b).abs()).max().unwrap();
            assert!(worst <= 1, "{name}: a sample {worst} levels from v*255/65535");
            continue;
        }
        assert_eq!(i64::from(px.channels), want["channels"].as_i64().unwrap(), "{name}");
        let expected = samples(&want["samples"]);
        assert_eq!(got.len(), expected.len(), "{name}");
        if name.ends_with(".tif") {
            assert_eq!(got, expected, "{name}: a lossless file decodes exactly");
        } else {
            let diffs: Vec<i64> = got.iter().zip(&expected).map(|(a, b)| (a - b).abs()).collect();
            let worst = *diffs.iter().max().unwrap();
            let mean = diffs.iter().sum::<i64>() as f64 / diffs.len() as f64;
            // Chroma subsampled 4:2:0 (Pillow's default, progressive
            // included) is upsampled by each library's own filter: measured
            // worst 8 levels, mean 0.49. Full chroma and grey: worst 1.
            let (max_worst, max_mean) =
                if name.contains("420") || name.starts_with("progressive") { (8, 0.6) } else { (2, 0.05) };
            assert!(worst <= max_worst && mean < max_mean, "{name}: worst {worst}, mean {mean:.3} from Pillow");
        }
    }
}

#[test]
fn formats_are_known_by_their_bytes_whatever_the_name() {
    let (dir, _) = fixtures();
    let jpeg = std::fs::read(dir.join("rgb_420.jpg")).unwrap();
    let tiff = std::fs::read(dir.join("rgb.tif")).unwrap();
    assert_eq!(ImageFormat::sniff(&jpeg), Some(ImageFormat::Jpeg));
    assert_eq!(ImageFormat::sniff(&tiff), Some(ImageFormat::Tiff));
    // A JPEG named .png decodes as the JPEG it is.
    assert_eq!(decode_image(&jpeg, "mislabelled.png").unwrap().width, 24);
}

#[test]
fn a_corrupt_tiff_names_its_file() {
    let (dir, _) = fixtures();
    let mut tiff = std::fs::read(dir.join("rgb_lzw.tif")).unwrap();
    tiff.truncate(40);
    let e = decode_image(&tiff, "train/17.tif").unwrap_err().to_string();
    assert!(e.contains("train/17.tif") && e.contains("TIFF"), "{e}");
}
