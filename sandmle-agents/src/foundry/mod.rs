//! The Foundry: seeds × candidates → the four roles → the verification
//! gates → kept environments on disk, with `yield.json` (the funnel per
//! seed and per gate) and `index.jsonl` (one line per kept environment).
//!
//! ```text
//! <out>/
//!   <env-id>/prepared/...        every kept environment (content-addressed)
//!   slots/run.json               the run's settings
//!   slots/<seed task>/<i>.json   one record per candidate slot
//!   yield.json  index.jsonl      derived from the records
//! ```
//!
//! Design decisions:
//! - **Deterministic.** A candidate's every random choice derives from
//!   (seed task, run seed, index, attempt) ([`PlanRequest`]); slots run in
//!   parallel (rayon) but nothing written depends on timing or order, so
//!   the tree is byte-identical on any thread count. Timings are returned
//!   in the [`RunReport`], never written.
//! - **Target band.** With [`FoundryConfig::target_band`], a candidate
//!   whose measured difficulty band is another is a failed attempt too.
//! - **Retries.** A failed candidate (an error, a refusal, a leak or a
//!   failed gate) is retried with a fresh derived seed, at most
//!   [`FoundryConfig::retries`] times.
//! - **Resumable and shardable.** A slot whose record exists (and whose
//!   kept environment reads back) is skipped; `--shard I/N` takes the slots
//!   whose position in (seed task, index) order is I modulo N. `yield.json`
//!   and `index.jsonl` are rebuilt from every record in the output at the
//!   end of each run ([`reindex`]), so N shards run into one folder (or
//!   copied into one and reindexed) give the tree of the unsharded run.

mod records;
mod report;

pub use records::{AttemptRecord, IndexEntry, SLOT_SCHEMA, SlotRecord, Stage};
pub use report::{
    FailedAttempt, Funnel, NEAR_DUPLICATE_OVERLAP, NEAR_DUPLICATE_WINDOW, RunSettings, Spread, Yield, near_duplicates,
    plans_alike, yield_of,
};

use crate::error::{Error, Result};
use crate::roles::{Brief, DataStrategist, MlDeveloper, MlOpsEngineer, TechnicalWriter, leaks};
use rayon::prelude::*;
use sandmle_core::{Environment, PlanRequest, Verifier, WriteOptions, write_atomic};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Which slice of the slots a run takes: slots whose position is `index`
/// modulo `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, from 0.
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

impl Shard {
    /// Every slot.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Parses `I/N` (0 ≤ I < N).
    ///
    /// # Errors
    /// [`Error::BadSetting`].
    pub fn parse(s: &str) -> Result<Shard> {
        let bad = || Error::BadSetting { setting: "shard", reason: format!("`{s}` is not I/N with 0 <= I < N") };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// The Foundry's settings.
#[derive(Debug, Clone)]
pub struct FoundryConfig {
    /// Candidates per seed task.
    pub per_seed: usize,
    /// The run's seed.
    pub run_seed: u64,
    /// Retries of a failed candidate (default 2).
    pub retries: u32,
    /// The slice of slots this run takes.
    pub shard: Shard,
    /// The budgets the descriptions announce.
    pub brief: Brief,
    /// Keep only candidates whose measured difficulty band
    /// ([`sandmle_core::Difficulty`], 1 to 5) is this one: a candidate of
    /// another band is a failed attempt, retried with a fresh seed (raise
    /// `retries` for yield). `None` (the default) keeps every band.
    pub target_band: Option<u8>,
    /// The modality mix ([`sandmle_core::Mix`]): each slot's plans are
    /// asked for the modality it draws (from the run's seed, the seed task
    /// and the slot's index, so a retry keeps its slot's modality and a
    /// shard draws what the unsharded run draws). `None` (the default)
    /// keeps each seed's modality.
    pub mix: Option<sandmle_core::Mix>,
}

impl Default for FoundryConfig {
    fn default() -> Self {
        FoundryConfig {
            per_seed: 10,
            run_seed: 0,
            retries: 2,
            shard: Shard::ALL,
            brief: Brief::default(),
            target_band: None,
            mix: None,
        }
    }
}

/// A seed task: its name (the slot records' folder) and environment.
#[derive(Debug, Clone)]
pub struct SeedTask {
    /// The name (a seed folder's name).
    pub name: String,
    /// The seed environment.
    pub env: Environment,
}

/// What a run did, with its timings (never written to the output).
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// The yield over every record in the output.
    #[serde(rename = "yield")]
    pub yield_: Yield,
    /// Slots this run processed.
    pub processed: usize,
    /// Slots skipped because an earlier run finished them.
    pub resumed: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Per seed task: candidate-seconds spent and verified environments per
    /// minute on one core (kept / candidate-minutes).
    pub throughput: BTreeMap<String, Throughput>,
}

/// One seed task's speed.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Throughput {
    /// Seconds spent on its candidates' attempts (the four roles and the
    /// gates; writing kept environments to disk aside), summed over threads.
    pub candidate_seconds: f64,
    /// Seconds spent preparing the seed once, before its candidates
    /// ([`DataStrategist::prepare`]:
    /// the built-in strategist's DNA extraction); not in
    /// `candidate_seconds`, whatever the number of candidates.
    pub seed_seconds: f64,
    /// Environments kept by this run.
    pub kept: usize,
    /// Kept environments per minute of one core.
    pub per_minute_one_core: f64,
}

