//! Whose fault an error is, decided once: every variant of every crate's
//! error, its fault pinned here from the documented rules, and every front
//! end checked to show what core's one table says — the command line's
//! kind and exit code, the server's wire code, and the fault kept when the
//! error crosses a port. The front ends used to decide in five tables that
//! disagreed: a `Port` error was `broken_environment` on the command line
//! and `SystemFault` in Python, `generate` turned a broken environment into
//! `system`, and `rollout` turned everything into `system`.

use sandmle::failure::Failure;
use sandmle::serve::protocol::ErrorCode;
use sandmle_core::{Blame, FailureKind, Fault};
use std::path::PathBuf;

fn io() -> std::io::Error {
    std::io::Error::other("disk on fire")
}

fn p() -> PathBuf {
    PathBuf::from("prepared/public/train.csv")
}

fn s() -> String {
    "x".into()
}

fn core_errors() -> Vec<(sandmle_core::Error, Fault)> {
    use sandmle_core::Error as E;
    let json = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
    vec![
        (E::Io { path: p(), source: io() }, Fault::System),
        (E::Csv { path: p(), line: 2, column: None, reason: s() }, Fault::Environment),
        (E::Json { path: p(), source: json }, Fault::Environment),
        (E::NotRegularFile { path: p(), kind: "a FIFO" }, Fault::Environment),
        (E::FileTooLarge { path: p(), size: 9, limit: 1 }, Fault::Environment),
        (E::TooManyColumns { path: p(), found: 9, limit: 1 }, Fault::Environment),
        (E::FieldTooLong { path: p(), line: 1, column: s(), length: 9, limit: 1 }, Fault::Environment),
        (E::UnsafeOutput { path: p(), reason: s() }, Fault::Caller),
        (E::ColumnNotFound { name: s() }, Fault::Environment),
        (E::DuplicateColumn { name: s() }, Fault::Environment),
        (E::LengthMismatch { column: s(), expected: 1, found: 2 }, Fault::Environment),
        (E::NotNumeric { column: s() }, Fault::Environment),
        (E::RowOutOfRange { index: 9, rows: 1 }, Fault::Environment),
        (E::MissingFile { path: p() }, Fault::Environment),
        (E::HashMismatch { path: p(), expected: s(), found: s() }, Fault::Environment),
        (E::UnlistedFile { path: p() }, Fault::Environment),
        (E::UnexpectedPublicFile { path: p() }, Fault::Environment),
        (E::SchemaVersion { path: p(), found: 9, supported: 1 }, Fault::Environment),
        (E::AlreadyExists { path: p() }, Fault::Caller),
        (E::InvalidEnvironment { reason: s() }, Fault::Environment),
        (E::InvalidLeaderboard { path: p(), reason: s() }, Fault::Environment),
        (E::BrokenEnvironment { file: p(), reason: s() }, Fault::Environment),
        (E::UnknownMetric { name: s() }, Fault::Environment),
        (E::MetricParameter { metric: s(), param: s(), reason: s() }, Fault::Environment),
        (E::Unsupported { component: s(), what: s() }, Fault::Caller),
    ]
}

fn exec_errors() -> Vec<(sandmle_exec::Error, Fault)> {
    use sandmle_exec::Error as E;
    vec![
        (E::Spec { reason: s() }, Fault::Agent),
        (E::UnknownColumn { column: s() }, Fault::Agent),
        (E::MissingTestColumn { column: s() }, Fault::Agent),
        (E::ModelUnfit { model: s(), task: s() }, Fault::Agent),
        (E::BadParameter { model: "knn", param: "k", reason: s() }, Fault::Agent),
        (E::TooFewRows { what: s(), needed: 9, found: 1 }, Fault::Agent),
        (E::NonNumericFeature { column: s() }, Fault::Agent),
        (E::MissingValues { column: s() }, Fault::Agent),
        (E::NoFeatures, Fault::Agent),
        (E::BadTarget { column: s(), row: 1, reason: s() }, Fault::Agent),
        (E::SingleClass { column: s() }, Fault::Agent),
        (E::UnsupportedTask { reason: s() }, Fault::Agent),
        (E::Model { model: "knn", message: s() }, Fault::Agent),
        (E::ModelPanicked { model: "knn", message: s() }, Fault::Agent),
        (E::NonFinitePrediction { model: s() }, Fault::Agent),
        (E::TimeLimit { limit: std::time::Duration::from_secs(1) }, Fault::Agent),
        (E::Process(sandmle_exec::SandboxError::Sandbox { reason: s() }), Fault::System),
        (E::Image { file: s(), reason: s() }, Fault::Environment),
        (E::Audio { file: s(), reason: s() }, Fault::Environment),
        (E::Core(sandmle_core::Error::MissingFile { path: p() }), Fault::Environment),
    ]
}

