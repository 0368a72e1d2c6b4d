//! [`DnaSynthesizer`]: a brand-new task with a DNA's structure and a hidden
//! rule — the Data Strategist's re-homing plus the ML Developer's data.
//!
//! Two steps, so that each SandMLE role owns its part: [`DnaSynthesizer::plan`]
//! decides (the Data Strategist's [`TaskPlan`]) and
//! [`DnaSynthesizer::realize`] draws the data the plan asks for (the ML
//! Developer's).
//!
//! 1. **Mutations** (when enabled), drawn from the candidate's seed: noise
//!    level, class imbalance, missingness, feature count up or down,
//!    irrelevant features.
//! 2. **Domain**: the candidates of a seed rotate through the
//!    [domain lexicons](crate::DOMAINS) from an offset drawn from the seed
//!    task and the run's seed; column names, class names and the story
//!    come from the domain, repeated names qualified (`recent_glucose`),
//!    never numbered.
//! 3. **Features**: numeric features are Gaussian latent factors in
//!    correlated blocks, mapped through the DNA's quantiles (a
//!    piecewise-linear inverse distribution function through the minimum,
//!    the 5/25/50/75/95th percentiles and the maximum), so normal,
//!    log-normal, heavy-tailed and bounded marginals keep their shape;
//!    whole-number features stay whole; a column the lexicon gives a unit
//!    (`systolic_bp`, mmHg, 85–200) is then mapped into its plausible
//!    range by an increasing affine map, which keeps the shape, the
//!    missingness and the correlations. Categorical features keep their
//!    cardinality and skew, their level chosen by a latent factor. Text
//!    features are documents of the DNA's length in the domain's real
//!    words, with signal phrases tied to a latent factor, more of them the
//!    further the factor is from its median (the DNA's
//!    vocabulary size is not kept: the domain's vocabulary is).
//! 4. **Hidden rule**: one of the [families](crate::Family) over a few
//!    latent signals ([`crate::RULE_FEATURES`] at most; the classes of
//!    one target read the same ones, each class a region of them); labels are quantile cuts of the noisy score (two
//!    classes, at the DNA's balance), the argmax of per-class scores with
//!    offsets fitted to the DNA's shares (more classes), or the noisy score
//!    mapped onto the DNA's target distribution (values). `difficulty`
//!    sets the noise.
//! 5. **Missingness**: the DNA's rates, completely at random for half the
//!    features and value-dependent (only above the latent median) for the
//!    others.
//!
//! The rule is recorded in `private/provenance.json` only.
//!
//! A DNA with clips ([`TaskDna::audio`]) takes the audio path
//! ([`crate::audio`]); a DNA with images ([`TaskDna::images`]) takes the image path instead
//! (see [`crate::image`]): no feature columns, every row an image drawn
//! from latent factors, the rule over those factors.

use crate::describe::{Story, describe};
use crate::error::{Error, Result};
use crate::features::{apply_missingness, feature_plan, generate_features};
use crate::labelled::tables;
use crate::lexicon::{DOMAINS, Domain, names};
use crate::mutations::DrawMutations;
use crate::oracle::{TargetTruth, Truth};
use crate::random::{from_uniform, gaussian, shuffle};
use crate::rule::{FAMILIES, Family, Rule, binary_labels, multiclass_labels, rule_pool};
use crate::sizes::test_rows_for;
use rand::RngExt;
use sandmle_core::{
    Column, Environment, FeatureDna, GradingSpec, Mutations, PlanRequest, PlannedFeature, Provenance, SeedRng,
    SubmissionForm, Synthesizer, Table, TargetDna, TaskDna, TaskKind, TaskPlan, TaskSpec, TaskStory, rng_for,
};
use serde_json::json;
use std::collections::{BTreeSet, HashSet};

