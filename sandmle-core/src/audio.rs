//! Audio clips, the rows of an audio task: [`decode_audio`] reads WAV and
//! AIFF (AIFF-C uncompressed included) into one [`Clip`] of mono samples,
//! choosing the reader from the file's first bytes ([`AudioFormat::sniff`]).
//!
//! Decoding is `symphonia`'s (its RIFF/AIFF readers and PCM codecs: 8-,
//! 16-, 24- and 32-bit integer and 32- and 64-bit float samples, A-law and
//! mu-law). Samples are scaled to `[-1, 1]` and the channels averaged.
//! A clip decoding to more than [`MAX_AUDIO_SAMPLES`] samples (all
//! channels together) is refused as it is read. An environment keeps
//! every file's original bytes: decoding is for the in-process tools.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::DecoderOptions;
use symphonia::core::formats::FormatOptions;
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;

/// The most samples (all channels together) one clip may decode to: 32 Mi,
/// ten minutes of stereo at 44.1 kHz.
pub const MAX_AUDIO_SAMPLES: usize = 32 << 20;

/// An audio file format the in-process tools decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum AudioFormat {
    /// RIFF WAVE.
    Wav,
    /// AIFF or AIFF-C.
    Aiff,
}

impl AudioFormat {
    /// The format whose signature `bytes` start with, if any.
    pub fn sniff(bytes: &[u8]) -> Option<AudioFormat> {
        match (bytes.get(..4), bytes.get(8..12)) {
            (Some(b"RIFF"), Some(b"WAVE")) => Some(AudioFormat::Wav),
            (Some(b"FORM"), Some(b"AIFF" | b"AIFC")) => Some(AudioFormat::Aiff),
            _ => None,
        }
    }

    /// The format's usual file extension, with its dot (`.wav`).
    pub fn extension(self) -> &'static str {
        match self {
            AudioFormat::Wav => ".wav",
            AudioFormat::Aiff => ".aiff",
        }
    }
}

/// A decoded clip.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    /// Samples a second.
    pub sample_rate: u32,
    /// The file's channels (the samples are their average).
    pub channels: u16,
    /// Mono samples in `[-1, 1]`, in time order.
    pub samples: Vec<f32>,
}

impl Clip {
    /// The clip's length in seconds.
    pub fn seconds(&self) -> f64 {
        self.samples.len() as f64 / f64::from(self.sample_rate.max(1))
    }
}

/// The shape of a task's clips, as its DNA records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AudioDna {
    /// Samples a second (the most common rate).
    pub sample_rate: u32,
    /// The median clip length, in seconds.
    pub seconds: f64,
    /// The median root-mean-square level, in `[0, 1]`.
    pub rms: f64,
}

/// A 16-bit PCM mono WAV file of `samples` (clipped to `[-1, 1]`, scaled
/// by 32,767 and rounded half away from zero): a 44-byte header and the
/// samples, little-endian. The same samples give the same bytes.
///
/// # Errors
/// [`Error::InvalidEnvironment`] for a clip too long for one WAV file
/// (its data past 4 GiB) or a sample rate of 0.
pub fn encode_wav(samples: &[f32], sample_rate: u32) -> Result<Vec<u8>> {
    let data_len = u32::try_from(samples.len() * 2)
        .ok()
        .filter(|n| n.checked_add(36).is_some())
        .ok_or_else(|| bad("WAV", "clip too long for one file"))?;
    if sample_rate == 0 {
        return Err(bad("WAV", "a sample rate of 0"));
    }
    let mut out = Vec::with_capacity(44 + samples.len() * 2);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data_len).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&sample_rate.to_le_bytes());
    out.extend_from_slice(&(sample_rate.saturating_mul(2)).to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data_len.to_le_bytes());
    for &x in samples {
        let v = (f64::from(x).clamp(-1.0, 1.0) * 32767.0).round() as i16;
        out.extend_from_slice(&v.to_le_bytes());
    }
    Ok(out)
}

fn bad(what: &str, reason: impl std::fmt::Display) -> Error {
    Error::InvalidEnvironment { reason: format!("{what}: {reason}") }
}

/// Decodes a WAV or AIFF file into mono samples (see the module docs).
///
/// # Errors
/// [`Error::InvalidEnvironment`] naming `what` (a file name) if the bytes
/// are neither format, are corrupt, hold no audio track, or decode past
/// [`MAX_AUDIO_SAMPLES`].
pub fn decode_audio(bytes: &[u8], what: &str) -> Result<Clip> {
    // The decoder asserts on some malformed headers (an AIFF sample rate of
    // 0 makes a time base of 0) instead of returning an error: such a file
    // is refused like any unreadable one.
    std::panic::catch_unwind(|| decode(bytes, what))
        .unwrap_or_else(|_| Err(bad(what, "not a readable audio file (its header is malformed)")))
}

