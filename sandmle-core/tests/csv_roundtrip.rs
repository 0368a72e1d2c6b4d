//! write -> read -> write is byte-identical for random tables.

use proptest::prelude::*;
use sandmle_core::csv::{MISSING_TOKENS, ReadOptions, read_csv_bytes, to_csv_bytes};
use sandmle_core::{Column, Table};

/// Awkward strings: commas, quotes, newlines, CR, unicode, spaces. Missing
/// tokens (`NA`, empty, ...) are excluded: they read back as missing, as in
/// pandas.
fn awkward() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 ,\"\n\r;é漢\t'-]{1,12}".prop_filter("not a missing token", |s| !MISSING_TOKENS.contains(&s.as_str()))
}

fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        (-1e6f64..1e6),
        Just(f64::NAN),
        Just(0.1),
        Just(-0.0),
        Just(f64::INFINITY),
        Just(1e-300),
        Just(5e-324),
    ]
}

fn column(rows: usize) -> impl Strategy<Value = Column> {
    prop_oneof![
        prop::collection::vec(number(), rows).prop_map(Column::Numeric),
        prop::collection::vec(prop::option::of(awkward()), rows)
            .prop_map(|v| Column::text(v.iter().map(|s| s.as_deref()))),
        prop::collection::vec(prop::option::of(prop::sample::select(vec!["a", "b,c", "d\"e", "f\ng"])), rows)
            .prop_map(|v| Column::categorical(v.iter().map(|s| s.as_deref()))),
    ]
}

fn table() -> impl Strategy<Value = Table> {
    (0usize..12, 1usize..6).prop_flat_map(|(rows, cols)| {
        (prop::collection::vec(awkward(), cols), prop::collection::vec(column(rows), cols)).prop_map(|(names, cols)| {
            let mut t = Table::new();
            for (i, (n, c)) in names.into_iter().zip(cols).enumerate() {
                // Make names unique.
                t.push_column(format!("{n}{i}"), c).unwrap();
            }
            t
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn write_read_write_is_byte_identical(t in table()) {
        let first = to_csv_bytes(&t).unwrap();
        let back = read_csv_bytes(&first, "<mem>", &ReadOptions::with_schema(&t.schema())).unwrap();
        prop_assert_eq!(&back, &t);
        let second = to_csv_bytes(&back).unwrap();
        prop_assert_eq!(first, second);
    }

    #[test]
    fn inferred_types_reach_a_fixed_point_after_one_pass(t in table()) {
        let once = to_csv_bytes(&read_csv_bytes(&to_csv_bytes(&t).unwrap(), "<mem>", &ReadOptions::default()).unwrap()).unwrap();
        let twice = to_csv_bytes(&read_csv_bytes(&once, "<mem>", &ReadOptions::default()).unwrap()).unwrap();
        prop_assert_eq!(once, twice);
    }
}
