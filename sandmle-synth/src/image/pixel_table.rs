//! Pixel tables: a seed whose feature columns are the pixels of a small
//! grey picture, one column each, row by row (scikit-learn's digits: 64
//! columns `px_0` to `px_63` of 0 to 16). Its synthesized tasks are
//! pictures too, not numbers named after pixels: every row's picture is
//! drawn as an image task's ([`super::render`], the same factors, looks
//! and rules), then averaged down to the seed's grid and scaled to its
//! range. A model that reads the pixels as a picture (where the ink is,
//! how much, what shape) learns the task; the columns are never
//! independent draws.
//!
//! The pictures are framed as a pixel table's are (scikit-learn's digits
//! are centred and scaled to fill the frame): the group sits within 15 %
//! of the centre (10 % for a many-class task's looks), the shapes are drawn larger (1.8 times a lone shape's
//! radius, 1.4 times a group's, a monotone zoom of the size factor, so a
//! rule over the size still reads what is seen), on the seed's background
//! (the lower quartile of its pixels' medians: dark for digits).
//!
//! The story is the domain's image story ("Surface defect inspection",
//! ...), saying that the columns are the picture's pixels.

use super::draw::{Canvas, render};
use super::dress::dress;
use super::factors::{ImageFactors, Nuisance};
use super::task::{MAX_IMAGE_SIDE_DRAWN, family_of, label_target, looks_target, plan_images, record_factors};
use crate::error::{Error, Result};
use crate::synthesize::{DnaSynthesizer, TableTask, table_task};
use rayon::prelude::*;
use sandmle_core::{
    Column, Environment, FeatureDna, Modality, PlanRequest, PlannedFeature, Table, TargetDna, TaskDna, TaskPlan,
    rng_for,
};
use serde_json::json;
use std::collections::HashSet;

/// A pixel table's grid: `side` x `side` pixels of values in `[0, max]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PixelGrid {
    /// Pixels per side.
    pub side: usize,
    /// The largest value a pixel takes.
    pub max: f64,
    /// Whether the values are whole numbers.
    pub integer: bool,
}

/// Smallest grid drawn as a picture (4 x 4).
const MIN_SIDE: usize = 4;
/// Largest grid drawn as a picture (64 x 64).
const MAX_SIDE: usize = 64;

/// The grid of a DNA whose features are a picture's pixels: an image
/// modality without image files, every feature numeric and not negative,
/// a square number of them (4 x 4 to 64 x 64); `None` otherwise.
pub(crate) fn pixel_grid(dna: &TaskDna) -> Option<PixelGrid> {
    if dna.modality != Modality::Image || dna.images.is_some() || dna.pixels.is_some() || dna.audio.is_some() {
        return None;
    }
    let side = (dna.features.len() as f64).sqrt().round() as usize;
    if side * side != dna.features.len() || !(MIN_SIDE..=MAX_SIDE).contains(&side) {
        return None;
    }
    let (mut max, mut integer) = (0.0_f64, true);
    for f in &dna.features {
        let FeatureDna::Numeric { shape, .. } = f else { return None };
        if !(shape.min >= 0.0 && shape.max.is_finite()) {
            return None;
        }
        max = max.max(shape.max);
        integer &= shape.integer;
    }
    (max > 0.0).then_some(PixelGrid { side, max, integer })
}

/// The plan of a pixel-table candidate: an image plan (story, names, image
/// rule family, noise and imbalance) whose features are the grid's pixels,
/// `px_0` to `px_{side² - 1}`, row by row.
pub(crate) fn plan_pixel_table(
    dna: &TaskDna,
    request: &PlanRequest,
    domain: &str,
    difficulty: f64,
    mutate: bool,
    grid: PixelGrid,
) -> TaskPlan {
    let mut plan = plan_images(dna, request, domain, difficulty, mutate);
    let d = dress(domain);
    let s = grid.side;
    plan.story.context = format!(
        "{} Each {} is given as its {s}x{s} grey picture: `px_0` to `px_{}` are its pixel intensities (0 dark to {} \
         bright), row by row from the top left.",
        d.context,
        d.row_noun,
        s * s - 1,
        grid.max
    );
    plan.features = dna
        .features
        .iter()
        .enumerate()
        .map(|(i, f)| PlannedFeature { name: format!("px_{i}"), unit: None, dna: f.clone(), signal: true })
        .collect();
    plan
}