/// The orchestrator: four roles and a verifier.
#[derive(Clone)]
pub struct Foundry {
    /// Plans candidates.
    pub strategist: Arc<dyn DataStrategist>,
    /// Builds environments.
    pub developer: Arc<dyn MlDeveloper>,
    /// Checks their grading.
    pub mlops: Arc<dyn MlOpsEngineer>,
    /// Writes their descriptions.
    pub writer: Arc<dyn TechnicalWriter>,
    /// Runs the gates.
    pub verifier: Arc<dyn Verifier>,
    /// Settings.
    pub config: FoundryConfig,
}

/// The outcome of one attempt: its record and, when kept, the environment.
pub struct Attempt {
    /// The record.
    pub record: AttemptRecord,
    /// The kept environment.
    pub env: Option<Environment>,
}

impl Foundry {
    fn settings(&self) -> RunSettings {
        let roles = [
            ("data_strategist", self.strategist.name()),
            ("ml_developer", self.developer.name()),
            ("mlops_engineer", self.mlops.name()),
            ("technical_writer", self.writer.name()),
        ];
        RunSettings {
            schema: "sandmle.foundry-run/v1".into(),
            run_seed: self.config.run_seed,
            per_seed: self.config.per_seed,
            retries: self.config.retries,
            roles: roles.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
            target_band: self.config.target_band,
            mix: self.config.mix.clone(),
        }
    }

    /// The request for attempt `attempt` of slot `index` of `seed_task`,
    /// with the modality the run's mix draws for the slot.
    fn request(&self, seed_task: &str, index: usize, attempt: u32) -> PlanRequest {
        let run_seed = self.config.run_seed;
        let modality = self
            .config
            .mix
            .as_ref()
            .map(|m| m.draw(sandmle_core::derive_seed(run_seed, &format!("{seed_task}/candidate-{index}/mix"))));
        PlanRequest { seed_task: seed_task.to_owned(), run_seed, index, attempt, modality }
    }

