//! Image tasks: the features against numpy and hand computation, the
//! panel learning from them, determinism, broken images, and the process
//! executor's `images/` folder.

mod common;

use common::image_env::{Mix, square_environment, square_image};
use common::{STARTS, Start, bwrap_or_skip, run_sh};
use sandmle_core::testing::tiny_image_environment;
use sandmle_core::{Environment, ExecStatus, Executor, Grader, Pixels, Program, Solution, encode_png};
use sandmle_exec::image::{ImageFeaturizer, decode_image, image_feature_tables};
use sandmle_exec::{Error, Panel, PipelineExecutor, PipelineSpec, ProcessExecutor, SandboxMode};
use sandmle_metrics::StandardGrader;
use std::time::Duration;

/// The fixtures of `fixtures/make_image_fixtures.py` (numpy and scipy):
/// sample `i` of each image is `(i * mul + add) % 256`, or blocks off a
/// grey background (whose objects are counted).
#[test]
fn features_match_numpy() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/image_features.json")).unwrap();
    let fixtures: serde_json::Value = serde_json::from_str(&text).unwrap();
    for case in fixtures["cases"].as_array().unwrap() {
        let n = |k: &str| case[k].as_u64().unwrap();
        let (w, h, ch) = (n("width"), n("height"), n("channels"));
        let data = if case["pattern"] == "blocks" {
            // Blocks off a grey background (the fixture script's `blocks`).
            let (side, gap) = (n("side"), n("gap"));
            let p = side + gap;
            let mut data = Vec::new();
            for y in 0..h {
                for x in 0..w {
                    let on = x % p >= gap && y % p >= gap && (x / p + y / p) % 3 != 0;
                    data.extend((0..ch).map(|k| if on { ((50 + 60 * k + 13 * (x / p)) % 256) as u8 } else { 128 }));
                }
            }
            data
        } else {
            let (mul, add) = (n("mul"), n("add"));
            (0..w * h * ch).map(|i| ((i * mul + add) % 256) as u8).collect()
        };
        let p = Pixels { width: w as u32, height: h as u32, channels: ch as u8, data };
        // Through the PNG codec, as the tables are built (the encoder
        // writes no grey + alpha).
        if ch != 2 {
            assert_eq!(decode_image(&encode_png(&p).unwrap(), "case.png").unwrap(), p);
        }
        let f = ImageFeaturizer::for_images([&p]);
        let got = f.extract(&p).unwrap();
        let want: Vec<f64> = case["features"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(got.len(), want.len(), "{w}x{h}x{ch}");
        for (i, (g, e)) in got.iter().zip(&want).enumerate() {
            assert!((g - e).abs() <= 1e-12, "{w}x{h}x{ch}: {} is {g}, numpy {e}", f.names()[i]);
        }
    }
}

/// A 2 x 1 grey image, black then white, computed by hand.
#[test]
fn features_of_a_two_pixel_image_by_hand() {
    let p = Pixels { width: 2, height: 1, channels: 1, data: vec![0, 255] };
    let f = ImageFeaturizer::grey();
    let names = f.names();
    let v = f.extract(&p).unwrap();
    let get = |name: &str| v[names.iter().position(|n| n == name).unwrap()];
    // Pixel 0 covers grid columns 0-3, pixel 1 columns 4-7, every row.
    for r in 0..8 {
        for x in 0..8 {
            assert_eq!(get(&format!("img_px_ch0_y{r}_x{x}")), if x < 4 { 0.0 } else { 1.0 });
        }
    }
    // Half the samples in bin 0 (0..32), half in bin 7 (224..256).
    let hist: Vec<f64> = (0..8).map(|b| get(&format!("img_hist_ch0_b{b}"))).collect();
    assert_eq!(hist, [0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5]);
    // Both pixels: gx = 1 - 0 (border repeated), gy = 0, so magnitude 1 at
    // angle 0 (bin 0). Pixel 0 is split over cell columns 0-1 (half of it
    // in each: 1/2) and all 4 cell rows (each holds a quarter of it), so
    // each cell gets 1 * 1/2 * 1/4 = 0.125 in bin 0, normalised by
    // sqrt(0.125^2 + 0.01^2).
    let expected = 0.125 / (0.125f64 * 0.125 + 0.0001).sqrt();
    for r in 0..4 {
        for x in 0..4 {
            for o in 0..8 {
                let g = get(&format!("img_hog_y{r}_x{x}_o{o}"));
                let e = if o == 0 { expected } else { 0.0 };
                assert!((g - e).abs() < 1e-15, "cell {r},{x} bin {o}: {g} vs {e}");
            }
        }
    }
    assert_eq!(get("img_mean_ch0"), 0.5);
    assert_eq!(get("img_sd_ch0"), 0.5);
}

