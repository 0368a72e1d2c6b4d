//! Tests of the parent module.

use super::*;
use crate::error::Result;
use crate::model::hist_forest::{classifier, regressor};
use crate::model::{Caches, Clock, Data};
use ndarray::Array2;
use rand::RngExt;
use sandmle_core::rng_for;

fn forest_spec(n_trees: usize, seed: u64, max_depth: Option<u16>) -> PipelineSpec {
    let model = ModelSpec::HistForest { n_trees, max_depth, min_samples_leaf: 1, max_features: None };
    PipelineSpec {
        name: format!("forest-{n_trees}-{max_depth:?}"),
        seed,
        steps: vec![],
        model,
        clip_to_target_range: false,
    }
}

/// A fit: `x` to train on, `test` to predict, the forests' cache when it
/// shares.
struct Fit<'a> {
    data: Data<'a>,
    caches: Caches<'a>,
}

fn fit_data<'a>(
    clock: &'a Clock,
    (x, test): (&'a Array2<f64>, &'a Array2<f64>),
    seed: u64,
    forests: Option<ForestShare<'a>>,
) -> Fit<'a> {
    Fit { data: Data { clock, x, x_test: test, columns: None, seed }, caches: Caches { forests, ..Caches::default() } }
}

fn classify(f: &Fit<'_>, y: &[usize], k: usize, p: HistParams) -> Result<Array2<f64>> {
    classifier(&f.data, f.caches, y, k, p)
}

fn regress(f: &Fit<'_>, y: &[f64], p: HistParams) -> Result<Vec<f64>> {
    regressor(&f.data, f.caches, y, p)
}

fn params(n_trees: usize) -> HistParams {
    HistParams { n_trees, max_depth: None, min_samples_leaf: 1, max_features: 2, bootstrap: true, keep_inner: None }
}

fn bits(xs: impl IntoIterator<Item = f64>) -> Vec<u64> {
    xs.into_iter().map(f64::to_bits).collect()
}

#[test]
fn a_forest_read_from_a_shared_one_predicts_what_it_predicts_alone() {
    let mut rng = rng_for(8, "shared forests");
    let x = Array2::from_shape_fn((300, 5), |(_, j)| {
        if j == 4 { f64::from(rng.random_range(0..3u8)) } else { rng.random_range(-2.0..2.0) }
    });
    let test = Array2::from_shape_fn((60, 5), |_| rng.random_range(-2.0..2.0));
    let y: Vec<usize> =
        x.rows().into_iter().map(|r| usize::from(r[0] + r[1] > 0.0) + usize::from(r[2] > 1.0)).collect();
    let values: Vec<f64> = x.rows().into_iter().map(|r| r[0] * r[3] + r[4]).collect();
    let clock = Clock::default();
    let specs =
        [forest_spec(10, 3, None), forest_spec(100, 3, None), forest_spec(30, 3, None), forest_spec(30, 4, None)];
    let cache = SharedForests::for_specs(&specs).predicting(&test);
    let data = |forests| fit_data(&clock, (&x, &test), 11, forests);
    // The forest of 10 asks first: it grows the 100 trees the forest
    // of 100 wants, and the others read them (and the forest of 10's
    // leaf sums, to which they add their further trees).
    for (spec, n) in specs[..3].iter().zip([10, 100, 30]) {
        let share = cache.share(spec);
        assert_eq!(share.map(|s| s.plan.trees), Some(100), "{}", spec.name);
        let shared = classify(&data(share), &y, 3, params(n)).unwrap();
        let alone = classify(&data(None), &y, 3, params(n)).unwrap();
        assert_eq!(bits(shared), bits(alone), "{} trees", n);
        let shared = regress(&data(share), &values, params(n)).unwrap();
        let alone = regress(&data(None), &values, params(n)).unwrap();
        assert_eq!(bits(shared), bits(alone), "{} trees of values", n);
    }
    // One forest of classes and one of values, each grown once; the
    // leaf sums of 10, 100 and 30 trees of each kept.
    assert_eq!(cache.grown.lock().unwrap().len(), 2);
    let mut counts: Vec<usize> = cache.sums.lock().unwrap().iter().map(|p| p.trees).collect();
    counts.sort_unstable();
    assert_eq!(counts, [10, 10, 30, 30, 100, 100]);
    // Another test matrix (of the same shape) is not the one the
    // sums are of: a member predicting it adds its own.
    let other = test.mapv(|v| v + 1.0);
    let share = cache.share(&specs[2]).unwrap();
    let read = share.forest((11, params(30), Kind::Classes(3)), (&y, &[]), false, |_, _| panic!("grown again"));
    let (all, _) = read.expect("the forest of classes, grown");
    assert!(cache.leaf_sums(&all, &other, 30, |_, _| panic!("not shared")).is_none());
    let read = |x_test, forests| {
        let f = data(forests);
        Fit { data: Data { x_test, ..f.data }, caches: f.caches }
    };
    let shared = classify(&read(&other, cache.share(&specs[2])), &y, 3, params(30)).unwrap();
    let alone = classify(&read(&other, None), &y, 3, params(30)).unwrap();
    assert_eq!(bits(shared), bits(alone), "another test matrix");
    // A member that comes while the forest grows is told to grow its
    // own, not made to wait.
    let key = Key { seed: 5, params: params(100), kind: Kind::Values, target: [0; 4] };
    let inner = cache.trees(key, || {
        assert!(cache.trees(key, || panic!("grown twice at once")).is_none());
        Some(Vec::new())
    });
    assert_eq!(inner.map(|t| t.len()), Some(0));
    assert_eq!(cache.trees(key, || panic!("grown again")).map(|t| t.len()), Some(0));
    // A forest of another seed is its own, whatever its trees.
    assert_eq!(cache.share(&specs[3]).map(|s| s.plan.trees), Some(30));
    assert!(cache.share(&forest_spec(10, 5, None)).is_none());
}

