//! Sandboxed code episodes: `StdlibPythonPolicy` writes a standard-library
//! Python program that runs in bubblewrap and scores, and a step past its
//! limit times out. Every episode runs twice: with code steps on the
//! workspace's warm interpreter (each step checked to have run there) and
//! cold. With `SANDMLE_REQUIRE_BWRAP=1` (as CI sets) a machine without a
//! working sandbox fails these tests; without it they are skipped there.
//! `SANDMLE_PYTHON` (CI's virtualenv) names the Python the sandbox exposes;
//! else the system's `python3`.

mod common;

use common::bwrap_or_skip;
use sandmle_agents::codec::codec_by_name;
use sandmle_agents::reward::reward_by_name;
use sandmle_agents::rollout::{Estimator, StdlibPythonPolicy};
use sandmle_agents::trajectory::validate_line;
use sandmle_agents::{Backends, Episode, EpisodeConfig, Policy, RolloutConfig, Task, Termination};
use sandmle_core::{Execution, Executor, Grader, PublicView, Solution, Table, Workspace};
use sandmle_exec::{CodeSteps, ProcessExecutor, PythonChoice, PythonSettings};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The process executor, recording how each code step started.
struct Recording {
    inner: ProcessExecutor,
    starts: Arc<Mutex<Vec<String>>>,
}

struct RecordingWorkspace {
    inner: Box<dyn Workspace>,
    starts: Arc<Mutex<Vec<String>>>,
}

impl Executor for Recording {
    fn name(&self) -> &str {
        "recording"
    }
    fn execute(&self, solution: &Solution, task: &PublicView<'_>) -> sandmle_core::Result<Execution> {
        self.inner.execute(solution, task)
    }
    fn open_workspace(&self, task: &PublicView<'_>) -> sandmle_core::Result<Box<dyn Workspace>> {
        Ok(Box::new(RecordingWorkspace { inner: self.inner.open_workspace(task)?, starts: Arc::clone(&self.starts) }))
    }
}

impl Workspace for RecordingWorkspace {
    fn write_file(&mut self, name: &str, bytes: &[u8]) -> sandmle_core::Result<()> {
        self.inner.write_file(name, bytes)
    }
    fn run(&mut self, command: &[String], timeout: Duration) -> sandmle_core::Result<Execution> {
        let run = self.inner.run(command, timeout)?;
        let how = run.isolation.split("code steps: ").nth(1).unwrap_or("?").to_owned();
        self.starts.lock().unwrap().push(how);
        Ok(run)
    }
    fn has_submission(&self) -> bool {
        self.inner.has_submission()
    }
    fn submission(&self) -> sandmle_core::Result<std::result::Result<Table, String>> {
        self.inner.submission()
    }
    fn isolation(&self) -> String {
        self.inner.isolation()
    }
}

/// The backends with code steps started as `steps` says, and the record
/// of how each step started.
fn backends_with(steps: CodeSteps) -> (Backends, Arc<Mutex<Vec<String>>>) {
    let grader: Arc<dyn Grader> = Arc::new(sandmle_metrics::StandardGrader);
    let choice = match std::env::var_os("SANDMLE_PYTHON") {
        Some(p) if !p.is_empty() => PythonChoice::Interpreter(p.into()),
        _ => PythonChoice::System,
    };
    let python = PythonSettings { choice, code_steps: steps, ..PythonSettings::default() };
    let starts = Arc::new(Mutex::new(Vec::new()));
    let inner = ProcessExecutor { python, ..ProcessExecutor::default() };
    let code: Arc<dyn Executor> = Arc::new(Recording { inner, starts: Arc::clone(&starts) });
    (Backends { grader, code: Some(code), pipeline: None }, starts)
}

/// Asserts every recorded step started as `steps` says.
fn check_starts(steps: CodeSteps, starts: &Mutex<Vec<String>>) {
    let starts = starts.lock().unwrap();
    assert!(!starts.is_empty(), "no code step ran");
    for how in starts.iter() {
        match steps {
            CodeSteps::Warm => assert!(how.starts_with("a warm interpreter (python"), "not warm: {how}"),
            _ => assert!(how.starts_with("cold"), "not cold: {how}"),
        }
    }
}

const BOTH: [CodeSteps; 2] = [CodeSteps::Warm, CodeSteps::Cold];

