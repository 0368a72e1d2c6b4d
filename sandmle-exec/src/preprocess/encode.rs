//! `encode`: categorical columns to numbers (one-hot with a level cap, or
//! ordinal ranks).

use super::Frames;
use crate::error::Result;
use crate::spec::EncodeMethod;
use sandmle_core::{Column, ColumnType, Table};
use std::collections::BTreeMap;

pub(super) fn encode(f: &mut Frames, method: EncodeMethod, max_levels: usize) -> Result<()> {
    let categorical: Vec<String> =
        f.train.iter().filter(|(_, c)| c.column_type() == ColumnType::Categorical).map(|(n, _)| n.to_owned()).collect();
    for name in categorical {
        let (train, test) = (f.train.remove_column(&name)?, f.test.remove_column(&name)?);
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for i in 0..train.len() {
            if let Some(s) = train.get_str(i) {
                *counts.entry(s.into_owned()).or_insert(0) += 1;
            }
        }
        match method {
            EncodeMethod::Ordinal => {
                // BTreeMap keys are the levels in sorted order.
                let rank: BTreeMap<&str, f64> =
                    counts.keys().enumerate().map(|(i, l)| (l.as_str(), i as f64)).collect();
                let code = |c: &Column| {
                    Column::Numeric(
                        (0..c.len())
                            .map(|i| c.get_str(i).and_then(|s| rank.get(s.as_ref()).copied()).unwrap_or(-1.0))
                            .collect(),
                    )
                };
                f.train.push_column(name.clone(), code(&train))?;
                f.test.push_column(name, code(&test))?;
            }
            EncodeMethod::OneHot => {
                // Most frequent levels first, then by level.
                let mut levels: Vec<(&String, &usize)> = counts.iter().collect();
                levels.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                let kept: Vec<&str> = levels.iter().take(max_levels.max(1)).map(|(l, _)| l.as_str()).collect();
                let other = counts.len() > kept.len();
                one_hot(&mut f.train, &name, &train, &kept, other)?;
                one_hot(&mut f.test, &name, &test, &kept, other)?;
            }
        }
    }
    Ok(())
}

/// Appends `name=level` indicator columns (and `name=__other` when the
/// training levels exceed the cap). Missing values are all zeros; an unseen
/// level counts as `__other` where that column exists.
fn one_hot(t: &mut Table, name: &str, c: &Column, kept: &[&str], other: bool) -> Result<()> {
    let values: Vec<Option<std::borrow::Cow<'_, str>>> = (0..c.len()).map(|i| c.get_str(i)).collect();
    for level in kept {
        let col = values.iter().map(|v| if v.as_deref() == Some(*level) { 1.0 } else { 0.0 }).collect();
        t.push_column(format!("{name}={level}"), Column::Numeric(col))?;
    }
    if other {
        let col =
            values.iter().map(|v| v.as_deref().map_or(0.0, |s| if kept.contains(&s) { 0.0 } else { 1.0 })).collect();
        t.push_column(format!("{name}=__other"), Column::Numeric(col))?;
    }
    Ok(())
}
