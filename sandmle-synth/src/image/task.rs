//! Planning and realising an image task for [`DnaSynthesizer`].

use super::IMAGE_SYNTH_VERSION;
use super::draw::{Canvas, render};
use super::dress::{describe_images, dress};
use super::factors::{FACTOR_FIELDS, ImageFactors, Nuisance};
use super::prototypes::{draw_looks, label_by_looks};
use super::rule::{IMAGE_FAMILIES, ImageFamily, ImageRule, draw_rule};
use crate::error::{Error, Result};
use crate::labelled::tables;
use crate::lexicon::{DOMAINS, names};
use crate::mutations::DrawMutations;
use crate::oracle::{TargetTruth, Truth};
use crate::random::{from_uniform, gaussian};
use crate::rule::{binary_labels, multiclass_labels};
use crate::sizes::test_rows_for;
use crate::synthesize::{DnaSynthesizer, SYNTH_VERSION, classes_for, label_column};
use rand::RngExt;
use rayon::prelude::*;
use sandmle_core::{
    Column, EncodedImage, Environment, ImageDna, ImageSet, ImageSpec, Modality, Mutations, PlanRequest, Provenance,
    SeedRng, SubmissionForm, Table, TargetDna, TaskDna, TaskKind, TaskPlan, TaskSpec, TaskStory, rng_for,
};
use serde_json::json;
use std::collections::BTreeSet;

/// Largest side drawn, in pixels.
pub const MAX_IMAGE_SIDE_DRAWN: u32 = 64;

/// The canvas for a DNA's images: its sides capped at
/// [`MAX_IMAGE_SIDE_DRAWN`], 32 for a side under 16 pixels (too small for
/// shapes); grey for 1 or 2 channels, RGB otherwise.
pub fn canvas_for(images: &ImageDna) -> Canvas {
    let side = |s: u32| if s < 16 { 32 } else { s.min(MAX_IMAGE_SIDE_DRAWN) };
    Canvas {
        width: side(images.width),
        height: side(images.height),
        channels: if images.channels <= 2 { 1 } else { 3 },
    }
}

/// The plan of an image candidate: the domain as for tables, the image
/// dressing's story and names, an image rule family, and of the mutations
/// only noise and imbalance (an image task has no feature columns).
pub(crate) fn plan_images(
    dna: &TaskDna,
    request: &PlanRequest,
    domain_name: &str,
    difficulty: f64,
    mutate: bool,
) -> TaskPlan {
    let seed = request.candidate_seed();
    let mut rng = rng_for(seed, "synth-plan");
    let family = IMAGE_FAMILIES[rng.random_range(0..IMAGE_FAMILIES.len())];
    let drawn = if mutate { Mutations::draw(&mut rng) } else { Mutations::none() };
    let multimodal = dna.modality == Modality::Multimodal;
    let mutations = if multimodal {
        drawn
    } else {
        Mutations { noise: drawn.noise, imbalance: drawn.imbalance, ..Mutations::none() }
    };
    let d = dress(domain_name);
    let base = match dna.kind {
        TaskKind::BinaryClassification | TaskKind::MultiLabelClassification => d.targets[0],
        TaskKind::MulticlassClassification | TaskKind::Ranking => d.targets[1],
        TaskKind::Regression => d.targets[2],
    };
    let mut used = BTreeSet::from(["id".to_owned()]);
    let targets = names(&[base], dna.targets.len(), &mut used);
    // A multimodal plan's table features, named from the domain's
    // lexicon as a table's are.
    let features = if multimodal {
        let domain = DOMAINS.iter().find(|x| x.name == domain_name).unwrap_or(&DOMAINS[0]);
        crate::synthesize::plan_table_features(dna, &mutations, domain, &mut used, &mut rng, seed)
    } else {
        vec![]
    };
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
        domain: domain_name.to_owned(),
        story: TaskStory {
            title: super::dress::image_title(domain_name, &mut rng_for(seed, "synth-title")),
            row_noun: d.row_noun.to_owned(),
            context: d.context.to_owned(),
        },
        features,
        targets,
        classes,
        rule_family: family.name().to_owned(),
        difficulty,
        mutations,
    }
}