/// Version of the synthesizer: bumped whenever its output changes.
///
/// 3: candidates are planned ([`sandmle_core::TaskPlan`]) and realised in two
/// steps; candidate seeds derive from the seed task, so seeds spread over
/// the domains; numeric columns and value targets are mapped into their
/// lexicon units' ranges; repeated names are qualified, not numbered; text
/// is made of the domain's real words and signal phrases.
///
/// 6: every synthesized environment records its oracle (the hidden rule's
/// prediction, [`sandmle_core::ORACLE_DETAIL`]) for calibration to grade.
/// 7: rules read at most [`crate::RULE_FEATURES`] features (one pool for
/// a target's classes) and what the columns show (normal scores of the
/// values, a level's band); graded text signal; pixel tables drawn as
/// pictures; default difficulty 0.25.
/// 8: related columns mended (BMI, blood pressures, amounts, trip times); text as sentences of
/// a domain grammar whose signal rides on phrasing and negation
/// (`prose`), not on keyword presence alone; many-class labels' offsets
/// fitted with a step that halves when it overshoots.
pub const SYNTH_VERSION: &str = "8";

/// The synthesizer.
#[derive(Debug, Clone, Copy)]
pub struct DnaSynthesizer {
    /// Training rows (50 to 200; default 200).
    pub train_rows: usize,
    /// Noise of the hidden rule, 0 (none) to 1 (as strong as the signal);
    /// default 0.25: a plain random forest on the columns then closes
    /// about half the gap from a constant to a perfect score (the median
    /// over every bundled seed's synthesized tasks; `realism_report.py`
    /// measures it), and the medal ladder's top stays well above it.
    pub difficulty: f64,
    /// Draw mutations from the seed (default true).
    pub mutate: bool,
}

impl Default for DnaSynthesizer {
    fn default() -> Self {
        DnaSynthesizer { train_rows: 200, difficulty: 0.25, mutate: true }
    }
}

