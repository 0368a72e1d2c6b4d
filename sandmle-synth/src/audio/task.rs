//! Planning and realising an audio task for [`DnaSynthesizer`]: clips
//! from latent factors, labels from a hidden rule over them, WAV files.

use super::AUDIO_SYNTH_VERSION;
use super::factors::{AUDIO_FACTOR_FIELDS, AudioFactors, render};
use crate::describe::evaluation;
use crate::error::{Error, Result};
use crate::labelled::tables;
use crate::mutations::DrawMutations;
use crate::oracle::{TargetTruth, Truth};
use crate::random::{from_uniform, gaussian};
use crate::rule::{binary_labels, multiclass_labels};
use crate::sizes::test_rows_for;
use crate::stats::{mean, sd};
use crate::synthesize::{DnaSynthesizer, SYNTH_VERSION, classes_for, label_column, split_with_fresh_ids};
use rand::RngExt;
use rayon::prelude::*;
use sandmle_core::{
    AudioDna, Column, Environment, ImageSet, ImageSpec, Modality, Mutations, PlanRequest, Provenance, SeedRng,
    SubmissionForm, Table, TargetDna, TaskKind, TaskPlan, TaskSpec, TaskStory, encode_wav, rng_for,
};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::fmt::Write;

/// The clips' folder in a synthesized audio environment.
pub const CLIP_DIR: &str = "clips";

/// A hidden rule over clip factors: weights on the centred factors plus
/// one product of two, standardised over the task's rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AudioRule {
    /// One weight per factor ([`AUDIO_FACTOR_FIELDS`] order).
    pub weights: [f64; 6],
    /// `(a, b, weight)`: `weight * (a - 0.5) * (b - 0.5)`.
    pub pair: Option<(usize, usize, f64)>,
    /// Mean of the raw score over the task's rows.
    pub center: f64,
    /// Standard deviation of the raw score over the task's rows (1 if 0).
    pub scale: f64,
}

impl AudioRule {
    /// Draws a rule: two or three factors weighted, the rest 0; with
    /// `mixed`, one interaction as well.
    fn draw(rng: &mut SeedRng, mixed: bool) -> AudioRule {
        let mut weights = [0.0; 6];
        let k = rng.random_range(2..=3);
        let mut order: Vec<usize> = (0..6).collect();
        crate::random::shuffle(&mut order, rng);
        for &f in &order[..k] {
            let sign = if rng.random::<bool>() { 1.0 } else { -1.0 };
            weights[f] = sign * (0.5 + rng.random::<f64>());
        }
        let pair = mixed.then(|| (order[0], order[k], 2.0 + 2.0 * rng.random::<f64>()));
        AudioRule { weights, pair, center: 0.0, scale: 1.0 }
    }

    fn raw(&self, f: &AudioFactors) -> f64 {
        let v = f.values();
        let mut s: f64 = v.iter().zip(&self.weights).map(|(x, w)| w * (x - 0.5)).sum();
        if let Some((a, b, w)) = self.pair {
            s += w * (v[a] - 0.5) * (v[b] - 0.5);
        }
        s
    }

    /// The standardised score of one clip.
    pub fn score(&self, f: &AudioFactors) -> f64 {
        (self.raw(f) - self.center) / self.scale
    }

    fn fit(mut self, rows: &[AudioFactors]) -> AudioRule {
        let raw: Vec<f64> = rows.iter().map(|f| self.raw(f)).collect();
        let d = sd(&raw);
        self.center = mean(&raw);
        self.scale = if d > 0.0 { d } else { 1.0 };
        self
    }
}

/// The rule families of audio tasks: `audio_linear` (weighted factors) and
/// `audio_mixed` (and one interaction).
pub const AUDIO_FAMILIES: [&str; 2] = ["audio_linear", "audio_mixed"];

/// One domain's dressing of an audio task.
struct AudioDress {
    title: &'static str,
    row_noun: &'static str,
    context: &'static str,
    targets: [&'static str; 3],
    classes: &'static [&'static str],
}