/// The image family a plan names; a table family's name (an LLM
/// strategist that only knows those) stands for [`ImageFamily::Mixed`].
pub(super) fn family_of(plan: &TaskPlan) -> Result<ImageFamily> {
    ImageFamily::from_name(&plan.rule_family)
        .or_else(|| crate::Family::from_name(&plan.rule_family).map(|_| ImageFamily::Mixed))
        .ok_or_else(|| Error::BadPlan { reason: format!("unknown rule family `{}`", plan.rule_family) })
}

fn check_image_plan(plan: &TaskPlan) -> Result<()> {
    let bad = |reason: String| Err(Error::BadPlan { reason });
    crate::synthesize::check_names(plan)?;
    match (plan.dna.modality == Modality::Multimodal, plan.features.is_empty()) {
        (false, false) => return bad("an image task has no feature columns".into()),
        (true, true) => return bad("a multimodal task has feature columns".into()),
        (true, false) if !plan.features.iter().any(|f| f.signal) => {
            return bad("no feature carries the signal".into());
        }
        _ => {}
    }
    if !(0.0..=1.0).contains(&plan.difficulty) {
        return bad("difficulty must lie in [0, 1]".into());
    }
    Ok(())
}

/// What one target's labelling gives: the column, its prediction columns
/// and the record of its rule.
pub(super) struct Labelled {
    pub column: Column,
    pub prediction_columns: Vec<String>,
    pub record: serde_json::Value,
    pub truth: TargetTruth,
}

/// Labels a many-class target by looks ([`super::prototypes`]): each
/// class a shape, a colour, plain or striped, and one large shape or a
/// group of small ones; at difficulty 0 one image
/// in twenty shows another class's look, at 1 seven in twenty.
#[allow(clippy::too_many_arguments)]
pub(super) fn looks_target(
    plan: &TaskPlan,
    shares: &[f64],
    numeric_labels: bool,
    name: &str,
    factors: &mut [ImageFactors],
    level: f64,
    side: u32,
    rng: &mut SeedRng,
) -> Labelled {
    let dna = &plan.dna;
    let target_shares = crate::sizes::file_task_shares(shares, crate::sizes::ranking(&plan.dna));
    let k = target_shares.len();
    let looks = draw_looks(k, rng);
    let swap = 0.05 + 0.3 * level.clamp(0.0, 1.0);
    let (labels, shown) = label_by_looks(factors, &looks, &target_shares, swap, side, rng);
    let classes = classes_for(plan, k, numeric_labels);
    // An image shows its class's look but for a swap share, which shows
    // one of the others at random: the class given the look shown.
    let probabilities = shown
        .iter()
        .map(|&shown| {
            let mut p: Vec<f64> = (0..k)
                .map(|c| {
                    let seen = if c == shown { 1.0 - swap } else { swap / (k - 1).max(1) as f64 };
                    target_shares[c] * seen
                })
                .collect();
            let total: f64 = p.iter().sum();
            p.iter_mut().for_each(|x| *x /= total.max(f64::MIN_POSITIVE));
            p
        })
        .collect();
    let truth = TargetTruth {
        truth: Truth::Posterior { probabilities },
        noise_sd: 0.0,
        classes: classes.clone(),
        numeric: numeric_labels,
    };
    let prediction_columns = if dna.metric.submission_form(dna.kind) == SubmissionForm::ClassProbabilities {
        classes.clone()
    } else {
        vec![name.to_owned()]
    };
    Labelled {
        column: label_column(&labels, &classes, numeric_labels),
        prediction_columns,
        record: json!({"column": name, "looks": looks, "swap_share": swap,
            "label": "the class whose look (shape, hue, stripes) the image shows; a swap share shows another's"}),
        truth,
    }
}

