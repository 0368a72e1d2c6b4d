//! Random bytes and damaged CSVs never panic the grader: always a typed
//! error or a score.

use proptest::prelude::*;
use sandmle_core::Grader;
use sandmle_core::csv::to_csv_bytes;
use sandmle_core::testing::tiny_environment;
use sandmle_metrics::StandardGrader;

fn grade_bytes(bytes: &[u8]) -> sandmle_core::GradeReport {
    let env = tiny_environment();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("submission.csv");
    std::fs::write(&path, bytes).unwrap();
    // The environment is sound, so any failure is the submission's.
    StandardGrader.grade_file(&env.grading_task(), &path).unwrap()
}

fn consistent(r: &sandmle_core::GradeReport) -> bool {
    if r.valid_submission {
        r.score.is_some() && r.score_raw.is_some() && r.error.is_none()
    } else {
        r.score.is_none() && r.error.is_some()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let r = grade_bytes(&bytes);
        prop_assert!(consistent(&r));
    }

    #[test]
    fn damaged_submissions_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..8)
    ) {
        let mut bytes = to_csv_bytes(&tiny_environment().sample_submission).unwrap();
        for (at, byte, op) in edits {
            if bytes.is_empty() { break; }
            let i = at.index(bytes.len());
            match op {
                0 => bytes[i] = byte,
                1 => { bytes.remove(i); }
                _ => bytes.insert(i, byte),
            }
        }
        let r = grade_bytes(&bytes);
        prop_assert!(consistent(&r));
    }
}

#[test]
fn the_undamaged_sample_submission_is_valid() {
    let r = grade_bytes(&to_csv_bytes(&tiny_environment().sample_submission).unwrap());
    assert!(r.valid_submission, "{r:?}");
    assert_eq!(r.score, Some(0.5));
}
