//! A custom role, outside the library crates: a Technical Writer with a
//! house style (a one-line summary first, then the built-in writer's
//! sections), plugged into the Foundry in place of the built-in one.
//!
//! Run with `cargo run --release --example custom_writer`.

use sandmle::{Composition, load_seed};
use sandmle_agents::foundry::{FoundryConfig, SeedTask, read_records};
use sandmle_agents::roles::{Brief, TechnicalWriter, write_description};
use sandmle_core::{Environment, TaskPlan};
use std::sync::Arc;

/// The house style: a bold one-line summary on top, a signature below.
struct HouseStyle;

impl TechnicalWriter for HouseStyle {
    fn name(&self) -> &str {
        "house-style-writer-v1"
    }

    fn describe(&self, env: &Environment, plan: &TaskPlan, brief: &Brief) -> sandmle_agents::Result<String> {
        let task = env.task();
        let summary = format!(
            "**In one line:** {} rows of {} data; predict `{}`; scored by `{}`.",
            env.train.n_rows(),
            plan.domain,
            task.target_columns.join("`, `"),
            task.metric.name
        );
        let body = write_description(env, plan, brief);
        Ok(format!("{summary}\n\n{body}\n---\nWritten in the house style.\n"))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut foundry =
        Composition::new().foundry(FoundryConfig { per_seed: 2, run_seed: 7, ..FoundryConfig::default() });
    foundry.writer = Arc::new(HouseStyle);
    let out = std::env::temp_dir().join(format!("sandmle-custom-writer-{}", std::process::id()));
    let seeds = [SeedTask { name: "wine".into(), env: load_seed("wine")? }];
    let report = foundry.run(&seeds, &out, &|_, _| {})?;
    println!("{} candidates, {} kept", report.yield_.total.candidates, report.yield_.total.kept);
    let mut shown = 0;
    for r in read_records(&out)? {
        if let Some(id) = &r.env_id {
            let env = Environment::read(out.join(id))?;
            assert!(env.description.starts_with("**In one line:**"), "the custom writer wrote it");
            assert_eq!(env.provenance.details["roles"]["technical_writer"], "house-style-writer-v1");
            println!("{id}: {}", env.description.lines().next().unwrap_or_default());
            shown += 1;
        }
    }
    std::fs::remove_dir_all(&out)?;
    if shown == 0 {
        return Err("no environment was kept".into());
    }
    Ok(())
}
