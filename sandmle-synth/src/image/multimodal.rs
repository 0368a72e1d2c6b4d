//! The table half of a multimodal task: feature columns beside the images,
//! and the part of each label's score they carry.
//!
//! A multimodal plan ([`sandmle_core::Modality::Multimodal`]) names table
//! features as a tabular plan does. They are generated as a table's are
//! ([`crate::features`]: the DNA's shapes, units, levels and missing
//! values), and each score a target's labels read (one for two classes or
//! a value, one per class otherwise) is the image rule's standardised
//! score plus a table rule's (a [`Rule`] of a drawn family over at most
//! [`crate::rule::RULE_FEATURES`] of the features, standardised): the
//! picture and the columns carry equal parts of the signal, so a model
//! that reads one alone stops halfway.

use crate::features::{Generated, apply_missingness, generate_features};
use crate::lexicon::DOMAINS;
use crate::rule::{FAMILIES, Rule, rule_pool};
use rand::RngExt;
use sandmle_core::{Column, TargetDna, TaskPlan, rng_for};
use serde_json::json;

/// The generated features and, per target, the table's part of each of its
/// scores (one row-long vector per score), with the rules' record.
pub(super) struct TablePart {
    /// The feature columns, missing values applied, in plan order.
    pub columns: Vec<(String, Column)>,
    /// Per target: per score, the table rule's standardised score of each row.
    pub extra: Vec<Vec<Vec<f64>>>,
    /// Per target: the table rules, for the hidden rule's record.
    pub records: Vec<serde_json::Value>,
}

/// How many scores a target's labels read: one per class of a target with
/// more than two, one otherwise.
fn scores_of(plan: &TaskPlan, target: &TargetDna) -> usize {
    match target {
        TargetDna::Classes { shares, .. } if shares.len() > 2 => {
            crate::sizes::file_task_shares(shares, crate::sizes::ranking(&plan.dna)).len()
        }
        _ => 1,
    }
}

/// The table half of `plan`'s `n` rows (see the module docs).
pub(super) fn table_part(plan: &TaskPlan, n: usize) -> TablePart {
    let seed = plan.seed;
    let domain = DOMAINS.iter().find(|d| d.name == plan.domain);
    let mut feats: Vec<Generated> = generate_features(&plan.features, domain, n, &mut rng_for(seed, "synth-features"));
    crate::relations::apply(&mut feats);
    let signal: Vec<Vec<f64>> = feats.iter().filter(|f| f.signal).map(|f| f.latent.clone()).collect();
    let names: Vec<String> = feats.iter().filter(|f| f.signal).map(|f| f.name.clone()).collect();
    let mut rng = rng_for(seed, "multimodal-rule");
    let (mut extra, mut records) = (Vec::new(), Vec::new());
    for target in &plan.dna.targets {
        let family = FAMILIES[rng.random_range(0..FAMILIES.len())];
        let pool = rule_pool(signal.len(), &mut rng);
        let rules: Vec<Rule> = (0..scores_of(plan, target)).map(|_| Rule::draw_over(family, &pool, &mut rng)).collect();
        let reads: Vec<&String> = pool.iter().filter_map(|&j| names.get(j)).collect();
        records.push(json!({"family": family.name(), "reads": reads, "rules": rules}));
        extra.push(
            rules
                .iter()
                .map(|r| {
                    if signal.is_empty() {
                        vec![0.0; n]
                    } else {
                        r.scores(&signal, n).iter().map(|s| TABLE_WEIGHT * s).collect()
                    }
                })
                .collect(),
        );
    }
    apply_missingness(&mut feats, plan.mutations.missingness, &mut rng_for(seed, "synth-missing"));
    TablePart { columns: feats.into_iter().map(|f| (f.name, f.column)).collect(), extra, records }
}

/// The table rule's weight in a multimodal score, the image rule's being 1.
pub const TABLE_WEIGHT: f64 = 1.5;
