//! How a signal phrase of [`crate::words`] is said, affirmed or negated:
//! each phrase has a kind, reviewed by hand, and each kind its frames.
//!
//! | kind | affirmed | negated |
//! |---|---|---|
//! | a thing (the default) | "severe pain", "with severe pain", "severe pain noted" | "no severe pain", "without severe pain", "no sign of severe pain" |
//! | a description | "improving", "still improving" | "not improving", "never improving", "no longer improving" |
//! | a subject and its state | "pain resolved" | "pain not resolved" |
//! | said one way only | "love it", "no defects" | (never negated) |

/// What a phrase is, for its frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A thing: "no", "without", "with".
    Thing,
    /// A description: "not", "still".
    Describing,
    /// A subject of this many words, then its state: "not" between.
    Subject(usize),
    /// Said one way only.
    Fixed,
}

/// Descriptions: a participle, an adjective, a state.
const DESCRIBING: &[&str] = &[
    "fainted",
    "worsening",
    "vomiting",
    "confused",
    "bleeding",
    "stable",
    "improving",
    "sleeping well",
    "eating normally",
    "walking unaided",
    "discharged",
    "comfortable",
    "faded",
    "too small",
    "as described",
    "gift wrapped",
    "overheating",
    "misaligned",
    "jammed",
    "out of spec",
    "within tolerance",
    "calibrated",
    "resolved",
    "out of memory",
    "on schedule",
    "ahead of plan",
    "paid on time",
    "cloudy",
    "contaminated",
    "fluorescent",
    "as expected",
    "within range",
    "colourless",
    "wilting",
    "stunted",
    "waterlogged",
    "on track",
    "healthy green",
    "running all night",
    "closed overnight",
    "reported late",
    "reported same day",
];

/// A subject, then its state: `(phrase, words in the subject)`.
const SUBJECTS: &[(&str, usize)] = &[
    ("pain resolved", 1),
    ("burr found", 1),
    ("crack visible", 1),
    ("tool replaced", 1),
    ("connection refused", 1),
    ("disk full", 1),
    ("road closed", 1),
    ("savings growing", 1),
    ("precipitate formed", 1),
    ("control passed", 1),
    ("pests seen", 1),
    ("heating left on", 1),
    ("windows open", 1),
    ("meter spinning fast", 1),
    ("setpoint raised", 1),
    ("heat pump fitted", 2),
    ("lights on timer", 1),
    ("solar covering load", 1),
    ("reading as expected", 1),
    ("usage stable", 1),
    ("story changed", 1),
    ("receipts missing", 1),
    ("claimant evasive", 1),
    ("police report attached", 2),
    ("invoice verified", 1),
    ("damage consistent", 1),
    ("documents complete", 1),
];

/// Said one way only: negated they read wrong or mean something else.
const FIXED: &[&str] = &[
    "refund please",
    "cancel order",
    "love it",
    "will buy again",
    "fits perfectly",
    "five stars",
    "good value",
    "great quality",
    "arrived damaged",
    "checked ok",
    "working again",
    "question only",
    "cannot login",
    "retry succeeded",
    "dry soil ok",
    "homeowner",
    "policy just started",
    "witness confirms",
    "garage estimate matches",
    "damage inconsistent",
    "passed inspection",
];

/// The kind of `phrase`; a phrase that is itself a negation ("no defects",
/// "not as pictured") is said one way only.
pub(crate) fn kind(phrase: &str) -> Kind {
    if phrase.starts_with("no ") || phrase.starts_with("not ") || FIXED.contains(&phrase) {
        Kind::Fixed
    } else if DESCRIBING.contains(&phrase) {
        Kind::Describing
    } else if let Some((_, n)) = SUBJECTS.iter().find(|(p, _)| *p == phrase) {
        Kind::Subject(*n)
    } else {
        Kind::Thing
    }
}

/// Frames that affirm a phrase of `kind` (`{}`, the phrase).
pub(crate) fn affirming(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Thing => &["{}", "{} again", "{} today", "with {}", "reports {}", "{} noted"],
        Kind::Describing => &["{}", "{} again", "{} today", "still {}", "also {}"],
        Kind::Subject(_) => &["{}", "{} again", "{} today"],
        Kind::Fixed => &["{}"],
    }
}

/// `phrase` of `kind` negated by the `pick`-th of its frames (taken modulo
/// their number), or `None` for a phrase said one way only.
pub(crate) fn negated(phrase: &str, kind: Kind, pick: usize) -> Option<String> {
    let frame = |frames: &[&str]| frames[pick % frames.len()].replace("{}", phrase);
    match kind {
        Kind::Thing => Some(frame(&["no {}", "without {}", "no sign of {}", "no {} today"])),
        Kind::Describing => Some(frame(&["not {}", "never {}", "no longer {}"])),
        Kind::Subject(n) => {
            let words: Vec<&str> = phrase.split(' ').collect();
            let n = n.min(words.len());
            Some([&words[..n], &["not"], &words[n..]].concat().join(" "))
        }
        Kind::Fixed => None,
    }
}

/// Every word the frames add to the phrases.
#[cfg(test)]
pub(crate) fn frame_words() -> Vec<&'static str> {
    let kinds = [Kind::Thing, Kind::Describing, Kind::Subject(1), Kind::Fixed];
    let mut out: Vec<&str> = kinds.iter().flat_map(|&k| affirming(k).iter().flat_map(|f| f.split(' '))).collect();
    out.extend(["no", "without", "sign", "of", "today", "not", "never", "longer"]);
    out.retain(|w| *w != "{}");
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind listed names a phrase of the word lists (a typo would
    /// silently fall back to a thing), and no phrase is listed twice.
    #[test]
    fn listed_phrases_are_the_word_lists_phrases() {
        let phrases: Vec<&str> =
            crate::words::WORDS.iter().flat_map(|(_, _, up, down)| up.iter().chain(down.iter()).copied()).collect();
        let listed: Vec<&str> =
            DESCRIBING.iter().chain(FIXED).copied().chain(SUBJECTS.iter().map(|(p, _)| *p)).collect();
        for p in &listed {
            assert!(phrases.contains(p), "{p}");
            assert_eq!(listed.iter().filter(|q| *q == p).count(), 1, "{p}");
        }
        for (p, n) in SUBJECTS {
            assert!(*n < p.split(' ').count(), "{p}");
        }
    }

    /// Negations read as a person would say them (reviewed examples).
    #[test]
    fn negations_read_right() {
        let say = |p: &str, pick: usize| negated(p, kind(p), pick);
        assert_eq!(say("severe pain", 0).as_deref(), Some("no severe pain"));
        assert_eq!(say("improving", 0).as_deref(), Some("not improving"));
        assert_eq!(say("pain resolved", 0).as_deref(), Some("pain not resolved"));
        assert_eq!(say("police report attached", 3).as_deref(), Some("police report not attached"));
        assert_eq!(say("story changed", 1).as_deref(), Some("story not changed"));
        assert_eq!(say("too small", 2).as_deref(), Some("no longer too small"));
        assert_eq!(say("no defects", 0), None);
        assert_eq!(say("love it", 0), None);
    }
}
