//! Planning and realising a page-restoration task for [`DnaSynthesizer`].

use super::PAGES_SYNTH_VERSION;
use super::render::{Damage, PAGE_FAMILIES, Page, clean_page};
use crate::describe::evaluation;
use crate::error::{Error, Result};
use crate::labelled::tables;
use crate::mutations::DrawMutations;
use crate::random::shuffle;
use crate::synthesize::{DnaSynthesizer, SYNTH_VERSION};
use rand::RngExt;
use rayon::prelude::*;
use sandmle_core::pixel_rows::{COL, ITEM, PIXEL, ROW, pixel_id};
use sandmle_core::{
    Column, Environment, ImageSet, Modality, Mutations, PixelDna, PlanRequest, Provenance, Table, TaskKind, TaskPlan,
    TaskSpec, TaskStory, rng_for,
};
use serde_json::json;
use std::fmt::Write as _;

/// The documents pages come from: (domain, title, what a page is, context).
const DOCUMENTS: [(&str, &str, &str, &str); 6] = [
    (
        "archives",
        "Restoring archived letters",
        "letter",
        "A city archive scans letters kept in damp boxes for decades.",
    ),
    (
        "logistics",
        "Cleaning shipping manifests",
        "manifest",
        "A port digitises handwritten-then-typed cargo manifests.",
    ),
    ("science", "Recovering lab notebooks", "notebook page", "A research institute scans old lab notebooks."),
    ("finance", "Restoring scanned invoices", "invoice", "An accounts team scans supplier invoices of many ages."),
    ("healthcare", "Cleaning patient intake forms", "form", "A clinic scans paper intake forms from its basement."),
    (
        "libraries",
        "Restoring catalogue cards",
        "catalogue card",
        "A library scans its card catalogue before recycling it.",
    ),
];

/// Pages of the training split (the seed's count, 2 to 3).
fn train_pages(pixels: &PixelDna) -> usize {
    pixels.train_images.clamp(2, 3)
}

/// Pages of the test split (the seed's count, 1 to 3).
fn test_pages(pixels: &PixelDna) -> usize {
    pixels.test_images.clamp(1, 3)
}

/// A page's size: the seed's, kept within 32 to 56 pixels wide and 24 to
/// 40 high (a few thousand rows a page: the panel fits in seconds).
fn page_size(pixels: &PixelDna) -> (usize, usize) {
    (pixels.width.clamp(32, 56) as usize, pixels.height.clamp(24, 40) as usize)
}

/// The plan of a page-restoration candidate: a document kind in turn, a
/// damage family, the seed's target name.
pub(crate) fn plan_pages(
    dna: &sandmle_core::TaskDna,
    request: &PlanRequest,
    difficulty: f64,
    mutate: bool,
) -> TaskPlan {
    let seed = request.candidate_seed();
    let mut rng = rng_for(seed, "synth-plan");
    let family = PAGE_FAMILIES[rng.random_range(0..PAGE_FAMILIES.len())];
    let drawn = if mutate { Mutations::draw(&mut rng) } else { Mutations::none() };
    let offset: usize = rng_for(request.run_seed, &format!("{}/documents", request.seed_task)).random_range(0..6);
    let (domain, title, noun, context) = DOCUMENTS[(offset + request.index) % DOCUMENTS.len()];
    TaskPlan {
        seed_task: request.seed_task.clone(),
        seed,
        dna: dna.clone(),
        domain: domain.to_owned(),
        story: TaskStory { title: title.to_owned(), row_noun: noun.to_owned(), context: context.to_owned() },
        features: vec![],
        targets: vec!["value".to_owned()],
        classes: vec![],
        rule_family: family.to_owned(),
        difficulty,
        mutations: Mutations { noise: drawn.noise, ..Mutations::none() },
    }
}

/// The rows of pages: every pixel, in page then row then column order.
fn rows(pages: &[(String, Page, Page)], with_target: bool) -> Result<Table> {
    let n: usize = pages.iter().map(|(_, p, _)| p.levels.len()).sum();
    let (mut id, mut item, mut row, mut col, mut pixel, mut value) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for (stem, clean, scanned) in pages {
        for (i, (&c, &s)) in clean.levels.iter().zip(&scanned.levels).enumerate() {
            let (r, k) = (i / clean.width + 1, i % clean.width + 1);
            id.push(Some(pixel_id(stem, r, k).into()));
            item.push(Some(stem.as_str().into()));
            row.push(r as f64);
            col.push(k as f64);
            pixel.push(s);
            value.push(c);
        }
    }
    let mut t = Table::from_columns([
        ("id".to_owned(), Column::Text(id)),
        (ITEM.to_owned(), Column::Text(item)),
        (ROW.to_owned(), Column::Numeric(row)),
        (COL.to_owned(), Column::Numeric(col)),
        (PIXEL.to_owned(), Column::Numeric(pixel)),
    ])?;
    if with_target {
        t.push_column("value", Column::Numeric(value))?;
    }
    Ok(t)
}

