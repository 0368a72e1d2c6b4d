//! Numbers in CSV fields: plain decimals parsed directly, anything else by
//! Rust's `f64` parser.
//!
//! Most numeric fields are short plain decimals (`0.8123`, `-4.5`, `17`).
//! Their digits, read as one integer `m` with `k` digits after the point,
//! give the value `m / 10^k`. When `m < 2^53` and `k <= 22`, both `m` and
//! `10^k` are exact doubles, so one division rounds the exact quotient
//! once: the correctly rounded value, the same bits Rust's parser returns
//! (this is the first, exact case of that parser's own algorithm). Every
//! other field (more digits, an exponent, `inf`, `NaN`, spaces, non-ASCII)
//! goes to Rust's parser.

/// `10^k` for `k` in `0..=22`, each exact.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// The field's number in Rust's `f64` syntax, `None` when it is not one.
#[inline]
pub(crate) fn parse(field: &[u8]) -> Option<f64> {
    match plain(field) {
        Some(x) => Some(x),
        None => std::str::from_utf8(field).ok()?.parse().ok(),
    }
}

/// A plain decimal (`[+-]digits[.digits]`, a digit on at least one side of
/// the point) whose value the exact fast path gives; `None` for any other.
#[inline]
fn plain(field: &[u8]) -> Option<f64> {
    let (negative, digits) = match field.split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        _ => (false, field),
    };
    let (mut m, mut count, mut point) = (0u64, 0usize, None);
    for (i, &c) in digits.iter().enumerate() {
        match c {
            b'0'..=b'9' if count < 19 => {
                m = m * 10 + u64::from(c - b'0');
                count += 1;
            }
            b'.' if point.is_none() => point = Some(i),
            _ => return None,
        }
    }
    let after = point.map_or(0, |p| digits.len() - p - 1);
    if count == 0 || m >= 1 << 53 || after > 22 {
        return None;
    }
    let x = m as f64 / POW10[after];
    Some(if negative { -x } else { x })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn same(s: &str) {
        let ours = parse(s.as_bytes()).map(f64::to_bits);
        let std = s.parse::<f64>().ok().map(f64::to_bits);
        assert_eq!(ours, std, "{s:?}");
    }

    #[test]
    fn edge_cases_parse_as_rust_parses_them() {
        for s in [
            "0",
            "-0",
            "+0",
            "0.0",
            "-0.0",
            "1",
            "17",
            ".5",
            "5.",
            "-.5",
            "+5.",
            ".",
            "-",
            "+",
            "",
            "-.",
            "1..2",
            "1.2.3",
            "0.1",
            "0.2",
            "0.3",
            "0.8123",
            "9007199254740991",
            "9007199254740992",
            "9007199254740993",
            "0.0000000000000000000001",
            "0.00000000000000000000001",
            "1234567890123456789",
            "12345678901234567890",
            "1e5",
            "1E-3",
            "inf",
            "-inf",
            "NaN",
            " 1",
            "1 ",
            "1_000",
            "0x10",
            "١",
            "1,5",
            "00000000000000000000001",
            "3.141592653589793",
            "2.718281828459045",
            "123456.789012345678",
        ] {
            same(s);
        }
    }

    proptest! {
        #[test]
        fn decimals_parse_to_the_same_bits(
            sign in prop::sample::select(vec!["", "-", "+"]),
            int in "[0-9]{0,20}",
            frac in prop::option::of("[0-9]{0,24}"),
        ) {
            let s = match frac { Some(f) => format!("{sign}{int}.{f}"), None => format!("{sign}{int}") };
            same(&s);
        }
    }
}
