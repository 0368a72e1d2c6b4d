//! The LLM-backed roles driven by a scripted model: a valid reply, a
//! repair after malformed JSON and a schema violation, and a refusal after
//! the repairs run out.

mod common;

use common::{developer, families, mlops, parts, seed, strategist};
use sandmle_agents::Error;
use sandmle_agents::llm::{LlmDeveloper, LlmMlOps, LlmSettings, LlmStrategist, LlmWriter, ScriptedChatModel};
use sandmle_agents::roles::{Brief, DataStrategist, MlDeveloper, MlOpsEngineer, TechnicalWriter, leaks};
use sandmle_core::{PlanRequest, Role};
use serde_json::json;
use std::sync::Arc;

fn request() -> PlanRequest {
    PlanRequest { seed_task: "wine".into(), run_seed: 5, index: 0, attempt: 0, modality: None }
}

fn settings(model: &Arc<ScriptedChatModel>, repairs: u32) -> LlmSettings {
    LlmSettings { repairs, ..LlmSettings::new(Arc::clone(model) as Arc<dyn sandmle_core::ChatModel>) }
}

fn dress(features: usize, classes: usize) -> serde_json::Value {
    json!({
        "domain": "winery",
        "title": "Which vineyard grew this wine?",
        "row_noun": "wine sample",
        "context": "A cooperative measured the chemistry of wines from its member vineyards.",
        "feature_names": (0..features).map(|i| format!("assay_{}", ["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r","s","t"][i % 20])).collect::<Vec<_>>(),
        "target_names": ["vineyard"],
        "classes": (0..classes).map(|i| format!("estate_{}", ["north","south","east","west","hill"][i % 5])).collect::<Vec<_>>(),
        "rule_family": "interactions",
    })
}

#[test]
fn the_llm_strategist_dresses_the_plan_after_repairs() {
    let p = parts();
    let s = seed("wine");
    let base = strategist(&p).plan(&s.env, &request()).unwrap();
    let (nf, nc) = (base.features.len(), base.classes.len());
    let mut wrong_count = dress(nf, nc);
    wrong_count["feature_names"] = json!(["only_one"]);
    let model = Arc::new(ScriptedChatModel::new([
        "Here you go: {not json".to_owned(),
        wrong_count.to_string(),
        format!("```json\n{}\n```", dress(nf, nc)),
    ]));
    let llm = LlmStrategist { settings: settings(&model, 2), base: Arc::new(strategist(&p)), families: families() };
    let plan = llm.plan(&s.env, &request()).unwrap();
    assert_eq!(plan.domain, "winery");
    assert_eq!(plan.targets, ["vineyard"]);
    assert_eq!(plan.features.len(), nf);
    assert_eq!((plan.dna.clone(), plan.mutations), (base.dna, base.mutations), "the structure is the built-in plan's");
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    let repair = &requests[2];
    assert_eq!(repair.last().unwrap().role, Role::User);
    assert!(repair.last().unwrap().content.contains("feature names"), "the error is fed back");
    // The dressed plan is realised with its names.
    let env = developer(&p).develop(&plan).unwrap();
    assert!(env.train.has_column("vineyard") && env.train.has_column("assay_a"));
    assert!(mlops(&p).check(&env).unwrap().accepted());
}

