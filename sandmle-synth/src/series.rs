//! Forecasting tasks: daily series of a few entities (stores, clinics,
//! meters, ...), split in time.
//!
//! [`crate::DnaSynthesizer`] takes this path for a DNA of
//! [`Modality::TimeSeries`]: a regression seed recast by a run's mix
//! ([`crate::recast`]), or a forecasting environment used as a seed. The
//! environment is Kaggle's store-sales layout: each row is one entity's
//! day, with its `date` (`YYYY-MM-DD`), the entity, a daily covariate (a
//! temperature, a price, rain, ...), an event flag (a promotion, a
//! holiday, ...) and the value; the training rows are the first
//! [`SERIES_ENTITIES`] entities' first `train_rows / 5` days, the test rows
//! the same number of days after them. Nothing of the future is in the
//! training rows, and the test rows carry no value.
//!
//! **Rule.** The log of an entity's expected value on a day is the sum of
//! its level (the seed's median target, spread by a factor drawn per
//! entity), a weekly profile, a yearly season (a sine of the day of the
//! year), a linear trend over the whole span, the covariate's effect and
//! the event's; the family ([`SERIES_FAMILIES`]) decides which of the
//! weekly, yearly and trend parts is strong. The value is the expectation
//! times the exponential of an AR(1) noise (correlation
//! [`SERIES_NOISE_CORRELATION`] from one day to the next, stationary, its
//! standard deviation `0.05 + 0.5 × difficulty × noise`), rounded to a
//! whole number when the seed's target is one. So lags and the calendar
//! both pay: the last days of training tell the level, the date tells the
//! season and the weekday.
//!
//! **Privacy and determinism** as for tables: the rule is in
//! `provenance.json`'s `hidden_rule`, ids are a shuffled `0..rows`, and
//! every draw comes from the plan seed's own streams.

use crate::error::{Error, Result};
use crate::mutations::DrawMutations;
use crate::oracle::{TargetTruth, Truth};
use crate::random::gaussian;
use crate::rule::signed;
use crate::synthesize::{DnaSynthesizer, record_oracle, split_with_fresh_ids, table_task};
use rand::RngExt;
use sandmle_core::{
    Categorical, Column, Environment, FeatureDna, Modality, Mutations, NumericShape, PlanRequest, PlannedFeature,
    SeedRng, TargetDna, TaskDna, TaskPlan, TaskStory, rng_for,
};
use serde_json::json;

/// Entities (series) of a forecasting task.
pub const SERIES_ENTITIES: usize = 5;

/// Day-to-day correlation of the series' noise.
pub const SERIES_NOISE_CORRELATION: f64 = 0.6;

/// The rule families of a forecasting task: a strong weekly profile, a
/// strong yearly season, or a strong trend (the other parts weak).
pub const SERIES_FAMILIES: [&str; 3] = ["series_weekly", "series_yearly", "series_trend"];

/// How a domain dresses a forecasting task.
struct SeriesDress {
    domain: &'static str,
    /// The entity column and its levels' prefix.
    entity: &'static str,
    /// The value's column, and whether it is a count when the seed's
    /// target is whole.
    target: &'static str,
    /// Two daily covariates (column and unit), one drawn per plan.
    covariate: [(&'static str, &'static str); 2],
    /// Two event flags, one drawn per plan.
    event: [&'static str; 2],
    /// What is forecast, for the title.
    what: &'static str,
}

const DRESSES: [SeriesDress; 10] = [
    SeriesDress {
        domain: "healthcare",
        entity: "clinic",
        target: "admissions",
        covariate: [("outdoor_temp_c", "°C"), ("flu_index", "cases per 100k")],
        event: ["flu_alert", "public_holiday"],
        what: "daily admissions",
    },
    SeriesDress {
        domain: "retail",
        entity: "store",
        target: "units_sold",
        covariate: [("avg_price", "EUR"), ("outdoor_temp_c", "°C")],
        event: ["promotion", "public_holiday"],
        what: "daily store sales",
    },
    SeriesDress {
        domain: "manufacturing",
        entity: "line",
        target: "units_produced",
        covariate: [("ambient_temp_c", "°C"), ("staff_on_shift", "people")],
        event: ["maintenance_day", "supplier_delay"],
        what: "daily line output",
    },
    SeriesDress {
        domain: "it_operations",
        entity: "service",
        target: "requests",
        covariate: [("active_users_k", "thousand users"), ("deploys", "deploys")],
        event: ["release_day", "incident"],
        what: "daily service requests",
    },
    SeriesDress {
        domain: "transportation",
        entity: "route",
        target: "riders",
        covariate: [("rain_mm", "mm"), ("fuel_price", "EUR/l")],
        event: ["event_day", "school_holiday"],
        what: "daily ridership",
    },
    SeriesDress {
        domain: "finance",
        entity: "branch",
        target: "transactions",
        covariate: [("interest_rate_pct", "%"), ("market_index", "points")],
        event: ["payday", "bank_holiday"],
        what: "daily branch transactions",
    },
    SeriesDress {
        domain: "science",
        entity: "station",
        target: "particle_count",
        covariate: [("humidity_pct", "%"), ("ambient_temp_c", "°C")],
        event: ["calibration_day", "solar_flare"],
        what: "daily station counts",
    },
    SeriesDress {
        domain: "agriculture",
        entity: "farm",
        target: "milk_litres",
        covariate: [("temperature_c", "°C"), ("rain_mm", "mm")],
        event: ["feed_change", "vet_visit"],
        what: "daily milk yield",
    },
    SeriesDress {
        domain: "energy",
        entity: "meter",
        target: "demand_kwh",
        covariate: [("temperature_c", "°C"), ("wind_speed_ms", "m/s")],
        event: ["holiday", "tariff_change"],
        what: "daily energy demand",
    },
    SeriesDress {
        domain: "insurance",
        entity: "office",
        target: "claims_filed",
        covariate: [("rain_mm", "mm"), ("wind_speed_ms", "m/s")],
        event: ["storm_warning", "campaign_day"],
        what: "daily claims",
    },
];

fn dress(domain: &str) -> &'static SeriesDress {
    DRESSES.iter().find(|d| d.domain == domain).unwrap_or(&DRESSES[0])
}

