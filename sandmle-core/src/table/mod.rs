//! [`Table`]: a small column store with typed columns.

mod column;

pub use column::{Categorical, CellText, Column, ColumnType, format_f64, format_label, parse_f64_lenient};

use crate::error::{Error, Result};
use std::collections::HashMap;

/// A table: named, typed columns of equal length.
///
/// Column order is kept as given (it is the CSV column order). Lookups by
/// name go through a hash index, so building or querying a table of `n`
/// columns costs time linear in `n` (a wide hostile CSV cannot make reading
/// quadratic).
#[derive(Clone, Default)]
pub struct Table {
    names: Vec<String>,
    columns: Vec<Column>,
    rows: usize,
    /// Position of each name in `names`; never iterated, so its order
    /// reaches no output.
    index: HashMap<String, usize>,
}

impl PartialEq for Table {
    fn eq(&self, other: &Self) -> bool {
        self.rows == other.rows && self.names == other.names && self.columns == other.columns
    }
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("names", &self.names)
            .field("columns", &self.columns)
            .field("rows", &self.rows)
            .finish()
    }
}

impl Table {
    /// An empty table with no columns and no rows.
    pub fn new() -> Self {
        Table::default()
    }

    /// Builds a table from `(name, column)` pairs.
    ///
    /// # Errors
    /// [`Error::DuplicateColumn`] or [`Error::LengthMismatch`].
    pub fn from_columns<S: Into<String>>(columns: impl IntoIterator<Item = (S, Column)>) -> Result<Self> {
        let mut t = Table::new();
        for (name, col) in columns {
            t.push_column(name, col)?;
        }
        Ok(t)
    }

    /// Appends a column. The first column fixes the row count.
    ///
    /// # Errors
    /// [`Error::DuplicateColumn`] or [`Error::LengthMismatch`].
    pub fn push_column(&mut self, name: impl Into<String>, column: Column) -> Result<()> {
        let name = name.into();
        if self.index_of(&name).is_some() {
            return Err(Error::DuplicateColumn { name });
        }
        if self.columns.is_empty() {
            self.rows = column.len();
        } else if column.len() != self.rows {
            return Err(Error::LengthMismatch { column: name, expected: self.rows, found: column.len() });
        }
        self.index.insert(name.clone(), self.names.len());
        self.names.push(name);
        self.columns.push(column);
        Ok(())
    }

    /// Replaces the column called `name` (appending it if absent).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`].
    pub fn set_column(&mut self, name: &str, column: Column) -> Result<()> {
        match self.index_of(name) {
            None => self.push_column(name, column),
            Some(_) if self.columns.len() > 1 && column.len() != self.rows => {
                Err(Error::LengthMismatch { column: name.to_owned(), expected: self.rows, found: column.len() })
            }
            Some(i) => {
                self.rows = column.len();
                self.columns[i] = column;
                Ok(())
            }
        }
    }

    /// Removes and returns the column called `name`.
    ///
    /// # Errors
    /// [`Error::ColumnNotFound`].
    pub fn remove_column(&mut self, name: &str) -> Result<Column> {
        let i = self.require(name)?;
        let name = self.names.remove(i);
        self.index.remove(&name);
        for (j, n) in self.names.iter().enumerate().skip(i) {
            self.index.insert(n.clone(), j);
        }
        let col = self.columns.remove(i);
        if self.columns.is_empty() {
            self.rows = 0;
        }
        Ok(col)
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn n_cols(&self) -> usize {
        self.columns.len()
    }

    /// Column names in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// `(name, column)` pairs in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Column)> {
        self.names.iter().map(String::as_str).zip(&self.columns)
    }

    /// The position of the column called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// `true` if the table has a column called `name`.
    pub fn has_column(&self, name: &str) -> bool {
        self.index_of(name).is_some()
    }

    fn require(&self, name: &str) -> Result<usize> {
        self.index_of(name).ok_or_else(|| Error::ColumnNotFound { name: name.to_owned() })
    }

