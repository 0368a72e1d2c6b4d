//! Typed columns: numbers, dictionary-encoded categories and free text.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::HashMap;

/// The type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColumnType {
    /// `f64` values; NaN marks a missing value.
    Numeric,
    /// Dictionary-encoded strings from a small set of levels.
    Categorical,
    /// Free text (and identifiers).
    Text,
}

/// Dictionary-encoded strings: a list of levels and one code per row.
///
/// Levels are kept in **first-seen order** (the order in which they first
/// occur going down the rows), so reading the same file always gives the same
/// codes. [`Categorical::sorted`] gives the same column with levels sorted.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Categorical {
    levels: Vec<String>,
    codes: Vec<Option<u32>>,
}

impl Categorical {
    /// Builds a column from values, `None` being missing; levels in
    /// first-seen order.
    pub fn from_values<'a, I>(values: I) -> Self
    where
        I: IntoIterator<Item = Option<&'a str>>,
    {
        let mut index: HashMap<&'a str, u32> = HashMap::new();
        let mut levels = Vec::new();
        let codes = values
            .into_iter()
            .map(|v| {
                v.map(|s| {
                    *index.entry(s).or_insert_with(|| {
                        levels.push(s.to_owned());
                        // A column has fewer than 2^32 distinct levels: it
                        // would not fit in memory otherwise.
                        u32::try_from(levels.len() - 1).unwrap_or(u32::MAX)
                    })
                })
            })
            .collect();
        Categorical { levels, codes }
    }

    /// Builds a column from levels and codes; `None` if a code is out of range.
    pub fn from_parts(levels: Vec<String>, codes: Vec<Option<u32>>) -> Option<Self> {
        let n = levels.len();
        codes.iter().flatten().all(|&c| (c as usize) < n).then_some(Categorical { levels, codes })
    }

    /// The levels, indexed by code.
    pub fn levels(&self) -> &[String] {
        &self.levels
    }

    /// One code per row, `None` for missing.
    pub fn codes(&self) -> &[Option<u32>] {
        &self.codes
    }

    /// The value of row `i` (`None` if missing or out of range).
    pub fn value(&self, i: usize) -> Option<&str> {
        let code = (*self.codes.get(i)?)?;
        self.levels.get(code as usize).map(String::as_str)
    }

    /// The same values with levels in sorted (byte) order.
    pub fn sorted(&self) -> Categorical {
        let mut order: Vec<usize> = (0..self.levels.len()).collect();
        order.sort_by(|&a, &b| self.levels[a].cmp(&self.levels[b]));
        let mut remap = vec![0u32; self.levels.len()];
        for (new, &old) in order.iter().enumerate() {
            remap[old] = new as u32;
        }
        Categorical {
            levels: order.iter().map(|&i| self.levels[i].clone()).collect(),
            codes: self.codes.iter().map(|c| c.map(|c| remap[c as usize])).collect(),
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    /// `true` when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    fn take(&self, rows: &[usize]) -> Categorical {
        Categorical { levels: self.levels.clone(), codes: rows.iter().map(|&r| self.codes[r]).collect() }
    }
}

/// One text cell of a [`Column::Text`]: a string kept inline when it is at
/// most 24 bytes long (most ids and labels), on the heap when longer.
///
/// A million-row id column is then one block of memory instead of a
/// million allocations: reading it, indexing it and dropping it touch a
/// third of the memory and call the allocator once. It dereferences to
/// `str` and converts from `&str` and `String` (`"r1".into()`).
pub type CellText = compact_str::CompactString;

/// One column of a [`crate::Table`].
///
/// Equality treats two missing numbers (NaN) as equal: it compares data, not
/// IEEE semantics.
#[derive(Debug, Clone)]
pub enum Column {
    /// Numbers; NaN is missing.
    Numeric(Vec<f64>),
    /// Dictionary-encoded categories.
    Categorical(Categorical),
    /// Free text; `None` is missing.
    Text(Vec<Option<CellText>>),
}

impl PartialEq for Column {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Column::Numeric(a), Column::Numeric(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
            }
            (Column::Categorical(a), Column::Categorical(b)) => a == b,
            (Column::Text(a), Column::Text(b)) => a == b,
            _ => false,
        }
    }
}

impl Column {
    /// Builds a text column from string slices (`None` is missing).
    pub fn text<'a, I>(values: I) -> Self
    where
        I: IntoIterator<Item = Option<&'a str>>,
    {
        Column::Text(values.into_iter().map(|v| v.map(CellText::from)).collect())
    }