/// The environment a page-restoration plan asks for.
pub(crate) fn realize_pages(synth: &DnaSynthesizer, plan: &TaskPlan, pixels: &PixelDna) -> Result<Environment> {
    synth.check(&plan.dna)?;
    if !PAGE_FAMILIES.contains(&plan.rule_family.as_str()) {
        return Err(Error::BadPlan { reason: format!("unknown page family `{}`", plan.rule_family) });
    }
    if plan.targets.len() != 1 || !plan.features.is_empty() || plan.dna.kind != TaskKind::Regression {
        return Err(Error::BadPlan { reason: "a page task has one target, `value`, and no feature columns".into() });
    }
    let dna = &plan.dna;
    let seed = plan.seed;
    let level = (plan.difficulty * plan.mutations.noise).clamp(0.0, 1.0);
    let damage = Damage::draw(&plan.rule_family, level, &mut rng_for(seed, "pages-rule"));
    let (width, height) = page_size(pixels);
    let (n_train, n_test) = (train_pages(pixels), test_pages(pixels));
    // Page names: distinct numbers, as scans are numbered.
    let mut names: Vec<usize> = (1..=999).collect();
    shuffle(&mut names, &mut rng_for(seed, "pages-names"));
    let pages: Vec<(String, Page, Page)> = (0..n_train + n_test)
        .into_par_iter()
        .map(|i| {
            let clean = clean_page(width, height, &mut rng_for(seed, &format!("page-{i}")));
            let scanned = damage.apply(&clean, &mut rng_for(seed, &format!("scan-{i}")));
            (names[i].to_string(), clean, scanned)
        })
        .collect();
    let (train_pages, test_pages) = pages.split_at(n_train);
    let task = TaskSpec {
        id: format!("{}-synth", plan.seed_task),
        modality: Modality::Image,
        kind: TaskKind::Regression,
        id_column: "id".into(),
        target_columns: vec!["value".into()],
        prediction_columns: vec!["value".into()],
        metric: dna.metric.clone(),
        direction: dna.direction,
        images: None,
        train_only_columns: Vec::new(),
        group_column: Some(ITEM.into()),
    };
    let t = tables(&task, rows(train_pages, true)?, rows(test_pages, true)?)?;
    let description = describe(&task, plan, (width, height), (n_train, n_test), t.train.n_rows(), t.test.n_rows());
    let mut provenance = Provenance::new(&plan.seed_task, sandmle_core::SYNTH_GENERATOR, SYNTH_VERSION, seed);
    provenance.dna = Some(dna.clone());
    provenance.hidden_rule = Some(json!({"modality": "image", "task": "page_restoration", "damage": damage}));
    provenance.details.insert("pages_generator_version".into(), json!(PAGES_SYNTH_VERSION));
    crate::synthesize::finish_synthesized(task, t, description, provenance, plan, ImageSet::new())
}

/// `description.md` of a page task: the story, the pixel rows, the metric
/// and the submission format — never the damage.
fn describe(
    task: &TaskSpec,
    plan: &TaskPlan,
    (width, height): (usize, usize),
    (n_train, n_test): (usize, usize),
    train_rows: usize,
    test_rows: usize,
) -> String {
    let story = &plan.story;
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", story.title);
    let _ = writeln!(
        s,
        "{} Each {} was scanned, and the scans are stained, unevenly lit and noisy. Restore the clean page: \
         predict `value`, the clean grey level, for every pixel of the test pages.\n",
        story.context, story.row_noun
    );
    let _ = writeln!(s, "## Files\n");
    let _ = writeln!(
        s,
        "- `train.csv`: {train_rows} rows, one per pixel of {n_train} scanned pages, with the clean page's `value`."
    );
    let _ =
        writeln!(s, "- `test.csv`: {test_rows} rows, one per pixel of {n_test} more scanned pages, without `value`.");
    let _ = writeln!(s, "- `sample_submission.csv`: a valid submission with a constant prediction.\n");
    let _ = writeln!(s, "## Columns\n");
    let _ = writeln!(s, "- `id`: `<{ITEM}>_<{ROW}>_<{COL}>`, the pixel's page, row and column.");
    let _ = writeln!(s, "- `{ITEM}`: the page (its pixels are one image of about {width} x {height} pixels).");
    let _ = writeln!(s, "- `{ROW}`, `{COL}`: the pixel's position, from 1 at the top left.");
    let _ = writeln!(s, "- `{PIXEL}`: the scan's grey level at the pixel, from 0 (black) to 1 (white).");
    let _ = writeln!(s, "- `value` (train only): the clean page's grey level; white paper is 1.\n");
    evaluation(&mut s, task);
    s
}