fn check(plan: &TaskPlan, grid: PixelGrid) -> Result<()> {
    let bad = |reason: String| Err(Error::BadPlan { reason });
    if plan.features.len() != grid.side * grid.side {
        return bad(format!(
            "a {0}x{0} pixel table has {1} feature columns, not {2}",
            grid.side,
            grid.side * grid.side,
            plan.features.len()
        ));
    }
    crate::synthesize::check_names(plan)?;
    if !(0.0..=1.0).contains(&plan.difficulty) {
        return bad("difficulty must lie in [0, 1]".into());
    }
    Ok(())
}

/// One picture averaged down to the grid (`factor` canvas pixels a grid
/// pixel per side) and scaled to `[0, max]`.
fn to_grid(data: &[u8], canvas_side: usize, grid: PixelGrid) -> Vec<f64> {
    let factor = canvas_side / grid.side;
    let area = (factor * factor) as f64;
    let mut out = Vec::with_capacity(grid.side * grid.side);
    for gy in 0..grid.side {
        for gx in 0..grid.side {
            let mut sum = 0u32;
            for y in gy * factor..(gy + 1) * factor {
                let row = &data[y * canvas_side + gx * factor..y * canvas_side + (gx + 1) * factor];
                sum += row.iter().map(|&v| u32::from(v)).sum::<u32>();
            }
            let v = f64::from(sum) / area / 255.0 * grid.max;
            out.push(if grid.integer { v.round() } else { (v * 1000.0).round() / 1000.0 });
        }
    }
    out
}

/// The factors a picture is drawn with: the shapes zoomed to fill the
/// frame (see the module docs).
fn framed(f: &ImageFactors) -> ImageFactors {
    let zoom = if f.count >= 3 { 1.4 } else { 1.8 };
    ImageFactors { size: (f64::from(f.size) * zoom).round().min(30.0) as u8, ..*f }
}