const DRESSES: [AudioDress; 4] = [
    AudioDress {
        title: "Machine sound monitoring",
        row_noun: "recording from a microphone on a pump",
        context: "A plant mounted microphones on its pumps; each clip records a pump's hum, knocks and the hall around it.",
        targets: ["faulty", "wear_stage", "wear_index"],
        classes: &["new", "run_in", "worn", "failing", "seized"],
    },
    AudioDress {
        title: "Heart sound screening",
        row_noun: "stethoscope recording",
        context: "A clinic recorded heart sounds with a digital stethoscope; each clip holds beats over body noise.",
        targets: ["murmur", "heart_condition", "severity_index"],
        classes: &["normal", "benign", "mild", "moderate", "severe"],
    },
    AudioDress {
        title: "Bird call survey",
        row_noun: "field recording of a bird call",
        context: "Rangers left recorders in a forest; each clip holds one call over wind and leaves.",
        targets: ["target_species", "call_type", "call_intensity"],
        classes: &["song", "alarm", "contact", "begging", "flight"],
    },
    AudioDress {
        title: "Engine noise check",
        row_noun: "recording of an idling engine",
        context: "A fleet's workshop records each vehicle's engine at idle; each clip holds its tone and rattles.",
        targets: ["needs_service", "engine_state", "noise_index"],
        classes: &["smooth", "rough", "knocking", "misfiring", "stalling"],
    },
];

fn dress(domain: &str) -> &'static AudioDress {
    let at = domain.bytes().fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(usize::from(b)));
    &DRESSES[at % DRESSES.len()]
}

/// The plan of an audio candidate: the domain as for images, the audio
/// dressing's story and names, a rule family, and of the mutations only
/// noise and imbalance.
pub(crate) fn plan_audio(
    dna: &sandmle_core::TaskDna,
    request: &PlanRequest,
    domain: &str,
    difficulty: f64,
    mutate: bool,
) -> TaskPlan {
    let seed = request.candidate_seed();
    let mut rng = rng_for(seed, "synth-plan");
    let family = AUDIO_FAMILIES[rng.random_range(0..AUDIO_FAMILIES.len())];
    let drawn = if mutate { Mutations::draw(&mut rng) } else { Mutations::none() };
    let d = dress(domain);
    let base = match dna.kind {
        TaskKind::BinaryClassification | TaskKind::MultiLabelClassification => d.targets[0],
        TaskKind::MulticlassClassification | TaskKind::Ranking => d.targets[1],
        TaskKind::Regression => d.targets[2],
    };
    let targets: Vec<String> =
        (0..dna.targets.len()).map(|i| if i == 0 { base.to_owned() } else { format!("{base}_{i}") }).collect();
    let classes = match dna.targets.first() {
        Some(TargetDna::Classes { shares, numeric_labels: false })
            if shares.len() > 2 && shares.len() <= d.classes.len() =>
        {
            d.classes[..shares.len()].iter().map(|s| (*s).to_owned()).collect()
        }
        _ => vec![],
    };
    TaskPlan {
        seed_task: request.seed_task.clone(),
        seed,
        dna: dna.clone(),
        domain: domain.to_owned(),
        story: TaskStory { title: d.title.to_owned(), row_noun: d.row_noun.to_owned(), context: d.context.to_owned() },
        features: vec![],
        targets,
        classes,
        rule_family: family.to_owned(),
        difficulty,
        mutations: Mutations { noise: drawn.noise, imbalance: drawn.imbalance, ..Mutations::none() },
    }
}

/// Sample rate and length of the synthesized clips: the seed's, kept
/// between 4 and 16 kHz and a quarter of a second and one second.
fn clip_shape(audio: &AudioDna) -> (u32, f64) {
    (audio.sample_rate.clamp(4_000, 16_000), audio.seconds.clamp(0.25, 1.0))
}