/// Labels one target from the factors (see the module docs); `extra[c]`,
/// when given, is added to score `c` of every row (a multimodal task's
/// table part, [`super::multimodal`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn label_target(
    plan: &TaskPlan,
    target: &TargetDna,
    name: &str,
    family: ImageFamily,
    factors: &[ImageFactors],
    noise_sd: f64,
    extra: &[Vec<f64>],
    rng: &mut SeedRng,
) -> Result<Labelled> {
    let dna = &plan.dna;
    let fitted = |family: ImageFamily, rng: &mut SeedRng| {
        let mut rule = draw_rule(family, rng);
        rule.fit(factors);
        rule
    };
    // The rule's noise-free scores and the noisy ones the labels come from.
    let scored = |rule: &ImageRule, c: usize, rng: &mut SeedRng| -> (Vec<f64>, Vec<f64>) {
        let plus = |r: usize| extra.get(c).and_then(|e| e.get(r)).copied().unwrap_or(0.0);
        let clean: Vec<f64> = factors.iter().enumerate().map(|(r, f)| rule.score(f) + plus(r)).collect();
        let noisy = clean.iter().map(|s| s + noise_sd * gaussian(rng)).collect();
        (clean, noisy)
    };
    let truth = |truth: Truth, classes: Vec<String>, numeric: bool| TargetTruth { truth, noise_sd, classes, numeric };
    Ok(match target {
        TargetDna::Classes { shares, numeric_labels } if shares.len() == 2 => {
            let rule = fitted(family, rng);
            let share =
                (shares[1] * plan.mutations.imbalance).clamp(crate::MIN_CLASS_SHARE, 1.0 - crate::MIN_CLASS_SHARE);
            let (clean, noisy) = scored(&rule, 0, rng);
            let (labels, cut) = binary_labels(&noisy, share);
            let classes = classes_for(plan, 2, *numeric_labels);
            Labelled {
                truth: truth(Truth::Cut { score: clean, cut }, classes.clone(), *numeric_labels),
                column: label_column(&labels, &classes, *numeric_labels),
                prediction_columns: vec![name.to_owned()],
                record: json!({"column": name, "rule": rule, "noise_sd": noise_sd, "positive_share": share, "cut": cut,
                    "label": "1 when score + noise > cut"}),
            }
        }
        TargetDna::Classes { shares, numeric_labels } if shares.len() > 2 => {
            let target_shares = crate::sizes::file_task_shares(shares, crate::sizes::ranking(&plan.dna));
            let k = target_shares.len();
            let rules: Vec<ImageRule> = (0..k).map(|_| fitted(ImageFamily::Mixed, rng)).collect();
            let (clean, scores): (Vec<Vec<f64>>, Vec<Vec<f64>>) =
                rules.iter().enumerate().map(|(c, r)| scored(r, c, rng)).unzip();
            let (labels, offsets) = multiclass_labels(&scores, &target_shares);
            let classes = classes_for(plan, k, *numeric_labels);
            let argmax =
                truth(Truth::Argmax { scores: clean, offsets: offsets.clone() }, classes.clone(), *numeric_labels);
            let prediction_columns = if dna.metric.submission_form(dna.kind) == SubmissionForm::ClassProbabilities {
                classes.clone()
            } else {
                vec![name.to_owned()]
            };
            Labelled {
                truth: argmax,
                column: label_column(&labels, &classes, *numeric_labels),
                prediction_columns,
                record: json!({"column": name, "rules": rules, "noise_sd": noise_sd, "offsets": offsets,
                    "label": "argmax of score + noise + offset"}),
            }
        }
        TargetDna::Classes { .. } => {
            return Err(Error::Unsupported { reason: format!("target `{name}` has fewer than two classes") });
        }
        TargetDna::Continuous { shape } => {
            let rule = fitted(family, rng);
            let (clean, noisy) = scored(&rule, 0, rng);
            let ranks = crate::stats::ranks(&noisy);
            let n = factors.len() as f64;
            let values: Vec<f64> = ranks.iter().map(|r| from_uniform(shape, (r - 0.5) / n)).collect();
            Labelled {
                truth: truth(Truth::Monotone { score: clean, noisy, values: values.clone() }, vec![], true),
                column: Column::Numeric(values),
                prediction_columns: vec![name.to_owned()],
                record: json!({"column": name, "rule": rule, "noise_sd": noise_sd, "marginal": "dna quantiles"}),
            }
        }
    })
}

