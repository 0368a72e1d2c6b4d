//! The Foundry: kept environments, `yield.json` and `index.jsonl`,
//! byte-identical on one and two threads, when resumed, and as three
//! shards merged; failed candidates retried with a fresh seed; each seed
//! prepared once, before its candidates.

mod common;

use common::{foundry, seed};
use sandmle_agents::foundry::{FoundryConfig, SeedTask, Shard, read_records, reindex};
use sandmle_agents::roles::builtin::Strategist;
use sandmle_agents::roles::{Brief, DataStrategist, TechnicalWriter};
use sandmle_core::{Environment, PlanRequest, TaskPlan};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn seeds() -> Vec<SeedTask> {
    vec![seed("wine"), seed("breast_cancer")]
}

fn config(shard: Shard) -> FoundryConfig {
    FoundryConfig { per_seed: 3, run_seed: 11, shard, ..FoundryConfig::default() }
}

fn run_with_threads(threads: usize, shard: Shard, out: &Path) -> sandmle_agents::foundry::RunReport {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| foundry(config(shard)).run(&seeds(), out, &|_, _| {})).unwrap()
}

#[test]
fn runs_are_byte_identical_across_threads_resumes_and_shards() {
    let one = tempfile::tempdir().unwrap();
    let report = run_with_threads(1, Shard::ALL, one.path());
    assert_eq!(report.processed, 6);
    let y = &report.yield_;
    assert_eq!(y.total.candidates, 6);
    assert!(y.total.kept >= 4, "{:?}", y.total);
    let first = tree(one.path());
    let index = String::from_utf8(first["index.jsonl"].clone()).unwrap();
    assert_eq!(index.lines().count(), y.total.kept);
    for line in index.lines() {
        let e: serde_json::Value = serde_json::from_str(line).unwrap();
        for key in ["env_id", "path", "seed_task", "kind", "modality", "metric", "direction", "thresholds", "generator"]
        {
            assert!(e.get(key).is_some(), "{key}: {line}");
        }
        Environment::read(one.path().join(e["path"].as_str().unwrap())).unwrap();
        // The MLOps engineer's reward validation is recorded.
        assert_eq!(e["rewards"]["scheme"], "released_dense", "{line}");
        assert!(e["rewards"]["passed"].is_boolean() && e["rewards"]["failed"].is_array(), "{line}");
        let band = e["difficulty"]["band"].as_u64().unwrap();
        assert!((1..=5).contains(&band), "{line}");
    }
    assert!(first.contains_key("yield.json"));

    let two = tempfile::tempdir().unwrap();
    run_with_threads(2, Shard::ALL, two.path());
    assert_eq!(tree(two.path()), first, "one and two threads");

    // Resumed: nothing is redone and nothing changes.
    let again = run_with_threads(2, Shard::ALL, one.path());
    assert_eq!((again.processed, again.resumed), (0, 6));
    assert_eq!(tree(one.path()), first);

    // Three shards into one folder.
    let sharded = tempfile::tempdir().unwrap();
    for i in 0..3 {
        run_with_threads(2, Shard { index: i, count: 3 }, sharded.path());
    }
    assert_eq!(tree(sharded.path()), first, "three shards");

    // Three shards in three folders, copied together and reindexed.
    let merged = tempfile::tempdir().unwrap();
    for i in 0..3 {
        let part = tempfile::tempdir().unwrap();
        run_with_threads(1, Shard { index: i, count: 3 }, part.path());
        for (rel, bytes) in tree(part.path()) {
            let to = merged.path().join(&rel);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::write(to, bytes).unwrap();
        }
    }
    reindex(merged.path()).unwrap();
    assert_eq!(tree(merged.path()), first, "three shards merged");
}

#[test]
fn a_run_with_other_settings_is_refused_in_the_same_output() {
    let out = tempfile::tempdir().unwrap();
    let mut c = config(Shard::ALL);
    c.per_seed = 1;
    foundry(c.clone()).run(&[seed("wine")], out.path(), &|_, _| {}).unwrap();
    c.run_seed = 12;
    assert!(foundry(c).run(&[seed("wine")], out.path(), &|_, _| {}).is_err());
}