/// A forest of larger leaves and the shared forest's seed replays the
/// searches that forest logged, and predicts what it predicts alone,
/// for classes and values; a fit of another seed finds no log.
#[test]
fn a_forest_of_larger_leaves_replays_the_shared_forests_searches() {
    let mut rng = rng_for(12, "replayed forests");
    let x = Array2::from_shape_fn((300, 6), |(_, j)| {
        if j == 5 { f64::from(rng.random_range(0..4u8)) } else { rng.random_range(-2.0..2.0) }
    });
    let test = Array2::from_shape_fn((40, 6), |_| rng.random_range(-2.0..2.0));
    let y: Vec<usize> =
        x.rows().into_iter().map(|r| usize::from(r[0] + r[1] > 0.0) + usize::from(r[2] * r[5] > 1.0)).collect();
    let values: Vec<f64> = x.rows().into_iter().map(|r| r[0] * r[3] + r[5]).collect();
    let clock = Clock::default();
    let larger = ModelSpec::HistForest { n_trees: 100, max_depth: None, min_samples_leaf: 5, max_features: None };
    let specs = [forest_spec(100, 3, None), PipelineSpec { model: larger, ..forest_spec(100, 3, None) }];
    let cache = SharedForests::for_specs(&specs).predicting(&test);
    assert!(cache.share(&specs[0]).is_some_and(|s| s.plan.log), "the smaller leaves log");
    assert!(cache.share(&specs[1]).is_some_and(|s| !s.plan.log), "nothing replays the larger");
    let data = |forests| fit_data(&clock, (&x, &test), 11, forests);
    let five = HistParams { min_samples_leaf: 5, ..params(100) };
    // The smaller leaves first: their forest is grown and logged.
    classify(&data(cache.share(&specs[0])), &y, 3, params(100)).unwrap();
    regress(&data(cache.share(&specs[0])), &values, params(100)).unwrap();
    assert!(cache.replay_for((11, five, Kind::Classes(3)), (&y, &[])).is_some_and(|l| l.len() == 100));
    assert!(cache.replay_for((11, five, Kind::Values), (&[], &values)).is_some());
    assert!(cache.replay_for((12, five, Kind::Classes(3)), (&y, &[])).is_none(), "another seed");
    let shared = classify(&data(cache.share(&specs[1])), &y, 3, five).unwrap();
    let alone = classify(&data(None), &y, 3, five).unwrap();
    assert_eq!(bits(shared), bits(alone), "classes");
    let shared = regress(&data(cache.share(&specs[1])), &values, five).unwrap();
    let alone = regress(&data(None), &values, five).unwrap();
    assert_eq!(bits(shared), bits(alone), "values");
}

