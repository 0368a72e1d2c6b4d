//! [`DnaSynthesizer`]: a brand-new task with a DNA's structure and a hidden
//! rule — the Data Strategist's re-homing plus the ML Developer's data.
//!
//! 1. **Mutations** (when enabled), drawn from the seed: noise level,
//!    class imbalance, missingness, feature count up or down, irrelevant
//!    features.
//! 2. **Domain**: column names, class names and the description's story
//!    come from a [domain lexicon](crate::DOMAINS).
//! 3. **Features**: numeric features are Gaussian latent factors in
//!    correlated blocks, mapped through the DNA's quantiles (a
//!    piecewise-linear inverse distribution function through the minimum,
//!    the 5/25/50/75/95th percentiles and the maximum), so normal,
//!    log-normal, heavy-tailed and bounded marginals keep their shape;
//!    whole-number features stay whole. Categorical features keep their
//!    cardinality and skew, their level chosen by a latent factor. Text
//!    features are documents of the DNA's length over a generated
//!    vocabulary, with a few words tied to a latent factor.
//! 4. **Hidden rule**: one of the [families](crate::Family) over the
//!    latent signals; labels are quantile cuts of the noisy score (two
//!    classes, at the DNA's balance), the argmax of per-class scores with
//!    offsets fitted to the DNA's shares (more classes), or the noisy score
//!    mapped onto the DNA's target distribution (values). `difficulty`
//!    sets the noise.
//! 5. **Missingness**: the DNA's rates, completely at random for half the
//!    features and value-dependent (only above the latent median) for the
//!    others.
//!
//! The rule is recorded in `private/provenance.json` only.

use crate::describe::{Story, describe};
use crate::error::{Error, Result};
use crate::features::{apply_missingness, feature_plan, generate_features};
use crate::labelled::tables;
use crate::lexicon::{DOMAINS, Domain, names};
use crate::mutations::Mutations;
use crate::random::{from_uniform, gaussian, shuffle};
use crate::rule::{FAMILIES, Family, Rule, binary_labels, multiclass_labels};
use crate::sizes::test_rows_for;
use rand::RngExt;
use sandmle_core::{
    Column, Environment, GradingSpec, Provenance, SeedRng, SubmissionForm, Synthesizer, Table, TargetDna, TaskDna,
    TaskKind, TaskSpec, rng_for,
};
use serde_json::json;
use std::collections::BTreeSet;

/// Version of the synthesizer: bumped whenever its output changes.
pub const SYNTH_VERSION: &str = "2";

/// The synthesizer.
#[derive(Debug, Clone, Copy)]
pub struct DnaSynthesizer {
    /// Training rows (50 to 200; default 200).
    pub train_rows: usize,
    /// Noise of the hidden rule, 0 (none) to 1 (as strong as the signal);
    /// default 0.5.
    pub difficulty: f64,
    /// Draw mutations from the seed (default true).
    pub mutate: bool,
}

impl Default for DnaSynthesizer {
    fn default() -> Self {
        DnaSynthesizer { train_rows: 200, difficulty: 0.5, mutate: true }
    }
}

impl DnaSynthesizer {
    fn check(&self, dna: &TaskDna) -> Result<()> {
        if !(50..=200).contains(&self.train_rows) {
            return Err(Error::BadSetting { setting: "train_rows", reason: "must lie between 50 and 200".into() });
        }
        if !(0.0..=1.0).contains(&self.difficulty) {
            return Err(Error::BadSetting { setting: "difficulty", reason: "must lie in [0, 1]".into() });
        }
        if dna.targets.is_empty() {
            return Err(Error::Unsupported { reason: "the DNA has no target".into() });
        }
        Ok(())
    }

