//! Multi-label competitions flattened into one row per (item, label), as
//! mlsp-2013-birds is: a labels file lists each item's labels
//! (`rec_id,[labels]`, then `3,1,7` per line, `?` for a test item, the id
//! alone for an item without labels), the sample submission holds one row
//! per (test item, label) with the id `item × stride + label` and a
//! probability, and each item is one file (a recording), named through a
//! second table (`rec_id,filename`) or by the item itself.
//!
//! The environment keeps that shape: `train.csv` holds one row per
//! (training item, label) — the id built as the sample's are, the item,
//! the label and the target (1 when the item has the label) — and
//! `test.csv` the sample's rows with their item and label. The item is the
//! task's group column (a micro task keeps all of an item's rows) and the
//! key naming each row's file ([`sandmle_core::ImageSpec::key_column`]),
//! so one recording serves all of its rows.

use crate::columns::{layout, text_column};
use crate::error::Result;
use crate::files::Files;
use crate::rows::{Index, MediaDirs, ext};
use sandmle_core::{Column, Table};
use std::collections::{BTreeMap, BTreeSet};

/// The most rows the (item, label) pairs may make in one split.
pub(crate) const MAX_LABEL_ROWS: usize = 20_000_000;

/// What the flattening found: the tables, the stride, the item column's
/// name and each item's file.
#[derive(Debug)]
pub(crate) struct LabelRows {
    /// The training rows: id, item, label, target.
    pub train: Table,
    /// The test rows: id, item, label.
    pub test: Table,
    /// The item column's name.
    pub item: String,
    /// `id = item × stride + label`.
    pub stride: u64,
    /// Each item's file (item, path below `prepared/`), items in order.
    pub files: Vec<(String, String)>,
    /// What follows an item in its file's name in the environment.
    pub suffix: String,
}

/// The name of the label column.
const LABEL: &str = "label";

/// Sample ids as numbers; `None` unless every one is a non-negative
/// integer.
fn numbers(ids: &[String]) -> Option<Vec<u64>> {
    ids.iter().map(|i| i.trim().parse::<u64>().ok()).collect()
}

/// The smallest power of ten `s` (10 to 10⁹) for which every test item
/// `id / s` is an item of the labels file — marked `?` there when `strict`
/// — and holds the same residues `id % s` (at least two): the stride and
/// those residues, the labels.
fn stride_where(ids: &[u64], known: &ItemLabels, strict: bool) -> Option<(u64, Vec<u64>)> {
    (1..=9).map(|k| 10u64.pow(k)).find_map(|s| {
        let mut groups: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
        for &id in ids {
            groups.entry(id / s).or_default().insert(id % s);
        }
        let first = groups.values().next()?.clone();
        let listed = |item: &u64| if strict { known.get(item) == Some(&None) } else { known.contains_key(item) };
        (first.len() >= 2 && groups.values().all(|g| *g == first) && groups.keys().all(listed))
            .then(|| (s, first.into_iter().collect()))
    })
}

/// The stride: test items marked `?` first (a smaller power of ten whose
/// items happen to be listed with labels does not win), else any listed
/// (the caller then names the test item whose labels are given).
fn stride(ids: &[u64], known: &ItemLabels) -> Option<(u64, Vec<u64>)> {
    stride_where(ids, known, true).or_else(|| stride_where(ids, known, false))
}

/// Each item's labels (`None`: `?`, a test item), by item.
type ItemLabels = BTreeMap<u64, Option<Vec<u64>>>;