/// Days of training history per entity for `train_rows` training rows.
fn train_days(train_rows: usize) -> usize {
    (train_rows / SERIES_ENTITIES).max(2)
}

fn numeric(shape: NumericShape) -> FeatureDna {
    FeatureDna::Numeric { missing_rate: 0.0, shape }
}

/// The plan of a forecasting candidate (see the module docs).
pub(crate) fn plan_series(
    dna: &TaskDna,
    request: &PlanRequest,
    domain: &str,
    difficulty: f64,
    mutate: bool,
    train_rows: usize,
) -> TaskPlan {
    let seed = request.candidate_seed();
    let mut rng = rng_for(seed, "synth-plan");
    let family = SERIES_FAMILIES[rng.random_range(0..SERIES_FAMILIES.len())];
    let drawn = if mutate { Mutations::draw(&mut rng) } else { Mutations::none() };
    let d = dress(domain);
    let flat = |mean: f64, sd: f64, integer: bool| NumericShape {
        mean,
        sd,
        skew: 0.0,
        min: mean - 3.0 * sd,
        max: mean + 3.0 * sd,
        quantiles: [mean - 1.6 * sd, mean - 0.7 * sd, mean, mean + 0.7 * sd, mean + 1.6 * sd],
        integer,
        distinct: if integer { 2 } else { 200 },
    };
    let feature = |name: &str, unit: Option<&str>, dna: FeatureDna| PlannedFeature {
        name: name.to_owned(),
        unit: unit.map(str::to_owned),
        dna,
        signal: true,
    };
    let covariate = d.covariate[rng.random_range(0..2)];
    let event = d.event[rng.random_range(0..2)];
    let features = vec![
        feature("date", None, FeatureDna::Text { missing_rate: 0.0, mean_tokens: 1.0, sd_tokens: 0.0, vocab_size: 1 }),
        feature(
            d.entity,
            None,
            FeatureDna::Categorical {
                missing_rate: 0.0,
                cardinality: SERIES_ENTITIES,
                shares: vec![1.0 / SERIES_ENTITIES as f64; SERIES_ENTITIES],
            },
        ),
        feature(covariate.0, Some(covariate.1), numeric(flat(0.0, 1.0, false))),
        feature(event, None, numeric(flat(0.5, 0.5, true))),
    ];
    let days = train_days(train_rows);
    let title = match crate::lexicon::organisation(domain, seed) {
        Some(o) => format!("{o}: {} forecast", d.what),
        None => format!("{} forecast", d.what),
    };
    TaskPlan {
        seed_task: request.seed_task.clone(),
        seed,
        dna: dna.clone(),
        domain: domain.to_owned(),
        story: TaskStory {
            title,
            row_noun: format!("{}'s day", d.entity),
            context: format!(
                "The {what} of {SERIES_ENTITIES} {entity}s, one row per {entity} and day. The training rows are the \
                 first {days} days; the test rows are the {days} days after them, whose `{target}` is to be \
                 forecast from what came before.",
                what = d.what,
                entity = d.entity,
                target = d.target,
            ),
        },
        features,
        targets: vec![d.target.to_owned()],
        classes: vec![],
        rule_family: family.to_owned(),
        difficulty,
        mutations: Mutations { noise: drawn.noise, ..Mutations::none() },
    }
}