fn decode(bytes: &[u8], what: &str) -> Result<Clip> {
    let format = AudioFormat::sniff(bytes)
        .ok_or_else(|| bad(what, "not a WAV or AIFF file (its first bytes are no audio signature)"))?;
    let name = match format {
        AudioFormat::Wav => "WAV",
        AudioFormat::Aiff => "AIFF",
    };
    let unreadable = |e: symphonia::core::errors::Error| bad(what, format!("not a readable {name} ({e})"));
    let stream = MediaSourceStream::new(Box::new(std::io::Cursor::new(bytes.to_vec())), Default::default());
    let mut hint = Hint::new();
    hint.with_extension(match format {
        AudioFormat::Wav => "wav",
        AudioFormat::Aiff => "aiff",
    });
    let probed = symphonia::default::get_probe()
        .format(&hint, stream, &FormatOptions::default(), &MetadataOptions::default())
        .map_err(unreadable)?;
    let mut reader = probed.format;
    let track = reader.default_track().ok_or_else(|| bad(what, "no audio track"))?;
    let (track_id, params) = (track.id, track.codec_params.clone());
    let sample_rate = params.sample_rate.ok_or_else(|| bad(what, "no sample rate"))?;
    let mut decoder = symphonia::default::get_codecs().make(&params, &DecoderOptions::default()).map_err(unreadable)?;
    let mut channels = params.channels.map_or(0, |c| c.count() as u16);
    let mut samples: Vec<f32> = Vec::new();
    let mut buffer: Option<SampleBuffer<f32>> = None;
    loop {
        let packet = match reader.next_packet() {
            Ok(p) => p,
            Err(symphonia::core::errors::Error::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(unreadable(e)),
        };
        if packet.track_id() != track_id {
            continue;
        }
        let decoded = decoder.decode(&packet).map_err(unreadable)?;
        let spec = *decoded.spec();
        let n = spec.channels.count().max(1);
        channels = n as u16;
        let frames = decoded.frames();
        if samples.len() + frames > MAX_AUDIO_SAMPLES / n {
            return Err(bad(what, format!("a clip over the budget of {MAX_AUDIO_SAMPLES} samples")));
        }
        let buf = match &mut buffer {
            Some(b) if b.capacity() >= decoded.capacity() * n => b,
            slot => slot.insert(SampleBuffer::new(decoded.capacity() as u64, spec)),
        };
        buf.copy_interleaved_ref(decoded);
        let scale = 1.0 / n as f32;
        samples.extend(buf.samples().chunks_exact(n).map(|frame| frame.iter().sum::<f32>() * scale));
    }
    if samples.is_empty() {
        return Err(bad(what, format!("a {name} file with no samples")));
    }
    Ok(Clip { sample_rate, channels, samples })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 16-bit PCM WAV file of `frames` stereo frames (left rising, right
    /// its negation).
    fn wav(frames: u32) -> Vec<u8> {
        let data_len = frames * 4;
        let mut f = Vec::new();
        f.extend(b"RIFF");
        f.extend((36 + data_len).to_le_bytes());
        f.extend(b"WAVEfmt ");
        f.extend(16u32.to_le_bytes());
        f.extend(1u16.to_le_bytes());
        f.extend(2u16.to_le_bytes());
        f.extend(8000u32.to_le_bytes());
        f.extend((8000u32 * 4).to_le_bytes());
        f.extend(4u16.to_le_bytes());
        f.extend(16u16.to_le_bytes());
        f.extend(b"data");
        f.extend(data_len.to_le_bytes());
        for i in 0..frames {
            let v = (i as i16).wrapping_mul(100);
            f.extend(v.to_le_bytes());
            f.extend(v.wrapping_neg().to_le_bytes());
        }
        f
    }

    #[test]
    fn sniffs_wav_and_aiff() {
        assert_eq!(AudioFormat::sniff(&wav(4)), Some(AudioFormat::Wav));
        assert_eq!(AudioFormat::sniff(b"FORM\0\0\0\x10AIFC"), Some(AudioFormat::Aiff));
        assert_eq!(AudioFormat::sniff(b"OggS"), None);
    }

    #[test]
    fn stereo_is_averaged_to_mono() {
        let clip = decode_audio(&wav(100), "a.wav").unwrap();
        assert_eq!((clip.sample_rate, clip.channels, clip.samples.len()), (8000, 2, 100));
        assert!(clip.samples.iter().all(|&s| s.abs() < 1e-6), "left and right cancel");
    }

    #[test]
    fn garbage_is_an_error_naming_the_file() {
        let mut file = wav(100);
        file.truncate(30);
        let e = decode_audio(&file, "train/3.wav").unwrap_err().to_string();
        assert!(e.contains("train/3.wav"), "{e}");
    }
}