/// The labels file: each item's labels (`None`: `?`, a test item), and the
/// header's first field when the file has a header.
fn read_labels(files: &Files, rel: &str) -> Result<(ItemLabels, Option<String>)> {
    let bytes = files.read(rel)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| layout(files, rel, "UTF-8 text"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut items = BTreeMap::new();
    let mut header = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let mut fields = line.split(',').map(str::trim);
        let first = fields.next().unwrap_or_default();
        let Ok(item) = first.parse::<u64>() else {
            if n == 0 {
                header = Some(first.to_owned()).filter(|h| sandmle_core::is_plain_name(h));
                continue;
            }
            return Err(layout(files, rel, format!("an item id (a whole number) to start line {}", n + 1)));
        };
        let rest: Vec<&str> = fields.filter(|f| !f.is_empty()).collect();
        let labels = if rest.contains(&"?") {
            None
        } else {
            let parsed: Option<Vec<u64>> = rest.iter().map(|f| f.parse::<u64>().ok()).collect();
            let Some(mut parsed) = parsed else {
                return Err(layout(files, rel, format!("whole-number labels or `?` on line {}", n + 1)));
            };
            parsed.sort_unstable();
            parsed.dedup();
            Some(parsed)
        };
        if items.insert(item, labels).is_some() {
            return Err(layout(files, rel, format!("one line per item; item {item} has two")));
        }
    }
    if items.is_empty() {
        return Err(layout(files, rel, "a line per item: its id, then its labels"));
    }
    Ok((items, header))
}

/// Each item's file stem from a two-column table (item, file name), read
/// as text (`0010` stays `0010`); an item named twice is refused.
fn read_names(files: &Files, rel: &str) -> Result<BTreeMap<u64, String>> {
    let bytes = files.read(rel)?;
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf".as_slice()).unwrap_or(&bytes);
    let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(false).from_reader(bytes);
    let mut out = BTreeMap::new();
    for (r, record) in reader.records().enumerate() {
        let bad = || layout(files, rel, format!("an item id and a file name on row {}", r + 1));
        let record = record.map_err(|_| bad())?;
        let (Some(id), Some(name), 2) = (record.get(0), record.get(1), record.len()) else { return Err(bad()) };
        let id = id.trim().parse::<u64>().map_err(|_| bad())?;
        let name = name.trim();
        if name.is_empty() {
            return Err(bad());
        }
        if out.insert(id, name.to_owned()).is_some() {
            return Err(layout(files, rel, format!("one file name per item; item {id} has two")));
        }
    }
    Ok(out)
}