impl DnaSynthesizer {
    pub(crate) fn check(&self, dna: &TaskDna) -> Result<()> {
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

    /// The plan for one candidate (see the module docs): the domain rotates
    /// through the lexicons from an offset derived from the seed task and
    /// the run's seed, so the candidates of one seed spread over every
    /// domain (a retry moves on by one domain per attempt, out of the
    /// near-duplicate it may have been refused as); the rule family,
    /// mutations and features draw from the candidate's seed.
    ///
    /// # Errors
    /// [`Error::BadSetting`], [`Error::Unsupported`].
    pub fn plan(&self, dna: &TaskDna, request: &PlanRequest) -> Result<TaskPlan> {
        self.check(dna)?;
        // A run's mix may ask for another modality: the DNA recast into
        // it, or the seed's own when it cannot be.
        let recast = request.modality.and_then(|m| crate::recast::recast(dna, m));
        let dna = recast.as_ref().unwrap_or(dna);
        if dna.modality == sandmle_core::Modality::TimeSeries {
            let domain = crate::image::domain_for(request);
            return Ok(crate::series::plan_series(dna, request, domain, self.difficulty, self.mutate, self.train_rows));
        }
        if dna.modality == sandmle_core::Modality::Sequence {
            let domain = crate::image::domain_for(request);
            return Ok(crate::sequence::plan_sequence(dna, request, domain, self.difficulty, self.mutate));
        }
        if dna.pixels.is_some() {
            return Ok(crate::pages::plan_pages(dna, request, self.difficulty, self.mutate));
        }
        if dna.audio.is_some() {
            let domain = crate::image::domain_for(request);
            return Ok(crate::audio::plan_audio(dna, request, domain, self.difficulty, self.mutate));
        }
        if dna.images.is_some() {
            let domain = crate::image::domain_for(request);
            return Ok(crate::image::plan_images(dna, request, domain, self.difficulty, self.mutate));
        }
        if let Some(grid) = crate::image::pixel_grid(dna) {
            let domain = crate::image::domain_for(request);
            return Ok(crate::image::plan_pixel_table(dna, request, domain, self.difficulty, self.mutate, grid));
        }
        let seed = request.candidate_seed();
        let name = crate::image::domain_for(request);
        let domain = DOMAINS.iter().find(|d| d.name == name).unwrap_or(&DOMAINS[0]);
        let mut rng = rng_for(seed, "synth-plan");
        let family = FAMILIES[rng.random_range(0..FAMILIES.len())];
        let m = if self.mutate { Mutations::draw(&mut rng) } else { Mutations::none() };
        let mut used = BTreeSet::from(["id".to_owned()]);
        let features = plan_table_features(dna, &m, domain, &mut used, &mut rng, seed);
        let base = match dna.kind {
            TaskKind::BinaryClassification | TaskKind::MultiLabelClassification => domain.targets[0],
            TaskKind::MulticlassClassification | TaskKind::Ranking => domain.targets[1],
            TaskKind::Regression => domain.targets[2],
        };
        let targets = names(&[base], dna.targets.len(), &mut used);
        let classes = match dna.targets.first() {
            Some(TargetDna::Classes { shares, numeric_labels: false }) => class_names(domain, shares.len().min(20)),
            _ => vec![],
        };
        Ok(TaskPlan {
            seed_task: request.seed_task.clone(),
            seed,
            dna: dna.clone(),
            domain: domain.name.to_owned(),
            story: story_for(domain, base, dna, &mut rng_for(seed, "synth-title")),
            features,
            targets,
            classes,
            rule_family: family.name(),
            difficulty: self.difficulty,
            mutations: m,
        })
    }

    /// One environment from `dna` and `seed` (the plan of candidate 0 with
    /// `seed` as the run's seed, realised).
    ///
    /// # Errors
    /// As [`DnaSynthesizer::plan`] and [`DnaSynthesizer::realize`].
    pub fn synthesize_env(&self, dna: &TaskDna, seed_task: &str, seed: u64) -> Result<Environment> {
        let request =
            PlanRequest { seed_task: seed_task.to_owned(), run_seed: seed, index: 0, attempt: 0, modality: None };
        self.realize(&self.plan(dna, &request)?)
    }

    /// The environment a plan asks for (see the module docs).
    ///
    /// # Errors
    /// [`Error::BadPlan`] for a plan that is not realisable as given (names
    /// not distinct or not identifiers, a target count that is not the
    /// DNA's, an unknown rule family, a difficulty outside `[0, 1]`),
    /// [`Error::Unsupported`], [`Error::Core`].
    pub fn realize(&self, plan: &TaskPlan) -> Result<Environment> {
        let dna = &plan.dna;
        if dna.modality == sandmle_core::Modality::TimeSeries {
            return crate::series::realize_series(self, plan);
        }
        if dna.modality == sandmle_core::Modality::Sequence {
            return crate::sequence::realize_sequence(self, plan);
        }
        if let Some(pixels) = &dna.pixels {
            return crate::pages::realize_pages(self, plan, pixels);
        }
        if let Some(audio) = &dna.audio {
            return crate::audio::realize_audio(self, plan, audio);
        }
        if let Some(images) = &dna.images {
            return crate::image::realize_images(self, plan, images);
        }
        if let Some(grid) = crate::image::pixel_grid(dna) {
            return crate::image::realize_pixel_table(self, plan, grid);
        }
        check_plan(plan)?;
        let family = Family::from_name(&plan.rule_family)
            .ok_or_else(|| Error::BadPlan { reason: format!("unknown rule family `{}`", plan.rule_family) })?;
        let domain = DOMAINS.iter().find(|d| d.name == plan.domain);
        let seed = plan.seed;
        let m = plan.mutations;
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

        let mut feats = generate_features(&plan.features, domain, n, &mut rng_for(seed, "synth-features"));
        crate::relations::apply(&mut feats);
        let signal: Vec<Vec<f64>> = feats.iter().filter(|f| f.signal).map(|f| f.latent.clone()).collect();
        let signal_names: Vec<String> = feats.iter().filter(|f| f.signal).map(|f| f.name.clone()).collect();
        let labeller = Labeller {
            dna,
            plan,
            family,
            signal: &signal,
            signal_names: &signal_names,
            n,
            noise_sd: plan.difficulty * m.noise,
            imbalance: m.imbalance,
        };
        let targets = labeller.targets(&mut rng_for(seed, "synth-rule"))?;
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
        let seen: HashSet<_> = (0..n_train).map(|r| all.row_values(r, &skip)).collect();
        let test_rows: Vec<usize> =
            (n_train..n).filter(|&r| !seen.contains(&all.row_values(r, &skip))).take(n_test).collect();
        if test_rows.len() * 2 < n_test {
            return Err(Error::Unsupported {
                reason: format!(
                    "the features are too coarse: only {} of {n_test} test rows differ from every training row",
                    test_rows.len()
                ),
            });
        }
        let kept: Vec<usize> = (0..n_train).chain(test_rows).collect();
        let (mut train, mut test, ids) = split_with_fresh_ids(&all, &kept, n_train, seed)?;
        // A graph task's rows are nodes linked by their first target's
        // classes ([`crate::graph`]).
        let graph = if dna.modality == sandmle_core::Modality::Graph {
            let first = targets.target_columns.first().ok_or(Error::Unsupported { reason: "no target".into() })?;
            let label = all.column(first)?;
            let labels: Vec<String> =
                kept.iter().map(|&r| label.get_label(r).map(|l| l.into_owned()).unwrap_or_default()).collect();
            Some(crate::graph::add_neighbours(&mut train, &mut test, &ids, &labels, plan.difficulty, seed)?)
        } else {
            None
        };
        let TableTask { task, tables: t, description, mut provenance } =
            table_task(plan, targets.target_columns, targets.prediction_columns, train, test)?;
        let mut record = targets.record;
        if let (Some(links), Some(fields)) = (graph, record.as_object_mut()) {
            fields.insert("graph".into(), links);
        }
        provenance.hidden_rule = Some(record);
        let rows = crate::oracle::test_rows_in_order(&kept, &ids, n_train);
        let oracle = crate::oracle::oracle_record(&task, &targets.truths, &rows, t.answers.column(&task.id_column)?)?;
        record_oracle(&mut provenance, &oracle)?;
        crate::synthesize::finish_synthesized(task, t, description, provenance, plan, sandmle_core::ImageSet::new())
    }
}

impl Synthesizer for DnaSynthesizer {
    fn extract_dna(&self, seed_env: &Environment) -> sandmle_core::Result<TaskDna> {
        Ok(crate::extract_dna(seed_env)?)
    }