/// The environment a pixel-table plan asks for (see the module docs).
pub(crate) fn realize_pixel_table(synth: &DnaSynthesizer, plan: &TaskPlan, grid: PixelGrid) -> Result<Environment> {
    let dna = &plan.dna;
    synth.check(dna)?;
    check(plan, grid)?;
    let family = family_of(plan)?;
    let seed = plan.seed;
    let form = dna.metric.submission_form(dna.kind);
    let shares = match dna.targets.first() {
        Some(TargetDna::Classes { shares, .. }) => shares.clone(),
        _ => vec![],
    };
    let n_train = synth.train_rows;
    let n_test = crate::sizes::test_rows_for(form, &shares, usize::MAX);
    // Half as many spare rows again: a test picture repeating a training
    // one is skipped.
    let n = n_train + n_test + n_test / 2;
    let level = plan.difficulty * plan.mutations.noise;
    let nuisance = Nuisance::for_difficulty(level);
    // Drawn at 32 pixels a side or more, a whole number of canvas pixels
    // per grid pixel.
    let canvas_side = grid.side * 32usize.div_ceil(grid.side);
    let canvas = Canvas { width: canvas_side as u32, height: canvas_side as u32, channels: 1 };
    // The background: the lower quartile of the pixels' medians (the
    // margins of a centred picture).
    let mut medians: Vec<f64> = dna
        .features
        .iter()
        .map(|f| match f {
            FeatureDna::Numeric { shape, .. } => shape.quantiles[2],
            _ => 0.0,
        })
        .collect();
    medians.sort_by(f64::total_cmp);
    let typical = medians.get(medians.len() / 4).copied().unwrap_or(0.0);
    let background = ((typical / grid.max).clamp(0.0, 1.0) * 255.0).round() as u8;
    let mut rng = rng_for(seed, "image-factors");
    let mut factors: Vec<ImageFactors> = (0..n)
        .map(|_| {
            let mut f = ImageFactors::draw(&mut rng, &nuisance, background);
            // Centred: 35 to 65 % of each side.
            (f.x, f.y) = (35 + (f.x - 20) / 2, 35 + (f.y - 20) / 2);
            f
        })
        .collect();

    let mut rng = rng_for(seed, "image-rule");
    let (mut records, mut prediction_columns, mut truths, mut targets) = (vec![], vec![], vec![], vec![]);
    for (i, (t, name)) in dna.targets.iter().zip(&plan.targets).enumerate() {
        let l = match t {
            TargetDna::Classes { shares, numeric_labels } if shares.len() > 2 && i == 0 => {
                // The zoom already draws a shape large: the usual sizes.
                looks_target(plan, shares, *numeric_labels, name, &mut factors, level, MAX_IMAGE_SIDE_DRAWN, &mut rng)
            }
            _ => label_target(plan, t, name, family, &factors, level, &[], &mut rng)?,
        };
        targets.push((name.clone(), l.column));
        records.push(l.record);
        truths.push(l.truth);
        prediction_columns.extend(l.prediction_columns);
    }
    let pictures: Vec<Vec<f64>> = (0..n)
        .into_par_iter()
        .map(|r| {
            let pixels = render(&framed(&factors[r]), &canvas, &mut rng_for(seed, &format!("image-{r}")))?;
            Ok(to_grid(&pixels.data, canvas_side, grid))
        })
        .collect::<Result<_>>()?;
    let mut all = Table::new();
    all.push_column("id", Column::Text(vec![None; n]))?;
    for (j, f) in plan.features.iter().enumerate() {
        all.push_column(f.name.clone(), Column::Numeric(pictures.iter().map(|p| p[j]).collect()))?;
    }
    for (name, column) in targets {
        all.push_column(name, column)?;
    }
    // A test picture equal to a training one would carry its label.
    let bits = |p: &Vec<f64>| p.iter().map(|v| v.to_bits()).collect::<Vec<u64>>();
    let seen: HashSet<Vec<u64>> = pictures[..n_train].iter().map(bits).collect();
    let test_rows: Vec<usize> = (n_train..n).filter(|&r| !seen.contains(&bits(&pictures[r]))).take(n_test).collect();
    if test_rows.len() * 2 < n_test {
        return Err(Error::Unsupported { reason: "too many test pictures repeat a training picture".into() });
    }
    let kept: Vec<usize> = (0..n_train).chain(test_rows).collect();
    let (train, test, ids) = crate::synthesize::split_with_fresh_ids(&all, &kept, n_train, seed)?;
    let TableTask { task, tables: t, description, mut provenance } =
        table_task(plan, plan.targets.clone(), prediction_columns, train, test)?;
    provenance.hidden_rule = Some(json!({
        "modality": "pixel_table",
        "family": family.name(),
        "targets": records,
        "nuisance": nuisance,
        "grid": {"side": grid.side, "max": grid.max, "canvas": canvas_side,
            "zoom": "size x1.8 for one or two shapes, x1.4 for a group, at most 30"},
    }));
    let mut by_id: Vec<(usize, usize)> = kept.iter().enumerate().map(|(pos, &row)| (ids[pos], row)).collect();
    by_id.sort_unstable();
    record_factors(&mut provenance, &factors, &by_id);
    let order = crate::oracle::test_rows_in_order(&kept, &ids, n_train);
    let oracle = crate::oracle::oracle_record(&task, &truths, &order, t.answers.column(&task.id_column)?)?;
    crate::synthesize::record_oracle(&mut provenance, &oracle)?;
    crate::synthesize::finish_synthesized(task, t, description, provenance, plan, sandmle_core::ImageSet::new())
}
