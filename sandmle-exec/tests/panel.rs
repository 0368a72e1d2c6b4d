//! The baseline panel on real seeds: ordered, mostly distinct scores, the
//! same leaderboard whatever the thread count.

use sandmle_core::{BaselinePanel, Environment, Grader};
use sandmle_exec::{PANEL_VERSION, Panel};
use sandmle_metrics::StandardGrader;

fn seed(name: &str) -> Environment {
    Environment::read(format!("{}/../examples/seeds/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn leaderboards_are_ordered_and_distinct_on_real_seeds() {
    for name in ["breast_cancer", "wine", "diabetes", "oj"] {
        let env = seed(name);
        let report = Panel::default().run(&env, &StandardGrader).unwrap();
        let scores = report.leaderboard.scores();
        assert!(scores.len() >= 20, "{name}: {} baselines scored", scores.len());
        let d = env.task().direction;
        assert!(scores.windows(2).all(|w| d.at_least(w[0], w[1])), "{name}: not ordered: {scores:?}");
        let mut distinct = scores.clone();
        distinct.dedup();
        assert!(distinct.len() * 100 >= scores.len() * 85, "{name}: {} distinct of {}", distinct.len(), scores.len());
        // The strongest baseline clearly beats the weakest (the constant).
        assert!(d.better(scores[0], *scores.last().unwrap()));
        let t = StandardGrader.thresholds(&report.leaderboard).unwrap();
        assert!(t.strictly_ordered(), "{name}: {t:?}");
        // The bundled seed's leaderboard was written by this panel version.
        assert_eq!(env.leaderboard.as_ref().unwrap(), &report.leaderboard, "{name}: regenerate the seed's leaderboard");
    }
}

#[test]
fn the_leaderboard_does_not_depend_on_the_thread_count() {
    let env = seed("wine");
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| Panel::default().leaderboard(&env, &StandardGrader).unwrap())
    };
    assert_eq!(run(1), run(2));
    assert_eq!(Panel::default().version(), PANEL_VERSION);
}
