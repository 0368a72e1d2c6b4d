//! A histogram forest's fit and prediction: the binned matrix (shared or
//! made), the trees (read from a shared forest, cut from it, or grown),
//! and each test row's mean leaf payload.

use super::*;

/// Grows the forest and returns each test row's mean leaf payload.
fn forest(
    d: &Data<'_>,
    caches: Caches<'_>,
    y_class: &[usize],
    y_value: &[f64],
    kind: Kind,
    p: HistParams,
) -> Result<Array2<f64>> {
    let (x, x_test) = (d.x, d.x_test);
    let start = Instant::now();
    if x.nrows() < 2 {
        return Err(Error::TooFewRows { what: "hist_forest".into(), needed: 2, found: x.nrows() });
    }
    if !indices_fit(x.nrows(), x.ncols(), kind.width()) {
        let message = format!("{} rows of {} features: more than its 32-bit node indices hold", x.nrows(), x.ncols());
        return Err(Error::Model { model: "hist_forest", message });
    }
    let fitted;
    let bins = match caches.bins {
        Some(shared) => shared.0.get_or_init(|| Bins::fit(x, d.columns)),
        None => {
            fitted = Bins::fit(x, d.columns);
            &fitted
        }
    };
    let training = Training { bins, n: x.nrows(), y_class, y_value, kind };
    // A forest of larger leaves replays the searches a shared forest of
    // its seed logged, where it may (see [`grow::Searched`]).
    let replay = caches.forests.and_then(|s| s.cache.replay_for((d.seed, p, kind), (y_class, y_value)));
    let logs = |keep| Logs { keep, replay: replay.as_deref().map_or(&[], Vec::as_slice) };
    let grow = |p: HistParams, keep| grow_logged(&training, p, d.seed, d.clock.deadline, Search::FASTEST, logs(keep));
    // A forest whose trees are a prefix of a shared one's, or that
    // prefix cut at its depth, reads them (see [`SharedForests`]); any
    // other grows its own.
    let deadline = d.clock.deadline.is_some();
    let shared = caches.forests.and_then(|s| {
        s.forest((d.seed, p, kind), (y_class, y_value), deadline, |params, keep| grow(params, keep).ok())
    });
    // A shallower member's trees are the shared ones cut at its depth.
    let cut: Option<Vec<Tree>> = match &shared {
        Some((all, Some(depth))) => all[..p.n_trees].iter().map(|t| t.cut(*depth)).collect(),
        _ => None,
    };
    let own;
    let trees: &[Tree] = match (&shared, &cut) {
        (Some((all, None)), _) => &all[..p.n_trees],
        (Some(_), Some(cut)) => cut,
        _ => {
            own = grow(p, false)?.0;
            &own
        }
    };
    d.clock.add_fit(start.elapsed());
    let start = Instant::now();
    let width = x.ncols();
    let test = x_test.as_standard_layout();
    let test = test.as_slice().unwrap_or_default();
    let out_width = kind.width();
    let order = predict::Order::for_forest(trees, width, x_test.nrows());
    let dims = (width, x_test.nrows());
    // Trees read as grown from a shared forest add to the sums of the
    // longest prefix of them already added up (see [`SharedForests`]).
    let from_prefix = match (&shared, caches.forests) {
        (Some((all, None)), Some(share)) => share.cache.leaf_sums(all, x_test, p.n_trees, |from, start| {
            let start = start.unwrap_or_else(|| vec![0.0; x_test.nrows() * out_width]);
            predict::add_leaf_sums(&all[from..p.n_trees], test, dims, out_width, order, start)
        }),
        _ => None,
    };
    let sums = from_prefix.unwrap_or_else(|| predict::leaf_sums(trees, test, dims, out_width, order));
    let mut out = Array2::from_shape_vec((x_test.nrows(), out_width), sums)
        .map_err(|e| Error::Model { model: "hist_forest", message: e.to_string() })?;
    out /= trees.len() as f64;
    d.clock.add_predict(start.elapsed());
    Ok(out)
}

/// Class probabilities: the mean of the trees' leaf class frequencies.
pub(in crate::model) fn classifier(
    d: &Data<'_>,
    caches: Caches<'_>,
    y: &[usize],
    k: usize,
    p: HistParams,
) -> Result<Array2<f64>> {
    forest(d, caches, y, &[], Kind::Classes(k), p)
}

/// Values: the mean of the trees' leaf means.
pub(in crate::model) fn regressor(d: &Data<'_>, caches: Caches<'_>, y: &[f64], p: HistParams) -> Result<Vec<f64>> {
    forest(d, caches, &[], y, Kind::Values, p).map(|m| m.column(0).to_vec())
}
