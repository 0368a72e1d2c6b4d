//! A hand-crafted CSV with everything pandas and Kaggle files contain.

use sandmle_core::csv::{ReadOptions, read_csv, read_csv_bytes};
use sandmle_core::{ColumnType, Error};

const CRAFTED: &[u8] = b"\xEF\xBB\xBFid,comment,score,city\r\n\
007,\"Hello, world\",1.5,Paris\r\n\
008,\"She said \"\"hi\"\"\nand left\",NA,\r\n\
009,plain,  2e3 ,NaN\r\n\
010,,nan,null\r\n\
011,None,-inf,Oslo\r\n";

#[test]
fn reads_quoted_commas_newlines_crlf_bom_and_na_tokens() {
    let t = read_csv_bytes(CRAFTED, "crafted.csv", &ReadOptions::with_id("id")).unwrap();
    assert_eq!(t.names(), &["id", "comment", "score", "city"]);
    assert_eq!(t.n_rows(), 5);
    let id = t.column("id").unwrap();
    assert_eq!(id.column_type(), ColumnType::Text);
    assert_eq!(id.get_str(0).unwrap(), "007");
    let comment = t.column("comment").unwrap();
    assert_eq!(comment.get_str(0).unwrap(), "Hello, world");
    assert_eq!(comment.get_str(1).unwrap(), "She said \"hi\"\nand left");
    assert_eq!(comment.get_str(2).unwrap(), "plain");
    assert!(comment.is_missing(3) && comment.is_missing(4));
    let score = t.numeric("score").unwrap();
    assert_eq!(score[0], 1.5);
    assert!(score[1].is_nan() && score[3].is_nan());
    assert_eq!(score[2], 2000.0);
    assert_eq!(score[4], f64::NEG_INFINITY);
    let city = t.column("city").unwrap();
    assert_eq!(city.column_type(), ColumnType::Categorical);
    assert_eq!(city.get_str(0).unwrap(), "Paris");
    assert!((1..4).all(|i| city.is_missing(i)));
    assert_eq!(city.get_str(4).unwrap(), "Oslo");
}

#[test]
fn reads_gzip_files_transparently() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("crafted.csv.gz");
    std::fs::write(&path, sandmle_core::csv::gzip(CRAFTED).unwrap()).unwrap();
    let plain = read_csv_bytes(CRAFTED, "crafted.csv", &ReadOptions::with_id("id")).unwrap();
    assert_eq!(read_csv(&path, &ReadOptions::with_id("id")).unwrap(), plain);
}

#[test]
fn bad_input_is_a_typed_error_not_a_panic() {
    for bytes in [&b"a,b\n1,2,3\n"[..], b"a,b\n\"unterminated,1\n", b"a\n\xff\xfe\n", b"\x1f\x8b\x08garbage"] {
        let r = read_csv_bytes(
            bytes,
            "bad.csv",
            &ReadOptions { types: [("a".to_owned(), ColumnType::Text)].into(), ..Default::default() },
        );
        match r {
            Err(Error::Csv { .. }) => {}
            Ok(t) => assert!(t.n_rows() <= 1, "{t:?}"),
            Err(e) => panic!("unexpected error kind: {e}"),
        }
    }
    let missing = read_csv("/nonexistent/file.csv", &ReadOptions::default());
    assert!(
        matches!(missing, Err(Error::MissingFile { .. })),
        "a missing file is named, the fault of whoever named it"
    );
}
