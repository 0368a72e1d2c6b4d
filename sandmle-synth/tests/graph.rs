//! Graph tasks from a class seed recast by a run's mix: every row a node,
//! its links to rows of either file, mostly of its own class, each link
//! counted both ways; the gates pass and the same plan gives the same bytes.

mod common;

use common::seed;
use sandmle_core::{Environment, Modality, PlanRequest, calibrate};
use sandmle_exec::Panel;
use sandmle_metrics::StandardGrader;
use sandmle_synth::graph::{NEIGHBOURS, homophily};
use sandmle_synth::{DnaSynthesizer, GateVerifier, extract_dna};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

fn graph(name: &str, index: usize) -> Environment {
    let dna = extract_dna(&seed(name)).unwrap();
    let request =
        PlanRequest { seed_task: name.into(), run_seed: 6, index, attempt: 0, modality: Some(Modality::Graph) };
    let synth = DnaSynthesizer::default();
    synth.realize(&synth.plan(&dna, &request).unwrap()).unwrap()
}

#[test]
fn links_join_rows_of_both_files_mostly_within_a_class() {
    for name in ["breast_cancer", "wine"] {
        let mut env = graph(name, 0);
        assert_eq!(env.task().modality, Modality::Graph);
        let target = env.task().target_columns[0].clone();
        // Every row's id, class and links, the test rows' classes from the answers.
        let mut class: BTreeMap<String, String> = BTreeMap::new();
        let mut links: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (table, labels) in [(&env.train, &env.train), (&env.test, &env.answers)] {
            let ids = table.column("id").unwrap();
            let label_ids = labels.column("id").unwrap();
            // One column of labels, or (class probabilities) one 0/1 column a class.
            let label = |r: usize| match labels.column(&target) {
                Ok(c) => c.get_label(r).unwrap().into_owned(),
                Err(_) => env
                    .task()
                    .prediction_columns
                    .iter()
                    .find(|c| labels.column(c).unwrap().as_numeric().unwrap()[r] == 1.0)
                    .unwrap()
                    .clone(),
            };
            let label_of: BTreeMap<String, String> =
                (0..labels.n_rows()).map(|r| (label_ids.get_str(r).unwrap().into_owned(), label(r))).collect();
            let col = table.column(NEIGHBOURS).unwrap();
            for r in 0..table.n_rows() {
                let id = ids.get_str(r).unwrap().into_owned();
                class.insert(id.clone(), label_of[&id].clone());
                let text = col.get_str(r).map(|s| s.into_owned()).unwrap_or_default();
                links.insert(id, text.split_whitespace().map(str::to_owned).collect());
            }
        }
        let (mut same, mut total, mut across) = (0, 0, 0);
        let test_ids: BTreeSet<String> =
            (0..env.test.n_rows()).map(|r| env.test.column("id").unwrap().get_str(r).unwrap().into_owned()).collect();
        for (id, linked) in &links {
            for other in linked {
                assert!(links[other].contains(id), "{name}: {id} -> {other} one way");
                total += 1;
                same += usize::from(class[id] == class[other]);
                across += usize::from(test_ids.contains(id) != test_ids.contains(other));
            }
        }
        let share = same as f64 / total as f64;
        assert!(share > 0.6 && share <= homophily(0.0) + 0.1, "{name}: {share}");
        assert!(across > total / 4, "{name}: links across the files {across} of {total}");
        let verifier = GateVerifier::new(Arc::new(StandardGrader));
        let gates = calibrate(&mut env, &Panel::default(), &StandardGrader, &verifier).unwrap();
        assert!(gates.iter().all(|g| g.passed), "{name}: {gates:?}");
    }
    assert_eq!(graph("wine", 2).id().unwrap(), graph("wine", 2).id().unwrap());
}