    /// One attempt at a candidate: plan, develop, check, describe, verify.
    pub fn attempt(&self, seed: &SeedTask, request: &PlanRequest) -> Attempt {
        let mut record = AttemptRecord {
            attempt: request.attempt,
            seed: request.candidate_seed(),
            stage: Stage::Plan,
            error: None,
            llm_failure: false,
            gates: vec![],
            domain: None,
            rule_family: None,
            mutations: None,
            title: None,
            columns: vec![],
            targets: vec![],
        };
        let fail = |mut record: AttemptRecord, stage: Stage, error: String| {
            record.stage = stage;
            record.error = Some(sandmle_core::bounded(&error));
            Attempt { record, env: None }
        };
        let failed = |mut record: AttemptRecord, stage: Stage, e: Error| {
            record.llm_failure = e.is_llm_failure();
            fail(record, stage, e.to_string())
        };
        let plan = match self.strategist.plan(&seed.env, request) {
            Ok(p) => p,
            Err(e) => return failed(record, Stage::Plan, e),
        };
        record.domain = Some(plan.domain.clone());
        record.rule_family = Some(plan.rule_family.clone());
        record.mutations = Some(plan.mutations);
        record.title = Some(plan.story.title.clone());
        record.columns = plan.features.iter().map(|f| f.name.clone()).collect();
        record.targets = plan.targets.clone();
        if let Some(reason) = self.near_duplicate(seed, request, &plan) {
            return fail(record, Stage::Plan, reason);
        }
        let mut env = match self.developer.develop(&plan) {
            Ok(env) => env,
            Err(e) => return failed(record, Stage::Develop, e),
        };
        match self.mlops.check(&env) {
            Ok(c) if c.accepted() => {}
            Ok(c) => return fail(record, Stage::Check, format!("refused: {}", c.refusals.join("; "))),
            Err(e) => return failed(record, Stage::Check, e),
        }
        let description = match self.writer.describe(&env, &plan, &self.config.brief) {
            Ok(d) => d,
            Err(e) => return failed(record, Stage::Describe, e),
        };
        if let Some(leak) = leaks(&env, &description).first() {
            let e = Error::LeakingDescription { leak: leak.to_string() };
            return fail(record, Stage::Describe, e.to_string());
        }
        env.description = description;
        env.provenance.details.insert("roles".into(), serde_json::json!(self.settings().roles));
        record.stage = Stage::Verify;
        match self.verifier.verify(&env) {
            Ok(gates) => record.gates = gates,
            Err(e) => return fail(record, Stage::Verify, e.to_string()),
        }
        if let Some(target) = self.config.target_band
            && record.kept()
        {
            match self.mlops.difficulty(&env) {
                Ok(Some(d)) if d.band == target => {}
                Ok(d) => {
                    let band = d.map_or_else(|| "none measured".to_owned(), |d| format!("band {}", d.band));
                    return fail(record, Stage::Verify, format!("difficulty {band}, not the target band {target}"));
                }
                Err(e) => return failed(record, Stage::Verify, e),
            }
        }
        let kept = record.kept();
        Attempt { record, env: kept.then_some(env) }
    }

    /// Why `plan` is refused as a near-duplicate of one of the seed's
    /// earlier candidates' first plans (see [`NEAR_DUPLICATE_WINDOW`]), if
    /// it is; `None` when the strategist does not replan cheaply.
    fn near_duplicate(&self, seed: &SeedTask, request: &PlanRequest, plan: &sandmle_core::TaskPlan) -> Option<String> {
        // Pictures' pixel columns are the same in every plan of a seed: no
        // image or pixel-table plan is compared.
        if !self.strategist.replans_cheaply()
            || plan.features.is_empty()
            || plan.dna.modality == sandmle_core::Modality::Image
        {
            return None;
        }
        (request.index.saturating_sub(NEAR_DUPLICATE_WINDOW)..request.index).find_map(|index| {
            let earlier = self.request(&request.seed_task, index, 0);
            let other = self.strategist.plan(&seed.env, &earlier).ok()?;
            let overlap = plans_alike(plan, &other).filter(|&o| o >= NEAR_DUPLICATE_OVERLAP)?;
            Some(format!(
                "near-duplicate of candidate {index}'s plan: the same targets and rule family, {:.0} % of the \
                 feature names alike",
                100.0 * overlap
            ))
        })
    }