/// The civil date (year, month, day) of `days` since 1970-01-01
/// (proleptic Gregorian).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The environment a forecasting plan asks for (see the module docs).
pub(crate) fn realize_series(synth: &DnaSynthesizer, plan: &TaskPlan) -> Result<Environment> {
    synth.check(&plan.dna)?;
    let bad = |reason: &str| Err(Error::BadPlan { reason: reason.to_owned() });
    let (Some(TargetDna::Continuous { shape }), 1, 4) =
        (plan.dna.targets.first(), plan.targets.len(), plan.features.len())
    else {
        return bad("a forecasting plan has four features (date, entity, covariate, event) and one value target");
    };
    crate::synthesize::check_names(plan)?;
    let strength = |f: &str, rng: &mut SeedRng| {
        if plan.rule_family == f { rng.random_range(0.25..0.45) } else { rng.random_range(0.03..0.12) }
    };
    let seed = plan.seed;
    let mut rng = rng_for(seed, "series-rule");
    let weekly_amp = strength("series_weekly", &mut rng);
    let yearly_amp = strength("series_yearly", &mut rng);
    let trend =
        if plan.rule_family == "series_trend" { signed(&mut rng, 0.4, 0.8) } else { signed(&mut rng, 0.0, 0.1) };
    // Weekdays against the weekend, or the reverse, with a little shape.
    let weekend_high = rng.random::<bool>();
    let weekly: Vec<f64> = (0..7)
        .map(|dow| {
            let weekend = dow >= 5;
            let base = if weekend == weekend_high { 1.0 } else { -0.4 };
            weekly_amp * (base + rng.random_range(-0.2..0.2))
        })
        .collect();
    let phase: f64 = rng.random_range(0.0..365.0);
    let covariate_effect = signed(&mut rng, 0.08, 0.25);
    let event_effect = signed(&mut rng, 0.15, 0.5).abs() * if rng.random_range(0.0..1.0) < 0.8 { 1.0 } else { -1.0 };
    let event_rate: f64 = rng.random_range(0.08..0.2);
    let median = shape.quantiles[2];
    let base = if median > 0.0 && median.is_finite() { median } else { 100.0 };
    let levels: Vec<f64> = (0..SERIES_ENTITIES).map(|_| base.ln() + 0.5 * gaussian(&mut rng)).collect();
    let noise_sd = 0.05 + 0.5 * plan.difficulty * plan.mutations.noise;
    let rho = SERIES_NOISE_CORRELATION;

    let days = train_days(synth.train_rows);
    let total = 2 * days;
    let mut rng = rng_for(seed, "series-data");
    let start = 17_897 + rng.random_range(0..1_400i64); // 2019-01-01 and up to ~4 years on
    let covariate_phase = rng.random_range(0.0..365.0);
    let covariate: Vec<f64> = (0..total)
        .map(|t| {
            let doy = (start + t as i64).rem_euclid(365) as f64;
            libm::sin(std::f64::consts::TAU * (doy - covariate_phase) / 365.25) + 0.4 * gaussian(&mut rng)
        })
        .collect();
    let (mut dates, mut entities, mut cov, mut event, mut values) = (vec![], vec![], vec![], vec![], vec![]);
    let (mut clean, mut noisy) = (vec![], vec![]);
    let mut noise: Vec<f64> = (0..SERIES_ENTITIES).map(|_| noise_sd * gaussian(&mut rng)).collect();
    let d = dress(&plan.domain);
    let entity_names: Vec<String> =
        (0..SERIES_ENTITIES).map(|s| format!("{}_{}", d.entity, char::from(b'a' + s as u8))).collect();
    for (t, &covariate_today) in covariate.iter().enumerate() {
        let day = start + t as i64;
        let (y, m, dd) = civil(day);
        // 1970-01-01 was a Thursday: Monday is 0.
        let dow = (day + 3).rem_euclid(7) as usize;
        let doy = day.rem_euclid(365) as f64;
        for (s, level) in levels.iter().enumerate() {
            if t > 0 {
                noise[s] = rho * noise[s] + (1.0 - rho * rho).sqrt() * noise_sd * gaussian(&mut rng);
            }
            let flag = rng.random_range(0.0..1.0) < event_rate;
            let c = covariate_today + 0.3 * gaussian(&mut rng);
            let log_mu = level
                + weekly[dow]
                + yearly_amp * libm::sin(std::f64::consts::TAU * (doy - phase) / 365.25)
                + trend * (t as f64 / total as f64 - 0.5)
                + covariate_effect * c
                + if flag { event_effect } else { 0.0 };
            let raw = libm::exp(log_mu + noise[s]);
            values.push(if shape.integer { raw.round() } else { (raw * 100.0).round() / 100.0 });
            clean.push(log_mu);
            noisy.push(log_mu + noise[s]);
            dates.push(format!("{y:04}-{m:02}-{dd:02}"));
            entities.push(entity_names[s].clone());
            event.push(f64::from(u8::from(flag)));
            cov.push(covariate_value(&plan.features[2].name, c));
        }
    }
    let n = values.len();
    let mut all = sandmle_core::Table::new();
    all.push_column("id", Column::Text(vec![None; n]))?;
    all.push_column(
        plan.features[0].name.clone(),
        Column::Text(dates.iter().map(|s| Some(s.as_str().into())).collect()),
    )?;
    all.push_column(
        plan.features[1].name.clone(),
        Column::Categorical(Categorical::from_values(entities.iter().map(|s| Some(s.as_str())))),
    )?;
    all.push_column(plan.features[2].name.clone(), Column::Numeric(cov))?;
    all.push_column(plan.features[3].name.clone(), Column::Numeric(event))?;
    all.push_column(plan.targets[0].clone(), Column::Numeric(values.clone()))?;
    let n_train = days * SERIES_ENTITIES;
    let kept: Vec<usize> = (0..n).collect();
    let (train, test, ids) = split_with_fresh_ids(&all, &kept, n_train, seed)?;
    let t = table_task(plan, plan.targets.clone(), plan.targets.clone(), train, test)?;
    let crate::synthesize::TableTask { task, tables, description, mut provenance } = t;
    provenance.hidden_rule = Some(json!({
        "modality": "time_series",
        "family": plan.rule_family,
        "log_levels": levels,
        "weekly": weekly,
        "yearly": {"amplitude": yearly_amp, "phase_day": phase},
        "trend": trend,
        "covariate_effect": covariate_effect,
        "event": {"effect": event_effect, "rate": event_rate},
        "noise": {"sd": noise_sd, "day_to_day_correlation": rho},
        "label": "exp(log level + weekly[weekday] + yearly sine + trend + covariate + event + AR(1) noise)",
    }));
    let truth = TargetTruth {
        truth: Truth::Monotone { score: clean, noisy, values },
        noise_sd,
        classes: vec![],
        numeric: true,
    };
    let rows = crate::oracle::test_rows_in_order(&kept, &ids, n_train);
    let oracle = crate::oracle::oracle_record(&task, &[truth], &rows, tables.answers.column(&task.id_column)?)?;
    record_oracle(&mut provenance, &oracle)?;
    debug_assert_eq!(task.modality, Modality::TimeSeries);
    crate::synthesize::finish_synthesized(task, tables, description, provenance, plan, sandmle_core::ImageSet::new())
}