    fn plan(&self, dna: &TaskDna, request: &PlanRequest) -> sandmle_core::Result<TaskPlan> {
        Ok(DnaSynthesizer::plan(self, dna, request)?)
    }

    fn synthesize(&self, plan: &TaskPlan) -> sandmle_core::Result<Environment> {
        Ok(self.realize(plan)?)
    }

    fn program_brief(&self, plan: &TaskPlan) -> sandmle_core::Result<serde_json::Value> {
        Ok(crate::program::program_brief(plan, self.train_rows)?)
    }

    fn assemble(&self, plan: &TaskPlan, rows: &Table, source: &str) -> sandmle_core::Result<Environment> {
        Ok(crate::program::assemble_program_rows(plan, self.train_rows, rows, source)?)
    }
}

/// What a table task's labelled rows give before its oracle is recorded:
/// the task spec, the environment's tables, the description and the
/// provenance (the plan's seed and DNA).
pub(crate) struct TableTask {
    pub task: TaskSpec,
    pub tables: crate::labelled::Tables,
    pub description: String,
    pub provenance: Provenance,
}

/// The [`TableTask`] of `plan` from its labelled `train` and `test` rows,
/// with the given target and prediction columns (shared by the drawn
/// tables and a generator program's).
pub(crate) fn table_task(
    plan: &TaskPlan,
    target_columns: Vec<String>,
    prediction_columns: Vec<String>,
    train: Table,
    test: Table,
) -> Result<TableTask> {
    let dna = &plan.dna;
    let task = TaskSpec {
        id: format!("{}-synth", plan.seed_task),
        modality: dna.modality,
        kind: dna.kind,
        id_column: "id".into(),
        target_columns,
        prediction_columns,
        metric: dna.metric.clone(),
        direction: dna.direction,
        images: None,
        train_only_columns: Vec::new(),
        group_column: None,
    };
    let tables = tables(&task, train, test)?;
    let story = Story {
        title: plan.story.title.clone(),
        row_noun: plan.story.row_noun.clone(),
        context: plan.story.context.clone(),
    };
    let description = describe(&task, &story, &tables.train, tables.test.n_rows());
    let mut provenance = Provenance::new(&plan.seed_task, sandmle_core::SYNTH_GENERATOR, SYNTH_VERSION, plan.seed);
    provenance.dna = Some(dna.clone());
    Ok(TableTask { task, tables, description, provenance })
}

/// The environment of a synthesized task's tables: `provenance` gains the
/// plan (without its DNA, which `provenance.dna` holds) and the split
/// sizes; the environment is validated.
pub(crate) fn finish_synthesized(
    task: TaskSpec,
    t: crate::labelled::Tables,
    description: String,
    mut provenance: Provenance,
    plan: &TaskPlan,
    images: sandmle_core::ImageSet,
) -> Result<Environment> {
    let mut record = serde_json::to_value(plan).map_err(|e| Error::BadPlan { reason: e.to_string() })?;
    if let Some(fields) = record.as_object_mut() {
        fields.remove("dna");
    }
    provenance.details.insert("plan".into(), record);
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
        images,
    };
    env.validate()?;
    Ok(env)
}