#[test]
fn plans_grow_as_deep_as_the_deepest_member_and_keep_the_shallower_cuts() {
    let plan = |specs: &[PipelineSpec]| SharedForests::for_specs(specs).share(&specs[0]).map(|s| s.plan);
    let p = |trees, depth, keep| Some(Plan { trees, depth, keep, log: false });
    assert_eq!(plan(&[forest_spec(10, 3, None), forest_spec(100, 3, Some(4))]), p(100, None, Some(4)));
    assert_eq!(
        plan(&[forest_spec(100, 3, Some(4)), forest_spec(30, 3, Some(6)), forest_spec(5, 3, Some(2))]),
        p(100, Some(6), Some(4))
    );
    assert_eq!(plan(&[forest_spec(100, 3, Some(4)), forest_spec(30, 3, Some(4))]), p(100, Some(4), None));
    // A limit deeper than the cuts shared is its own forest.
    let deep = [forest_spec(10, 3, None), forest_spec(100, 3, Some(CUT_DEPTHS + 1))];
    assert_eq!(plan(&deep), p(10, None, None));
    let cache = SharedForests::for_specs(&deep);
    assert_eq!(cache.share(&deep[1]).map(|s| s.plan), p(100, Some(CUT_DEPTHS + 1), None));
    // Another seed, or another leaf minimum, is another forest.
    let other = ModelSpec::HistForest { n_trees: 50, max_depth: None, min_samples_leaf: 5, max_features: None };
    let leaf = PipelineSpec { model: other, ..forest_spec(50, 3, None) };
    let with_leaf = [forest_spec(100, 3, Some(4)), forest_spec(10, 4, None), leaf];
    // The forest of smaller leaves logs its searches for it to replay.
    assert_eq!(plan(&with_leaf), Some(Plan { log: true, ..p(100, Some(4), None).unwrap() }));
    assert_eq!(SharedForests::for_specs(&with_leaf).share(&with_leaf[2]).map(|s| s.plan), p(50, None, None));
}

/// Forests of depth 2 and 4 read the unlimited forest of their seed,
/// cut, and predict what they predict alone; a depth-4 forest of more
/// trees than the plan holds grows its own.
#[test]
fn a_shallower_forest_reads_the_shared_trees_cut_at_its_depth() {
    let mut rng = rng_for(9, "cut forests");
    let x = Array2::from_shape_fn((300, 4), |_| rng.random_range(-2.0..2.0));
    let test = Array2::from_shape_fn((50, 4), |_| rng.random_range(-2.0..2.0));
    let y: Vec<usize> =
        x.rows().into_iter().map(|r| usize::from(r[0] * r[1] > 0.0) + usize::from(r[2] > 0.5)).collect();
    let two: Vec<usize> = y.iter().map(|&c| usize::from(c > 0)).collect();
    let values: Vec<f64> = x.rows().into_iter().map(|r| r[0] * r[1] + r[3]).collect();
    let clock = Clock::default();
    let specs = [forest_spec(100, 3, None), forest_spec(100, 3, Some(4)), forest_spec(30, 3, Some(2))];
    let cache = SharedForests::for_specs(&specs);
    let data = |forests| fit_data(&clock, (&x, &test), 3, forests);
    for (spec, n, depth) in [(&specs[1], 100, Some(4)), (&specs[2], 30, Some(2)), (&specs[0], 100, None)] {
        let share = cache.share(spec);
        assert_eq!(share.map(|s| s.plan), Some(Plan { trees: 100, depth: None, keep: Some(4), log: false }));
        let p = HistParams { max_depth: depth, ..params(n) };
        for (classes, k) in [(&y, 3), (&two, 2)] {
            let shared = classify(&data(share), classes, k, p).unwrap();
            let alone = classify(&data(None), classes, k, p).unwrap();
            assert_eq!(bits(shared), bits(alone), "{} trees of depth {depth:?}, {k} classes", n);
        }
        let shared = regress(&data(share), &values, p).unwrap();
        let alone = regress(&data(None), &values, p).unwrap();
        assert_eq!(bits(shared), bits(alone), "{} trees of values of depth {depth:?}", n);
    }
    // Three forests grown once each (two kinds of classes, values).
    assert_eq!(cache.grown.lock().unwrap().len(), 3);
    // The depth-4 member reads the grown forest, and every tree cuts.
    let share = cache.share(&specs[1]).unwrap();
    let p = HistParams { max_depth: Some(4), ..params(100) };
    let (all, cut) = share.forest((3, p, Kind::Values), (&[], &values), false, |_, _| panic!("grown again")).unwrap();
    assert_eq!(cut, Some(4));
    assert!(all.iter().all(|t| t.cut(4).is_some()));
    let p = HistParams { max_depth: Some(4), ..params(150) };
    assert!(share.forest((3, p, Kind::Values), (&[], &values), false, |_, _| panic!("not shared")).is_none());
}

