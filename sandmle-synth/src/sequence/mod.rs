//! Sequence-labelling tasks: tag every word of short domain documents.
//!
//! [`crate::DnaSynthesizer`] takes this path for a DNA of
//! [`Modality::Sequence`]: a class seed recast by a run's mix
//! ([`crate::recast`]), or a sequence environment used as a seed. The
//! environment is the per-token layout of MLE-bench's text-normalization
//! competitions: each row is one word of a document (a clinical note, an
//! incident ticket, a claim narrative, ...), with the document's number
//! (the task's group column, [`sandmle_core::TaskSpec::group_column`]), the
//! word's [`POSITION`] in it and the word; the id is
//! `<document>_<position>`. Whole documents are training or test ones, and
//! the target is each word's tag: the seed's classes, the most common one
//! standing for "outside any mention".
//!
//! **Rule.** Words and tags come from a hidden Markov model. A mention
//! runs on with probability `stay` (each word keeps the tag of the one
//! before), else the next tag is drawn from the seed's class shares, so
//! the tags keep about the seed's balance (under the cued family a cue
//! word, tagged outside, adds to the outside tag's share). Each tag shows words of its own (the
//! outside tag English function words; the others the domain's words,
//! Zipf-weighted), but with probability `ambiguity` (rising with
//! difficulty and noise) a word of a pool every tag shares: such a word's
//! tag is told only by its neighbours. Under the `sequence_cued` family
//! ([`SEQUENCE_FAMILIES`]) most mentions are announced by a cue word of
//! their own (tagged outside), as "dose" announces an amount. So a model
//! of words alone stops at the shared words, and one that reads the
//! neighbouring words and tags (n-gram windows, a CRF, a recurrent or
//! transformer tagger) goes beyond it. The oracle is the model's exact
//! posterior given the whole document (forward–backward).
//!
//! **Privacy and determinism** as for tables: the model is in
//! `provenance.json`'s `hidden_rule`, document numbers are a shuffled
//! `0..documents`, and every draw comes from the plan seed's own streams.

mod hmm;

use crate::error::{Error, Result};
use crate::mutations::DrawMutations;
use crate::oracle::{TargetTruth, Truth};
use crate::random::shuffle;
use crate::synthesize::{DnaSynthesizer, classes_for, label_column, record_oracle, table_task};
use hmm::Hmm;
use rand::RngExt;
use sandmle_core::{
    Column, Environment, FeatureDna, Modality, Mutations, NumericShape, PlanRequest, PlannedFeature, SeedRng,
    SubmissionForm, TargetDna, TaskDna, TaskPlan, TaskStory, rng_for,
};
use serde_json::json;

/// The rule families of a sequence task: mentions alone, or mentions most
/// often announced by a cue word.
pub const SEQUENCE_FAMILIES: [&str; 2] = ["sequence_spans", "sequence_cued"];

/// The column of each word's place in its document (from 0).
pub const POSITION: &str = "position";

/// Words of the outside tag (function words): with [`TAG_WORDS`], a
/// vocabulary of a few dozen words, what a micro corpus of 200 words shows.
const OUTSIDE_WORDS: usize = 10;

/// Most words of each other tag (the domain's).
const TAG_WORDS: usize = 4;

/// Words a document has, fewest and most.
pub const DOCUMENT_WORDS: (usize, usize) = (5, 16);

/// How a domain dresses a sequence task: what a document is, and its
/// column's name.
struct SequenceDress {
    domain: &'static str,
    document: &'static str,
    group: &'static str,
}

const DRESSES: [SequenceDress; 10] = [
    SequenceDress { domain: "healthcare", document: "clinical note", group: "note_id" },
    SequenceDress { domain: "retail", document: "product review", group: "review_id" },
    SequenceDress { domain: "manufacturing", document: "inspection report", group: "report_id" },
    SequenceDress { domain: "it_operations", document: "incident ticket", group: "ticket_id" },
    SequenceDress { domain: "transportation", document: "dispatch log entry", group: "dispatch_id" },
    SequenceDress { domain: "finance", document: "transaction memo", group: "memo_id" },
    SequenceDress { domain: "science", document: "lab notebook entry", group: "entry_id" },
    SequenceDress { domain: "agriculture", document: "field record", group: "record_id" },
    SequenceDress { domain: "energy", document: "work order", group: "order_id" },
    SequenceDress { domain: "insurance", document: "claim narrative", group: "claim_id" },
];