/// Labels one target: (column, prediction columns, rule record).
fn label(
    plan: &TaskPlan,
    target: &TargetDna,
    name: &str,
    factors: &[AudioFactors],
    noise_sd: f64,
    rng: &mut SeedRng,
) -> Result<(Column, Vec<String>, serde_json::Value, TargetTruth)> {
    let mixed = plan.rule_family == "audio_mixed";
    // The rule's noise-free scores and the noisy ones the labels come from.
    let scored = |rule: &AudioRule, rng: &mut SeedRng| -> (Vec<f64>, Vec<f64>) {
        let clean: Vec<f64> = factors.iter().map(|f| rule.score(f)).collect();
        let noisy = clean.iter().map(|s| s + noise_sd * gaussian(rng)).collect();
        (clean, noisy)
    };
    let truth = |truth: Truth, classes: Vec<String>, numeric: bool| TargetTruth { truth, noise_sd, classes, numeric };
    Ok(match target {
        TargetDna::Classes { shares, numeric_labels } if shares.len() == 2 => {
            let rule = AudioRule::draw(rng, mixed).fit(factors);
            let share = (shares[1] * plan.mutations.imbalance).clamp(0.02, 0.98);
            let (clean, noisy) = scored(&rule, rng);
            let (labels, cut) = binary_labels(&noisy, share);
            let classes = classes_for(plan, 2, *numeric_labels);
            let record = json!({"column": name, "rule": rule, "noise_sd": noise_sd, "cut": cut});
            let truth = truth(Truth::Cut { score: clean, cut }, classes.clone(), *numeric_labels);
            (label_column(&labels, &classes, *numeric_labels), vec![name.to_owned()], record, truth)
        }
        TargetDna::Classes { shares, numeric_labels } if shares.len() > 2 => {
            let target_shares = crate::sizes::file_task_shares(shares, crate::sizes::ranking(&plan.dna));
            let k = target_shares.len();
            let rules: Vec<AudioRule> = (0..k).map(|_| AudioRule::draw(rng, true).fit(factors)).collect();
            let (clean, scores): (Vec<Vec<f64>>, Vec<Vec<f64>>) = rules.iter().map(|r| scored(r, rng)).unzip();
            let (labels, offsets) = multiclass_labels(&scores, &target_shares);
            let classes = classes_for(plan, k, *numeric_labels);
            let truth =
                truth(Truth::Argmax { scores: clean, offsets: offsets.clone() }, classes.clone(), *numeric_labels);
            let dna = &plan.dna;
            let predictions = if dna.metric.submission_form(dna.kind) == SubmissionForm::ClassProbabilities {
                classes.clone()
            } else {
                vec![name.to_owned()]
            };
            let record = json!({"column": name, "rules": rules, "noise_sd": noise_sd, "offsets": offsets});
            (label_column(&labels, &classes, *numeric_labels), predictions, record, truth)
        }
        TargetDna::Classes { .. } => {
            return Err(Error::Unsupported { reason: format!("target `{name}` has fewer than two classes") });
        }
        TargetDna::Continuous { shape } => {
            let rule = AudioRule::draw(rng, mixed).fit(factors);
            let (clean, noisy) = scored(&rule, rng);
            let ranks = crate::stats::ranks(&noisy);
            let n = factors.len() as f64;
            let values: Vec<f64> = ranks.iter().map(|r| from_uniform(shape, (r - 0.5) / n)).collect();
            let truth = truth(Truth::Monotone { score: clean, noisy, values: values.clone() }, vec![], true);
            (
                Column::Numeric(values),
                vec![name.to_owned()],
                json!({"column": name, "rule": rule, "noise_sd": noise_sd}),
                truth,
            )
        }
    })
}