    /// The column called `name`.
    ///
    /// # Errors
    /// [`Error::ColumnNotFound`].
    pub fn column(&self, name: &str) -> Result<&Column> {
        Ok(&self.columns[self.require(name)?])
    }

    /// The column at position `i`.
    pub fn column_at(&self, i: usize) -> Option<&Column> {
        self.columns.get(i)
    }

    /// The numbers of the numeric column called `name`.
    ///
    /// # Errors
    /// [`Error::ColumnNotFound`] or [`Error::NotNumeric`].
    pub fn numeric(&self, name: &str) -> Result<&[f64]> {
        self.column(name)?.as_numeric().ok_or_else(|| Error::NotNumeric { column: name.to_owned() })
    }

    /// The `(name, type)` list of the columns.
    pub fn schema(&self) -> Vec<(String, ColumnType)> {
        self.iter().map(|(n, c)| (n.to_owned(), c.column_type())).collect()
    }

    /// The rows at `rows`, in that order (repeats allowed).
    ///
    /// # Errors
    /// [`Error::RowOutOfRange`].
    pub fn take(&self, rows: &[usize]) -> Result<Table> {
        if let Some(&bad) = rows.iter().find(|&&r| r >= self.rows) {
            return Err(Error::RowOutOfRange { index: bad, rows: self.rows });
        }
        Ok(Table {
            names: self.names.clone(),
            columns: self.columns.iter().map(|c| c.take(rows)).collect(),
            rows: rows.len(),
            index: self.index.clone(),
        })
    }

    /// The named columns, in the order given.
    ///
    /// # Errors
    /// [`Error::ColumnNotFound`] or [`Error::DuplicateColumn`].
    pub fn select<S: AsRef<str>>(&self, names: &[S]) -> Result<Table> {
        let mut t = Table::new();
        for n in names {
            let n = n.as_ref();
            t.push_column(n, self.column(n)?.clone())?;
        }
        if names.is_empty() {
            t.rows = 0;
        }
        Ok(t)
    }

    /// The table without the named columns (names it lacks are ignored).
    pub fn without<S: AsRef<str>>(&self, names: &[S]) -> Table {
        let mut t = self.clone();
        for n in names {
            let _ = t.remove_column(n.as_ref());
        }
        t
    }

    /// Row `row` as one string: every column's value but those in `skip`,
    /// in column order, joined by the unit separator (U+001F). Equal keys
    /// mean equal rows, for finding duplicates.
    pub fn row_key(&self, row: usize, skip: &[&str]) -> String {
        self.iter()
            .filter(|(n, _)| !skip.contains(n))
            .map(|(_, c)| c.get_str(row).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\u{1f}")
    }

    /// Row `row`'s values but those of the columns in `skip`, in column
    /// order ([`CellValue`]): equal rows of this table have equal values,
    /// as they have equal [`Table::row_key`]s, without a number printed.
    pub fn row_values(&self, row: usize, skip: &[&str]) -> Vec<CellValue<'_>> {
        self.iter().filter(|(n, _)| !skip.contains(n)).map(|(_, c)| CellValue::of(c, row)).collect()
    }
}

/// One value of a column, for telling rows apart: two values are equal
/// exactly when [`Column::get_str`] prints them alike (a missing value as
/// empty), without printing numbers (distinct numbers print distinctly).
///
/// The order is only for ordered sets (numbers by their bits), not the
/// numbers' order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CellValue<'a> {
    /// Missing: NaN, no text, or the empty text.
    Missing,
    /// A number other than NaN, by its bits.
    Number(u64),
    /// A category or a text, not empty.
    Text(std::borrow::Cow<'a, str>),
}