/// Names of the word column and of the tag column, one each drawn per plan.
const WORD_NAMES: [&str; 5] = ["word", "token", "term", "surface", "form"];
const TAG_NAMES: [&str; 5] = ["tag", "mention", "entity", "label", "span_kind"];

fn dress(domain: &str) -> &'static SequenceDress {
    DRESSES.iter().find(|d| d.domain == domain).unwrap_or(&DRESSES[0])
}

/// The plan of a sequence candidate (see the module docs).
pub(crate) fn plan_sequence(
    dna: &TaskDna,
    request: &PlanRequest,
    domain: &str,
    difficulty: f64,
    mutate: bool,
) -> TaskPlan {
    let seed = request.candidate_seed();
    let mut rng = rng_for(seed, "synth-plan");
    let family = SEQUENCE_FAMILIES[rng.random_range(0..SEQUENCE_FAMILIES.len())];
    let drawn = if mutate { Mutations::draw(&mut rng) } else { Mutations::none() };
    let d = dress(domain);
    let word = WORD_NAMES[rng.random_range(0..WORD_NAMES.len())];
    let tag = TAG_NAMES[rng.random_range(0..TAG_NAMES.len())];
    let count = |max: f64| FeatureDna::Numeric {
        missing_rate: 0.0,
        shape: NumericShape {
            mean: max / 2.0,
            sd: max / 4.0,
            skew: 0.0,
            min: 0.0,
            max,
            quantiles: [max / 10.0, max / 4.0, max / 2.0, 3.0 * max / 4.0, 9.0 * max / 10.0],
            integer: true,
            distinct: max as usize + 1,
        },
    };
    let feature = |name: &str, dna: FeatureDna| PlannedFeature { name: name.to_owned(), unit: None, dna, signal: true };
    let features = vec![
        feature(d.group, count(500.0)),
        feature(POSITION, count(DOCUMENT_WORDS.1 as f64 - 1.0)),
        feature(word, FeatureDna::Text { missing_rate: 0.0, mean_tokens: 1.0, sd_tokens: 0.0, vocab_size: 60 }),
    ];
    let what = format!("mentions in {}s", d.document);
    let title = match crate::lexicon::organisation(domain, seed) {
        Some(o) => format!("{o}: tagging {what}"),
        None => format!("Tagging {what}"),
    };
    let classes = match dna.targets.first() {
        Some(TargetDna::Classes { shares, numeric_labels: false }) if shares.len() > 2 => {
            (0..shares.len()).map(|c| format!("kind_{}", char::from(b'a' + c as u8))).collect()
        }
        _ => vec![],
    };
    TaskPlan {
        seed_task: request.seed_task.clone(),
        seed,
        dna: dna.clone(),
        domain: domain.to_owned(),
        story: TaskStory {
            title,
            row_noun: format!("word of a {}", d.document),
            context: format!(
                "Short {doc}s, one row per word: `{group}` names the {doc}, `{POSITION}` is the word's place in it \
                 (from 0) and `{word}` the word. `{tag}` is the kind of mention each word belongs to; a mention may \
                 run over several words, and the commonest tag marks words outside any mention. Whole {doc}s are \
                 training or test ones; ids are `<{group}>_<{POSITION}>`.",
                doc = d.document,
                group = d.group,
            ),
        },
        features,
        targets: vec![tag.to_owned()],
        classes,
        rule_family: family.to_owned(),
        difficulty,
        mutations: Mutations { noise: drawn.noise, ..Mutations::none() },
    }
}

/// The model's settings, drawn from the plan seed's `sequence-rule` stream.
struct Settings {
    stay: f64,
    ambiguity: f64,
    cue: f64,
}

/// The words of the task: the outside tag's, each other tag's, the shared
/// pool and (cued family) each other tag's cue words.
struct Vocabulary {
    words: Vec<String>,
    own: Vec<Vec<usize>>,
    shared: Vec<usize>,
    cues: Vec<Vec<usize>>,
}

