//! How an image task is dressed: per domain lexicon, what an image shows,
//! the target and class names, and `description.md`.

use crate::describe::evaluation;
use sandmle_core::{ImageSpec, TaskSpec};
use std::fmt::Write;

/// One domain's image dressing.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ImageDress {
    /// The [`crate::Domain`] it dresses.
    pub domain: &'static str,
    /// The task's title.
    pub title: &'static str,
    /// What one image is.
    pub row_noun: &'static str,
    /// A sentence of context.
    pub context: &'static str,
    /// Target names: binary, multi-class, value.
    pub targets: [&'static str; 3],
    /// Class names for multi-class targets.
    pub classes: &'static [&'static str],
}

/// The dressing of every domain of [`crate::DOMAINS`].
const DRESSES: [ImageDress; 10] = [
    ImageDress {
        domain: "healthcare",
        title: "Microscopy cell screening",
        row_noun: "microscope field of stained cells",
        context: "A pathology lab photographed stained samples under a microscope; each tile shows cells among debris.",
        targets: ["atypical", "cell_stage", "viability_index"],
        classes: &["interphase", "prophase", "metaphase", "anaphase", "telophase"],
    },
    ImageDress {
        domain: "retail",
        title: "Shelf photo audit",
        row_noun: "crop of a store shelf photo",
        context: "A retailer's auditors photographed shelves; each crop shows products and labels.",
        targets: ["misplaced", "display_type", "facing_score"],
        classes: &["standard", "promo", "endcap", "clearance", "seasonal"],
    },
    ImageDress {
        domain: "manufacturing",
        title: "Surface defect inspection",
        row_noun: "inspection tile of a machined surface",
        context: "A production line's camera inspects every part's surface; each tile shows marks, scratches and dust.",
        targets: ["defective", "defect_type", "roughness_index"],
        classes: &["pit", "scratch", "inclusion", "crack", "stain"],
    },
    ImageDress {
        domain: "it_operations",
        title: "Rack thermal snapshots",
        row_noun: "thermal snapshot of a server rack",
        context: "A data centre's thermal cameras image the racks every hour; each snapshot shows hot spots and cabling.",
        targets: ["overheating", "alert_level", "heat_index"],
        classes: &["nominal", "watch", "warning", "critical", "offline"],
    },
    ImageDress {
        domain: "transportation",
        title: "Traffic camera crops",
        row_noun: "crop of a traffic camera frame",
        context: "A city's traffic cameras store low-resolution frames; each crop shows vehicles, markings and clutter.",
        targets: ["congested", "scene_type", "vehicle_density"],
        classes: &["junction", "highway", "parking", "tunnel", "bridge"],
    },
    ImageDress {
        domain: "finance",
        title: "Scanned document patches",
        row_noun: "patch of a scanned payment document",
        context: "A bank scans paper payment documents; each patch shows stamps, marks and printing noise.",
        targets: ["forged", "document_class", "ink_density"],
        classes: &["cheque", "invoice", "receipt", "statement", "voucher"],
    },
    ImageDress {
        domain: "science",
        title: "Telescope cutouts",
        row_noun: "cutout of a telescope exposure",
        context: "A sky survey cuts small stamps around detected sources; each stamp shows objects, artefacts and noise.",
        targets: ["transient", "object_class", "brightness_index"],
        classes: &["star", "galaxy", "quasar", "nebula", "artefact"],
    },
    ImageDress {
        domain: "agriculture",
        title: "Satellite field tiles",
        row_noun: "satellite tile of farmland",
        context: "An agronomy service buys satellite imagery of its clients' fields; each tile shows plots, tracks and clouds.",
        targets: ["blighted", "land_use", "green_cover"],
        classes: &["cereal", "orchard", "pasture", "fallow", "vineyard"],
    },
    ImageDress {
        domain: "energy",
        title: "Solar cell inspection",
        row_noun: "electroluminescence image of a solar cell",
        context: "A solar farm images its panels' cells at night under current; each image shows busbars, cracks and dark spots.",
        targets: ["faulty", "cell_condition", "output_index"],
        classes: &["intact", "microcrack", "hotspot", "soiled", "shaded"],
    },
    ImageDress {
        domain: "insurance",
        title: "Claim photo triage",
        row_noun: "photo crop of a claimed vehicle panel",
        context: "An insurer's app collects photos of damaged vehicles; each crop shows dents, scratches and reflections.",
        targets: ["total_loss", "damage_type", "repair_index"],
        classes: &["dent", "scratch", "crack", "shatter", "rust"],
    },
];