fn seed(name: &str) -> Task {
    Task::read(format!("{}/../examples/seeds/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn stdlib_python_completes_a_sandboxed_code_episode_with_a_valid_submission() {
    if !bwrap_or_skip() {
        return;
    }
    for (steps, (name, codec)) in BOTH.into_iter().flat_map(|s| {
        [
            ("wine", "sandmle_react"),
            ("diabetes", "openai_tools"),
            ("breast_cancer", "hermes_json"),
            ("digits_png", "sandmle_react"),
        ]
        .map(|t| (s, t))
    }) {
        let (backends, starts) = backends_with(steps);
        let task = seed(name);
        let codec = codec_by_name(codec).unwrap();
        let config = RolloutConfig {
            episode: EpisodeConfig::default(),
            codec: Arc::clone(&codec),
            reward: reward_by_name("released_dense").unwrap(),
            estimator: Estimator::Grpo,
            seed: 1,
            cancel: None,
        };
        let spec = task.environment().task().clone();
        let factory = |_: usize, s: u64| -> sandmle_agents::Result<Box<dyn Policy>> {
            Ok(Box::new(StdlibPythonPolicy::new(&spec, s, Arc::clone(&codec))))
        };
        let group = sandmle_agents::rollout_group(&task, &backends, 2, &factory, &config).unwrap();
        check_starts(steps, &starts);
        for t in &group.trajectories {
            assert_eq!(t.steps[0].action, "run_code");
            assert_eq!(t.steps[0].status, "completed", "{name}: {:?}", t.completion.get(1));
            assert!(t.final_grade.valid_submission, "{name}: {:?}", t.final_grade.error);
            assert_eq!(t.termination, Termination::Answer);
            assert!(t.reward >= 0.2 + 0.1 - 1e-12, "{name}: valid and formatted ({})", t.reward);
            validate_line(&t.to_json_line().unwrap()).unwrap();
        }
    }
}

/// 16-bit mono AIFF bytes of `samples` at `rate` (the sample rate an
/// 80-bit extended float, as the format has it).
fn aiff(samples: &[f32], rate: u32) -> Vec<u8> {
    let exponent = 31 - rate.leading_zeros();
    let mantissa = u64::from(rate) << (63 - exponent);
    let mut comm = Vec::new();
    comm.extend(1i16.to_be_bytes());
    comm.extend((samples.len() as u32).to_be_bytes());
    comm.extend(16i16.to_be_bytes());
    comm.extend(((16383 + exponent) as u16).to_be_bytes());
    comm.extend(mantissa.to_be_bytes());
    let mut ssnd = vec![0u8; 8];
    for &x in samples {
        ssnd.extend(((x.clamp(-1.0, 1.0) * 32767.0).round() as i16).to_be_bytes());
    }
    let mut body = b"AIFF".to_vec();
    for (kind, chunk) in [(b"COMM", &comm), (b"SSND", &ssnd)] {
        body.extend(kind);
        body.extend((chunk.len() as u32).to_be_bytes());
        body.extend(chunk);
    }
    let mut out = b"FORM".to_vec();
    out.extend((body.len() as u32).to_be_bytes());
    out.extend(body);
    out
}

/// An audio task of the synthesizer (WAV clips, `clips/<id>.wav`) and the
/// same task with its clips as AIFF files named by the bare id, as
/// MLE-bench's right-whale competition imports.
fn audio_tasks() -> Vec<(&'static str, Task)> {
    use sandmle_core::{AudioDna, BaselinePanel, Modality, decode_audio};
    let seed =
        sandmle_core::Environment::read(format!("{}/../examples/seeds/breast_cancer", env!("CARGO_MANIFEST_DIR")))
            .unwrap();
    let mut dna = sandmle_synth::extract_dna(&seed).unwrap();
    dna.modality = Modality::Audio;
    dna.features.clear();
    dna.correlations.clear();
    dna.audio = Some(AudioDna { sample_rate: 8000, seconds: 0.5, rms: 0.2 });
    let mut wav = sandmle_synth::DnaSynthesizer::default().synthesize_env(&dna, "clips", 4).unwrap();
    let panel = sandmle_exec::Panel::default();
    sandmle_core::set_thresholds(&mut wav, &panel as &dyn BaselinePanel, &sandmle_metrics::StandardGrader).unwrap();
    let mut aif = wav.clone();
    let old = wav.task().images.clone().unwrap();
    let spec = sandmle_core::ImageSpec { suffix: String::new(), ..old.clone() };
    let mut set = sandmle_core::ImageSet::new();
    for table in [&wav.train, &wav.test] {
        for id in table.column("id").unwrap().label_texts() {
            let clip = decode_audio(wav.images.get(&old.file_name(&id)).unwrap(), &id).unwrap();
            set.insert(spec.file_name(&id), aiff(&clip.samples, clip.sample_rate)).unwrap();
        }
    }
    aif.images = set;
    aif.grading.task.images = Some(spec);
    aif.validate().unwrap();
    vec![("wav", Task::new(wav).unwrap()), ("aiff", Task::new(aif).unwrap())]
}

/// Regression: the program read every row's file as a PNG, so it failed on
/// every audio task (WAV clips, and AIFF clips with no suffix).
#[test]
fn stdlib_python_reads_wav_and_aiff_clips() {
    if !bwrap_or_skip() {
        return;
    }
    let (backends, _) = backends_with(CodeSteps::Cold);
    let codec = codec_by_name("sandmle_react").unwrap();
    let config = RolloutConfig {
        episode: EpisodeConfig::default(),
        codec: Arc::clone(&codec),
        reward: reward_by_name("released_dense").unwrap(),
        estimator: Estimator::Grpo,
        seed: 1,
        cancel: None,
    };
    let mut scores = Vec::new();
    for (name, task) in audio_tasks() {
        let spec = task.environment().task().clone();
        let factory = |_: usize, s: u64| -> sandmle_agents::Result<Box<dyn Policy>> {
            Ok(Box::new(StdlibPythonPolicy::new(&spec, s, Arc::clone(&codec))))
        };
        let group = sandmle_agents::rollout_group(&task, &backends, 1, &factory, &config).unwrap();
        let t = &group.trajectories[0];
        assert_eq!(t.steps[0].status, "completed", "{name}: {:?}", t.completion.get(1));
        assert!(t.final_grade.valid_submission, "{name}: {:?}", t.final_grade.error);
        let sample = sandmle_metrics::StandardGrader
            .grade(&task.environment().grading_task(), &task.environment().sample_submission)
            .unwrap();
        let score = t.final_grade.score.unwrap();
        assert!(score > sample.score.unwrap(), "{name}: {score} is no better than the constant sample");
        scores.push(score);
    }
    // The same clips in either container (the AIFF ones requantised from
    // the decoded WAV samples, a unit of the last bit apart) score alike.
    assert!((scores[0] - scores[1]).abs() < 0.01, "{scores:?}");
}

#[test]
fn a_code_step_past_its_limit_times_out_and_files_persist() {
    if !bwrap_or_skip() {
        return;
    }
    for steps in BOTH {
        past_its_limit(steps);
    }
}

fn past_its_limit(steps: CodeSteps) {
    let (backends, starts) = backends_with(steps);
    let config = EpisodeConfig { step_timeout: Duration::from_millis(500), ..EpisodeConfig::default() };
    let mut ep = Episode::new(
        seed("wine"),
        backends,
        codec_by_name("sandmle_react").unwrap(),
        reward_by_name("released_dense").unwrap(),
        config,
    )
    .unwrap();
    ep.reset().unwrap();
    let code = |c: &str| format!("<think>run</think>\n<tool_call>\npython\n<code>\n{c}\n</code>\n</tool_call>");
    let s = ep.step_text(&code("open('note.txt', 'w').write('kept')\nprint('hello')")).unwrap();
    assert!(s.observation[0].content.contains("[Output]\nhello"), "{}", s.observation[0].content);
    assert!(s.observation[0].content.contains("submission.csv not found"));
    let s = ep.step_text(&code("import time\ntime.sleep(30)")).unwrap();
    assert_eq!(s.info.record.status, "timed_out");
    assert!(s.observation[0].content.contains("Python execution timed out after 0.5s"));
    let s = ep.step_text(&code("print(open('note.txt').read())")).unwrap();
    assert!(s.observation[0].content.contains("kept"), "files persist across steps");
    let last = ep.step_text("<think>stop</think><answer>submission</answer>").unwrap();
    assert!(!last.info.final_grade.unwrap().valid_submission);
    check_starts(steps, &starts);
}

#[test]
fn the_episode_wall_time_truncates_a_running_step() {
    if !bwrap_or_skip() {
        return;
    }
    for steps in BOTH {
        let (backends, _) = backends_with(steps);
        wall_time_truncates(backends);
    }
}

fn wall_time_truncates(backends: Backends) {
    let config = EpisodeConfig { episode_time: Duration::from_millis(800), ..EpisodeConfig::default() };
    let mut ep = Episode::new(
        seed("wine"),
        backends,
        codec_by_name("sandmle_react").unwrap(),
        reward_by_name("released_dense").unwrap(),
        config,
    )
    .unwrap();
    ep.reset().unwrap();
    let s = ep
        .step_text(
            "<think>slow</think>\n<tool_call>\npython\n<code>\nimport time\ntime.sleep(30)\n</code>\n</tool_call>",
        )
        .unwrap();
    assert!(s.truncated);
    assert_eq!(s.info.termination, Some(Termination::TimeLimit));
}
