//! Warm against cold sandboxed code steps, and plain `python main.py`.
//!
//! Runs `benches/warm_python/{logistic,forest}.py` (pandas reads the CSV
//! files, scikit-learn fits 200 training rows, `submission.csv` is written;
//! each prints its own in-process time) as code steps of a persistent
//! workspace started cold and warm, and unsandboxed as `python main.py` in a
//! directory holding the same files; prints one markdown table of medians
//! and ranges. `benches/warm_python.sh` runs it.
//!
//! Usage: `cargo run --release -p sandmle-exec --example warm_python -- PYTHON [RUNS]`

use sandmle_core::{Environment, Execution, PublicView, Workspace};
use sandmle_exec::{CodeSteps, ProcessExecutor, PythonChoice, PythonEnv, PythonSettings};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const PROGRAMS: [(&str, &str); 2] = [
    ("logistic regression", include_str!("../benches/warm_python/logistic.py")),
    ("random forest, 100 trees", include_str!("../benches/warm_python/forest.py")),
];

type Error = Box<dyn std::error::Error>;

/// One measured step: its wall time and the program's own time, in ms.
type Sample = (f64, f64);

fn own_ms(stdout: &str) -> Result<f64, Error> {
    let line = stdout.lines().find_map(|l| l.strip_prefix("program_ms=")).ok_or("no program_ms= line")?;
    Ok(line.trim().parse()?)
}

fn step(ws: &mut dyn Workspace, code: &str) -> Result<Sample, Error> {
    ws.write_file("main.py", code.as_bytes())?;
    let start = Instant::now();
    let run: Execution = ws.run(&["python3".into(), "main.py".into()], Duration::from_secs(300))?;
    let wall = start.elapsed().as_secs_f64() * 1000.0;
    if run.submission.is_none() {
        return Err(format!("{:?}: {}", run.status, run.stderr_tail).into());
    }
    Ok((wall, own_ms(&run.stdout_tail)?))
}

fn sandboxed(
    view: &PublicView<'_>,
    python: &Path,
    steps: CodeSteps,
    code: &str,
    runs: usize,
) -> Result<Vec<Sample>, Error> {
    let settings = PythonSettings {
        choice: PythonChoice::Interpreter(python.into()),
        code_steps: steps,
        ..PythonSettings::default()
    };
    let exec = ProcessExecutor { python: settings, ..ProcessExecutor::default() };
    let mut ws = exec.open(view)?;
    step(&mut ws, code)?; // warm-up: the warm interpreter's start, the page cache
    (0..runs).map(|_| step(&mut ws, code)).collect()
}

fn plain(dir: &Path, interpreter: &Path, code: &str, runs: usize) -> Result<Vec<Sample>, Error> {
    std::fs::write(dir.join("main.py"), code)?;
    let mut samples = Vec::new();
    for i in 0..=runs {
        let start = Instant::now();
        let out = std::process::Command::new(interpreter).arg("main.py").current_dir(dir).output()?;
        let wall = start.elapsed().as_secs_f64() * 1000.0;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned().into());
        }
        if i > 0 {
            samples.push((wall, own_ms(&String::from_utf8_lossy(&out.stdout))?));
        }
    }
    Ok(samples)
}

fn median_range(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn cell(v: Vec<f64>) -> String {
    let (m, lo, hi) = median_range(v);
    format!("{m:.1} ({lo:.1}–{hi:.1})")
}

fn main() -> Result<(), Error> {
    let mut args = std::env::args().skip(1);
    let python = PathBuf::from(args.next().ok_or("usage: warm_python PYTHON [RUNS]")?);
    let runs: usize = args.next().map(|r| r.parse()).transpose()?.unwrap_or(11).max(1);
    let seed = format!("{}/../examples/seeds/breast_cancer", env!("CARGO_MANIFEST_DIR"));
    let env = Environment::read(seed)?;
    let train = env.train.take(&(0..200).collect::<Vec<_>>())?;
    let view = PublicView { train: &train, ..env.public_view() };
    let interpreter = PythonEnv::resolve(&PythonChoice::Interpreter(python.clone()))?.interpreter().to_path_buf();
    let dir = tempfile::tempdir()?;
    for (name, table) in
        [("train.csv", view.train), ("test.csv", view.test), ("sample_submission.csv", view.sample_submission)]
    {
        sandmle_core::csv::write_csv(table, dir.path().join(name))?;
    }
    println!("{runs} runs per row after one warm-up; {} ({})", interpreter.display(), python.display());
    println!();
    println!("| program | how | step wall ms | program's own ms | added ms (wall − own) |");
    println!("|---|---|---|---|---|");
    for (name, code) in PROGRAMS {
        let rows = [
            ("cold sandboxed", sandboxed(&view, &python, CodeSteps::Cold, code, runs)?),
            ("warm sandboxed", sandboxed(&view, &python, CodeSteps::Warm, code, runs)?),
            ("plain `python main.py`", plain(dir.path(), &interpreter, code, runs)?),
        ];
        let mut walls = Vec::new();
        for (how, samples) in rows {
            let wall: Vec<f64> = samples.iter().map(|s| s.0).collect();
            let own: Vec<f64> = samples.iter().map(|s| s.1).collect();
            let added: Vec<f64> = samples.iter().map(|s| s.0 - s.1).collect();
            walls.push(median_range(wall.clone()).0);
            println!("| {name} | {how} | {} | {} | {} |", cell(wall), cell(own), cell(added));
        }
        println!("| {name} | cold ÷ warm (medians) | {:.1}x | | |", walls[0] / walls[1]);
    }
    Ok(())
}