#[test]
fn any_size_and_channel_count_gives_the_same_columns() {
    // A task mixing sizes and channel counts is featurized in colour.
    let mut rng = Mix(3);
    let images = [
        Pixels { width: 1, height: 1, channels: 1, data: vec![9] },
        Pixels { width: 5, height: 2, channels: 2, data: (0..20).map(|i| (i * 13) as u8).collect() },
        square_image(&mut rng, 17, 3, true),
        square_image(&mut rng, 9, 4, false),
    ];
    let f = ImageFeaturizer::for_images(&images);
    assert_eq!(f.channels(), 3);
    for p in &images {
        let v = f.extract(p).unwrap();
        assert_eq!(v.len(), f.len());
        // Every feature is a share in [0, 1] but the object count.
        let names = f.names();
        for (name, x) in names.iter().zip(&v) {
            let bound = if name == "img_objects" { f64::MAX } else { 1.0 };
            assert!(x.is_finite() && (0.0..=bound).contains(x), "{name}: {x}");
        }
    }
    // A grey image in a colour task: three equal planes.
    let v = f.extract(&images[1]).unwrap();
    let names = f.names();
    let at = |n: &str| v[names.iter().position(|x| x == n).unwrap()];
    assert_eq!(at("img_px_ch0_y3_x5"), at("img_px_ch2_y3_x5"));
    assert_eq!(at("img_mean_ch0"), at("img_mean_ch1"));
    // Malformed pixels are an error, not a panic.
    let bad = Pixels { width: 3, height: 3, channels: 3, data: vec![0; 5] };
    assert!(matches!(f.extract(&bad), Err(Error::Image { .. })));
    let zero = Pixels { width: 0, height: 3, channels: 1, data: vec![] };
    assert!(matches!(f.extract(&zero), Err(Error::Image { .. })));
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
}

#[test]
fn the_panel_learns_from_images_whatever_the_thread_count() {
    let env = square_environment(120, 80, 16, 1, 11);
    let run = |threads| in_pool(threads, || Panel::default().run(&env, &StandardGrader).unwrap());
    let report = run(1);
    let prior = report.entries.iter().find(|e| e.name == "prior").unwrap().score.unwrap();
    let best = &report.leaderboard.entries[0];
    assert!((prior - 0.5).abs() < 1e-9, "prior {prior}");
    assert!(best.score >= 0.8, "best baseline {} scores {}", best.name, best.score);
    // The kNN members learn from the image features too (sharing one
    // neighbour list); the panel has no smartcore forest.
    assert_eq!(report.entries.iter().filter(|e| e.name.starts_with("knn") && e.score.is_some()).count(), 4);
    assert!(!report.entries.iter().any(|e| e.name.starts_with("smartcore")));
    let scored = report.entries.iter().filter(|e| e.score.is_some()).count();
    assert!(scored * 10 >= report.entries.len() * 9, "{:?}", report.entries);
    let again = run(2);
    let scores =
        |r: &sandmle_exec::PanelReport| r.entries.iter().map(|e| (e.name.clone(), e.score)).collect::<Vec<_>>();
    assert_eq!(scores(&report), scores(&again));
    assert_eq!(report.leaderboard, again.leaderboard);
    // The features too.
    let view = env.public_view();
    assert_eq!(
        in_pool(1, || image_feature_tables(&view).unwrap()),
        in_pool(2, || image_feature_tables(&view).unwrap())
    );
}