/// The dressing of a domain (the first one for an unknown name; every
/// domain of [`crate::DOMAINS`] has its own, tested).
pub(crate) fn dress(domain: &str) -> &'static ImageDress {
    DRESSES.iter().find(|d| d.domain == domain).unwrap_or(&DRESSES[0])
}

/// The title of an image task of `domain` at one of its organisations
/// (`"Riverside Clinics: microscopy cell screening"`), drawn from `rng`.
pub(crate) fn image_title(domain: &str, rng: &mut sandmle_core::SeedRng) -> String {
    use rand::RngExt;
    let title = dress(domain).title;
    match crate::lexicon::ORGANISATIONS.iter().find(|(d, _)| *d == domain) {
        Some((_, orgs)) => {
            let mut lower = title.chars();
            let lower = lower.next().map(|c| c.to_lowercase().collect::<String>() + lower.as_str()).unwrap_or_default();
            format!("{}: {lower}", orgs[rng.random_range(0..orgs.len())])
        }
        None => title.to_owned(),
    }
}

/// `description.md` of an image task: the story, the files (the images'
/// folder, size and channels, that `train.csv` holds the id and the
/// label), the metric and the submission format — never the rule.
pub(crate) fn describe_images(
    task: &TaskSpec,
    story: &sandmle_core::TaskStory,
    spec: &ImageSpec,
    train: &sandmle_core::Table,
    test_rows: usize,
) -> String {
    let train_rows = train.n_rows();
    let features: Vec<(&str, &sandmle_core::Column)> = train.iter().filter(|(n, _)| task.is_feature(n)).collect();
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", story.title);
    let _ = writeln!(s, "{}\n", story.context);
    let what = task.kind.prediction_phrase();
    let targets = task.target_columns.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
    let id = &task.id_column;
    if features.is_empty() {
        let _ = writeln!(
            s,
            "Each row is one {}, given as an image. Predict {what} of {targets} for every row of `test.csv` from its \
             image.\n",
            story.row_noun
        );
        let _ = writeln!(s, "## Files\n");
        let _ = writeln!(s, "- `train.csv`: {train_rows} rows with `{id}` and {targets} (no other columns).");
        let _ = writeln!(s, "- `test.csv`: {test_rows} rows with `{id}` only.");
    } else {
        let _ = writeln!(
            s,
            "Each row is one {}, given as an image and the columns below. Predict {what} of {targets} for every row \
             of `test.csv` from both.\n",
            story.row_noun
        );
        let _ = writeln!(s, "## Files\n");
        let _ = writeln!(s, "- `train.csv`: {train_rows} rows with `{id}`, the columns below and {targets}.");
        let _ = writeln!(s, "- `test.csv`: {test_rows} rows with `{id}` and the columns below.");
    }
    let (w, h) = (spec.width.unwrap_or(0), spec.height.unwrap_or(0));
    let colours = match spec.channels {
        Some(1) => "greyscale (1 channel)",
        Some(4) => "RGBA colour (4 channels)",
        _ => "RGB colour (3 channels)",
    };
    let _ = writeln!(
        s,
        "- `{dir}/<{id}>{suffix}`: one image per row of `train.csv` and `test.csv`, named by the row's `{id}` (the row \
         with `{id}` 17 is `{dir}/17{suffix}`); every image is a PNG of {w}x{h} pixels, {colours}, 8 bits per channel.",
        dir = spec.dir,
        suffix = spec.suffix,
    );
    let _ = writeln!(s, "- `sample_submission.csv`: a valid submission with a constant prediction.\n");
    if !features.is_empty() {
        let _ = writeln!(s, "## Columns\n");
        for (name, col) in features {
            let _ = writeln!(
                s,
                "- `{name}` ({}; {} missing)",
                crate::describe::type_word(col.column_type()),
                col.missing_count()
            );
        }
        let _ = writeln!(s);
    }
    evaluation(&mut s, task);
    s
}

#[cfg(test)]
mod tests {
    /// Every table domain has an image dressing of its own.
    #[test]
    fn every_domain_is_dressed() {
        for d in crate::DOMAINS {
            assert_eq!(super::dress(d.name).domain, d.name);
        }
    }
}