/// Records the oracle in the provenance's details
/// ([`sandmle_core::ORACLE_DETAIL`]), where calibration grades it.
pub(crate) fn record_oracle(provenance: &mut Provenance, oracle: &sandmle_core::OracleRecord) -> Result<()> {
    let value = serde_json::to_value(oracle).map_err(|e| Error::BadPlan { reason: e.to_string() })?;
    provenance.details.insert(sandmle_core::ORACLE_DETAIL.into(), value);
    Ok(())
}

/// Keeps the rows `kept` of `all` (the first `n_train` of them training
/// rows), gives them fresh ids — a permutation of `0..kept.len()` from the
/// seed's `synth-ids` stream, so ids carry nothing of the rows — and
/// returns the training and test tables, each sorted by id, with the id of
/// each kept row by position.
pub(crate) fn split_with_fresh_ids(
    all: &Table,
    kept: &[usize],
    n_train: usize,
    seed: u64,
) -> Result<(Table, Table, Vec<usize>)> {
    let mut all = all.take(kept)?;
    let mut ids: Vec<usize> = (0..kept.len()).collect();
    shuffle(&mut ids, &mut rng_for(seed, "synth-ids"));
    all.set_column("id", Column::Text(ids.iter().map(|i| Some(i.to_string().into())).collect()))?;
    let split = |range: std::ops::Range<usize>| -> Result<Table> {
        let mut rows: Vec<usize> = range.collect();
        rows.sort_by_key(|&r| ids[r]);
        Ok(all.take(&rows)?)
    };
    let (train, test) = (split(0..n_train)?, split(n_train..kept.len())?);
    Ok((train, test, ids))
}

/// Checks what every plan's names must be: lower-case identifiers of at
/// most 64 characters, the id and every feature and target distinct, one
/// target name per target of the DNA.
///
/// # Errors
/// [`Error::BadPlan`], naming the column.
pub(crate) fn check_names(plan: &TaskPlan) -> Result<()> {
    let bad = |reason: String| Err(Error::BadPlan { reason });
    let mut seen = BTreeSet::new();
    for n in plan.column_names() {
        let identifier = !n.is_empty()
            && n.len() <= 64
            && n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            && !n.starts_with(|c: char| c.is_ascii_digit());
        if !identifier {
            return bad(format!("column name `{}` is not a lower-case identifier", sandmle_core::bounded(n)));
        }
        if !seen.insert(n) {
            return bad(format!("column name `{n}` is used twice"));
        }
    }
    if plan.targets.len() != plan.dna.targets.len() {
        return bad(format!("{} target names for {} targets", plan.targets.len(), plan.dna.targets.len()));
    }
    Ok(())
}

fn check_plan(plan: &TaskPlan) -> Result<()> {
    let bad = |reason: String| Err(Error::BadPlan { reason });
    check_names(plan)?;
    if plan.features.is_empty() {
        return bad("no features".into());
    }
    if !plan.features.iter().any(|f| f.signal) {
        return bad("no feature carries the signal".into());
    }
    if !(0.0..=1.0).contains(&plan.difficulty) {
        return bad("difficulty must lie in [0, 1]".into());
    }
    Ok(())
}

/// The smallest share a synthesized table's rarer class takes (of two):
/// twenty rows of two hundred. Rarer, the rule has nothing to be learnt
/// from (caravan's 6 % left twelve positive rows, and a forest's AUC gain
/// of 0.07 on one of its candidates); the shrinker, which keeps a real
/// task's rows, keeps the seed's balance.
pub const MIN_CLASS_SHARE: f64 = 0.1;

/// Share of candidates from a seed without missing values that get some:
/// real tables mostly have gaps, and a policy must learn to handle them.
pub(crate) const MISSING_SHARE: f64 = 0.8;

