//! Sequence-labelling tasks from class seeds recast by a run's mix: rows are
//! the words of whole documents, in one file each, ids
//! `<document>_<position>`; a word's neighbours tell its tag beyond the
//! word itself; the gates pass and the same plan gives the same bytes.

mod common;

use common::seed;
use sandmle_core::{Column, Environment, Grader, Modality, PlanRequest, SubmissionForm, Table, calibrate};
use sandmle_exec::Panel;
use sandmle_metrics::StandardGrader;
use sandmle_synth::sequence::{DOCUMENT_WORDS, POSITION};
use sandmle_synth::{DnaSynthesizer, GateVerifier, extract_dna};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

fn sequence(name: &str, index: usize) -> Environment {
    let dna = extract_dna(&seed(name)).unwrap();
    let request =
        PlanRequest { seed_task: name.into(), run_seed: 4, index, attempt: 0, modality: Some(Modality::Sequence) };
    let synth = DnaSynthesizer::default();
    synth.realize(&synth.plan(&dna, &request).unwrap()).unwrap()
}

fn texts(table: &Table, column: &str) -> Vec<String> {
    let c = table.column(column).unwrap();
    (0..table.n_rows()).map(|r| c.get_label(r).unwrap().into_owned()).collect()
}

/// Each test row's tag, from the answers (one label column, or one 0/1
/// column a class).
fn test_tags(env: &Environment) -> Vec<String> {
    let task = env.task();
    match env.answers.column(&task.target_columns[0]) {
        Ok(_) => texts(&env.answers, &task.target_columns[0]),
        Err(_) => (0..env.answers.n_rows())
            .map(|r| {
                task.prediction_columns
                    .iter()
                    .find(|c| env.answers.column(c).unwrap().as_numeric().unwrap()[r] == 1.0)
                    .unwrap()
                    .clone()
            })
            .collect(),
    }
}

/// A submission from the word alone: each word's tag shares in training
/// (the overall shares for a word never seen), in the task's form.
fn per_word_submission(env: &Environment) -> Table {
    let task = env.task();
    let target = task.target_columns[0].clone();
    // The word column: the feature that is neither the document nor the position.
    let group = task.group_column.clone().unwrap();
    let word_column = env.train.names().iter().find(|n| task.is_feature(n) && **n != group && *n != POSITION).unwrap();
    let (train_words, tags) = (texts(&env.train, word_column), texts(&env.train, &target));
    let classes: BTreeSet<String> = tags.iter().cloned().collect();
    let classes: Vec<String> = classes.into_iter().collect();
    let mut counts: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut overall = vec![0.0; classes.len()];
    for (w, t) in train_words.iter().zip(&tags) {
        let c = classes.iter().position(|x| x == t).unwrap();
        counts.entry(w).or_insert_with(|| vec![0.0; classes.len()])[c] += 1.0;
        overall[c] += 1.0;
    }
    let shares = |w: &str| -> Vec<f64> {
        let v = counts.get(w).unwrap_or(&overall);
        let total: f64 = v.iter().sum();
        v.iter().map(|x| x / total).collect()
    };
    let mut sub = Table::new();
    sub.push_column("id", env.test.column("id").unwrap().clone()).unwrap();
    let test_words = texts(&env.test, word_column);
    let numeric = env.train.column(&target).unwrap().as_numeric().is_some();
    match task.submission_form() {
        SubmissionForm::Label => {
            let best = |w: &str| {
                let s = shares(w);
                (0..s.len()).fold(0, |b, c| if s[c] > s[b] { c } else { b })
            };
            let labels = test_words.iter().map(|w| classes[best(w)].clone());
            let column = if numeric {
                Column::Numeric(labels.map(|l| l.parse().unwrap()).collect())
            } else {
                Column::Text(labels.map(|l| Some(l.as_str().into())).collect())
            };
            sub.push_column(task.prediction_columns[0].clone(), column).unwrap();
        }
        SubmissionForm::Probability => {
            let p = test_words.iter().map(|w| *shares(w).last().unwrap()).collect();
            sub.push_column(task.prediction_columns[0].clone(), Column::Numeric(p)).unwrap();
        }
        _ => {
            for column in &task.prediction_columns {
                let c = classes.iter().position(|x| x == column).unwrap();
                sub.push_column(column.clone(), Column::Numeric(test_words.iter().map(|w| shares(w)[c]).collect()))
                    .unwrap();
            }
        }
    }
    sub
}

