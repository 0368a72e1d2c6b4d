//! Audio tasks: DNA from WAV clips, synthesis of audio environments, their
//! determinism, and a panel that learns the hidden rule from the clips.

use sandmle_core::{
    AudioDna, BaselinePanel, Column, Environment, GradingSpec, ImageSet, ImageSpec, MetricSpec, Modality, Provenance,
    Table, TaskKind, TaskSpec, WriteOptions, decode_audio, encode_wav,
};
use sandmle_synth::audio::{AudioFactors, render};
use sandmle_synth::{DnaSynthesizer, extract_dna};

/// A 40-row binary audio task: a low tone is 0, a high tone 1, 0.5 s at
/// 8 kHz, in `clips/<id>.wav`.
fn tone_environment() -> Environment {
    let spec = ImageSpec {
        dir: "clips".into(),
        suffix: ".wav".into(),
        width: None,
        height: None,
        channels: None,
        key_column: None,
    };
    let mut images = ImageSet::new();
    let (mut train_ids, mut labels, mut test_ids) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..40usize {
        let label = i % 2;
        let pitch = if label == 1 { 880.0 } else { 220.0 };
        let samples: Vec<f32> =
            (0..4000).map(|t| (0.4 * (t as f64 * pitch * std::f64::consts::TAU / 8000.0).sin()) as f32).collect();
        let id = format!("c{i:02}");
        images.insert(spec.file_name(&id), encode_wav(&samples, 8000).unwrap()).unwrap();
        if i < 30 {
            train_ids.push(id);
            labels.push(label as f64);
        } else {
            test_ids.push(id);
        }
    }
    let text = |v: &[String]| Column::text(v.iter().map(|s| Some(s.as_str())));
    let train = Table::from_columns([("id", text(&train_ids)), ("label", Column::Numeric(labels))]).unwrap();
    let test = Table::from_columns([("id", text(&test_ids))]).unwrap();
    let n = test_ids.len();
    let sample = Table::from_columns([("id", text(&test_ids)), ("label", Column::Numeric(vec![0.5; n]))]).unwrap();
    let answers = Table::from_columns([
        ("id", text(&test_ids)),
        ("label", Column::Numeric((30..40).map(|i| f64::from(i % 2)).collect())),
    ])
    .unwrap();
    let task = TaskSpec {
        id: "tones".into(),
        modality: Modality::Audio,
        kind: TaskKind::BinaryClassification,
        id_column: "id".into(),
        target_columns: vec!["label".into()],
        prediction_columns: vec!["label".into()],
        metric: MetricSpec::named("roc_auc"),
        direction: sandmle_core::Direction::HigherIsBetter,
        images: Some(spec),
        train_only_columns: Vec::new(),
        group_column: None,
    };
    let env = Environment {
        description: "# Tones\n".into(),
        train,
        test,
        sample_submission: sample,
        answers,
        grading: GradingSpec::new(task),
        leaderboard: None,
        provenance: Provenance::new("tones", "test", "1", 0),
        images,
    };
    env.validate().unwrap();
    env
}

#[test]
fn encode_wav_round_trips_through_the_decoder() {
    let samples: Vec<f32> = (0..1000).map(|i| ((i as f32) / 1000.0 - 0.5) * 1.5).collect();
    let bytes = encode_wav(&samples, 11025).unwrap();
    assert_eq!(bytes.len(), 44 + 2000);
    let clip = decode_audio(&bytes, "x.wav").unwrap();
    assert_eq!((clip.sample_rate, clip.channels, clip.samples.len()), (11025, 1, 1000));
    for (a, b) in samples.iter().zip(&clip.samples) {
        assert!((a.clamp(-1.0, 1.0) - b).abs() < 1.0 / 16384.0, "{a} {b}");
    }
}

#[test]
fn audio_dna_is_read_from_the_clips() {
    let dna = extract_dna(&tone_environment()).unwrap();
    assert_eq!(dna.images, None, "clips are no images");
    let audio: AudioDna = dna.audio.unwrap();
    assert_eq!(audio.sample_rate, 8000);
    assert!((audio.seconds - 0.5).abs() < 1e-9);
    assert!((audio.rms - 0.4 / 2f64.sqrt()).abs() < 0.01, "{}", audio.rms);
}

#[test]
fn an_audio_dna_synthesizes_a_valid_deterministic_audio_environment() {
    let dna = extract_dna(&tone_environment()).unwrap();
    let synth = DnaSynthesizer::default();
    let env = synth.synthesize_env(&dna, "tones", 5).unwrap();
    env.validate().unwrap();
    let task = env.task();
    assert_eq!(task.modality, Modality::Audio);
    let spec = task.images.clone().unwrap();
    assert_eq!((spec.dir.as_str(), spec.suffix.as_str()), ("clips", ".wav"));
    assert_eq!(env.train.n_rows(), 200);
    assert_eq!(env.images.len(), env.train.n_rows() + env.test.n_rows());
    let first = env.train.column("id").unwrap().get_str(0).unwrap().into_owned();
    let clip = decode_audio(env.images.get(&format!("{first}.wav")).unwrap(), &first).unwrap();
    assert_eq!((clip.sample_rate, clip.samples.len()), (8000, 4000));
    assert!(env.description.contains("clips/<id>.wav") && !env.description.contains("pitch"));
    let again = synth.synthesize_env(&dna, "tones", 5).unwrap();
    assert_eq!(again, env, "the same seed gives the same environment");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    assert_eq!(pool.install(|| synth.synthesize_env(&dna, "tones", 5)).unwrap(), env, "and on one thread");
    let dir = tempfile::tempdir().unwrap();
    env.write(dir.path().join("e"), &WriteOptions::default()).unwrap();
    assert_eq!(Environment::read(dir.path().join("e")).unwrap().images, env.images);
}

/// The panel's audio features see the factors a rule reads: its forest,
/// on the clips alone, beats the constant sample by a wide margin.
#[test]
fn the_panel_learns_a_synthesized_audio_rule() {
    let dna = extract_dna(&tone_environment()).unwrap();
    let env = DnaSynthesizer::default().synthesize_env(&dna, "tones", 9).unwrap();
    let panel = sandmle_exec::Panel::default();
    let grader = sandmle_metrics::StandardGrader;
    let board = panel.leaderboard(&env, &grader).unwrap();
    let best = board.scores().into_iter().fold(f64::NEG_INFINITY, f64::max);
    assert!(best > 0.75, "best panel AUC {best}");
}

#[test]
fn rendering_depends_on_the_factors_and_stays_in_range() {
    let mut rng = sandmle_core::rng_for(1, "t");
    let f = AudioFactors::draw(&mut rng, 0.1);
    let a = render(&f, 8000, 0.25, &mut sandmle_core::rng_for(2, "clip"));
    let b = render(&f, 8000, 0.25, &mut sandmle_core::rng_for(2, "clip"));
    assert_eq!(a, b);
    assert_eq!(a.len(), 2000);
    assert!(a.iter().all(|x| (-1.0..=1.0).contains(x)));
    let louder = AudioFactors { loudness: 1.0, noise: 0.0, ..f };
    let quieter = AudioFactors { loudness: 0.0, noise: 0.0, ..f };
    let rms = |v: &[f32]| (v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
    let mut r = sandmle_core::rng_for(3, "clip");
    assert!(rms(&render(&louder, 8000, 0.25, &mut r)) > 2.0 * rms(&render(&quieter, 8000, 0.25, &mut r)));
}