/// A writer that fails its first `failures` calls.
struct Flaky {
    failures: usize,
    calls: AtomicUsize,
}

impl TechnicalWriter for Flaky {
    fn name(&self) -> &str {
        "flaky"
    }
    fn describe(&self, env: &Environment, plan: &TaskPlan, brief: &Brief) -> sandmle_agents::Result<String> {
        if self.calls.fetch_add(1, Ordering::SeqCst) < self.failures {
            return Err(sandmle_agents::Error::BadSetting { setting: "writer", reason: "out of ink".into() });
        }
        Ok(sandmle_agents::roles::write_description(env, plan, brief))
    }
}

#[test]
fn failed_candidates_are_retried_with_a_fresh_seed() {
    let out = tempfile::tempdir().unwrap();
    let mut f = foundry(FoundryConfig { per_seed: 1, run_seed: 3, retries: 2, ..FoundryConfig::default() });
    f.writer = Arc::new(Flaky { failures: 2, calls: AtomicUsize::new(0) });
    let report = f.run(&[seed("wine")], out.path(), &|_, _| {}).unwrap();
    let records = read_records(out.path()).unwrap();
    let attempts = &records[0].attempts;
    assert_eq!(attempts.len(), 3);
    assert!(attempts[0].error.as_deref().unwrap().contains("out of ink"));
    assert_ne!(attempts[0].seed, attempts[2].seed, "each retry draws a fresh seed");
    assert_eq!(report.yield_.total.retried, 1);
    assert_eq!(report.yield_.failures.len(), 2);
    // With no retries left the slot is lost, and the yield says why.
    let out = tempfile::tempdir().unwrap();
    let mut f = foundry(FoundryConfig { per_seed: 1, run_seed: 3, retries: 0, ..FoundryConfig::default() });
    f.writer = Arc::new(Flaky { failures: 1, calls: AtomicUsize::new(0) });
    let report = f.run(&[seed("wine")], out.path(), &|_, _| {}).unwrap();
    assert_eq!(report.yield_.total.kept, 0);
    assert_eq!(report.yield_.total.planned, 1);
    assert_eq!(report.yield_.total.described, 0);
}

#[test]
fn the_yield_reports_the_spread_of_domains_families_and_mutations() {
    let out = tempfile::tempdir().unwrap();
    let c = FoundryConfig { per_seed: 10, run_seed: 2026, ..FoundryConfig::default() };
    let report = foundry(c).run(&[seed("breast_cancer")], out.path(), &|_, _| {}).unwrap();
    let spread = &report.yield_.spread;
    assert!(spread.domains.len() >= 6, "{:?}", spread.domains);
    assert_eq!(spread.domains.values().sum::<usize>(), report.yield_.total.kept);
    assert!(!spread.rule_families.is_empty());
    assert!(spread.mutations.contains_key("noise"));
    // Diversity: titles and column sets counted over the kept environments.
    let kept = report.yield_.total.kept;
    assert!(kept >= 8, "{kept}");
    assert!(spread.titles >= 5 && spread.titles <= kept, "{spread:?}");
    assert!(spread.column_sets >= 5 && spread.column_sets <= kept, "{spread:?}");
    assert_eq!(spread.modalities.get("tabular"), Some(&kept));
    assert!(spread.near_duplicates <= kept * (kept - 1) / 2);
    let y: serde_json::Value = serde_json::from_slice(&std::fs::read(out.path().join("yield.json")).unwrap()).unwrap();
    assert_eq!(y["seeds"]["breast_cancer"]["candidates"], 10);
    assert_eq!(y["settings"]["roles"]["technical_writer"], "builtin-writer");
}