#[test]
fn documents_are_whole_and_a_word_s_neighbours_tell_its_tag() {
    for (name, index) in [("breast_cancer", 0), ("wine", 1), ("digits", 2), ("sms_spam", 3), ("caravan", 4)] {
        let mut env = sequence(name, index);
        let task = env.task().clone();
        assert_eq!(task.modality, Modality::Sequence, "{name}");
        let group = task.group_column.clone().unwrap();
        assert_eq!(env.train.n_rows(), 200, "{name}");
        // Ids are `<document>_<position>`; positions run 0.. within a
        // document; no document is in both files.
        let mut docs: Vec<BTreeMap<u64, Vec<u64>>> = vec![BTreeMap::new(), BTreeMap::new()];
        for (table, docs) in [&env.train, &env.test].into_iter().zip(docs.iter_mut()) {
            let ids = texts(table, "id");
            let (g, p) = (table.column(&group).unwrap().as_numeric().unwrap(), table.column(POSITION).unwrap());
            let p = p.as_numeric().unwrap();
            for r in 0..table.n_rows() {
                assert_eq!(ids[r], format!("{}_{}", g[r], p[r]), "{name}");
                docs.entry(g[r] as u64).or_default().push(p[r] as u64);
            }
            for positions in docs.values() {
                assert_eq!(*positions, (0..positions.len() as u64).collect::<Vec<_>>(), "{name}");
                assert!(positions.len() <= DOCUMENT_WORDS.1, "{name}");
            }
        }
        assert!(docs[0].keys().all(|d| !docs[1].contains_key(d)), "{name}: a document in both files");
        assert!(!env.description.contains("hidden"), "{name}");
        assert_eq!(test_tags(&env).len(), env.test.n_rows());
        // One word a row is a sequence task's layout, not a realism fault.
        assert!(sandmle_synth::realism_gate(&env).passed, "{name}: {:?}", sandmle_synth::realism_gate(&env));

        let verifier = GateVerifier::new(Arc::new(StandardGrader));
        let gates = calibrate(&mut env, &Panel::default(), &StandardGrader, &verifier).unwrap();
        assert!(gates.iter().all(|g| g.passed), "{name}: {gates:?}");
        // The oracle reads the whole document: it beats the word alone by
        // a tenth of the way from the constant to a perfect score.
        let grade = |sub: &Table| StandardGrader.grade(&env.grading_task(), sub).unwrap().score_raw.unwrap();
        let (constant, word) = (grade(&env.sample_submission), grade(&per_word_submission(&env)));
        let oracle = env.grading.oracle.as_ref().unwrap().score;
        let perfect = if task.direction.is_lower_better() { 0.0 } else { 1.0 };
        let gain = |s: f64| (s - constant) / (perfect - constant);
        assert!(gain(word) > 0.2, "{name}: the word alone {word} vs constant {constant}");
        assert!(gain(oracle) > gain(word) + 0.1, "{name}: oracle {oracle}, word alone {word}, constant {constant}");
    }
    assert_eq!(sequence("wine", 2).id().unwrap(), sequence("wine", 2).id().unwrap());
}

/// A sequence environment is itself a seed: its DNA says sequence, and
/// plans from it stay sequence tasks.
#[test]
fn a_sequence_environment_round_trips_as_a_seed() {
    let env = sequence("sms_spam", 0);
    let dna = extract_dna(&env).unwrap();
    assert_eq!(dna.modality, Modality::Sequence);
    let request = PlanRequest { seed_task: "again".into(), run_seed: 1, index: 0, attempt: 0, modality: None };
    let synth = DnaSynthesizer::default();
    let again = synth.realize(&synth.plan(&dna, &request).unwrap()).unwrap();
    assert_eq!(again.task().modality, Modality::Sequence);
    assert!(again.task().group_column.is_some());
}

/// The regression test of shrinking's fresh ids: a micro sequence task
/// keeps its ids `<document>_<position>` (as its description says) and its
/// words in their order, documents whole and never split across files.
#[test]
fn a_shrunk_sequence_task_keeps_its_ids_and_word_order() {
    let env = sequence("wine", 1);
    let group = env.task().group_column.clone().unwrap();
    let micro = sandmle_synth::StratifiedShrinker { train_rows: 60, ..Default::default() }.shrink_env(&env, 3).unwrap();
    let mut seen: BTreeMap<String, &str> = BTreeMap::new();
    for (table, file) in [(&micro.train, "train"), (&micro.test, "test")] {
        let (ids, docs, places) = (texts(table, "id"), texts(table, &group), texts(table, POSITION));
        assert!(table.n_rows() > 0);
        for r in 0..table.n_rows() {
            assert_eq!(ids[r], format!("{}_{}", docs[r], places[r]), "{file} row {r}");
            if r > 0 && docs[r] == docs[r - 1] {
                assert!(places[r].parse::<usize>().unwrap() == places[r - 1].parse::<usize>().unwrap() + 1);
            } else {
                assert_eq!(places[r], "0", "{file} row {r} starts a document");
                assert!(seen.insert(docs[r].clone(), file).is_none(), "document {} twice", docs[r]);
            }
        }
    }
}

/// A value seed keeps its own modality: a word's tag is a class.
#[test]
fn only_class_seeds_are_recast_to_sequences() {
    let dna = extract_dna(&seed("wage")).unwrap();
    assert!(sandmle_synth::recast::recast(&dna, Modality::Sequence).is_none());
    let dna = extract_dna(&seed("digits")).unwrap();
    assert_eq!(sandmle_synth::recast::recast(&dna, Modality::Sequence).unwrap().modality, Modality::Sequence);
}