    /// Builds a categorical column from string slices (`None` is missing).
    pub fn categorical<'a, I>(values: I) -> Self
    where
        I: IntoIterator<Item = Option<&'a str>>,
    {
        Column::Categorical(Categorical::from_values(values))
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Column::Numeric(v) => v.len(),
            Column::Categorical(c) => c.len(),
            Column::Text(v) => v.len(),
        }
    }

    /// `true` when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The column's type.
    pub fn column_type(&self) -> ColumnType {
        match self {
            Column::Numeric(_) => ColumnType::Numeric,
            Column::Categorical(_) => ColumnType::Categorical,
            Column::Text(_) => ColumnType::Text,
        }
    }

    /// `true` if row `i` is missing (or out of range).
    pub fn is_missing(&self, i: usize) -> bool {
        match self {
            Column::Numeric(v) => v.get(i).is_none_or(|x| x.is_nan()),
            Column::Categorical(c) => c.value(i).is_none(),
            Column::Text(v) => v.get(i).is_none_or(Option::is_none),
        }
    }

    /// Number of missing values.
    pub fn missing_count(&self) -> usize {
        (0..self.len()).filter(|&i| self.is_missing(i)).count()
    }

    /// The numbers of a numeric column.
    pub fn as_numeric(&self) -> Option<&[f64]> {
        match self {
            Column::Numeric(v) => Some(v),
            _ => None,
        }
    }

    /// The value of row `i` as text, as the CSV writer renders it: numbers in
    /// shortest round-trip form, `None` for missing.
    pub fn get_str(&self, i: usize) -> Option<Cow<'_, str>> {
        match self {
            Column::Numeric(v) => {
                let x = *v.get(i)?;
                (!x.is_nan()).then(|| Cow::Owned(format_f64(x)))
            }
            Column::Categorical(c) => c.value(i).map(Cow::Borrowed),
            Column::Text(v) => v.get(i)?.as_deref().map(Cow::Borrowed),
        }
    }

    /// The value of row `i` as a label: like [`Column::get_str`], but whole
    /// numbers without a decimal point (`3`, not `3.0`), so that numeric
    /// and text labels compare as the same strings.
    pub fn get_label(&self, i: usize) -> Option<Cow<'_, str>> {
        match self {
            Column::Numeric(v) => {
                let x = *v.get(i)?;
                (!x.is_nan()).then(|| Cow::Owned(format_label(x)))
            }
            _ => self.get_str(i),
        }
    }

    /// Every row as a label ([`Column::get_label`]), missing as empty.
    pub fn label_texts(&self) -> Vec<String> {
        (0..self.len()).map(|i| self.get_label(i).map(|s| s.into_owned()).unwrap_or_default()).collect()
    }

    /// The values as numbers: numeric columns as they are; text and
    /// categorical values parsed as floats, with `true`/`false` (any case)
    /// read as 1 and 0. Missing values become NaN. `None` if some present
    /// value is not a number.
    pub fn to_f64_lenient(&self) -> Option<Vec<f64>> {
        match self {
            Column::Numeric(v) => Some(v.clone()),
            _ => (0..self.len())
                .map(|i| match self.get_str(i) {
                    None => Some(f64::NAN),
                    Some(s) => parse_f64_lenient(&s),
                })
                .collect(),
        }
    }

    /// The rows at `rows`, in that order. Indices must be in range (checked
    /// by [`crate::Table::take`]).
    pub(crate) fn take(&self, rows: &[usize]) -> Column {
        match self {
            Column::Numeric(v) => Column::Numeric(rows.iter().map(|&r| v[r]).collect()),
            Column::Categorical(c) => Column::Categorical(c.take(rows)),
            Column::Text(v) => Column::Text(rows.iter().map(|&r| v[r].clone()).collect()),
        }
    }
}

/// Formats a float in the shortest form that parses back to the same value
/// (`1.0`, `0.1`, `1e-7`, `inf`); NaN gives `NaN` (the CSV writer writes
/// missing values as empty fields instead).
pub fn format_f64(x: f64) -> String {
    if x.is_finite() {
        let mut buf = ryu::Buffer::new();
        buf.format_finite(x).to_owned()
    } else if x.is_nan() {
        "NaN".to_owned()
    } else if x > 0.0 {
        "inf".to_owned()
    } else {
        "-inf".to_owned()
    }
}

/// Formats a number as a class label: whole numbers without a decimal
/// point (`3`, not `3.0`), other values as [`format_f64`].
pub fn format_label(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{}", x as i64) } else { format_f64(x) }
}

/// Parses a number as the CSV reader does: surrounding spaces allowed,
/// `inf`/`infinity` accepted; also `true`/`false` (any case) as 1/0.
pub fn parse_f64_lenient(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("true") {
        return Some(1.0);
    }
    if t.eq_ignore_ascii_case("false") {
        return Some(0.0);
    }
    t.parse::<f64>().ok()
}