/// Splits the domain's words among `k` tags, the outside tag `outside`
/// taking the function words.
fn vocabulary(domain: &str, k: usize, outside: usize, cued: bool, rng: &mut SeedRng) -> Result<Vocabulary> {
    let (everyday, up, down) = crate::words::words_of(Some(domain));
    let fillers: Vec<&str> = {
        let mut f: Vec<&str> = crate::words::FILLERS.to_vec();
        f.sort_unstable();
        f.dedup();
        f
    };
    // The outside tag's words: the commonest function words.
    let outside_words: Vec<&str> = crate::words::FILLERS.iter().copied().take(OUTSIDE_WORDS).collect();
    let mut pool: Vec<&str> = Vec::new();
    for group in [up, down, everyday] {
        let mut part: Vec<&str> = group
            .iter()
            .flat_map(|p| p.split_whitespace())
            .filter(|w| !fillers.contains(w) && w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
            .collect();
        part.sort_unstable();
        part.dedup();
        shuffle(&mut part, rng);
        let fresh: Vec<&str> = part.into_iter().filter(|w| !pool.contains(w)).collect();
        pool.extend(fresh);
    }
    let others = k - 1;
    let cue_words = if cued { 2 * others } else { 0 };
    let shared_n = 6;
    let per = ((pool.len().saturating_sub(shared_n + cue_words)) / others.max(1)).min(TAG_WORDS);
    if per < 2 {
        return Err(Error::Unsupported { reason: format!("the domain's words are too few for {k} tags") });
    }
    let mut words: Vec<String> = outside_words.iter().map(|w| (*w).to_owned()).collect();
    let mut own = vec![Vec::new(); k];
    own[outside] = (0..words.len()).collect();
    let mut next = pool.into_iter();
    let mut take = |n: usize, words: &mut Vec<String>| -> Vec<usize> {
        next.by_ref()
            .take(n)
            .map(|w| {
                words.push(w.to_owned());
                words.len() - 1
            })
            .collect()
    };
    for (tag, list) in own.iter_mut().enumerate() {
        if tag != outside {
            *list = take(per, &mut words);
        }
    }
    let mut cues = vec![Vec::new(); k];
    if cued {
        for (tag, list) in cues.iter_mut().enumerate() {
            if tag != outside {
                *list = take(2, &mut words);
            }
        }
    }
    let shared = take(shared_n, &mut words);
    Ok(Vocabulary { words, own, shared, cues })
}

/// Zipf weights over `n` words (the first the commonest).
fn zipf(n: usize) -> Vec<f64> {
    let w: Vec<f64> = (1..=n).map(|r| 1.0 / r as f64).collect();
    let total: f64 = w.iter().sum();
    w.into_iter().map(|x| x / total).collect()
}

/// The model of the module docs over `vocab`, the tags drawn with
/// `shares`.
fn model(vocab: &Vocabulary, shares: &[f64], outside: usize, s: &Settings) -> Hmm {
    let k = shares.len();
    let n_words = vocab.words.len();
    // States 0..k are the tags'; then one cue state per other tag that has cues.
    let cue_of: Vec<Option<usize>> = {
        let mut next = k;
        (0..k)
            .map(|t| {
                (!vocab.cues[t].is_empty()).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    };
    let n = k + cue_of.iter().flatten().count();
    let mut tags: Vec<usize> = (0..k).collect();
    tags.resize(n, outside);
    let mut emit = vec![vec![0.0; n_words]; n];
    let shared = zipf(vocab.shared.len());
    for t in 0..k {
        let own = zipf(vocab.own[t].len());
        for (&w, p) in vocab.own[t].iter().zip(&own) {
            emit[t][w] += (1.0 - s.ambiguity) * p;
        }
        for (&w, p) in vocab.shared.iter().zip(&shared) {
            emit[t][w] += s.ambiguity * p;
        }
        if let Some(c) = cue_of[t] {
            let cues = zipf(vocab.cues[t].len());
            for (&w, p) in vocab.cues[t].iter().zip(&cues) {
                emit[c][w] = *p;
            }
        }
    }
    // A fresh tag drawn with the shares, announced by its cue when it has one.
    let enter = |t: usize, weight: f64, row: &mut Vec<f64>| match cue_of[t] {
        Some(c) => {
            row[c] += weight * s.cue;
            row[t] += weight * (1.0 - s.cue);
        }
        None => row[t] += weight,
    };
    let mut start = vec![0.0; n];
    (0..k).for_each(|t| enter(t, shares[t], &mut start));
    let mut trans = vec![vec![0.0; n]; n];
    for (i, row) in trans.iter_mut().enumerate() {
        if i >= k {
            // A cue state: its tag's mention follows.
            let t = cue_of.iter().position(|&c| c == Some(i)).unwrap_or(outside);
            row[t] = 1.0;
            continue;
        }
        row[i] += s.stay;
        for t in 0..k {
            if t == i {
                row[t] += (1.0 - s.stay) * shares[t];
            } else {
                enter(t, (1.0 - s.stay) * shares[t], row);
            }
        }
    }
    Hmm { tags, start, trans, emit }
}

/// Documents' lengths filling exactly `total` words.
fn lengths(total: usize, rng: &mut SeedRng) -> Vec<usize> {
    let (lo, hi) = DOCUMENT_WORDS;
    let mut out = Vec::new();
    let mut left = total;
    while left > 0 {
        let mut len = rng.random_range(lo..=hi).min(left);
        let rest = left - len;
        if rest > 0 && rest < lo {
            // No document shorter than `lo` is left over.
            len = if left <= hi { left } else { left - lo };
        }
        out.push(len);
        left -= len;
    }
    out
}

/// The environment a sequence plan asks for (see the module docs).
pub(crate) fn realize_sequence(synth: &DnaSynthesizer, plan: &TaskPlan) -> Result<Environment> {
    synth.check(&plan.dna)?;
    let dna = &plan.dna;
    let form = dna.metric.submission_form(dna.kind);
    let (Some(TargetDna::Classes { shares, numeric_labels }), 1, 3) =
        (dna.targets.first(), plan.targets.len(), plan.features.len())
    else {
        return Err(Error::BadPlan {
            reason: "a sequence plan has three features (document, position, word) and one class target".into(),
        });
    };
    if !matches!(form, SubmissionForm::Label | SubmissionForm::Probability | SubmissionForm::ClassProbabilities)
        || shares.len() < 2
        || shares.len() > crate::MAX_FILE_CLASSES
    {
        return Err(Error::Unsupported {
            reason: "a sequence task tags words with two to ten classes, as labels or probabilities".into(),
        });
    }
    crate::synthesize::check_names(plan)?;
    let total: f64 = shares.iter().sum();
    let shares: Vec<f64> = shares.iter().map(|s| s / total).collect();
    let k = shares.len();
    let outside = (0..k).fold(0, |b, c| if shares[c] > shares[b] { c } else { b });
    let cued = plan.rule_family == "sequence_cued";
    if !SEQUENCE_FAMILIES.contains(&plan.rule_family.as_str()) {
        return Err(Error::BadPlan { reason: format!("unknown sequence family `{}`", plan.rule_family) });
    }
    let seed = plan.seed;
    let mut rng = rng_for(seed, "sequence-rule");
    let settings = Settings {
        stay: rng.random_range(0.45..0.7),
        ambiguity: (0.3 + 0.4 * plan.difficulty * plan.mutations.noise).min(0.65),
        cue: rng.random_range(0.6..0.9),
    };
    let vocab = vocabulary(&plan.domain, k, outside, cued, &mut rng)?;
    let hmm = model(&vocab, &shares, outside, &settings);

    let n_train = synth.train_rows;
    let n_test = crate::sizes::test_rows_for(form, &shares, usize::MAX);
    // Documents drawn until every tag shows in both splits (a rare tag
    // may miss a split of a few documents).
    let mut drawn = None;
    for attempt in 0..20 {
        let mut rng = rng_for(seed, &format!("sequence-data-{attempt}"));
        let train_lengths = lengths(n_train, &mut rng);
        let train_docs = train_lengths.len();
        let all_lengths: Vec<usize> = train_lengths.into_iter().chain(lengths(n_test, &mut rng)).collect();
        let docs: Vec<(Vec<usize>, Vec<usize>)> =
            all_lengths.into_iter().map(|len| hmm.sample(len, &mut rng)).collect();
        let seen = |range: std::ops::Range<usize>| -> usize {
            let mut seen = vec![false; k];
            docs[range].iter().flat_map(|(t, _)| t).for_each(|&t| seen[t] = true);
            seen.iter().filter(|&&s| s).count()
        };
        if seen(0..train_docs) == k && seen(train_docs..docs.len()) == k {
            drawn = Some((docs, train_docs));
            break;
        }
    }
    let Some((docs, train_docs)) = drawn else {
        return Err(Error::Unsupported { reason: "a tag is too rare to show in both splits".into() });
    };
    let mut numbers: Vec<usize> = (0..docs.len()).collect();
    shuffle(&mut numbers, &mut rng_for(seed, "synth-ids"));
    let classes = classes_for(plan, k, *numeric_labels);
    // A split's table, and (`posteriors`) each of its words' tag
    // probabilities given its document: the oracle's, for the test split.
    let split = |range: std::ops::Range<usize>, posteriors: bool| -> Result<(sandmle_core::Table, Vec<Vec<f64>>)> {
        let mut order: Vec<usize> = range.collect();
        order.sort_by_key(|&d| numbers[d]);
        let (mut ids, mut group, mut position, mut word, mut tag, mut post) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        for d in order {
            let (tags, words) = &docs[d];
            if posteriors {
                post.extend(hmm.posteriors(words));
            }
            for (p, (&t, &w)) in tags.iter().zip(words).enumerate() {
                ids.push(Some(format!("{}_{p}", numbers[d]).into()));
                group.push(numbers[d] as f64);
                position.push(p as f64);
                word.push(Some(vocab.words[w].as_str().into()));
                tag.push(t);
            }
        }
        let mut table = sandmle_core::Table::new();
        table.push_column("id", Column::Text(ids))?;
        table.push_column(plan.features[0].name.clone(), Column::Numeric(group))?;
        table.push_column(plan.features[1].name.clone(), Column::Numeric(position))?;
        table.push_column(plan.features[2].name.clone(), Column::Text(word))?;
        table.push_column(plan.targets[0].clone(), label_column(&tag, &classes, *numeric_labels))?;
        Ok((table, post))
    };
    let (train, _) = split(0..train_docs, false)?;
    let (test, probabilities) = split(train_docs..docs.len(), true)?;
    let prediction_columns =
        if form == SubmissionForm::ClassProbabilities { classes.clone() } else { plan.targets.clone() };
    let crate::synthesize::TableTask { mut task, tables, description, mut provenance } =
        table_task(plan, plan.targets.clone(), prediction_columns, train, test)?;
    task.group_column = Some(plan.features[0].name.clone());
    let tag_words = |lists: &[Vec<usize>]| -> serde_json::Value {
        json!(
            lists
                .iter()
                .enumerate()
                .map(|(t, l)| (classes[t].clone(), l.iter().map(|&w| vocab.words[w].clone()).collect::<Vec<_>>()))
                .collect::<std::collections::BTreeMap<_, _>>()
        )
    };
    provenance.hidden_rule = Some(json!({
        "modality": "sequence",
        "family": plan.rule_family,
        "outside_tag": classes[outside],
        "stay": settings.stay,
        "ambiguity": settings.ambiguity,
        "cue_share": if cued { settings.cue } else { 0.0 },
        "words": tag_words(&vocab.own),
        "cues": tag_words(&vocab.cues),
        "shared_words": vocab.shared.iter().map(|&w| vocab.words[w].clone()).collect::<Vec<_>>(),
        "label": "hidden Markov tags: a mention stays with probability `stay`, else a tag drawn with the seed's \
                  shares (announced by a cue word under sequence_cued); each tag shows its own words, or with \
                  probability `ambiguity` a shared one",
    }));
    let truth =
        TargetTruth { truth: Truth::Posterior { probabilities }, noise_sd: 0.0, classes, numeric: *numeric_labels };
    let rows: Vec<usize> = (0..tables.test.n_rows()).collect();
    let oracle = crate::oracle::oracle_record(&task, &[truth], &rows, tables.answers.column(&task.id_column)?)?;
    record_oracle(&mut provenance, &oracle)?;
    debug_assert_eq!(task.modality, Modality::Sequence);
    crate::synthesize::finish_synthesized(task, tables, description, provenance, plan, sandmle_core::ImageSet::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_fill_the_words_exactly_within_their_bounds() {
        let mut rng = rng_for(3, "lengths");
        for total in [50, 51, 63, 199, 200, 400, 417, 4000] {
            let l = lengths(total, &mut rng);
            assert_eq!(l.iter().sum::<usize>(), total);
            assert!(l.iter().all(|&n| (DOCUMENT_WORDS.0..=DOCUMENT_WORDS.1).contains(&n)), "{total}: {l:?}");
        }
    }
}