/// Two kept environments with the same targets and rule family and
/// feature sets 4/5 alike are near-duplicates; 3/5 alike, or another
/// family, are not.
#[test]
fn near_duplicates_are_counted_by_targets_family_and_column_overlap() {
    use sandmle_agents::foundry::{AttemptRecord, Stage, near_duplicates};
    let record = |family: &str, columns: &[&str]| AttemptRecord {
        attempt: 0,
        seed: 0,
        stage: Stage::Verify,
        error: None,
        llm_failure: false,
        gates: vec![],
        domain: None,
        rule_family: Some(family.into()),
        mutations: None,
        title: None,
        columns: columns.iter().map(|c| (*c).to_owned()).collect(),
        targets: vec!["outcome".into()],
    };
    let a = record("interactions", &["a", "b", "c", "d", "e"]);
    let b = record("interactions", &["a", "b", "c", "d", "e", "f"]);
    let c = record("interactions", &["a", "b", "c", "x", "y"]);
    let d = record("thresholds", &["a", "b", "c", "d", "e"]);
    assert_eq!(near_duplicates(&[&a, &b]), 1, "5 of 6 names shared");
    assert_eq!(near_duplicates(&[&a, &c]), 0, "3 of 7 names shared");
    assert_eq!(near_duplicates(&[&a, &d]), 0, "another rule family");
    assert_eq!(near_duplicates(&[&a, &b, &d]), 1);
}

/// A strategist that records its calls, planning through the built-in one.
struct Recording {
    inner: Strategist,
    calls: std::sync::Mutex<Vec<String>>,
}

impl DataStrategist for Recording {
    fn name(&self) -> &str {
        "recording"
    }
    fn plan(&self, seed_env: &Environment, request: &PlanRequest) -> sandmle_agents::Result<TaskPlan> {
        self.calls.lock().unwrap().push(format!("plan {}", request.seed_task));
        self.inner.plan(seed_env, request)
    }
    fn prepare(&self, seed_env: &Environment) -> sandmle_agents::Result<()> {
        self.calls.lock().unwrap().push(format!("prepare {}", seed_env.task().id));
        self.inner.prepare(seed_env)
    }
}

/// Each seed with a candidate to run is prepared once, before any plan,
/// and its preparation is timed apart from its candidates; a resumed run
/// with nothing left to do prepares nothing.
#[test]
fn each_seed_is_prepared_once_before_its_candidates() {
    let out = tempfile::tempdir().unwrap();
    let mut f = foundry(FoundryConfig { per_seed: 2, run_seed: 5, ..FoundryConfig::default() });
    let counting = Arc::new(common::Counting::new(Arc::clone(&common::parts().synthesizer)));
    let recording =
        Arc::new(Recording { inner: Strategist::new(counting.clone()), calls: std::sync::Mutex::new(Vec::new()) });
    f.strategist = recording.clone();
    let seeds = [seed("wine"), seed("breast_cancer")];
    let report = f.run(&seeds, out.path(), &|_, _| {}).unwrap();
    let calls = recording.calls.lock().unwrap().clone();
    let prepared: Vec<&String> = calls.iter().filter(|c| c.starts_with("prepare")).collect();
    assert_eq!(prepared.len(), 2, "{calls:?}");
    let first_plan = calls.iter().position(|c| c.starts_with("plan")).unwrap();
    assert!(calls[..first_plan].iter().all(|c| c.starts_with("prepare")), "{calls:?}");
    assert!(calls.len() >= 2 + 4, "{calls:?}");
    for name in ["wine", "breast_cancer"] {
        assert!(report.throughput[name].seed_seconds > 0.0, "{name}: {:?}", report.throughput[name]);
    }
    // The plans read the DNA the preparation extracted.
    assert_eq!(counting.count(), 2);
    recording.calls.lock().unwrap().clear();
    let again = f.run(&seeds, out.path(), &|_, _| {}).unwrap();
    assert_eq!(again.resumed, 4);
    assert!(recording.calls.lock().unwrap().is_empty());
}

/// Each kept environment's difficulty band, from `index.jsonl`.
fn kept_bands(out: &Path) -> Vec<u64> {
    let index = std::fs::read_to_string(out.join("index.jsonl")).unwrap();
    index
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["difficulty"]["band"].as_u64().unwrap())
        .collect()
}

