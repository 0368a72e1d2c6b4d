//! Bounded one-line messages: what error messages quoting their input are
//! made of, so that a 100 MB CSV field or a header full of newlines comes
//! back as a short readable line, never as the input itself.

/// The most characters of input a message quotes ([`bounded`]).
pub const QUOTE_CHARS: usize = 200;

/// `text` on one line and at most `max_chars` characters: newlines, tabs
/// and other control characters are escaped (`\n`, `\t`, `\u{7}`), and
/// anything beyond `max_chars` is cut and replaced by `…(N more bytes)`.
///
/// ```
/// use sandmle_core::one_line;
/// assert_eq!(one_line("a\nb", 10), "a\\nb");
/// let long = "x".repeat(1000);
/// assert!(one_line(&long, 20).starts_with("xxxxxxxxxxxxxxxxxxxx…"));
/// assert!(one_line(&long, 20).len() < 60);
/// ```
pub fn one_line(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars + 24));
    for (shown, (at, c)) in text.char_indices().enumerate() {
        if shown >= max_chars {
            out.push_str(&format!("…({} more bytes)", text.len() - at));
            return out;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// A piece of input quoted in a message: [`one_line`] with
/// [`QUOTE_CHARS`].
pub fn bounded(text: &str) -> String {
    one_line(text, QUOTE_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_field_becomes_a_short_line() {
        let field = format!("{}\n{}", "a".repeat(50 << 20), "b".repeat(50 << 20));
        let m = bounded(&field);
        assert!(m.len() < 300 && !m.contains('\n'));
        assert!(m.ends_with("more bytes)"));
        assert_eq!(bounded("plain"), "plain");
        assert_eq!(one_line("\u{7}x\r\n", 10), "\\u{7}x\\r\\n");
    }
}
