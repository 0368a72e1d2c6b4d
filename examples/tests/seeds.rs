//! The bundled seeds load, pass their hash checks and match their SOURCE.md.

use sandmle::{load_seed, repository_seeds, seed_names_in};

fn seed_names() -> sandmle_core::Result<Vec<String>> {
    seed_names_in(&repository_seeds())
}

fn seeds_dir() -> std::path::PathBuf {
    repository_seeds()
}

/// `(rows, columns)` from a SOURCE.md line such as
/// "- `prepared/public/train.csv`: 142 rows x 15 columns (...)".
fn shape(source: &str, file: &str) -> (usize, usize) {
    let line = source.lines().find(|l| l.contains(&format!("`prepared/public/{file}"))).unwrap();
    let after = line.split("`: ").nth(1).unwrap();
    let mut words = after.split_whitespace();
    let rows = words.next().unwrap().parse().unwrap();
    let cols = words.nth(2).unwrap().parse().unwrap();
    (rows, cols)
}

#[test]
fn every_seed_matches_its_source() {
    let names = seed_names().unwrap();
    assert!(names.len() >= 8, "{names:?}");
    for name in &names {
        let env = load_seed(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let source = std::fs::read_to_string(seeds_dir().join(name).join("SOURCE.md")).unwrap();
        assert_eq!(shape(&source, "train"), (env.train.n_rows(), env.train.n_cols()), "{name} train");
        assert_eq!(shape(&source, "test"), (env.test.n_rows(), env.test.n_cols()), "{name} test");
        let train_line = source.lines().find(|l| l.contains("`prepared/public/train")).unwrap();
        for target in &env.task().target_columns {
            assert!(train_line.contains(&format!("target `{target}`")), "{name}: SOURCE.md names target {target}");
            assert!(env.train.has_column(target) && !env.test.has_column(target));
        }
        let answers_line = source.lines().find(|l| l.contains("`prepared/private/answers")).unwrap();
        for c in &env.task().prediction_columns {
            assert!(answers_line.contains(&format!("`{c}`")), "{name}: SOURCE.md names answer column {c}");
        }
        assert!(source.contains("## License"), "{name}: SOURCE.md has a license section");
        let test_share = env.test.n_rows() as f64 / (env.train.n_rows() + env.test.n_rows()) as f64;
        assert!((0.15..0.25).contains(&test_share), "{name}: test share {test_share}");
    }
}

#[test]
fn seeds_cover_the_required_kinds_and_stay_small() {
    use sandmle_core::{Modality, TaskKind};
    let envs: Vec<_> = seed_names().unwrap().iter().map(|n| load_seed(n).unwrap()).collect();
    let has = |f: &dyn Fn(&sandmle_core::Environment) -> bool| envs.iter().any(f);
    assert!(has(&|e| e.task().kind == TaskKind::BinaryClassification));
    assert!(has(&|e| e.task().kind == TaskKind::MulticlassClassification));
    assert!(has(&|e| e.task().kind == TaskKind::Regression));
    assert!(has(&|e| e.task().modality == Modality::Image));
    assert!(
        has(&|e| e.task().images.is_some() && e.images.len() == e.train.n_rows() + e.test.n_rows()),
        "images as files"
    );
    assert!(has(&|e| e.task().modality == Modality::Text));
    assert!(has(&|e| e.train.n_rows() >= 100_000), "a seed with 100,000 training rows or more");
    // An imbalanced binary seed: minority class under 10%.
    assert!(has(&|e| {
        let target = &e.task().target_columns[0];
        e.task().kind == TaskKind::BinaryClassification
            && e.train.numeric(target).is_ok_and(|y| {
                let pos = y.iter().filter(|&&v| v == 1.0).count() as f64 / y.len() as f64;
                pos.min(1.0 - pos) < 0.10
            })
    }));
    let mut total = 0u64;
    let mut stack = vec![seeds_dir()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() { stack.push(e.path()) } else { total += e.metadata().unwrap().len() }
        }
    }
    assert!(total < 15 * 1024 * 1024, "seeds take {total} bytes");
}