fn sandbox_errors() -> Vec<(sandmle_exec::SandboxError, Fault)> {
    use sandmle_exec::SandboxError as E;
    vec![
        (E::Io { path: p(), source: io() }, Fault::System),
        (E::SandboxUnavailable { reason: s() }, Fault::System),
        (E::Sandbox { reason: s() }, Fault::System),
        (E::Python { interpreter: p(), reason: s() }, Fault::System),
        (E::Core(sandmle_core::Error::UnsafeOutput { path: p(), reason: s() }), Fault::Caller),
    ]
}

fn metrics_errors() -> Vec<(sandmle_metrics::Error, Fault)> {
    use sandmle_metrics::Error as E;
    let (a, env) = (Fault::Agent, Fault::Environment);
    vec![
        (E::LengthMismatch { truth: 1, prediction: 2 }, a),
        (E::Empty, a),
        (E::TooFewRows { metric: "r2", needed: 2, found: 1 }, a),
        (E::NonFinite { side: "prediction", index: 0 }, a),
        (E::NonFinite { side: "truth", index: 0 }, env),
        (E::SingleClass { metric: "roc_auc" }, env),
        (E::LogDomain { metric: "rmsle", side: "prediction", index: 0 }, a),
        (E::LogDomain { metric: "rmsle", side: "truth", index: 0 }, env),
        (E::ContinuousLabels { side: "prediction", value: 0.5 }, a),
        (E::ContinuousLabels { side: "truth", value: 0.5 }, env),
        (E::MixedLabelTypes { truth: "text", prediction: "numbers" }, a),
        (E::NotBinary { metric: "f1" }, a),
        (E::NoPositiveLabel { metric: "f1" }, a),
        (E::ColumnCountMismatch { truth: 1, prediction: 2 }, a),
        (E::UnknownMetric { name: s() }, env),
        (E::BadParameter { param: s(), reason: s() }, env),
        (E::EmptyLeaderboard, env),
        (E::SubmissionMissing { path: s() }, a),
        (E::NotCsv { reason: s() }, a),
        (E::MissingColumns { columns: vec![s()] }, a),
        (E::ExtraColumns { columns: vec![s()] }, a),
        (E::RowCount { expected: 2, found: 1 }, a),
        (E::DuplicateId { id: s() }, a),
        (E::MissingId { row: 1 }, a),
        (E::UnknownId { unexpected: s() }, a),
        (E::NotNumeric { column: s(), row: 1, value: s() }, a),
        (E::MissingValue { column: s(), row: 1 }, a),
        (E::ProbabilityOutOfRange { column: s(), row: 1, value: 2.0 }, a),
        (E::RowSum { row: 1, sum: 2.0, tolerance: 1e-6 }, a),
    ]
}

fn synth_errors() -> Vec<(sandmle_synth::Error, Fault)> {
    use sandmle_synth::Error as E;
    vec![
        (E::TooFewRows { needed: 9, available: 1 }, Fault::Environment),
        (E::BadSetting { setting: "rows", reason: s() }, Fault::Caller),
        (E::Unsupported { reason: s() }, Fault::Environment),
        (E::BadPlan { reason: s() }, Fault::System),
        (E::OutOfTolerance { attempts: 3, reason: s() }, Fault::System),
        (E::Core(sandmle_core::Error::Io { path: p(), source: io() }), Fault::System),
    ]
}

fn agents_errors() -> Vec<(sandmle_agents::Error, Fault)> {
    use sandmle_agents::Error as E;
    vec![
        (E::BadSetting { setting: "codec", reason: s() }, Fault::Caller),
        (E::LlmReply { role: "writer", attempts: 3, reason: s() }, Fault::System),
        (E::LeakingDescription { leak: s() }, Fault::System),
        (E::Http { status: 500, message: s() }, Fault::System),
        (E::Unavailable { attempts: 3, reason: s() }, Fault::System),
        (E::BadReply { reason: s() }, Fault::System),
        (E::Output { path: p(), reason: s() }, Fault::System),
        (E::EpisodeNotRunning, Fault::Caller),
        (E::Policy { policy: s(), reason: s() }, Fault::Agent),
        (E::Io { path: p(), source: io() }, Fault::System),
        (E::Core(sandmle_core::Error::HashMismatch { path: p(), expected: s(), found: s() }), Fault::Environment),
    ]
}

