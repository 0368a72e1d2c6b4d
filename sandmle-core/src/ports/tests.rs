//! Minimal implementations of every port, used to check that the traits
//! compose as trait objects.

use super::*;
use crate::dna::TaskDna;
use crate::environment::Environment;
use crate::error::{Error, Result};
use crate::grading::{GradeReport, GradingSpec, Leaderboard, LeaderboardEntry, Thresholds};
use crate::table::Table;
use crate::task::Direction;
use crate::testing::tiny_environment;
use std::sync::Arc;

/// Share of rows whose first column matches exactly.
struct ExactMatch;

impl Metric for ExactMatch {
    fn name(&self) -> &str {
        "exact_match"
    }
    fn direction(&self) -> Direction {
        Direction::HigherIsBetter
    }
    fn score(&self, truth: &Table, prediction: &Table) -> Result<f64> {
        let (t, p) = match (truth.column_at(0), prediction.column_at(0)) {
            (Some(t), Some(p)) if t.len() == p.len() && !t.is_empty() => (t, p),
            _ => return Err(Error::InvalidEnvironment { reason: "empty or unaligned".into() }),
        };
        let hits = (0..t.len()).filter(|&i| t.get_str(i) == p.get_str(i)).count();
        Ok(hits as f64 / t.len() as f64)
    }
}

/// Grades by row order with [`ExactMatch`]; thresholds from the first rows.
struct RowOrderGrader;

impl Grader for RowOrderGrader {
    fn grade(&self, task: &GradingTask<'_>, submission: &Table) -> Result<GradeReport> {
        let cols = &task.spec.task.prediction_columns;
        let truth = task.answers.select(cols)?;
        Ok(match submission.select(cols).and_then(|s| ExactMatch.score(&truth, &s)) {
            Ok(score) => GradeReport::scored(score, Direction::HigherIsBetter, None, None),
            Err(e) => GradeReport::invalid(Direction::HigherIsBetter, None, e.to_string()),
        })
    }
    fn thresholds(&self, lb: &Leaderboard) -> Result<Thresholds> {
        let s = lb.scores();
        let at = |i: usize| s.get(i.min(s.len().saturating_sub(1))).copied().unwrap_or(f64::NAN);
        Ok(Thresholds {
            num_teams: s.len(),
            is_lower_better: false,
            gold: at(0),
            silver: at(1),
            bronze: at(2),
            median: at(s.len() / 2),
        })
    }
}

/// Submits the sample submission.
struct SampleExecutor;

impl Executor for SampleExecutor {
    fn name(&self) -> &str {
        "sample"
    }
    fn execute(&self, solution: &Solution, task: &PublicView<'_>) -> Result<Execution> {
        match solution {
            Solution::Pipeline(_) => Ok(Execution {
                status: ExecStatus::Completed,
                submission: Some(task.sample_submission.clone()),
                timings: Timings::default(),
                stdout_tail: String::new(),
                stderr_tail: String::new(),
                isolation: "in-process".into(),
            }),
            Solution::Program(_) => Err(Error::Unsupported { component: "sample".into(), what: "programs".into() }),
        }
    }
}

/// One baseline: the sample submission.
struct SamplePanel;

impl BaselinePanel for SamplePanel {
    fn version(&self) -> &str {
        "0"
    }
    fn leaderboard(&self, env: &Environment, grader: &dyn Grader) -> Result<Leaderboard> {
        let r = grader.grade(&env.grading_task(), &env.sample_submission)?;
        let score = r.score.ok_or_else(|| Error::InvalidEnvironment { reason: "sample invalid".into() })?;
        Ok(Leaderboard { entries: vec![LeaderboardEntry { name: "sample".into(), score }] })
    }
}

/// Keeps the first training row.
struct HeadShrinker;

impl Shrinker for HeadShrinker {
    fn shrink(&self, env: &Environment, _seed: u64) -> Result<Environment> {
        let mut out = env.clone();
        out.train = env.train.take(&[0])?;
        Ok(out)
    }
}

/// Ignores the DNA and returns the tiny environment.
struct FixedSynth;

impl Synthesizer for FixedSynth {
    fn extract_dna(&self, _seed_env: &Environment) -> Result<TaskDna> {
        Ok(crate::testing::tiny_dna())
    }
    fn plan(&self, dna: &TaskDna, request: &crate::PlanRequest) -> Result<crate::TaskPlan> {
        Ok(crate::TaskPlan {
            seed_task: request.seed_task.clone(),
            seed: request.candidate_seed(),
            dna: dna.clone(),
            domain: "tiny".into(),
            story: crate::TaskStory { title: "t".into(), row_noun: "row".into(), context: "c".into() },
            features: vec![],
            targets: vec!["label".into()],
            classes: vec![],
            rule_family: "none".into(),
            difficulty: 0.0,
            mutations: crate::Mutations::none(),
        })
    }
    fn synthesize(&self, _plan: &crate::TaskPlan) -> Result<Environment> {
        Ok(tiny_environment())
    }
}