#[test]
fn the_executor_featurizes_an_image_task_as_the_panel_does() {
    let env = square_environment(60, 20, 12, 3, 5);
    let spec = PipelineSpec::from_json(&serde_json::json!({
        "steps": [{"op": "scale", "method": "standard"}],
        "model": {"type": "logistic_regression", "c": 1.0},
    }))
    .unwrap();
    let run = PipelineExecutor::default().run(&spec, &env.public_view()).unwrap();
    assert_eq!(run.timings.phases.first().map(|p| p.0.as_str()), Some("image_features"), "{:?}", run.timings);
    // The same pipeline on tables that already hold the features and no
    // images: the same submission.
    let (train, test) = image_feature_tables(&env.public_view()).unwrap();
    assert_eq!(train.n_cols(), 2 + ImageFeaturizer::colour().len());
    assert_eq!(&train.names()[..2], ["id", "label"]);
    let mut pre = env.clone();
    (pre.train, pre.test, pre.images) = (train, test, Default::default());
    let again = PipelineExecutor::default().run(&spec, &pre.public_view()).unwrap();
    assert_eq!(run.submission, again.submission);
    assert!(!again.timings.phases.iter().any(|p| p.0 == "image_features"));
    // Each panel member scores what it scores run alone: the panel's
    // features, moved into its shared tables, and its `select_best`
    // members' columns, copied out of them, are the executor's.
    let report = Panel::default().run(&env, &StandardGrader).unwrap();
    let specs = Panel::default().specs(env.task(), env.train.n_rows());
    for name in ["logistic-best-2", "logistic-c1", "gaussian-nb", "stump", "knn-5", "forest-10"] {
        let spec = specs.iter().find(|s| s.name == name).unwrap().clone().check().unwrap();
        let alone = PipelineExecutor::default().run(&spec, &env.public_view()).unwrap();
        let graded = StandardGrader.grade(&env.grading_task(), &alone.submission).unwrap();
        let entry = report.entries.iter().find(|e| e.name == name).unwrap();
        assert_eq!(entry.score, graded.score, "{name}");
    }
    // The tiny hand-made image task runs too.
    let tiny = tiny_image_environment();
    let out = PipelineExecutor::default().run(&spec, &tiny.public_view()).unwrap();
    assert_eq!(out.submission.n_rows(), tiny.test.n_rows());
}

/// A feature column of the table's own joins the image features before
/// them, as on tables that already hold the features; a column named as an
/// image feature is the environment's clash, for a pipeline and for the
/// panel alike.
#[test]
fn an_image_task_with_a_column_of_its_own_or_of_a_features_name() {
    let env = square_environment(60, 20, 12, 3, 5);
    let spec = PipelineSpec::from_json(&serde_json::json!({
        "steps": [{"op": "select_best", "k": 7}, {"op": "scale", "method": "standard"}],
        "model": {"type": "logistic_regression", "c": 1.0},
    }))
    .unwrap();
    let with_column = |name: &str| {
        let mut e = env.clone();
        let column = |n: usize, shift: usize| {
            sandmle_core::Column::Numeric((0..n).map(|r| ((r * 7 + shift) % 11) as f64).collect())
        };
        e.train.push_column(name, column(e.train.n_rows(), 0)).unwrap();
        e.test.push_column(name, column(e.test.n_rows(), 3)).unwrap();
        e
    };
    let own = with_column("extra");
    let run = PipelineExecutor::default().run(&spec, &own.public_view()).unwrap();
    let (train, test) = image_feature_tables(&own.public_view()).unwrap();
    assert_eq!(train.names()[2], "extra");
    let mut pre = own.clone();
    (pre.train, pre.test, pre.images) = (train, test, Default::default());
    let again = PipelineExecutor::default().run(&spec, &pre.public_view()).unwrap();
    assert_eq!(run.submission, again.submission);
    // A forest drawing one feature a split by its place: the same columns
    // in the same order.
    let forest = PipelineSpec::from_json(&serde_json::json!({
        "steps": [], "model": {"type": "hist_forest", "n_trees": 5, "max_features": 1},
    }))
    .unwrap();
    let run = PipelineExecutor::default().run(&forest, &own.public_view()).unwrap();
    assert_eq!(run.submission, PipelineExecutor::default().run(&forest, &pre.public_view()).unwrap().submission);
    // The panel's members see the same columns as each alone.
    let report = Panel::default().run(&own, &StandardGrader).unwrap();
    let specs = Panel::default().specs(own.task(), own.train.n_rows());
    for name in ["logistic-best-5", "stump", "knn-1"] {
        let member = specs.iter().find(|s| s.name == name).unwrap().clone().check().unwrap();
        let alone = PipelineExecutor::default().run(&member, &own.public_view()).unwrap();
        let graded = StandardGrader.grade(&own.grading_task(), &alone.submission).unwrap();
        assert_eq!(report.entries.iter().find(|e| e.name == name).unwrap().score, graded.score, "{name}");
    }
    let clash = with_column("img_mean_ch0");
    let e = PipelineExecutor::default().run(&spec, &clash.public_view()).unwrap_err();
    assert!(
        matches!(&e, Error::Core(sandmle_core::Error::DuplicateColumn { name }) if name == "img_mean_ch0"),
        "{e:?}"
    );
    let e = Panel::default().run(&clash, &StandardGrader).unwrap_err();
    assert!(matches!(&e, sandmle_core::Error::DuplicateColumn { name } if name == "img_mean_ch0"), "{e:?}");
}