/// The flattened rows of a competition (see the module docs).
///
/// # Errors
/// [`Error::Layout`] naming the labels file, the names table or the
/// sample submission when they do not fit together; [`Error::Options`]
/// for a metric that is not one probability per row (checked by the
/// caller).
pub(crate) fn flatten(
    files: &Files,
    (labels_rel, names_rel): (&str, Option<&str>),
    (sample_rel, sample_ids): (&str, &[String]),
    (id_column, target): (&str, &str),
    media: &MediaDirs,
) -> Result<LabelRows> {
    let (known, header) = read_labels(files, labels_rel)?;
    let ids = numbers(sample_ids)
        .ok_or_else(|| layout(files, sample_rel, "whole-number ids `item × stride + label` for (item, label) rows"))?;
    let (stride, labels) = stride(&ids, &known).ok_or_else(|| {
        layout(
            files,
            sample_rel,
            format!("ids `item × 10ᵏ + label`, every test item holding the same labels and marked `?` in {labels_rel}"),
        )
    })?;
    let label_set: BTreeSet<u64> = labels.iter().copied().collect();
    let test_items: BTreeSet<u64> = ids.iter().map(|id| id / stride).collect();
    let mut train_items = Vec::new();
    for (&item, has) in &known {
        match has {
            Some(_) if test_items.contains(&item) => {
                return Err(layout(
                    files,
                    labels_rel,
                    format!("`?` for test item {item}, not its labels (they are the answers)"),
                ));
            }
            Some(has) => {
                if let Some(bad) = has.iter().find(|l| !label_set.contains(l)) {
                    return Err(layout(
                        files,
                        labels_rel,
                        format!("labels among the submission's ({} of them); item {item} has {bad}", labels.len()),
                    ));
                }
                train_items.push((item, has));
            }
            None => {}
        }
    }
    if train_items.is_empty() {
        return Err(layout(files, labels_rel, "labels for some items that are not test items"));
    }
    if train_items.len().saturating_mul(labels.len()) > MAX_LABEL_ROWS {
        return Err(layout(files, labels_rel, format!("at most {MAX_LABEL_ROWS} (item, label) training rows")));
    }
    let free = |n: &str| n != id_column && n != target;
    let label_column = [LABEL, "label_id", "label_index"].into_iter().find(|n| free(n)).unwrap_or("label_code");
    let item_column = header
        .filter(|h| free(h) && h != label_column)
        .or_else(|| ["item", "item_id", "item_index"].into_iter().find(|n| free(n)).map(str::to_owned))
        .unwrap_or_else(|| "item_code".into());

    // Training rows, items in order, then labels in order.
    let n = train_items.len() * labels.len();
    let (mut tid, mut titem, mut tlabel, mut tval) =
        (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    for (item, has) in &train_items {
        for &label in &labels {
            let id = item.checked_mul(stride).and_then(|v| v.checked_add(label)).ok_or_else(|| {
                layout(
                    files,
                    labels_rel,
                    format!("item ids whose `item × {stride} + label` is a number; item {item} is too large"),
                )
            })?;
            tid.push(id.to_string());
            titem.push(item.to_string());
            tlabel.push(label as f64);
            tval.push(if has.binary_search(&label).is_ok() { 1.0 } else { 0.0 });
        }
    }
    let train = Table::from_columns([
        (id_column.to_owned(), text_column(&tid)),
        (item_column.clone(), text_column(&titem)),
        (label_column.to_owned(), Column::Numeric(tlabel)),
        (target.to_owned(), Column::Numeric(tval)),
    ])?;
    let test = Table::from_columns([
        (id_column.to_owned(), text_column(sample_ids)),
        (item_column.clone(), text_column(&ids.iter().map(|id| (id / stride).to_string()).collect::<Vec<_>>())),
        (label_column.to_owned(), Column::Numeric(ids.iter().map(|id| (id % stride) as f64).collect())),
    ])?;

    // Each item's file: by its name in the names table, or by the item.
    let names = names_rel.map(|rel| read_names(files, rel).map(|n| (rel, n))).transpose()?;
    let dirs: Vec<String> =
        media.train.iter().chain(&media.test).cloned().collect::<BTreeSet<_>>().into_iter().collect();
    let index = Index::new(files, &dirs);
    let mut found = Vec::new();
    let mut suffix: Option<String> = None;
    let items = train_items.iter().map(|(i, _)| *i).chain(test_items.iter().copied());
    for item in items.collect::<BTreeSet<u64>>() {
        let stem = match &names {
            Some((rel, names)) => {
                names.get(&item).cloned().ok_or_else(|| layout(files, rel, format!("a file name for item {item}")))?
            }
            None => item.to_string(),
        };
        let (rel, _) = index.find(files, &stem)?.ok_or_else(|| {
            layout(
                files,
                dirs.first().map_or("public", String::as_str),
                format!("a file `{stem}.<ext>` for item {item} (looked in {})", dirs.join(", ")),
            )
        })?;
        let this = ext(crate::detect::base(&rel)).to_owned();
        match &suffix {
            None => suffix = Some(this),
            Some(s) if *s == this => {}
            Some(s) => {
                return Err(layout(files, &rel, format!("a `{s}` file, as the other items' are")));
            }
        }
        found.push((item.to_string(), rel));
    }
    Ok(LabelRows { train, test, item: item_column, stride, files: found, suffix: suffix.unwrap_or_default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(items: &[u64]) -> ItemLabels {
        items.iter().map(|&i| (i, None)).collect()
    }

    #[test]
    fn the_stride_is_the_power_of_ten_whose_items_share_their_labels() {
        let ids: Vec<u64> = [3u64, 12].iter().flat_map(|i| (0..19).map(move |l| i * 100 + l)).collect();
        assert_eq!(stride(&ids, &known(&[3, 12])), Some((100, (0..19).collect())));
        // Ten labels: a stride of 10 also groups them evenly, but its
        // items (30, 120) are not the labels file's.
        let ids: Vec<u64> = [3u64, 12].iter().flat_map(|i| (0..10).map(move |l| i * 100 + l)).collect();
        assert_eq!(stride(&ids, &known(&[3, 12])), Some((100, (0..10).collect())));
        // Items with different labels do not flatten.
        assert_eq!(stride(&[300, 301, 1200], &known(&[3, 12])), None);
    }
}