/// The planned features, with missing values given to one or two of them
/// (3–15 % of rows each; completely at random or above the latent median,
/// as [`apply_missingness`] alternates) in [`MISSING_SHARE`] of the
/// candidates whose seed has none.
fn with_missing_values(mut planned: Vec<(FeatureDna, bool)>, rng: &mut SeedRng) -> Vec<(FeatureDna, bool)> {
    let gaps = planned.iter().any(|(f, _)| f.missing_rate() > 0.0);
    let open: Vec<usize> = (0..planned.len()).filter(|&i| !matches!(planned[i].0, FeatureDna::Text { .. })).collect();
    if gaps || open.is_empty() || rng.random::<f64>() >= MISSING_SHARE {
        return planned;
    }
    let k = rng.random_range(1..=2usize).min(open.len());
    for _ in 0..k {
        let i = open[rng.random_range(0..open.len())];
        let rate = rng.random_range(0.03..0.15);
        match &mut planned[i].0 {
            FeatureDna::Numeric { missing_rate, .. } | FeatureDna::Categorical { missing_rate, .. } => {
                *missing_rate = rate;
            }
            FeatureDna::Text { .. } => {}
        }
    }
    planned
}

/// A plan's table features: the DNA's, with the mutations' count changes
/// drawn from `rng` ([`feature_plan`]), missing values for a gapless seed
/// ([`with_missing_values`]) and names from the domain's lexicon
/// ([`name_features`]) drawn from the candidate `seed`'s own streams.
pub(crate) fn plan_table_features(
    dna: &TaskDna,
    m: &Mutations,
    domain: &Domain,
    used: &mut BTreeSet<String>,
    rng: &mut SeedRng,
    seed: u64,
) -> Vec<PlannedFeature> {
    let planned = with_missing_values(feature_plan(dna, m, rng), &mut rng_for(seed, "synth-plan-missing"));
    name_features(planned, dna.modality, domain, used, &mut rng_for(seed, "synth-plan-names"))
}

/// Names the planned features from the domain's lexicon: numeric, then
/// categorical, then text columns take their lists' names in turn, each
/// list in an order drawn for the candidate (two candidates of one domain
/// with a few columns each share few names, not the list's first ones),
/// qualified rather than numbered when a list runs out; numeric columns
/// carry their unit.
fn name_features(
    planned: Vec<(FeatureDna, bool)>,
    modality: sandmle_core::Modality,
    domain: &Domain,
    used: &mut BTreeSet<String>,
    rng: &mut SeedRng,
) -> Vec<PlannedFeature> {
    let drawn = |list: &[&'static str], rng: &mut SeedRng| {
        let mut list = list.to_vec();
        shuffle(&mut list, rng);
        list
    };
    let count = |p: fn(&FeatureDna) -> bool| planned.iter().filter(|(f, _)| p(f)).count();
    let n_numeric = count(|f| matches!(f, FeatureDna::Numeric { .. }));
    let numeric = if modality == sandmle_core::Modality::Image {
        (0..n_numeric)
            .map(|i| format!("px_{i}"))
            .inspect(|s| {
                used.insert(s.clone());
            })
            .collect()
    } else {
        names(&drawn(domain.numeric, rng), n_numeric, used)
    };
    let categorical_bases: Vec<&str> = domain.categorical.iter().map(|(b, _)| *b).collect();
    let categorical =
        names(&drawn(&categorical_bases, rng), count(|f| matches!(f, FeatureDna::Categorical { .. })), used);
    let text = names(&drawn(domain.text, rng), count(|f| matches!(f, FeatureDna::Text { .. })), used);
    let (mut numeric, mut categorical, mut text) = (numeric.into_iter(), categorical.into_iter(), text.into_iter());
    planned
        .into_iter()
        .enumerate()
        .map(|(j, (dna, signal))| {
            let (name, unit) = match dna {
                FeatureDna::Numeric { .. } => {
                    let name = numeric.next().unwrap_or_else(|| format!("measure_{j}"));
                    let unit = crate::units::unit_of(&name).map(|(u, ..)| u.to_owned());
                    (name, unit)
                }
                FeatureDna::Categorical { .. } => (categorical.next().unwrap_or_else(|| format!("category_{j}")), None),
                FeatureDna::Text { .. } => (text.next().unwrap_or_else(|| format!("notes_{j}")), None),
            };
            PlannedFeature { name, unit, dna, signal }
        })
        .collect()
}

