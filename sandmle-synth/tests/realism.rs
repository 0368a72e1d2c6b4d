//! The realism checks on the bundled real seeds and on what the
//! synthesizer makes of them.

mod common;

use common::{TABLE_SEEDS, seed};

use sandmle_core::PlanRequest;
use sandmle_synth::{DnaSynthesizer, RealismCheck, extract_dna, realism_checks};

fn check<'a>(checks: &'a [RealismCheck], name: &str) -> &'a RealismCheck {
    checks.iter().find(|c| c.check == name).unwrap()
}

/// The real SMS messages pass the text checks with room to spare (one
/// word in under 1 % of messages, a repeated word, punctuation aside, in
/// under 3 %).
#[test]
fn real_messages_read_as_real_text() {
    let checks = realism_checks(&seed("sms_spam"));
    let (one, repeated) = (check(&checks, "one_word_texts"), check(&checks, "repeated_words"));
    assert!(one.passed && one.value < 0.01, "{one:?}");
    assert!(repeated.passed && repeated.value < 0.03, "{repeated:?}");
}

/// Every synthesized table (six candidates of every bundled table seed)
/// passes every realism check: whole counts, no column piled on a bound,
/// texts of real lengths without stammered words, relations between
/// columns kept (a tenth of the candidates at least have such columns);
/// and the candidates of seeds with columns to spare have gaps.
#[test]
fn synthesized_tables_pass_every_realism_check() {
    let synth = DnaSynthesizer::default();
    let (mut candidates, mut with_gaps, mut related) = (0, 0, 0);
    for name in TABLE_SEEDS {
        let dna = extract_dna(&seed(name)).unwrap();
        for index in 0..6 {
            let request = PlanRequest { seed_task: name.into(), run_seed: 11, index, attempt: 0, modality: None };
            let env = synth.realize(&synth.plan(&dna, &request).unwrap()).unwrap();
            let checks = realism_checks(&env);
            for c in &checks {
                assert!(c.passed, "{name} candidate {index}: {c:?}");
            }
            candidates += 1;
            with_gaps += usize::from(check(&checks, "missing_values").value > 0.0);
            // Tables holding columns in a relation (systolic and diastolic
            // pressures, a trip's distance and minutes, ...) keep it.
            related += usize::from(!check(&checks, "relations_hold").detail.starts_with("0 of 0"));
        }
    }
    assert!(with_gaps * 10 >= candidates * 3, "{with_gaps} of {candidates} candidates with gaps");
    assert!(related * 10 >= candidates, "{related} of {candidates} candidates with related columns");
}