/// One gate: the training table is not empty.
struct NonEmpty;

impl Verifier for NonEmpty {
    fn verify(&self, env: &Environment) -> Result<Vec<GateResult>> {
        Ok(vec![GateResult {
            gate: "non_empty".into(),
            passed: env.train.n_rows() > 0,
            figures: [("train_rows".to_owned(), env.train.n_rows() as f64)].into(),
            detail: String::new(),
        }])
    }
}

#[test]
fn ports_compose_as_trait_objects() {
    let env = tiny_environment();
    let metric: Box<dyn Metric> = Box::new(ExactMatch);
    let grader: Arc<dyn Grader> = Arc::new(RowOrderGrader);
    let executor: Box<dyn Executor> = Box::new(SampleExecutor);
    let panel: Box<dyn BaselinePanel> = Box::new(SamplePanel);
    let shrinker: Box<dyn Shrinker> = Box::new(HeadShrinker);
    let synth: Box<dyn Synthesizer> = Box::new(FixedSynth);
    let verifier: &dyn Verifier = &NonEmpty;

    let cols = &env.task().prediction_columns;
    let s = metric.score(&env.answers.select(cols).unwrap(), &env.answers.select(cols).unwrap()).unwrap();
    assert_eq!(s, 1.0);
    // The blanket impls: `&Box<dyn Metric>` and `Arc<dyn Grader>` are themselves ports.
    fn name_of<M: Metric>(m: M) -> String {
        m.name().to_owned()
    }
    assert_eq!(name_of(&metric), "exact_match");

    let run = executor.execute(&Solution::Pipeline(serde_json::json!({})), &env.public_view()).unwrap();
    let report = grader.grade(&env.grading_task(), run.submission.as_ref().unwrap()).unwrap();
    assert!(report.valid_submission);
    assert!(
        executor
            .execute(
                &Solution::Program(Program {
                    command: vec![],
                    code_dir: ".".into(),
                    timeout: std::time::Duration::ZERO
                }),
                &env.public_view()
            )
            .is_err()
    );

    let lb = panel.leaderboard(&env, grader.as_ref()).unwrap();
    assert_eq!(lb.entries.len(), 1);
    assert_eq!(grader.thresholds(&lb).unwrap().num_teams, 1);

    let small = shrinker.shrink(&env, 1).unwrap();
    assert_eq!(small.train.n_rows(), 1);
    let gates = verifier.verify(&small).unwrap();
    assert!(gates[0].passed);
    let dna = synth.extract_dna(&env).unwrap();
    let request = crate::PlanRequest { seed_task: "tiny".into(), run_seed: 0, index: 0, attempt: 0, modality: None };
    let plan = synth.plan(&dna, &request).unwrap();
    assert_eq!(plan.column_names(), ["id", "label"]);
    assert_eq!(synth.synthesize(&plan).unwrap(), env);
}

#[test]
fn broken_grading_tasks_are_found_before_grading() {
    let env = tiny_environment();
    assert!(RowOrderGrader.check(&env.grading_task()).is_ok());
    let broken =
        |spec: &GradingSpec, answers: &Table| match RowOrderGrader.check(&GradingTask::new(spec, answers, None)) {
            Err(Error::BrokenEnvironment { file, reason }) => format!("{}: {reason}", file.display()),
            other => panic!("not broken: {other:?}"),
        };
    let mut spec = env.grading.clone();
    spec.task.metric = crate::MetricSpec::named("no_such_metric");
    assert!(broken(&spec, &env.answers).starts_with("prepared/private/grading.json"));
    let mut dup = env.answers.clone();
    dup.set_column("id", crate::Column::text([Some("r6"), Some("r6"), Some("r8"), Some("r9")])).unwrap();
    assert_eq!(broken(&env.grading, &dup), "prepared/private/answers.csv: repeats id `r6`");
    let empty = env.answers.take(&[]).unwrap();
    assert_eq!(broken(&env.grading, &empty), "prepared/private/answers.csv: no rows");
    assert!(env.grading.require_thresholds().is_err());
}

#[test]
fn grade_file_reports_unreadable_files_as_invalid() {
    let env = tiny_environment();
    let r =
        RowOrderGrader.grade_file(&env.grading_task(), std::path::Path::new("/nonexistent/submission.csv")).unwrap();
    assert!(!r.valid_submission);
    assert!(r.error.unwrap().contains("submission.csv"));
}