    /// Synthesizes one environment (see the module docs).
    ///
    /// # Errors
    /// [`Error::BadSetting`], [`Error::Unsupported`], [`Error::Core`].
    pub fn synthesize_env(&self, dna: &TaskDna, seed_task: &str, seed: u64) -> Result<Environment> {
        self.check(dna)?;
        let mut rng = rng_for(seed, "synth-plan");
        let domain = &DOMAINS[rng.random_range(0..DOMAINS.len())];
        let family = FAMILIES[rng.random_range(0..FAMILIES.len())];
        let m = if self.mutate { Mutations::draw(&mut rng) } else { Mutations::none() };
        let plan = feature_plan(dna, &m, &mut rng);
        let form = dna.metric.submission_form(dna.kind);
        let shares = match &dna.targets[0] {
            TargetDna::Classes { shares, .. } => shares.clone(),
            TargetDna::Continuous { .. } => vec![],
        };
        let n_train = self.train_rows;
        let n_test = test_rows_for(form, &shares, usize::MAX);
        // Half as many spare rows again: test rows repeating a training
        // row's features are skipped.
        let n = n_train + n_test + n_test / 2;

        let mut used = BTreeSet::from(["id".to_owned()]);
        let mut feats =
            generate_features(&plan, dna.modality, domain, n, &mut used, &mut rng_for(seed, "synth-features"));
        let signal: Vec<Vec<f64>> = feats.iter().filter(|f| f.signal).map(|f| f.latent.clone()).collect();
        let signal_names: Vec<String> = feats.iter().filter(|f| f.signal).map(|f| f.name.clone()).collect();
        let labeller = Labeller {
            dna,
            domain,
            family,
            signal: &signal,
            signal_names: &signal_names,
            n,
            noise_sd: self.difficulty * m.noise,
            imbalance: m.imbalance,
        };
        let targets = labeller.targets(&mut used, &mut rng_for(seed, "synth-rule"))?;
        apply_missingness(&mut feats, m.missingness, &mut rng_for(seed, "synth-missing"));

        // Rows are i.i.d.: the first n_train train; then test rows, skipping
        // any whose features repeat a training row's (they would leak their
        // labels); ids are a shuffled 0..rows, each split sorted by id.
        let mut all = Table::new();
        all.push_column("id", Column::Text(vec![None; n]))?;
        for f in feats {
            all.push_column(f.name, f.column)?;
        }
        let targets_start = all.n_cols();
        for (name, col) in targets.columns {
            all.push_column(name, col)?;
        }
        let mut skip: Vec<&str> = vec!["id"];
        skip.extend(all.names()[targets_start..].iter().map(String::as_str));
        let seen: BTreeSet<String> = (0..n_train).map(|r| all.row_key(r, &skip)).collect();
        let test_rows: Vec<usize> =
            (n_train..n).filter(|&r| !seen.contains(&all.row_key(r, &skip))).take(n_test).collect();
        if test_rows.len() * 2 < n_test {
            return Err(Error::Unsupported {
                reason: format!(
                    "the features are too coarse: only {} of {n_test} test rows differ from every training row",
                    test_rows.len()
                ),
            });
        }
        let kept: Vec<usize> = (0..n_train).chain(test_rows).collect();
        let mut all = all.take(&kept)?;
        let mut ids: Vec<usize> = (0..kept.len()).collect();
        shuffle(&mut ids, &mut rng_for(seed, "synth-ids"));
        all.set_column("id", Column::Text(ids.iter().map(|i| Some(i.to_string())).collect()))?;
        let split = |range: std::ops::Range<usize>| -> Result<Table> {
            let mut rows: Vec<usize> = range.collect();
            rows.sort_by_key(|&r| ids[r]);
            Ok(all.take(&rows)?)
        };
        let (train, test) = (split(0..n_train)?, split(n_train..kept.len())?);
        let task = TaskSpec {
            id: format!("{seed_task}-synth"),
            modality: dna.modality,
            kind: dna.kind,
            id_column: "id".into(),
            target_columns: targets.target_columns,
            prediction_columns: targets.prediction_columns,
            metric: dna.metric.clone(),
            direction: dna.direction,
        };
        let t = tables(&task, train, test)?;
        let story = Story {
            title: format!("{} outcomes", title_case(domain.row_noun)),
            row_noun: domain.row_noun.into(),
            context: domain.context.into(),
        };
        let description = describe(&task, &story, &t.train, t.test.n_rows());
        let mut provenance = Provenance::new(seed_task, "synth", SYNTH_VERSION, seed);
        provenance.dna = Some(dna.clone());
        provenance.hidden_rule = Some(targets.record);
        provenance.details.insert("domain".into(), json!(domain.name));
        provenance.details.insert("family".into(), json!(family));
        provenance.details.insert("mutations".into(), json!(m));
        provenance.details.insert("difficulty".into(), json!(self.difficulty));
        provenance.details.insert("train_rows".into(), json!(t.train.n_rows()));
        provenance.details.insert("test_rows".into(), json!(t.test.n_rows()));
        let env = Environment {
            description,
            train: t.train,
            test: t.test,
            sample_submission: t.sample,
            answers: t.answers,
            grading: GradingSpec::new(task),
            leaderboard: None,
            provenance,
        };
        env.validate()?;
        Ok(env)
    }
}

/// The generated targets and the record of their rules.
struct Targets {
    columns: Vec<(String, Column)>,
    record: serde_json::Value,
    target_columns: Vec<String>,
    prediction_columns: Vec<String>,
}

/// What labelling needs: the DNA, the dress, the rule family, the latent
/// signals and the noise.
struct Labeller<'a> {
    dna: &'a TaskDna,
    domain: &'a Domain,
    family: Family,
    signal: &'a [Vec<f64>],
    signal_names: &'a [String],
    n: usize,
    noise_sd: f64,
    imbalance: f64,
}

