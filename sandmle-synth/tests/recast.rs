//! A run's mix asks candidates for other modalities: every bundled seed's
//! DNA recast into each of the mix's modalities realises, keeps what is
//! predicted, and passes the gates.

mod common;

use common::{TABLE_SEEDS, seed};
use sandmle_core::{
    Environment, FeatureDna, MIX_MODALITIES, Modality, PixelDna, PlanRequest, Synthesizer, TaskDna, TaskKind, calibrate,
};
use sandmle_exec::Panel;
use sandmle_metrics::StandardGrader;
use sandmle_synth::graph::NEIGHBOURS;
use sandmle_synth::recast::{RECAST_IMAGE, generic_features, recast};
use sandmle_synth::sequence::POSITION;
use sandmle_synth::{DnaSynthesizer, GateVerifier, extract_dna};
use std::sync::Arc;

fn request(name: &str, modality: Modality) -> PlanRequest {
    PlanRequest { seed_task: name.into(), run_seed: 4, index: 0, attempt: 0, modality: Some(modality) }
}

fn realised(dna: &TaskDna, name: &str, modality: Modality) -> Environment {
    let synth = DnaSynthesizer::default();
    let plan = synth.plan(dna, &request(name, modality)).unwrap_or_else(|e| panic!("{name} as {modality:?}: {e}"));
    synth.realize(&plan).unwrap_or_else(|e| panic!("{name} as {modality:?}: {e}"))
}

/// Every seed into every modality of the mix: the modality asked for,
/// the seed's task kind, metric and target count, the files and columns
/// the modality has (a seed of classes asked for a forecasting task keeps
/// its own modality); one modality per seed (in turn) is calibrated by the
/// real panel and passes every gate.
#[test]
fn every_seed_recasts_into_every_mix_modality() {
    let seeds: Vec<&str> = TABLE_SEEDS.iter().copied().chain(["digits_png"]).collect();
    for (i, name) in seeds.iter().enumerate() {
        let s = seed(name);
        let dna = extract_dna(&s).unwrap();
        for (j, &(modality, _)) in MIX_MODALITIES.iter().enumerate() {
            let mut env = realised(&dna, name, modality);
            let task = env.task().clone();
            // Only a seed of one value target becomes a forecasting task.
            let value = s.task().kind == TaskKind::Regression && s.task().target_columns.len() == 1;
            if modality == Modality::TimeSeries && !value {
                assert_eq!(task.modality, dna.modality, "{name}");
                continue;
            }
            // Only a seed of one class target becomes a graph or sequence task.
            if matches!(modality, Modality::Graph | Modality::Sequence) && (value || s.task().target_columns.len() != 1)
            {
                assert_eq!(task.modality, dna.modality, "{name}");
                continue;
            }
            assert_eq!(task.modality, modality, "{name}");
            assert_eq!((task.kind, &task.metric), (s.task().kind, &s.task().metric), "{name} as {modality:?}");
            assert_eq!(task.target_columns.len(), s.task().target_columns.len(), "{name} as {modality:?}");
            let features = env.test.names().iter().filter(|c| task.is_feature(c)).count();
            let files = !env.images.is_empty();
            match modality {
                // The seed's own modality keeps the seed's shape (a table
                // of pixels stays one).
                _ if modality == dna.modality => {}
                Modality::TimeSeries => assert!(!files && env.test.has_column("date"), "{name}"),
                Modality::Graph => assert!(!files && env.test.has_column(NEIGHBOURS), "{name}"),
                Modality::Sequence => {
                    assert!(!files && env.test.has_column(POSITION) && task.group_column.is_some(), "{name}");
                }
                Modality::Image | Modality::Audio => assert!(files && features == 0, "{name} as {modality:?}"),
                Modality::Multimodal => assert!(files && features > 0, "{name} as {modality:?}"),
                _ => assert!(!files && features > 0, "{name} as {modality:?}"),
            }
            if modality == Modality::Text {
                assert!(extract_dna(&env).unwrap().features.iter().any(|f| matches!(f, FeatureDna::Text { .. })));
            }
            if j == i % MIX_MODALITIES.len() {
                let verifier = GateVerifier::new(Arc::new(StandardGrader));
                let gates = calibrate(&mut env, &Panel::default(), &StandardGrader, &verifier).unwrap();
                let failed: Vec<_> = gates.iter().filter(|g| !g.passed).collect();
                assert!(failed.is_empty(), "{name} as {modality:?}: {failed:?}");
            }
        }
    }
}

/// A multimodal environment is itself a seed: its DNA says multimodal,
/// with its images and its feature columns, and plans from it stay
/// multimodal; the same plan gives the same bytes.
#[test]
fn a_multimodal_environment_round_trips_as_a_seed() {
    let dna = extract_dna(&seed("wine")).unwrap();
    let env = realised(&dna, "wine", Modality::Multimodal);
    assert_eq!(env.id().unwrap(), realised(&dna, "wine", Modality::Multimodal).id().unwrap());
    let again = extract_dna(&env).unwrap();
    assert_eq!(again.modality, Modality::Multimodal);
    assert!(again.images.is_some() && !again.features.is_empty());
    let synth = DnaSynthesizer::default();
    let plan = synth
        .plan(&again, &PlanRequest { seed_task: "wine-mm".into(), run_seed: 1, index: 2, attempt: 0, modality: None })
        .unwrap();
    assert_eq!(synth.synthesize(&plan).unwrap().task().modality, Modality::Multimodal);
    // Its description names its columns and its images.
    assert!(env.description.contains("## Columns") && env.description.contains("images/"), "{}", env.description);
    let rule = env.provenance.hidden_rule.as_ref().unwrap();
    assert_eq!(rule["modality"], "multimodal");
    assert!(rule["table_rules"].is_array());
}

/// What a recast keeps and replaces: the same modality is the DNA
/// itself; a table from pictures gets the generic features; an image from
/// a table drops its features and takes the default canvas; a
/// page-reconstruction DNA is never recast.
#[test]
fn recasting_keeps_the_targets_and_replaces_the_rows() {
    let wine = extract_dna(&seed("wine")).unwrap();
    assert_eq!(recast(&wine, Modality::Tabular).unwrap(), wine);
    let image = recast(&wine, Modality::Image).unwrap();
    assert_eq!((image.features.len(), image.images.clone()), (0, Some(RECAST_IMAGE)));
    assert_eq!((image.targets.clone(), image.metric.clone()), (wine.targets.clone(), wine.metric.clone()));
    let pictures = extract_dna(&seed("digits_png")).unwrap();
    let table = recast(&pictures, Modality::Tabular).unwrap();
    assert_eq!(table.features, generic_features());
    assert!(table.images.is_none());
    // The seed's correlations follow its kept features.
    let text = recast(&extract_dna(&seed("sms_spam")).unwrap(), Modality::Tabular).unwrap();
    for &(a, b, _) in &text.correlations {
        assert!(a < text.features.len() && b < text.features.len());
    }
    let mut pages = wine.clone();
    pages.pixels = Some(PixelDna { width: 8, height: 8, train_images: 10, test_images: 5, mean_target: 0.8 });
    assert!(recast(&pages, Modality::Image).is_none());
}