#[test]
fn the_llm_strategist_gives_up_with_a_typed_error() {
    let p = parts();
    let s = seed("wine");
    let base = strategist(&p).plan(&s.env, &request()).unwrap();
    let mut bad_family = dress(base.features.len(), base.classes.len());
    bad_family["rule_family"] = json!("astrology");
    let mut dup = dress(base.features.len(), base.classes.len());
    dup["target_names"] = json!(["assay_a"]);
    let model = Arc::new(ScriptedChatModel::new([bad_family.to_string(), dup.to_string()]));
    let llm = LlmStrategist { settings: settings(&model, 1), base: Arc::new(strategist(&p)), families: families() };
    match llm.plan(&s.env, &request()) {
        Err(Error::LlmReply { attempts: 2, reason, .. }) => assert!(reason.contains("twice"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_llm_developer_sets_hardness_within_bounds() {
    let p = parts();
    let s = seed("breast_cancer");
    let r = PlanRequest { seed_task: "breast_cancer".into(), run_seed: 5, index: 0, attempt: 0, modality: None };
    let plan = strategist(&p).plan(&s.env, &r).unwrap();
    let model = Arc::new(ScriptedChatModel::new([
        json!({"difficulty": 1.7, "noise": 1.0, "imbalance": 1.0, "missingness": 1.0}).to_string(),
        json!({"difficulty": 0.2, "noise": 0.8, "imbalance": 1.0, "missingness": 0.0}).to_string(),
    ]));
    let llm = LlmDeveloper { settings: settings(&model, 2), base: Arc::new(developer(&p)) };
    let env = llm.develop(&plan).unwrap();
    let recorded = &env.provenance.details["plan"];
    assert_eq!(recorded["difficulty"], 0.2);
    assert_eq!(recorded["mutations"]["missingness"], 0.0);
    assert!(model.requests()[1].last().unwrap().content.contains("difficulty"));
}

#[test]
fn the_llm_mlops_engineer_can_refuse_but_never_overrule_a_refusal() {
    let p = parts();
    let s = seed("breast_cancer");
    let r = PlanRequest { seed_task: "breast_cancer".into(), run_seed: 5, index: 0, attempt: 0, modality: None };
    let env = developer(&p).develop(&strategist(&p).plan(&s.env, &r).unwrap()).unwrap();
    let model = Arc::new(ScriptedChatModel::new([
        json!({"accept": false}).to_string(),
        json!({"accept": false, "reasons": ["the test set is too small to rank baselines"]}).to_string(),
    ]));
    let llm = LlmMlOps { settings: settings(&model, 2), base: Arc::new(mlops(&p)) };
    let c = llm.check(&env).unwrap();
    assert_eq!(c.refusals, ["review: the test set is too small to rank baselines"]);
    // The built-in refusal stands whatever the model says.
    let mut broken = env.clone();
    broken.grading.thresholds = None;
    let model = Arc::new(ScriptedChatModel::new([json!({"accept": true}).to_string()]));
    let llm = LlmMlOps { settings: settings(&model, 2), base: Arc::new(mlops(&p)) };
    assert!(!llm.check(&broken).unwrap().accepted());
}

#[test]
fn a_leaking_description_is_sent_back_and_finally_refused() {
    let p = parts();
    let s = seed("breast_cancer");
    let r = PlanRequest { seed_task: "breast_cancer".into(), run_seed: 5, index: 0, attempt: 0, modality: None };
    let plan = strategist(&p).plan(&s.env, &r).unwrap();
    let env = developer(&p).develop(&plan).unwrap();
    let task = env.task();
    let header: Vec<String> = std::iter::once(task.id_column.clone()).chain(task.prediction_columns.clone()).collect();
    let family = plan.rule_family.replace('_', " ");
    let leaking = json!({"description": format!(
        "# Task\nThe label follows a {family} rule. Scored with `{}`. Header: {}", task.metric.name, header.join(",")
    )});
    let good = json!({"description": format!(
        "# {}\nPredict the label. Scored with `{}`, higher is better.\n\n```\n{}\n```\n", plan.story.title, task.metric.name, header.join(",")
    )});
    let model = Arc::new(ScriptedChatModel::new([leaking.to_string(), good.to_string()]));
    let writer = LlmWriter { settings: settings(&model, 2) };
    let d = writer.describe(&env, &plan, &Brief::default()).unwrap();
    assert!(leaks(&env, &d).is_empty());
    assert!(model.requests()[1].last().unwrap().content.contains("rule family"), "the leak is fed back");
    let model = Arc::new(ScriptedChatModel::new([leaking.to_string(), leaking.to_string()]));
    let writer = LlmWriter { settings: settings(&model, 1) };
    match writer.describe(&env, &plan, &Brief::default()) {
        Err(Error::LlmReply { role: "technical writer", reason, .. }) => assert!(reason.contains("rule family")),
        other => panic!("{other:?}"),
    }
}