    /// One slot: attempts until one is kept or the retries run out; with
    /// the seconds its attempts took (writing the kept environment aside).
    fn slot(&self, seed: &SeedTask, index: usize, out: &Path) -> Result<(SlotRecord, f64)> {
        let seed_task = seed.env.task().id.clone();
        let mut attempts = Vec::new();
        let mut compute = 0.0;
        for attempt in 0..=self.config.retries {
            let request = self.request(&seed_task, index, attempt);
            let t = Instant::now();
            let a = self.attempt(seed, &request);
            compute += t.elapsed().as_secs_f64();
            attempts.push(a.record);
            if let Some(env) = a.env {
                let rewards = self.mlops.validate_rewards(&env)?.as_ref().map(Into::into);
                let difficulty = self.mlops.difficulty(&env)?;
                let dir = env.write_into(out, &WriteOptions { overwrite: true, ..WriteOptions::default() })?;
                let env_id = env.id()?;
                let path = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| env_id.clone());
                let task = env.task();
                let entry = IndexEntry {
                    env_id: env_id.clone(),
                    path,
                    seed_task: seed_task.clone(),
                    kind: task.kind,
                    modality: task.modality,
                    metric: task.metric.name.clone(),
                    direction: task.direction,
                    thresholds: env.grading.thresholds,
                    generator: format!("{} {}", env.provenance.generator, env.provenance.generator_version),
                    domain: attempts.last().and_then(|a| a.domain.clone()),
                    rewards,
                    difficulty,
                };
                let record = SlotRecord {
                    schema: SLOT_SCHEMA.into(),
                    seed_task: seed.name.clone(),
                    index,
                    attempts,
                    env_id: Some(env_id),
                    index_entry: Some(entry),
                };
                return Ok((record, compute));
            }
        }
        let record = SlotRecord {
            schema: SLOT_SCHEMA.into(),
            seed_task: seed.name.clone(),
            index,
            attempts,
            env_id: None,
            index_entry: None,
        };
        Ok((record, compute))
    }

    /// Runs this shard's slots over `seeds` into `out`, skipping slots an
    /// earlier run finished, then rebuilds `yield.json` and `index.jsonl`.
    /// `progress` is told `(done, total)` after each slot.
    ///
    /// # Errors
    /// When the output holds a run with other settings, or a file cannot be
    /// written.
    pub fn run(&self, seeds: &[SeedTask], out: &Path, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<RunReport> {
        let start = Instant::now();
        let settings = self.settings();
        let slots_dir = out.join("slots");
        std::fs::create_dir_all(&slots_dir)
            .map_err(|e| Error::Output { path: slots_dir.clone(), reason: e.to_string() })?;
        let run_file = slots_dir.join("run.json");
        let settings_bytes = json_bytes(&settings, &run_file)?;
        match std::fs::read(&run_file) {
            Ok(existing) if existing != settings_bytes => {
                return Err(Error::Output {
                    path: run_file,
                    reason: "the output holds a run with other settings (seed, candidates, retries, roles or mix)"
                        .into(),
                });
            }
            Ok(_) => {}
            Err(_) => write_atomic(&run_file, &settings_bytes)?,
        }
        let mut names: Vec<&SeedTask> = seeds.iter().collect();
        names.sort_by(|a, b| a.name.cmp(&b.name));
        let all: Vec<(&SeedTask, usize)> =
            names.iter().flat_map(|s| (0..self.config.per_seed).map(move |i| (*s, i))).collect();
        let mine: Vec<(&SeedTask, usize)> = all
            .into_iter()
            .enumerate()
            .filter(|(k, _)| k % self.config.shard.count == self.config.shard.index)
            .map(|(_, slot)| slot)
            .collect();
        let total = mine.len();
        // Which slots an earlier run finished, read once for the seeds'
        // preparation and the slots alike.
        let finished_before: Vec<bool> = mine
            .par_iter()
            .map(|&(seed, index)| finished(&slots_dir.join(&seed.name).join(format!("{index}.json")), out))
            .collect();
        // Each seed with a slot left to run is prepared once, before any of
        // its candidates (seeds in parallel). A seed that cannot be
        // prepared is left to its plans, which fail and record why.
        let mut to_prepare: Vec<&SeedTask> = Vec::new();
        for (&(seed, _), &done) in mine.iter().zip(&finished_before) {
            if !done && !to_prepare.iter().any(|s| s.name == seed.name) {
                to_prepare.push(seed);
            }
        }
        let seed_seconds: BTreeMap<String, f64> = to_prepare
            .par_iter()
            .map(|seed| {
                let t = Instant::now();
                let _ = self.strategist.prepare(&seed.env);
                (seed.name.clone(), t.elapsed().as_secs_f64())
            })
            .collect();
        let done = std::sync::atomic::AtomicUsize::new(0);
        let outcomes: Vec<Result<(String, bool, f64, bool)>> = mine
            .par_iter()
            .zip(&finished_before)
            .map(|(&(seed, index), &finished_before)| {
                let file = slots_dir.join(&seed.name).join(format!("{index}.json"));
                if finished_before {
                    progress(done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1, total);
                    return Ok((seed.name.clone(), false, 0.0, true));
                }
                let (record, seconds) = self.slot(seed, index, out)?;
                if let Some(parent) = file.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| Error::Output { path: parent.to_path_buf(), reason: e.to_string() })?;
                }
                write_atomic(&file, &json_bytes(&record, &file)?)?;
                progress(done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1, total);
                Ok((seed.name.clone(), record.env_id.is_some(), seconds, false))
            })
            .collect();
        let mut throughput: BTreeMap<String, Throughput> = BTreeMap::new();
        let (mut processed, mut resumed) = (0, 0);
        for o in outcomes {
            let (seed, kept, seconds, skipped) = o?;
            if skipped {
                resumed += 1;
                continue;
            }
            processed += 1;
            let t = throughput.entry(seed).or_default();
            t.candidate_seconds += seconds;
            t.kept += usize::from(kept);
        }
        for (seed, seconds) in seed_seconds {
            throughput.entry(seed).or_default().seed_seconds = seconds;
        }
        for t in throughput.values_mut() {
            t.per_minute_one_core =
                if t.candidate_seconds > 0.0 { t.kept as f64 / t.candidate_seconds * 60.0 } else { 0.0 };
        }
        let yield_ = reindex(out)?;
        Ok(RunReport { yield_, processed, resumed, seconds: start.elapsed().as_secs_f64(), throughput })
    }
}