impl<'a> CellValue<'a> {
    /// Row `row` of `column` (missing past the end).
    pub fn of(column: &'a Column, row: usize) -> CellValue<'a> {
        match column {
            Column::Numeric(v) => {
                v.get(row).filter(|x| !x.is_nan()).map_or(CellValue::Missing, |x| CellValue::Number(x.to_bits()))
            }
            other => CellValue::text(other.get_str(row)),
        }
    }

    /// A printed value, `None` or empty being missing.
    pub fn text(s: Option<std::borrow::Cow<'a, str>>) -> CellValue<'a> {
        s.filter(|s| !s.is_empty()).map_or(CellValue::Missing, CellValue::Text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Table {
        Table::from_columns([
            ("id", Column::text([Some("a"), Some("b"), Some("c")])),
            ("x", Column::Numeric(vec![1.0, f64::NAN, 3.0])),
            ("c", Column::categorical([Some("u"), Some("v"), Some("u")])),
        ])
        .unwrap()
    }

    /// Rows have equal values exactly when they have equal printed keys.
    #[test]
    fn row_values_tell_rows_apart_as_their_keys_do() {
        let t = Table::from_columns([
            ("id", Column::text([Some("1"), Some("2"), Some("3"), Some("4"), Some("5"), Some("6"), Some("7")])),
            ("x", Column::Numeric(vec![0.0, -0.0, f64::NAN, f64::NAN, 0.1 + 0.2, 0.3, 0.0])),
            ("c", Column::categorical([Some("u"), Some("u"), None, Some(""), Some("v"), Some("v"), Some("u")])),
            ("s", Column::text([Some("a"), Some("a"), Some(""), None, Some("b"), Some("b"), Some("a")])),
        ])
        .unwrap();
        for a in 0..7 {
            for b in 0..7 {
                let keys = t.row_key(a, &["id"]) == t.row_key(b, &["id"]);
                assert_eq!(t.row_values(a, &["id"]) == t.row_values(b, &["id"]), keys, "rows {a} and {b}");
            }
        }
        // Rows 0 and 6 are the same row; 2 and 3 are all missing.
        assert_eq!(t.row_values(0, &["id"]), t.row_values(6, &["id"]));
        assert_eq!(t.row_values(2, &["id"]), vec![CellValue::Missing; 3]);
    }

    #[test]
    fn take_and_select() {
        let t = small();
        let s = t.take(&[2, 0]).unwrap();
        assert_eq!(s.column("id").unwrap().get_str(0).unwrap(), "c");
        assert_eq!(s.numeric("x").unwrap(), &[3.0, 1.0]);
        assert!(matches!(t.take(&[3]), Err(Error::RowOutOfRange { index: 3, rows: 3 })));
        assert!(matches!(t.numeric("c"), Err(Error::NotNumeric { .. })));
        assert!(matches!(t.select(&["nope"]), Err(Error::ColumnNotFound { .. })));
    }

    #[test]
    fn removing_columns_keeps_the_index_right() {
        let mut t = small();
        t.remove_column("id").unwrap();
        assert_eq!(t.index_of("x"), Some(0));
        assert_eq!(t.index_of("c"), Some(1));
        assert_eq!(t.index_of("id"), None);
        t.push_column("id", Column::Numeric(vec![0.0; 3])).unwrap();
        assert_eq!(t.index_of("id"), Some(2));
        assert_eq!(t.column_at(2), Some(t.column("id").unwrap()));
    }

    #[test]
    fn push_rejects_bad_columns() {
        let mut t = small();
        assert!(matches!(t.push_column("x", Column::Numeric(vec![0.0; 3])), Err(Error::DuplicateColumn { .. })));
        assert!(matches!(t.push_column("y", Column::Numeric(vec![0.0; 2])), Err(Error::LengthMismatch { .. })));
    }

    #[test]
    fn categorical_levels_first_seen_and_sorted() {
        let c = Categorical::from_values([Some("b"), None, Some("a"), Some("b")]);
        assert_eq!(c.levels(), &["b".to_owned(), "a".to_owned()]);
        assert_eq!(c.codes(), &[Some(0), None, Some(1), Some(0)]);
        let s = c.sorted();
        assert_eq!(s.levels(), &["a".to_owned(), "b".to_owned()]);
        assert_eq!(s.value(0), Some("b"));
        assert_eq!(s.value(1), None);
    }
}