/// Decision trees of depth 1, 3 and 6 (every row, every feature) are
/// one tree of depth 6 and its cuts, and each predicts what it
/// predicts alone; a tree of larger leaves is a tree of its own.
#[test]
fn decision_trees_of_one_seed_share_one_tree_cut_at_their_depths() {
    let mut rng = rng_for(10, "cut trees");
    let x = Array2::from_shape_fn((200, 6), |_| rng.random_range(-2.0..2.0));
    let test = Array2::from_shape_fn((50, 6), |_| rng.random_range(-2.0..2.0));
    let y: Vec<usize> =
        x.rows().into_iter().map(|r| usize::from(r[0] * r[1] > 0.0) * 2 + usize::from(r[2] > 0.3)).collect();
    let values: Vec<f64> = x.rows().into_iter().map(|r| r[0] * r[1] + r[3]).collect();
    let tree = |max_depth, min_samples_leaf| PipelineSpec {
        model: ModelSpec::DecisionTree { max_depth, min_samples_leaf },
        ..forest_spec(1, 0, None)
    };
    let specs = [tree(Some(1), 1), tree(Some(3), 1), tree(Some(6), 1), tree(None, 5)];
    let cache = SharedForests::for_specs(&specs).predicting(&test);
    let clock = Clock::default();
    let data = |forests| fit_data(&clock, (&x, &test), 0, forests);
    for spec in &specs {
        let ModelSpec::DecisionTree { max_depth, min_samples_leaf } = spec.model else { unreachable!() };
        let plan = cache.share(spec).map(|s| s.plan);
        let want = if min_samples_leaf == 1 { (Some(6), Some(3)) } else { (None, None) };
        let log = min_samples_leaf == 1;
        assert_eq!(plan, Some(Plan { trees: 1, depth: want.0, keep: want.1, log }), "{max_depth:?}");
        let p = HistParams { max_depth, min_samples_leaf, max_features: 6, bootstrap: false, ..params(1) };
        let shared = classify(&data(cache.share(spec)), &y, 4, p).unwrap();
        let alone = classify(&data(None), &y, 4, p).unwrap();
        assert_eq!(bits(shared), bits(alone), "depth {max_depth:?}, leaves of {min_samples_leaf}");
        let shared = regress(&data(cache.share(spec)), &values, p).unwrap();
        let alone = regress(&data(None), &values, p).unwrap();
        assert_eq!(bits(shared), bits(alone), "values, depth {max_depth:?}, leaves of {min_samples_leaf}");
    }
    // Two trees of classes and two of values, each grown once.
    assert_eq!(cache.grown.lock().unwrap().len(), 4);
}
