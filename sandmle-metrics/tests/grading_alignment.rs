//! Grading a submission file whose rows are in another order than the
//! answers': the same score whatever the order or the CSV dialect, and the
//! same typed errors for repeated, unknown and missing ids.

use sandmle_core::csv::{ReadOptions, read_csv_bytes};
use sandmle_core::testing::tiny_environment;
use sandmle_core::{CellText, Column, Environment, GradeReport, Grader, Table};
use sandmle_metrics::StandardGrader;

const N: usize = 300;

/// `roc_auc_score(truth, scores)` from scikit-learn 1.9.1, with
/// `truth[i] = (7 i mod 10) < 3` and `scores[i] = (37 i mod 101) / 100`.
const SKLEARN_AUC: f64 = 0.48624338624338626;

fn id(i: usize) -> String {
    // Some ids need quoting in CSV.
    if i % 50 == 7 { format!("q,{i}") } else { format!("q{i}") }
}

fn score(i: usize) -> f64 {
    ((i * 37) % 101) as f64 / 100.0
}

fn env() -> Environment {
    let mut env = tiny_environment();
    let truth = (0..N).map(|i| if (i * 7) % 10 < 3 { 1.0 } else { 0.0 }).collect();
    env.answers = Table::from_columns([
        ("id", Column::Text((0..N).map(|i| Some(id(i).into())).collect())),
        ("label", Column::Numeric(truth)),
    ])
    .unwrap();
    env
}

/// The submission's CSV, rows in `order`, lines ended by `eol`.
fn csv(order: &[usize], eol: &str) -> String {
    let mut out = format!("id,label{eol}");
    for &i in order {
        let id = id(i);
        let id = if id.contains(',') { format!("\"{id}\"") } else { id };
        out.push_str(&format!("{id},{}{eol}", score(i)));
    }
    out
}

/// Grades `text` from a file, checking the report against grading the
/// file's table.
fn grade(env: &Environment, text: &str) -> GradeReport {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("submission.csv");
    std::fs::write(&path, text).unwrap();
    let task = env.grading_task();
    let from_file = StandardGrader.grade_file(&task, &path).unwrap();
    let table = read_csv_bytes(text.as_bytes(), "<sub>", &ReadOptions::with_id("id")).unwrap();
    assert_eq!(from_file, StandardGrader.grade(&task, &table).unwrap(), "{:?}", &text[..80]);
    // With the answers indexed once beforehand, the same report.
    let index = task.index_answers();
    let indexed = task.with_answer_index(index.as_ref());
    assert!(indexed.answer_index().is_some());
    assert_eq!(StandardGrader.grade_file(&indexed, &path).unwrap(), from_file);
    from_file
}

#[test]
fn an_index_of_other_answers_is_never_taken() {
    let (env, mut other) = (env(), env());
    other.answers = other.answers.take(&(0..N).rev().collect::<Vec<_>>()).unwrap();
    let index = other.grading_task().index_answers();
    assert!(index.is_some());
    // Equal ids in another order, and the very same ids in another table.
    let task = env.grading_task().with_answer_index(index.as_ref());
    assert!(task.answer_index().is_none());
    let copy = env.answers.clone();
    let copy_index = sandmle_core::GradingTask::new(&env.grading, &copy, None).index_answers();
    assert!(env.grading_task().with_answer_index(copy_index.as_ref()).answer_index().is_none());
    // Grading with the foreign index attached is grading without one.
    let text = csv(&shuffled(), "\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("submission.csv");
    std::fs::write(&path, &text).unwrap();
    let plain = StandardGrader.grade_file(&env.grading_task(), &path).unwrap();
    assert_eq!(StandardGrader.grade_file(&task, &path).unwrap(), plain);
    assert!(plain.valid_submission);
}

fn shuffled() -> Vec<usize> {
    (0..N).map(|j| (j * 113) % N).collect()
}

#[test]
fn any_order_and_dialect_scores_as_scikit_learn() {
    let env = env();
    StandardGrader.check(&env.grading_task()).unwrap();
    let in_order: Vec<usize> = (0..N).collect();
    let mut reversed = in_order.clone();
    reversed.reverse();
    let mut one_swap = in_order.clone();
    one_swap.swap(N - 2, N - 1);
    for (order, eol, bom) in [
        (&in_order, "\n", ""),
        (&shuffled(), "\n", ""),
        (&reversed, "\r\n", ""),
        (&one_swap, "\n", ""),
        (&shuffled(), "\r\n", "\u{feff}"),
    ] {
        let report = grade(&env, &format!("{bom}{}", csv(order, eol)));
        assert!(report.valid_submission, "{:?}", report.error);
        assert_eq!(report.score_raw, Some(SKLEARN_AUC));
    }
}

#[test]
fn repeated_unknown_and_missing_ids_are_named() {
    let env = env();
    let text = csv(&shuffled(), "\n");
    let lines: Vec<&str> = text.lines().collect();
    let with_line = |at: usize, line: &str| {
        let mut l = lines.clone();
        l[at] = line;
        l.join("\n") + "\n"
    };
    // Line 11 holds id (10 * 113) % 300 = 230; repeat another id there.
    let repeated = grade(&env, &with_line(11, &format!("{},0.5", id(shuffled()[3]))));
    assert!(!repeated.valid_submission);
    assert_eq!(repeated.error.as_deref(), Some(format!("submission repeats id `{}`", id(shuffled()[3])).as_str()));
    let unknown = grade(&env, &with_line(11, "q999,0.5"));
    assert!(!unknown.valid_submission && unknown.error.as_deref().unwrap().contains("`q999`"), "{unknown:?}");
    let missing = grade(&env, &with_line(11, ",0.5"));
    assert!(!missing.valid_submission && missing.error.as_deref().unwrap().contains("row 11"), "{missing:?}");
    let short = grade(&env, &(lines[..N].join("\n") + "\n"));
    assert!(!short.valid_submission && short.error.as_deref().unwrap().contains("299"), "{short:?}");
}

#[test]
fn answers_that_repeat_an_id_are_a_broken_environment() {
    let mut env = env();
    let mut ids: Vec<Option<CellText>> = (0..N).map(|i| Some(id(i).into())).collect();
    ids[200] = Some(id(150).into());
    ids[250] = Some(id(20).into());
    env.answers.push_column("id2", Column::Text(ids)).unwrap();
    env.grading.task.id_column = "id2".into();
    let e = StandardGrader.check(&env.grading_task()).unwrap_err();
    // The first row, going down, that repeats an earlier id.
    assert!(e.to_string().contains(&format!("repeats id `{}`", id(150))), "{e}");
    // Such answers have no index, and an index of their first id column
    // does not vouch for the second.
    assert!(env.grading_task().index_answers().is_none());
    let mut by_first = env.grading.clone();
    by_first.task.id_column = "id".into();
    let first = sandmle_core::GradingTask::new(&by_first, &env.answers, None);
    let index = first.index_answers();
    assert!(first.with_answer_index(index.as_ref()).answer_index().is_some());
    let task = env.grading_task().with_answer_index(index.as_ref());
    assert!(task.answer_index().is_none() && StandardGrader.check(&task).is_err());
    let mut ids: Vec<Option<CellText>> = (0..N).map(|i| Some(id(i).into())).collect();
    ids[100] = None;
    ids[200] = Some(id(150).into());
    env.answers.push_column("id3", Column::Text(ids)).unwrap();
    env.grading.task.id_column = "id3".into();
    let e = StandardGrader.check(&env.grading_task()).unwrap_err();
    assert!(e.to_string().contains("row 101 has no id"), "{e}");
}
