//! The ML Developer that writes the data's program (`ProgramDeveloper`),
//! driven by a scripted chat model that returns real generator programs,
//! broken ones included, run in the process executor's sandbox.

mod common;

use common::{bwrap_or_skip, mlops, parts, seed, strategist};
use sandmle_agents::Error;
use sandmle_agents::foundry::{Foundry, FoundryConfig, Stage};
use sandmle_agents::llm::{LlmSettings, ProgramDeveloper, ScriptedChatModel};
use sandmle_agents::roles::builtin::Writer;
use sandmle_agents::roles::{DataStrategist, MlDeveloper, MlOpsEngineer};
use sandmle_core::{Executor, PlanRequest};
use sandmle_exec::{CodeSteps, ProcessExecutor, PythonChoice, PythonSettings};
use std::sync::Arc;
use std::time::Duration;

/// A generator program as a model writes one (standard library only).
const GENERATOR: &str = include_str!("../../examples/generators/latent_traits.py");

fn executor() -> Arc<dyn Executor> {
    let choice = match std::env::var_os("SANDMLE_PYTHON") {
        Some(p) if !p.is_empty() => PythonChoice::Interpreter(p.into()),
        _ => PythonChoice::System,
    };
    let python = PythonSettings { choice, code_steps: CodeSteps::Cold, ..PythonSettings::default() };
    Arc::new(ProcessExecutor { python, ..ProcessExecutor::default() })
}

fn developer(model: &Arc<ScriptedChatModel>, repairs: u32) -> ProgramDeveloper {
    let p = parts();
    ProgramDeveloper {
        settings: LlmSettings { repairs, ..LlmSettings::new(Arc::clone(model) as Arc<dyn sandmle_core::ChatModel>) },
        synthesizer: p.synthesizer,
        executor: executor(),
        panel: p.panel,
        grader: p.grader,
        verifier: p.verifier,
        timeout: Duration::from_secs(120),
        fallback: None,
    }
}

fn request(name: &str) -> PlanRequest {
    PlanRequest { seed_task: name.into(), run_seed: 3, index: 0, attempt: 0, modality: None }
}

fn fenced(code: &str) -> String {
    format!("Here is the program.\n```python\n{code}```\n")
}

#[test]
fn a_generator_program_is_repaired_until_its_environment_passes_every_gate() {
    if !bwrap_or_skip() {
        return;
    }
    // Two classes scored by AUC, and three classes scored by class
    // probabilities.
    for name in ["breast_cancer", "wine"] {
        let p = parts();
        let s = seed(name);
        let plan = strategist(&p).plan(&s.env, &request(name)).unwrap();
        let model = Arc::new(ScriptedChatModel::new([
            "I will simulate the data with a latent-trait model.".to_owned(),
            fenced("raise ValueError('the rule is not ready')\n"),
            fenced("open('data.csv', 'w').write('a,b\\n1,2\\n')\n"),
            fenced(GENERATOR),
        ]));
        let env = developer(&model, 3).develop(&plan).unwrap();
        let requests = model.requests();
        assert_eq!(requests.len(), 4, "{name}");
        let fed_back = |i: usize| requests[i].last().unwrap().content.clone();
        assert!(fed_back(1).contains("no ```python code block"), "{}", fed_back(1));
        assert!(fed_back(2).contains("the rule is not ready"), "the program's error is shown: {}", fed_back(2));
        assert!(fed_back(3).contains("does not fit the brief"), "{}", fed_back(3));
        assert_eq!(env.provenance.details["generator_program"], GENERATOR, "the program is kept");
        assert_eq!(env.train.n_rows(), 200);
        let oracle = env.grading.oracle.expect("the program declared its oracle");
        let best = env.leaderboard.as_ref().unwrap().entries[0].score;
        let better = env.task().direction.better(oracle.score, best) || oracle.score == best;
        assert!(better, "{name}: the rule's own prediction ({}) is not beaten by the panel ({best})", oracle.score);
        let check = mlops(&p).check(&env).unwrap();
        assert!(check.accepted(), "{name}: {:?}", check.refusals);
    }
}

#[test]
fn a_program_that_keeps_failing_is_refused_with_its_error_recorded() {
    if !bwrap_or_skip() {
        return;
    }
    let broken = fenced("rows = 200\nprint(rows / 0)\n");
    let model = Arc::new(ScriptedChatModel::new([broken.clone(), broken]));
    let dev = developer(&model, 1);
    let p = parts();
    let s = seed("breast_cancer");
    let plan = strategist(&p).plan(&s.env, &request("breast_cancer")).unwrap();
    let e = dev.develop(&plan).unwrap_err();
    assert!(matches!(e, Error::GeneratorProgram { attempts: 2, .. }), "{e}");
    assert!(e.to_string().contains("ZeroDivisionError"), "{e}");
    assert!(e.is_llm_failure());
    // In the Foundry the candidate fails at the develop stage, its error kept.
    let model = Arc::new(ScriptedChatModel::new([fenced("import sys\nsys.exit('no data today')\n")]));
    let foundry = Foundry {
        strategist: Arc::new(strategist(&p)),
        developer: Arc::new(developer(&model, 0)),
        mlops: Arc::new(mlops(&p)),
        writer: Arc::new(Writer),
        verifier: Arc::clone(&p.verifier),
        config: FoundryConfig::default(),
    };
    let attempt = foundry.attempt(&s, &request("breast_cancer"));
    assert!(attempt.env.is_none());
    assert_eq!(attempt.record.stage, Stage::Develop);
    assert!(attempt.record.llm_failure);
    assert!(attempt.record.error.as_deref().unwrap_or_default().contains("no data today"), "{:?}", attempt.record);
}

#[test]
fn image_plans_go_to_the_fallback_developer() {
    let p = parts();
    let s = seed("digits_png");
    let plan = strategist(&p).plan(&s.env, &request("digits_png")).unwrap();
    let model = Arc::new(ScriptedChatModel::new([fenced(GENERATOR)]));
    let e = developer(&model, 0).develop(&plan).unwrap_err();
    assert!(e.to_string().contains("image"), "{e}");
    let with_fallback = ProgramDeveloper { fallback: Some(Arc::new(common::developer(&p))), ..developer(&model, 0) };
    let env = with_fallback.develop(&plan).unwrap();
    assert!(env.task().images.is_some());
    assert_eq!(model.requests().len(), 0, "no program is asked for");
}