/// `true` when a slot's record exists and its kept environment (if any)
/// reads back whole.
fn finished(file: &Path, out: &Path) -> bool {
    let Ok(bytes) = std::fs::read(file) else { return false };
    let Ok(record) = serde_json::from_slice::<SlotRecord>(&bytes) else { return false };
    record.env_id.is_none_or(|id| Environment::read(out.join(id)).is_ok())
}

fn json_bytes<T: Serialize>(value: &T, path: &Path) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)
        .map_err(|e| Error::Output { path: path.to_path_buf(), reason: e.to_string() })?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Every slot record under `out/slots`, sorted by seed task and index.
///
/// # Errors
/// When a record cannot be read.
pub fn read_records(out: &Path) -> Result<Vec<SlotRecord>> {
    let slots = out.join("slots");
    let io = |p: &Path, e: std::io::Error| Error::Output { path: p.to_path_buf(), reason: e.to_string() };
    let mut records = Vec::new();
    let mut seeds: Vec<PathBuf> = std::fs::read_dir(&slots)
        .map_err(|e| io(&slots, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    seeds.sort();
    for dir in seeds {
        for entry in std::fs::read_dir(&dir).map_err(|e| io(&dir, e))? {
            let path = entry.map_err(|e| io(&dir, e))?.path();
            if path.extension().is_some_and(|x| x == "json") {
                let bytes = sandmle_core::read_regular(&path, sandmle_core::MAX_JSON_BYTES)?;
                let record: SlotRecord = serde_json::from_slice(&bytes)
                    .map_err(|e| Error::Output { path: path.clone(), reason: e.to_string() })?;
                records.push(record);
            }
        }
    }
    records.sort_by(|a, b| (&a.seed_task, a.index).cmp(&(&b.seed_task, b.index)));
    Ok(records)
}

/// Rebuilds `yield.json` and `index.jsonl` from every record in `out`
/// (after shards were run into one folder, or copied into one).
///
/// # Errors
/// When `slots/run.json` or a record cannot be read, or a file written.
pub fn reindex(out: &Path) -> Result<Yield> {
    let run_file = out.join("slots").join("run.json");
    let bytes = sandmle_core::read_regular(&run_file, sandmle_core::MAX_JSON_BYTES)?;
    let settings: RunSettings =
        serde_json::from_slice(&bytes).map_err(|e| Error::Output { path: run_file.clone(), reason: e.to_string() })?;
    let records = read_records(out)?;
    let y = yield_of(&settings, &records);
    let yield_file = out.join("yield.json");
    write_atomic(&yield_file, &json_bytes(&y, &yield_file)?)?;
    let mut index = Vec::new();
    for entry in records.iter().filter_map(|r| r.index_entry.as_ref()) {
        let line = serde_json::to_vec(entry)
            .map_err(|e| Error::Output { path: out.join("index.jsonl"), reason: e.to_string() })?;
        index.extend(line);
        index.push(b'\n');
    }
    write_atomic(&out.join("index.jsonl"), &index)?;
    Ok(y)
}