/// Every front end shows what core's table says for `kind`.
fn fronts_agree(what: &str, kind: FailureKind, failure: Failure) {
    assert_eq!(failure.kind, kind, "{what}: the failure every front end reports");
    assert_eq!(failure.exit_code(), kind.exit_code(), "{what}: the command line's exit code");
    assert_eq!(ErrorCode::of_kind(kind).as_str(), kind.wire_code(), "{what}: the server's code");
}

fn check<E>(crate_name: &str, cases: Vec<(E, Fault)>)
where
    E: Blame + std::fmt::Debug + std::fmt::Display,
    Failure: From<E>,
    sandmle_core::Error: From<E>,
{
    for (e, fault) in cases {
        let what = format!("{crate_name}: {e:?}");
        assert_eq!(e.fault(), fault, "{what}");
        let kind = e.kind();
        assert_eq!(kind.fault(), fault, "{what}: its kind");
        let via_port = sandmle_core::Error::from(e);
        assert_eq!((via_port.fault(), via_port.kind()), (fault, kind), "{what}: across the port");
        let as_agents = sandmle_agents::Error::Core(via_port);
        assert_eq!(as_agents.kind(), kind, "{what}: inside an episode's error");
        fronts_agree(&what, kind, <Failure as From<sandmle_agents::Error>>::from(as_agents));
    }
}

#[test]
fn every_error_variant_is_the_same_fault_on_every_front_end() {
    check("core", core_errors());
    check("exec", exec_errors());
    check("sandbox", sandbox_errors());
    check("metrics", metrics_errors());
    check("synth", synth_errors());
    check("agents", agents_errors());
}

/// The submission's own errors are invalid submissions (exit 1), wherever
/// they surface.
#[test]
fn a_submissions_errors_are_invalid_submissions_through_a_port() {
    let e = sandmle_metrics::Error::DuplicateId { id: "7".into() };
    let through = sandmle_core::Error::from(e);
    assert_eq!(through.kind(), FailureKind::InvalidSubmission);
    assert_eq!(Failure::from(through).exit_code(), 1);
}

/// `Port` dropped its implementation's fault: the command line called any
/// port error a broken environment, Python a system fault.
#[test]
fn a_port_error_keeps_its_implementations_fault() {
    for (e, fault) in [
        (
            sandmle_exec::Error::Process(sandmle_exec::SandboxError::SandboxUnavailable { reason: "no userns".into() }),
            Fault::System,
        ),
        (sandmle_exec::Error::Spec { reason: "bad".into() }, Fault::Agent),
    ] {
        let port = sandmle_core::Error::from(e);
        assert!(matches!(port, sandmle_core::Error::Port { .. }));
        assert_eq!(port.fault(), fault);
    }
}

/// A missing `sample_submission.csv` on import was reported as `system`
/// ("No such file or directory") while a missing `train.csv` was
/// `broken_environment`.
#[test]
fn a_missing_file_on_import_is_the_environments_whichever_it_is() {
    let seed = sandmle::repository_seeds().join("wine/prepared");
    for missing in ["sample_submission.csv", "train.csv"] {
        let tmp = tempfile::tempdir().unwrap();
        let comp = tmp.path().join("comp");
        let (public, private) = (comp.join("prepared/public"), comp.join("prepared/private"));
        std::fs::create_dir_all(&public).unwrap();
        std::fs::create_dir_all(&private).unwrap();
        for f in ["train.csv", "test.csv", "sample_submission.csv", "description.md"] {
            if f != missing {
                std::fs::copy(seed.join("public").join(f), public.join(f)).unwrap();
            }
        }
        std::fs::copy(seed.join("private/answers.csv"), private.join("answers.csv")).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sandmle"))
            .args(["--json", "import", "--competition", comp.to_str().unwrap(), "--metric", "accuracy", "--out"])
            .arg(tmp.path().join("env"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{missing}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["error"]["kind"], "broken_environment", "{missing}: {v}");
        assert!(v["error"]["message"].as_str().unwrap().contains(missing), "{v}");
    }
}