/// The environment an image plan asks for (see the module docs).
pub(crate) fn realize_images(synth: &DnaSynthesizer, plan: &TaskPlan, images: &ImageDna) -> Result<Environment> {
    synth.check(&plan.dna)?;
    check_image_plan(plan)?;
    let family = family_of(plan)?;
    let dna = &plan.dna;
    let seed = plan.seed;
    let canvas = canvas_for(images);
    let form = dna.metric.submission_form(dna.kind);
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
    let n_test = test_rows_for(form, &shares, usize::MAX);
    let n = n_train + n_test;
    let level = plan.difficulty * plan.mutations.noise;
    let nuisance = Nuisance::for_difficulty(level);
    let background = (images.mean_intensity.clamp(0.0, 1.0) * 255.0).round() as u8;
    let mut rng = rng_for(seed, "image-factors");
    let mut factors: Vec<ImageFactors> = (0..n).map(|_| ImageFactors::draw(&mut rng, &nuisance, background)).collect();

    let multimodal = dna.modality == Modality::Multimodal;
    let table = multimodal.then(|| super::multimodal::table_part(plan, n));
    let mut rng = rng_for(seed, "image-rule");
    let mut all = Table::new();
    all.push_column("id", Column::Text(vec![None; n]))?;
    for (name, column) in table.as_ref().map(|t| t.columns.clone()).unwrap_or_default() {
        all.push_column(name, column)?;
    }
    let (mut records, mut prediction_columns, mut truths) = (Vec::new(), Vec::new(), Vec::new());
    for (i, (t, name)) in dna.targets.iter().zip(&plan.targets).enumerate() {
        let extra = table.as_ref().and_then(|p| p.extra.get(i)).map_or(&[][..], Vec::as_slice);
        let l = match t {
            // Many classes: each a look the images show (the first target;
            // a later one is labelled by rules over the looks drawn). A
            // multimodal task's classes are regions of the image's and the
            // table's scores together.
            TargetDna::Classes { shares, numeric_labels } if shares.len() > 2 && i == 0 && !multimodal => looks_target(
                plan,
                shares,
                *numeric_labels,
                name,
                &mut factors,
                level,
                canvas.width.min(canvas.height),
                &mut rng,
            ),
            _ => label_target(plan, t, name, family, &factors, level, extra, &mut rng)?,
        };
        all.push_column(name.clone(), l.column)?;
        records.push(l.record);
        truths.push(l.truth);
        prediction_columns.extend(l.prediction_columns);
    }
    // Every row's image from its own stream, collected in row order.
    // Each kept with its pixels and digest, which the baseline panel and
    // the checks read without decoding or hashing the file again.
    let mut pngs: Vec<Option<EncodedImage>> = (0..n)
        .into_par_iter()
        .map(|r| {
            let pixels = render(&factors[r], &canvas, &mut rng_for(seed, &format!("image-{r}")))?;
            Ok(Some(EncodedImage::new(pixels)?))
        })
        .collect::<Result<Vec<_>>>()?;
    let digest = |p: &Option<EncodedImage>| p.as_ref().map_or("", EncodedImage::sha256).to_owned();
    // A test image identical to a training image would carry its label.
    let seen: BTreeSet<String> = pngs[..n_train].iter().map(digest).collect();
    let test_rows: Vec<usize> = (n_train..n).filter(|&r| !seen.contains(&digest(&pngs[r]))).collect();
    if test_rows.len() * 2 < n_test {
        return Err(Error::Unsupported { reason: "too many test images repeat a training image".into() });
    }
    let kept: Vec<usize> = (0..n_train).chain(test_rows).collect();
    let (train, test, ids) = crate::synthesize::split_with_fresh_ids(&all, &kept, n_train, seed)?;
    let spec = ImageSpec::png(canvas.width, canvas.height, canvas.channels);
    let mut set = ImageSet::new();
    let mut by_id: Vec<(usize, usize)> = kept.iter().enumerate().map(|(pos, &row)| (ids[pos], row)).collect();
    by_id.sort_unstable();
    for &(id, row) in &by_id {
        if let Some(image) = pngs[row].take() {
            set.insert_encoded(spec.file_name(&id.to_string()), image)?;
        }
    }
    let task = TaskSpec {
        id: format!("{}-synth", plan.seed_task),
        modality: if multimodal { Modality::Multimodal } else { Modality::Image },
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
    let description = describe_images(&task, &plan.story, &spec, &t.train, t.test.n_rows());
    let mut provenance = Provenance::new(&plan.seed_task, sandmle_core::SYNTH_GENERATOR, SYNTH_VERSION, seed);
    provenance.dna = Some(dna.clone());
    let mut hidden = json!({
        "modality": "image",
        "family": family.name(),
        "targets": records,
        "nuisance": nuisance,
    });
    if let Some(table) = &table {
        hidden["modality"] = json!("multimodal");
        hidden["table_rules"] = json!(table.records);
        hidden["label"] = json!("each score is the image rule's plus the table rule's (both standardised)");
    }
    provenance.hidden_rule = Some(hidden);
    record_factors(&mut provenance, &factors, &by_id);
    let order = crate::oracle::test_rows_in_order(&kept, &ids, n_train);
    let oracle = crate::oracle::oracle_record(&task, &truths, &order, t.answers.column(&task.id_column)?)?;
    crate::synthesize::record_oracle(&mut provenance, &oracle)?;
    crate::synthesize::finish_synthesized(task, t, description, provenance, plan, set)
}

/// Records the image generator's version and every kept row's factors
/// (`details.image_factors`: the field names, then one row per id, in id
/// order; `by_id` pairs each id with its row of `factors`).
pub(super) fn record_factors(provenance: &mut Provenance, factors: &[ImageFactors], by_id: &[(usize, usize)]) {
    provenance.details.insert("image_generator_version".into(), json!(IMAGE_SYNTH_VERSION));
    let rows: Vec<serde_json::Value> = by_id
        .iter()
        .map(|&(id, row)| {
            let mut v = vec![json!(id)];
            v.extend(factors[row].to_codes().iter().map(|c| json!(c)));
            serde_json::Value::Array(v)
        })
        .collect();
    let fields: Vec<&str> = std::iter::once("id").chain(FACTOR_FIELDS).collect();
    provenance.details.insert("image_factors".into(), json!({"fields": fields, "rows": rows}));
}

/// The domain of a candidate: the lexicons in turn from an offset drawn
/// from the seed task and the run's seed, one step per candidate and one
/// more per retry.
pub(crate) fn domain_for(request: &PlanRequest) -> &'static str {
    let offset: u64 = rng_for(request.run_seed, &format!("{}/domains", request.seed_task)).random();
    let at = usize::try_from(offset % DOMAINS.len() as u64).unwrap_or(0);
    let step = request.index.wrapping_add(usize::try_from(request.attempt).unwrap_or(0));
    DOMAINS[(at + step % DOMAINS.len()) % DOMAINS.len()].name
}
