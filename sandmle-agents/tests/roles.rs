//! The built-in roles, each on its own, and the leak check.

mod common;

use common::{developer, mlops, parts, seed, strategist};
use sandmle_agents::roles::builtin::Writer;
use sandmle_agents::roles::{Brief, DataStrategist, Leak, MlDeveloper, MlOpsEngineer, TechnicalWriter, leaks};
use sandmle_core::{PlanRequest, WriteOptions};

fn request(index: usize) -> PlanRequest {
    PlanRequest { seed_task: "breast_cancer".into(), run_seed: 7, index, attempt: 0, modality: None }
}

#[test]
fn the_strategist_plans_deterministically_and_the_developer_calibrates() {
    let p = parts();
    let s = seed("breast_cancer");
    let plan = strategist(&p).plan(&s.env, &request(0)).unwrap();
    assert_eq!(plan, strategist(&p).plan(&s.env, &request(0)).unwrap());
    assert_ne!(plan.seed, strategist(&p).plan(&s.env, &request(1)).unwrap().seed);
    let env = developer(&p).develop(&plan).unwrap();
    assert!(env.leaderboard.as_ref().is_some_and(|lb| lb.entries.len() >= 10));
    let t = env.grading.thresholds.unwrap();
    assert!(t.strictly_ordered(), "{t:?}");
    assert_eq!(env.sample_submission.n_rows(), env.test.n_rows());
    let check = mlops(&p).check(&env).unwrap();
    assert!(check.accepted(), "{:?}", check.refusals);
    assert_eq!(check.perfect_score, Some(1.0));
}

#[test]
fn the_mlops_engineer_refuses_broken_grading() {
    let p = parts();
    let s = seed("breast_cancer");
    let env = developer(&p).develop(&strategist(&p).plan(&s.env, &request(0)).unwrap()).unwrap();
    // Inverted thresholds: the sample would earn gold.
    let mut inverted = env.clone();
    let t = inverted.grading.thresholds.as_mut().unwrap();
    (t.gold, t.median) = (t.median, t.gold);
    t.is_lower_better = !t.is_lower_better;
    let c = mlops(&p).check(&inverted).unwrap();
    assert!(!c.accepted());
    assert!(c.refusals.iter().any(|r| r.contains("other way")), "{:?}", c.refusals);
    // No thresholds: the gate the MLOps engineer runs for it refuses.
    let mut none = env.clone();
    none.grading.thresholds = None;
    let refusals = mlops(&p).check(&none).unwrap().refusals;
    assert!(refusals.iter().any(|r| r.starts_with("gate thresholds_recorded failed")), "{refusals:?}");
    // A gold threshold no better than the sample's score.
    let mut easy = env.clone();
    easy.grading.thresholds.as_mut().unwrap().gold = 0.5;
    assert!(!mlops(&p).check(&easy).unwrap().accepted());
    // A table no practitioner would believe: a third of every numeric
    // feature's rows on its smallest value.
    let mut piled = env;
    let features: Vec<String> = piled.train.names().iter().filter(|n| piled.task().is_feature(n)).cloned().collect();
    for name in features {
        if let Some(values) = piled.train.column(&name).unwrap().as_numeric() {
            let low = values.iter().copied().filter(|v| v.is_finite()).fold(f64::INFINITY, f64::min);
            let n = values.len();
            let column = sandmle_core::Column::Numeric(
                values.iter().enumerate().map(|(i, &v)| if i < n / 3 { low } else { v }).collect(),
            );
            piled.train.set_column(&name, column).unwrap();
        }
    }
    let refusals = mlops(&p).check(&piled).unwrap().refusals;
    assert!(refusals.iter().any(|r| r.starts_with("gate realistic failed: piled_on_a_bound")), "{refusals:?}");
}

/// The description names every file and column with its type, the metric
/// and its direction, the submission header with an example row and the
/// budgets — and no public file holds the rule's family, coefficients or
/// feature list.
#[test]
fn the_writer_describes_everything_and_never_the_rule() {
    let p = parts();
    for name in ["breast_cancer", "wine", "diabetes", "sms_spam"] {
        let s = seed(name);
        let r = PlanRequest { seed_task: name.into(), run_seed: 3, index: 1, attempt: 0, modality: None };
        let plan = strategist(&p).plan(&s.env, &r).unwrap();
        let mut env = developer(&p).develop(&plan).unwrap();
        let brief = Brief::default();
        let d = Writer.describe(&env, &plan, &brief).unwrap();
        let task = env.task().clone();
        assert!(d.contains(&format!("`{}`", task.metric.name)), "{name}");
        assert!(d.contains(if task.direction.is_lower_better() { "lower is better" } else { "higher is better" }));
        for f in &plan.features {
            assert!(d.contains(&format!("- `{}`", f.name)), "{name}: column {}", f.name);
        }
        let header: Vec<String> =
            std::iter::once(task.id_column.clone()).chain(task.prediction_columns.clone()).collect();
        assert!(d.contains(&format!("```\n{}\n", header.join(","))), "{name}: example row\n{d}");
        assert!(d.contains("15 turns") && d.contains("300 seconds") && d.contains("20 minutes"));
        assert!(d.contains(&plan.story.context));
        env.description = d;
        for (path, bytes) in env.render(&WriteOptions::default()).unwrap() {
            let text = String::from_utf8(bytes).unwrap();
            if path.ends_with("description.md") {
                assert_eq!(leaks(&env, &text), vec![], "{name}: {path}");
            } else if path.contains("/public/") {
                // The tables' headers list every column and their values may
                // meet a coefficient by chance; they must not name the rule.
                let found = leaks(&env, &text);
                assert!(
                    found.iter().all(|l| matches!(l, Leak::FeatureList(_) | Leak::Coefficient(_))),
                    "{name}: {path}: {found:?}"
                );
            }
        }
        let rule = env.provenance.hidden_rule.clone().unwrap();
        assert!(rule.to_string().contains(&plan.rule_family), "the rule is recorded privately");
    }
}

#[test]
fn leaks_are_found() {
    let p = parts();
    let s = seed("breast_cancer");
    let plan = strategist(&p).plan(&s.env, &request(2)).unwrap();
    let env = developer(&p).develop(&plan).unwrap();
    let rule = &env.provenance.hidden_rule.as_ref().unwrap()["targets"][0]["rule"];
    let family = rule["family"].as_str().unwrap().to_owned();
    assert_eq!(
        leaks(&env, &format!("The target follows a {} rule.", family.replace('_', " "))),
        vec![Leak::Family(family)]
    );
    // A coefficient, to three decimals.
    let weight = rule["linear"][0][1].as_f64().unwrap();
    let text = format!("weights like {weight:.3} matter");
    assert!(matches!(leaks(&env, &text).as_slice(), [Leak::Coefficient(_)]), "{text}");
    // The rule's features listed together.
    let names: Vec<String> =
        rule["linear"].as_array().unwrap().iter().map(|t| t[0].as_str().unwrap().to_owned()).collect();
    if names.len() >= 2 {
        let text = format!("Key drivers: {} and {}.", names[0], names[1]);
        assert!(matches!(leaks(&env, &text).as_slice(), [Leak::FeatureList(_)]), "{text}");
    }
    assert!(matches!(leaks(&env, "see the hidden rule").as_slice(), [Leak::Word(_)]));
    assert!(leaks(&env, "A plain description.").is_empty());
}