/// The generated targets and the record of their rules.
struct Targets {
    columns: Vec<(String, Column)>,
    truths: Vec<crate::oracle::TargetTruth>,
    record: serde_json::Value,
    target_columns: Vec<String>,
    prediction_columns: Vec<String>,
}

/// What labelling needs: the DNA, the dress, the rule family, the latent
/// signals and the noise.
struct Labeller<'a> {
    dna: &'a TaskDna,
    plan: &'a TaskPlan,
    family: Family,
    signal: &'a [Vec<f64>],
    signal_names: &'a [String],
    n: usize,
    noise_sd: f64,
    imbalance: f64,
}

impl Labeller<'_> {
    /// Draws each target's rule and labels.
    fn targets(&self, rng: &mut SeedRng) -> Result<Targets> {
        let Labeller { dna, plan, family, signal, signal_names, n, noise_sd, imbalance } = *self;
        let target_names = plan.targets.clone();
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
        let mut truths = Vec::new();
        for (t, name) in dna.targets.iter().zip(&target_names) {
            // The rule's noise-free scores and the noisy ones the labels
            // come from.
            let scored = |rule: &Rule, rng: &mut SeedRng| -> (Vec<f64>, Vec<f64>) {
                let clean = rule.scores(signal, n);
                let noisy = clean.iter().map(|s| s + noise_sd * gaussian(rng)).collect();
                (clean, noisy)
            };
            let truth =
                |truth: Truth, classes: Vec<String>, numeric: bool| TargetTruth { truth, noise_sd, classes, numeric };
            match t {
                TargetDna::Classes { shares, numeric_labels } if shares.len() == 2 => {
                    let rule = Rule::draw(family, signal.len(), rng);
                    let share = (shares[1] * imbalance).clamp(MIN_CLASS_SHARE, 1.0 - MIN_CLASS_SHARE);
                    let (clean, noisy) = scored(&rule, rng);
                    let (labels, cut) = binary_labels(&noisy, share);
                    let classes = classes_for(plan, 2, *numeric_labels);
                    truths.push(truth(Truth::Cut { score: clean, cut }, classes.clone(), *numeric_labels));
                    records.push(json!({"column": name, "rule": rule_record(&rule), "noise_sd": noise_sd, "positive_share": share, "cut": cut}));
                    columns.push((name.clone(), label_column(&labels, &classes, *numeric_labels)));
                    prediction_columns.push(name.clone());
                }
                TargetDna::Classes { shares, numeric_labels } if shares.len() > 2 => {
                    let k = shares.len().min(20);
                    // The classes are regions of the same few quantities.
                    let pool = rule_pool(signal.len(), rng);
                    let rules: Vec<Rule> = (0..k).map(|_| Rule::draw_over(family, &pool, rng)).collect();
                    let (clean, scores): (Vec<Vec<f64>>, Vec<Vec<f64>>) = rules.iter().map(|r| scored(r, rng)).unzip();
                    let mut target_shares: Vec<f64> = shares[..k].to_vec();
                    let total: f64 = target_shares.iter().sum();
                    target_shares.iter_mut().for_each(|s| *s /= total);
                    let (labels, offsets) = multiclass_labels(&scores, &target_shares);
                    let classes = classes_for(plan, k, *numeric_labels);
                    let argmax = Truth::Argmax { scores: clean, offsets: offsets.clone() };
                    truths.push(truth(argmax, classes.clone(), *numeric_labels));
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
                    let (clean, noisy) = scored(&rule, rng);
                    // Map the noisy score's ranks onto the DNA's target
                    // distribution: order kept, marginal matched.
                    let ranks = crate::stats::ranks(&noisy);
                    let mut values: Vec<f64> =
                        ranks.iter().map(|r| from_uniform(shape, (r - 0.5) / n as f64)).collect();
                    if let Some((_, lo, hi)) = crate::units::unit_of(name) {
                        crate::units::into_range(&mut values, shape.min, shape.max, lo, hi, shape.integer);
                    }
                    records.push(json!({"column": name, "rule": rule_record(&rule), "noise_sd": noise_sd, "marginal": "dna quantiles"}));
                    let monotone = Truth::Monotone { score: clean, noisy, values: values.clone() };
                    truths.push(truth(monotone, vec![], true));
                    columns.push((name.clone(), Column::Numeric(values)));
                    prediction_columns.push(name.clone());
                }
            }
        }
        Ok(Targets {
            columns,
            truths,
            record: json!({ "targets": records }),
            target_columns: target_names,
            prediction_columns,
        })
    }
}