impl Labeller<'_> {
    /// Draws each target's rule and labels.
    fn targets(&self, used: &mut BTreeSet<String>, rng: &mut SeedRng) -> Result<Targets> {
        let Labeller { dna, domain, family, signal, signal_names, n, noise_sd, imbalance } = *self;
        let base = match dna.kind {
            TaskKind::BinaryClassification | TaskKind::MultiLabelClassification => domain.targets[0],
            TaskKind::MulticlassClassification | TaskKind::Ranking => domain.targets[1],
            TaskKind::Regression => domain.targets[2],
        };
        let target_names = names(&[base], dna.targets.len(), used);
        let rule_record = |r: &Rule| {
            let name = |j: usize| signal_names.get(j).cloned().unwrap_or_default();
            json!({
                "family": r.family,
                "linear": r.linear.iter().map(|&(j, w)| json!([name(j), w])).collect::<Vec<_>>(),
                "pairs": r.pairs.iter().map(|&(a, b, w)| json!([name(a), name(b), w])).collect::<Vec<_>>(),
                "tree": r.tree.map(|t| json!({
                    "nodes": t.nodes.iter().map(|&(j, c)| json!([name(j), c])).collect::<Vec<_>>(),
                    "leaves": t.leaves,
                })),
                "sines": r.sines.iter().map(|&(j, f, w)| json!([name(j), f, w])).collect::<Vec<_>>(),
            })
        };
        let mut columns = Vec::new();
        let mut records = Vec::new();
        let mut prediction_columns = Vec::new();
        for (t, name) in dna.targets.iter().zip(&target_names) {
            let noisy_scores = |rule: &Rule, rng: &mut SeedRng| -> Vec<f64> {
                rule.scores(signal, n).into_iter().map(|s| s + noise_sd * gaussian(rng)).collect()
            };
            match t {
                TargetDna::Classes { shares, numeric_labels } if shares.len() == 2 => {
                    let rule = Rule::draw(family, signal.len(), rng);
                    let share = (shares[1] * imbalance).clamp(0.02, 0.98);
                    let (labels, cut) = binary_labels(&noisy_scores(&rule, rng), share);
                    let classes = class_names(domain, 2, *numeric_labels);
                    records.push(json!({"column": name, "rule": rule_record(&rule), "noise_sd": noise_sd, "positive_share": share, "cut": cut}));
                    columns.push((name.clone(), label_column(&labels, &classes, *numeric_labels)));
                    prediction_columns.push(name.clone());
                }
                TargetDna::Classes { shares, numeric_labels } if shares.len() > 2 => {
                    let k = shares.len().min(20);
                    let rules: Vec<Rule> = (0..k).map(|_| Rule::draw(family, signal.len(), rng)).collect();
                    let scores: Vec<Vec<f64>> = rules.iter().map(|r| noisy_scores(r, rng)).collect();
                    let mut target_shares: Vec<f64> = shares[..k].to_vec();
                    let total: f64 = target_shares.iter().sum();
                    target_shares.iter_mut().for_each(|s| *s /= total);
                    let (labels, offsets) = multiclass_labels(&scores, &target_shares);
                    let classes = class_names(domain, k, *numeric_labels);
                    records.push(json!({"column": name, "rules": rules.iter().map(&rule_record).collect::<Vec<_>>(), "noise_sd": noise_sd, "offsets": offsets}));
                    columns.push((name.clone(), label_column(&labels, &classes, *numeric_labels)));
                    if dna.metric.submission_form(dna.kind) == SubmissionForm::ClassProbabilities {
                        prediction_columns.extend(classes.iter().cloned());
                    } else {
                        prediction_columns.push(name.clone());
                    }
                }
                TargetDna::Classes { .. } => {
                    return Err(Error::Unsupported { reason: format!("target `{name}` has fewer than two classes") });
                }
                TargetDna::Continuous { shape } => {
                    let rule = Rule::draw(family, signal.len(), rng);
                    let noisy = noisy_scores(&rule, rng);
                    // Map the noisy score's ranks onto the DNA's target
                    // distribution: order kept, marginal matched.
                    let ranks = crate::stats::ranks(&noisy);
                    let values: Vec<f64> = ranks.iter().map(|r| from_uniform(shape, (r - 0.5) / n as f64)).collect();
                    records.push(json!({"column": name, "rule": rule_record(&rule), "noise_sd": noise_sd, "marginal": "dna quantiles"}));
                    columns.push((name.clone(), Column::Numeric(values)));
                    prediction_columns.push(name.clone());
                }
            }
        }
        Ok(Targets { columns, record: json!({ "targets": records }), target_columns: target_names, prediction_columns })
    }
}

fn title_case(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

fn class_names(domain: &Domain, k: usize, numeric: bool) -> Vec<String> {
    if numeric {
        (0..k).map(|i| i.to_string()).collect()
    } else if k <= domain.classes.len() && k > 2 {
        domain.classes[..k].iter().map(|s| (*s).to_owned()).collect()
    } else if k == 2 {
        vec!["no".into(), "yes".into()]
    } else {
        (0..k).map(|i| format!("class_{i}")).collect()
    }
}

fn label_column(labels: &[usize], classes: &[String], numeric: bool) -> Column {
    if numeric {
        Column::Numeric(labels.iter().map(|&l| l as f64).collect())
    } else {
        Column::Text(labels.iter().map(|&l| Some(classes[l].clone())).collect())
    }
}

impl Synthesizer for DnaSynthesizer {
    fn synthesize(&self, dna: &TaskDna, seed_task: &str, seed: u64) -> sandmle_core::Result<Environment> {
        Ok(self.synthesize_env(dna, seed_task, seed)?)
    }
}