/// The environment an audio plan asks for.
pub(crate) fn realize_audio(synth: &DnaSynthesizer, plan: &TaskPlan, audio: &AudioDna) -> Result<Environment> {
    synth.check(&plan.dna)?;
    if !AUDIO_FAMILIES.contains(&plan.rule_family.as_str()) && crate::Family::from_name(&plan.rule_family).is_none() {
        return Err(Error::BadPlan { reason: format!("unknown rule family `{}`", plan.rule_family) });
    }
    if plan.targets.len() != plan.dna.targets.len() || !plan.features.is_empty() {
        return Err(Error::BadPlan { reason: "an audio task has one name per target and no feature columns".into() });
    }
    let dna = &plan.dna;
    let seed = plan.seed;
    let (rate, seconds) = clip_shape(audio);
    let shares = match dna.targets.first() {
        Some(TargetDna::Classes { shares, .. })
            if shares.len() > crate::sizes::MAX_FILE_CLASSES || crate::sizes::ranking(dna) =>
        {
            crate::sizes::file_task_shares(shares, crate::sizes::ranking(&plan.dna))
        }
        Some(TargetDna::Classes { shares, .. }) => shares.clone(),
        _ => vec![],
    };
    let n_train = synth.train_rows;
    let n = n_train + test_rows_for(dna.metric.submission_form(dna.kind), &shares, usize::MAX);
    let level = plan.difficulty * plan.mutations.noise;
    let mut rng = rng_for(seed, "audio-factors");
    let factors: Vec<AudioFactors> = (0..n).map(|_| AudioFactors::draw(&mut rng, 0.05 + 0.25 * level)).collect();
    let mut rng = rng_for(seed, "audio-rule");
    let mut all = Table::new();
    all.push_column("id", Column::Text(vec![None; n]))?;
    let (mut records, mut prediction_columns, mut truths) = (Vec::new(), Vec::new(), Vec::new());
    for (t, name) in dna.targets.iter().zip(&plan.targets) {
        let (column, predictions, record, truth) = label(plan, t, name, &factors, level, &mut rng)?;
        all.push_column(name.clone(), column)?;
        records.push(record);
        truths.push(truth);
        prediction_columns.extend(predictions);
    }
    // Every clip from its own stream, encoded in row order.
    let clips: Vec<Vec<u8>> = (0..n)
        .into_par_iter()
        .map(|r| encode_wav(&render(&factors[r], rate, seconds, &mut rng_for(seed, &format!("clip-{r}"))), rate))
        .collect::<sandmle_core::Result<Vec<_>>>()?;
    let kept: Vec<usize> = (0..n).collect();
    let (train, test, ids) = split_with_fresh_ids(&all, &kept, n_train, seed)?;
    let spec = ImageSpec {
        dir: CLIP_DIR.into(),
        suffix: ".wav".into(),
        width: None,
        height: None,
        channels: None,
        key_column: None,
    };
    let mut set = ImageSet::new();
    for (pos, clip) in clips.into_iter().enumerate() {
        set.insert(spec.file_name(&ids[pos].to_string()), clip)?;
    }
    let task = TaskSpec {
        id: format!("{}-synth", plan.seed_task),
        modality: Modality::Audio,
        kind: dna.kind,
        id_column: "id".into(),
        target_columns: plan.targets.clone(),
        prediction_columns,
        metric: dna.metric.clone(),
        direction: dna.direction,
        images: Some(spec.clone()),
        train_only_columns: Vec::new(),
        group_column: None,
    };
    let t = tables(&task, train, test)?;
    let description = describe(&task, &plan.story, rate, seconds, t.train.n_rows(), t.test.n_rows());
    let mut provenance = Provenance::new(&plan.seed_task, sandmle_core::SYNTH_GENERATOR, SYNTH_VERSION, seed);
    provenance.dna = Some(dna.clone());
    provenance.hidden_rule = Some(json!({"modality": "audio", "family": plan.rule_family, "targets": records}));
    provenance.details.insert("audio_generator_version".into(), json!(AUDIO_SYNTH_VERSION));
    let mut rows: Vec<(usize, usize)> = ids.iter().enumerate().map(|(pos, &id)| (id, pos)).collect();
    rows.sort_unstable();
    let factor_rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|&(id, pos)| {
            let mut v = vec![json!(id)];
            v.extend(factors[pos].values().iter().map(|x| json!((x * 1000.0).round() / 1000.0)));
            serde_json::Value::Array(v)
        })
        .collect();
    let fields: Vec<&str> = std::iter::once("id").chain(AUDIO_FACTOR_FIELDS).collect();
    provenance.details.insert("audio_factors".into(), json!({"fields": fields, "rows": factor_rows}));
    let order = crate::oracle::test_rows_in_order(&kept, &ids, n_train);
    let oracle = crate::oracle::oracle_record(&task, &truths, &order, t.answers.column(&task.id_column)?)?;
    crate::synthesize::record_oracle(&mut provenance, &oracle)?;
    crate::synthesize::finish_synthesized(task, t, description, provenance, plan, set)
}

/// `description.md` of an audio task: the story, the files, the metric and
/// the submission format — never the rule.
fn describe(
    task: &TaskSpec,
    story: &TaskStory,
    rate: u32,
    seconds: f64,
    train_rows: usize,
    test_rows: usize,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", story.title);
    let _ = writeln!(s, "{}\n", story.context);
    let what = task.kind.prediction_phrase();
    let targets = task.target_columns.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
    let _ = writeln!(
        s,
        "Each row is one {}, given as an audio clip. Predict {what} of {targets} for every row of `test.csv` from its clip.\n",
        story.row_noun
    );
    let _ = writeln!(s, "## Files\n");
    let id = &task.id_column;
    let _ = writeln!(s, "- `train.csv`: {train_rows} rows with `{id}` and {targets} (no other columns).");
    let _ = writeln!(s, "- `test.csv`: {test_rows} rows with `{id}` only.");
    let _ = writeln!(
        s,
        "- `{CLIP_DIR}/<{id}>.wav`: one clip per row of `train.csv` and `test.csv`, named by the row's `{id}` (the row \
         with `{id}` 17 is `{CLIP_DIR}/17.wav`); every clip is a mono 16-bit PCM WAV file of {seconds:.2} s at {rate} Hz."
    );
    let _ = writeln!(s, "- `sample_submission.csv`: a valid submission with a constant prediction.\n");
    evaluation(&mut s, task);
    s
}