/// The covariate in its unit, from its standardised daily value `c`.
fn covariate_value(name: &str, c: f64) -> f64 {
    let (centre, spread, lo, hi) = match name {
        "avg_price" => (12.0, 1.5, 0.5, f64::MAX),
        "rain_mm" => (3.0, 4.0, 0.0, f64::MAX),
        "interest_rate_pct" => (3.5, 0.4, 0.0, f64::MAX),
        "humidity_pct" => (60.0, 15.0, 0.0, 100.0),
        "active_users_k" => (40.0, 8.0, 0.0, f64::MAX),
        "flu_index" => (30.0, 15.0, 0.0, f64::MAX),
        "staff_on_shift" => (24.0, 4.0, 0.0, f64::MAX),
        "deploys" => (6.0, 3.0, 0.0, f64::MAX),
        "fuel_price" => (1.7, 0.15, 0.1, f64::MAX),
        "market_index" => (4200.0, 150.0, 0.0, f64::MAX),
        "wind_speed_ms" => (5.0, 2.5, 0.0, f64::MAX),
        _ => (12.0, 8.0, f64::MIN, f64::MAX),
    };
    let v = (centre + spread * c).clamp(lo, hi);
    if matches!(name, "staff_on_shift" | "deploys") { v.round() } else { (v * 10.0).round() / 10.0 }
}

#[cfg(test)]
mod tests {
    use super::civil;

    #[test]
    fn civil_dates_are_the_calendar_s() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(17_897), (2019, 1, 1));
        assert_eq!(civil(18_321), (2020, 2, 29));
        assert_eq!(civil(-1), (1969, 12, 31));
    }
}