#[test]
fn a_broken_image_is_the_environments_fault_not_a_panic() {
    let good = tiny_image_environment();
    let spec_json = serde_json::json!({"steps": [], "model": {"type": "gaussian_nb"}});
    let spec = PipelineSpec::from_json(&spec_json).unwrap();
    let mut garbage = good.clone();
    garbage.images.insert("r2.png", b"\x89PNG\r\n\x1a\nnot really".to_vec()).unwrap();
    let mut missing = good.clone();
    missing.images = missing.images.retain_names(["r0.png", "r1.png"]);
    for (what, env) in [("garbage", garbage), ("missing", missing)] {
        let e = image_feature_tables(&env.public_view()).unwrap_err();
        assert!(matches!(e, Error::Image { ref file, .. } if file.starts_with("images/r")), "{what}: {e}");
        assert!(!e.is_solution_fault(), "{what}");
        let e = PipelineExecutor::default().run(&spec, &env.public_view()).unwrap_err();
        assert!(matches!(e, Error::Image { .. }), "{what}: {e}");
        // Through the port: an error (a broken environment), not a
        // rejected solution.
        let e = PipelineExecutor::default().execute(&Solution::Pipeline(spec_json.clone()), &env.public_view());
        assert!(matches!(e, Err(sandmle_core::Error::InvalidEnvironment { .. })), "{what}: {e:?}");
        let e = Panel::default().run(&env, &StandardGrader).unwrap_err();
        assert!(matches!(e, sandmle_core::Error::InvalidEnvironment { .. }), "{what}: {e}");
    }
    assert!(matches!(decode_image(b"", "x.png"), Err(Error::Image { .. })));
}

/// The script lists the workspace's image folder and submits the sample.
const LIST_IMAGES: &str = "ls images\ncp sample_submission.csv submission.csv\n";

fn assert_lists_images(env: &Environment, mode: &str, out: &sandmle_core::Execution) {
    assert_eq!(out.status, ExecStatus::Completed, "{mode}: {}", out.stderr_tail);
    let listed: Vec<&str> = out.stdout_tail.lines().collect();
    let expected: Vec<&str> = env.images.iter().map(|(n, _)| n).collect();
    assert_eq!(listed, expected, "{mode}");
    assert_eq!(out.submission.as_ref().map(|s| s.n_rows()), Some(env.test.n_rows()), "{mode}");
}

#[test]
fn the_process_executor_writes_the_images_into_the_workspace() {
    let env = tiny_image_environment();
    let code = tempfile::tempdir().unwrap();
    std::fs::write(code.path().join("main.sh"), LIST_IMAGES).unwrap();
    let program = Program {
        command: vec!["sh".into(), "main.sh".into()],
        code_dir: code.path().to_path_buf(),
        timeout: Duration::from_secs(60),
    };
    let ex = ProcessExecutor { sandbox: SandboxMode::Unsandboxed, ..ProcessExecutor::default() };
    assert_lists_images(&env, "unsandboxed", &ex.run(&program, &env.public_view()).unwrap());
    if bwrap_or_skip() {
        for start in STARTS {
            let out = run_sh(start, Default::default(), &env, LIST_IMAGES, Duration::from_secs(60));
            assert_lists_images(&env, if start == Start::Cold { "cold" } else { "warm" }, &out);
        }
    }
}