/// `target_band` keeps only candidates of that band: the others are
/// failed attempts that say which band they measured, retried with fresh
/// seeds; the run's settings record the band.
#[test]
fn a_target_band_keeps_only_candidates_of_that_band() {
    let free = tempfile::tempdir().unwrap();
    let c = FoundryConfig { per_seed: 6, run_seed: 8, ..FoundryConfig::default() };
    foundry(c).run(&[seed("diabetes")], free.path(), &|_, _| {}).unwrap();
    let bands = kept_bands(free.path());
    let target = *bands.iter().max_by_key(|b| (bands.iter().filter(|x| x == b).count(), **b)).unwrap() as u8;
    assert!(bands.iter().any(|&b| b != u64::from(target)), "the free run holds several bands: {bands:?}");
    let out = tempfile::tempdir().unwrap();
    let c =
        FoundryConfig { per_seed: 4, run_seed: 8, retries: 8, target_band: Some(target), ..FoundryConfig::default() };
    let report = foundry(c).run(&[seed("diabetes")], out.path(), &|_, _| {}).unwrap();
    let kept = kept_bands(out.path());
    assert!(!kept.is_empty(), "{:?}", report.yield_.total);
    assert!(kept.iter().all(|&b| b == u64::from(target)), "{kept:?}");
    let records = read_records(out.path()).unwrap();
    let refused = records.iter().flat_map(|r| &r.attempts).filter_map(|a| a.error.as_deref()).collect::<Vec<_>>();
    assert!(refused.iter().any(|e| e.contains(&format!("not the target band {target}"))), "{refused:?}");
    assert_eq!(report.yield_.settings.target_band, Some(target));
}

/// A strategist that plans every candidate's first attempt as candidate
/// 0's (the built-in plan of index 0), and retries as the built-in one.
struct Echo(Strategist);

impl DataStrategist for Echo {
    fn name(&self) -> &str {
        "echo"
    }
    fn plan(&self, seed_env: &Environment, request: &PlanRequest) -> sandmle_agents::Result<TaskPlan> {
        let index = if request.attempt == 0 { 0 } else { request.index };
        self.0.plan(seed_env, &PlanRequest { index, ..request.clone() })
    }
    fn replans_cheaply(&self) -> bool {
        true
    }
}

/// A candidate whose plan repeats an earlier candidate's first plan (same
/// targets and family, feature names alike) is refused at the plan stage
/// and retried with a fresh seed; the gate reads only re-derived plans, so
/// two shards merged give the unsharded run's tree.
#[test]
fn a_near_duplicate_plan_is_refused_and_retried() {
    let run = |shard: Shard, out: &Path| {
        let mut f = foundry(FoundryConfig { per_seed: 3, run_seed: 4, retries: 1, shard, ..FoundryConfig::default() });
        f.strategist = Arc::new(Echo(Strategist::new(Arc::clone(&common::parts().synthesizer))));
        f.run(&[seed("wine")], out, &|_, _| {}).unwrap();
    };
    let whole = tempfile::tempdir().unwrap();
    run(Shard::ALL, whole.path());
    let records = read_records(whole.path()).unwrap();
    assert_eq!(records.len(), 3);
    assert_eq!(records[0].attempts.len(), 1, "the first candidate has nothing to repeat");
    for r in &records[1..] {
        let first = &r.attempts[0];
        assert_eq!(first.stage, sandmle_agents::foundry::Stage::Plan, "{first:?}");
        assert!(first.error.as_deref().unwrap().contains("near-duplicate of candidate 0's plan"), "{first:?}");
        assert_eq!(r.attempts.len(), 2);
        assert!(r.attempts[1].kept(), "{:?}", r.attempts[1]);
    }
    let sharded = tempfile::tempdir().unwrap();
    for index in 0..2 {
        run(Shard { index, count: 2 }, sharded.path());
    }
    reindex(sharded.path()).unwrap();
    assert_eq!(tree(whole.path()), tree(sharded.path()));
}