/// The story of a table task: a title naming one of the domain's
/// organisations and asking for the target in one of three phrasings of
/// the task's kind; for a table of pixels, the context says the columns
/// are a photograph's grey levels.
fn story_for(domain: &Domain, target: &str, dna: &TaskDna, rng: &mut SeedRng) -> TaskStory {
    let orgs = crate::lexicon::ORGANISATIONS.iter().find(|(d, _)| *d == domain.name).map(|(_, o)| o);
    let org = orgs.map_or("", |o| o[rng.random_range(0..o.len())]);
    let row = domain.row_noun;
    let words = target.replace('_', " ");
    let templates: [String; 3] = match dna.kind {
        TaskKind::BinaryClassification | TaskKind::MultiLabelClassification => [
            format!("{org}: which {row}s are {words}?"),
            format!("Flagging {words} {row}s at {org}"),
            format!("{org} {row} outcomes"),
        ],
        TaskKind::MulticlassClassification | TaskKind::Ranking => [
            format!("{org}: the {words} of each {row}"),
            format!("Sorting {org}'s {row}s by {words}"),
            format!("{org} {row} outcomes"),
        ],
        TaskKind::Regression => [
            format!("{org}: forecasting {words} per {row}"),
            format!("Estimating {words} at {org}"),
            format!("{org} {row} outcomes"),
        ],
    };
    let title = title_case(&templates[rng.random_range(0..templates.len())]);
    let mut context = domain.context.to_owned();
    if dna.modality == sandmle_core::Modality::Image {
        context.push_str(&format!(
            " Each {row} comes with a small grey photograph: the `px_` columns are its pixel intensities, row by row."
        ));
    }
    if dna.modality == sandmle_core::Modality::Graph {
        context.push_str(&format!(
            " Records are linked to each other: `{}` lists the ids of each row's linked rows, in either file.",
            crate::graph::NEIGHBOURS
        ));
    }
    TaskStory { title, row_noun: row.to_owned(), context }
}

fn title_case(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// The plan's class names for a label target of `k` classes (numbered
/// classes where the plan gives too few, `no`/`yes` for two). Under a
/// label-set metric each class is a set of labels: class `i` holds the
/// labels of the set bits of `i + 1` (one label, another, both, a third,
/// ...), so sets share labels as real multi-label targets do.
pub(crate) fn classes_for(plan: &TaskPlan, k: usize, numeric: bool) -> Vec<String> {
    if plan.dna.metric.submission_form(plan.dna.kind) == sandmle_core::SubmissionForm::LabelSet {
        let bits = (usize::BITS - k.leading_zeros()) as usize;
        let atoms: Vec<String> = if plan.classes.len() >= bits {
            plan.classes[..bits].to_vec()
        } else {
            (0..bits).map(|i| format!("label_{i}")).collect()
        };
        return (1..=k)
            .map(|code| {
                let set: Vec<&str> = (0..bits).filter(|b| code >> b & 1 == 1).map(|b| atoms[b].as_str()).collect();
                set.join(" ")
            })
            .collect();
    }
    if numeric {
        (0..k).map(|i| i.to_string()).collect()
    } else if k == 2 {
        vec!["no".into(), "yes".into()]
    } else if plan.classes.len() >= k {
        plan.classes[..k].to_vec()
    } else {
        (0..k).map(|i| format!("class_{i}")).collect()
    }
}

/// A domain's class names for a multi-class target of `k` classes (empty
/// when the domain has too few: numbered classes then).
fn class_names(domain: &Domain, k: usize) -> Vec<String> {
    if k > 2 && k <= domain.classes.len() {
        domain.classes[..k].iter().map(|s| (*s).to_owned()).collect()
    } else {
        vec![]
    }
}

pub(crate) fn label_column(labels: &[usize], classes: &[String], numeric: bool) -> Column {
    if numeric {
        Column::Numeric(labels.iter().map(|&l| l as f64).collect())
    } else {
        Column::Text(labels.iter().map(|&l| Some(classes[l].as_str().into())).collect())
    }
}
