//! WAV and AIFF decoding checked against the samples Python's own writers
//! (`wave`, `aifc`, scipy's `wavfile`) were given: the fixtures and
//! `reference.json` were written by `tests/fixtures/audio/make.py`.

use sandmle_core::{AudioFormat, decode_audio};
use std::path::Path;

#[test]
fn every_fixture_decodes_to_the_samples_it_was_written_from() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audio");
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("reference.json")).unwrap()).unwrap();
    let files = reference.as_object().unwrap();
    assert_eq!(files.len(), 5);
    for (name, want) in files {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let expected_format = if name.ends_with(".aiff") { AudioFormat::Aiff } else { AudioFormat::Wav };
        assert_eq!(AudioFormat::sniff(&bytes), Some(expected_format), "{name}");
        let clip = decode_audio(&bytes, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(u64::from(clip.sample_rate), want["rate"].as_u64().unwrap(), "{name}");
        assert_eq!(u64::from(clip.channels), want["channels"].as_u64().unwrap(), "{name}");
        let mono: Vec<f64> = want["mono"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(clip.samples.len(), mono.len(), "{name}");
        let worst = clip.samples.iter().zip(&mono).map(|(a, b)| (f64::from(*a) - b).abs()).fold(0.0, f64::max);
        // f32 holds a 16-bit sample's scaled value exactly; the average of
        // two channels and float32 files to f32's precision.
        assert!(worst < 1e-6, "{name}: a sample {worst} from the written one");
    }
}
