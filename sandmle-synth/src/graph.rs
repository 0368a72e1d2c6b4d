//! Graph tasks: node classification over rows linked to each other.
//!
//! [`crate::DnaSynthesizer`] draws a graph task for a DNA of
//! [`sandmle_core::Modality::Graph`] (a classification seed recast by a
//! run's mix, [`crate::recast`]): a table task's rows, features and hidden
//! rule, each row a node, and one more column, [`NEIGHBOURS`], listing the
//! ids of the rows it is linked to — training and test rows alike, as the
//! node lists of Kaggle's graph competitions do. The links follow the
//! labels: each node draws two to six links, each to a node of its own
//! class with probability [`homophily`] (else to any node), and a link
//! counts both ways. So a test row's linked training rows tell its class,
//! and reading the graph (neighbour votes, label propagation) pays beyond
//! the features.
//!
//! The oracle knows the features' rule, not the links: a model reading
//! both can beat it, which the medal ladder (gold short of the oracle)
//! leaves within reach of graph-aware code. Links draw from the plan
//! seed's `graph-links` stream, so the bytes are the same on every run.

use crate::error::Result;
use rand::RngExt;
use sandmle_core::{Column, Table, rng_for};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The column holding each row's linked rows' ids, space-separated in
/// increasing order.
pub const NEIGHBOURS: &str = "neighbours";

/// The share of a node's links that go to its own class at `difficulty`
/// (0.85 at 0, 0.55 at 1; random links join two classes anyway by chance).
pub fn homophily(difficulty: f64) -> f64 {
    0.85 - 0.3 * difficulty.clamp(0.0, 1.0)
}

/// Adds [`NEIGHBOURS`] to `train` and `test`, whose rows are the kept
/// positions `0..labels.len()` (`ids[pos]` the id of position `pos`, and
/// `labels[pos]` its class): links drawn as the module docs say. Returns
/// the record of the links for the hidden rule.
///
/// # Errors
/// A table without an id column that [`crate::synthesize`] gave it.
pub(crate) fn add_neighbours(
    train: &mut Table,
    test: &mut Table,
    ids: &[usize],
    labels: &[String],
    difficulty: f64,
    seed: u64,
) -> Result<Value> {
    let n = labels.len();
    let mut by_class: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (pos, l) in labels.iter().enumerate() {
        by_class.entry(l.as_str()).or_default().push(pos);
    }
    let h = homophily(difficulty);
    let mut rng = rng_for(seed, "graph-links");
    let mut links: Vec<Vec<usize>> = vec![Vec::new(); n];
    for pos in 0..n {
        let own = &by_class[labels[pos].as_str()];
        for _ in 0..rng.random_range(2..=6usize) {
            let pool: &[usize] = if rng.random::<f64>() < h && own.len() > 1 { own } else { &[] };
            let other = if pool.is_empty() { rng.random_range(0..n) } else { pool[rng.random_range(0..pool.len())] };
            if other != pos && !links[pos].contains(&other) {
                links[pos].push(other);
                links[other].push(pos);
            }
        }
    }
    let same =
        links.iter().enumerate().map(|(p, l)| l.iter().filter(|&&o| labels[o] == labels[p]).count()).sum::<usize>();
    let total = links.iter().map(Vec::len).sum::<usize>();
    let by_id: BTreeMap<usize, usize> = ids.iter().enumerate().map(|(pos, &id)| (id, pos)).collect();
    for table in [train, test] {
        let id_col = table.column("id")?;
        let column: Vec<Option<sandmle_core::CellText>> = (0..table.n_rows())
            .map(|r| {
                let pos =
                    id_col.get_str(r).and_then(|s| s.parse::<usize>().ok()).and_then(|id| by_id.get(&id).copied());
                let mut linked: Vec<usize> = pos.map_or_else(Vec::new, |p| links[p].iter().map(|&o| ids[o]).collect());
                linked.sort_unstable();
                let text: Vec<String> = linked.iter().map(usize::to_string).collect();
                Some(text.join(" ").into())
            })
            .collect();
        table.push_column(NEIGHBOURS, Column::Text(column))?;
    }
    Ok(json!({
        "column": NEIGHBOURS,
        "homophily": h,
        "links_per_node": "2 to 6 drawn, each counted both ways",
        "same_class_share": if total == 0 { 0.0 } else { same as f64 / total as f64 },
    }))
}
