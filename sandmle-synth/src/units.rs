//! Units and plausible ranges of the lexicon's numeric columns: a value
//! generated on the DNA's scale is mapped into its column's range (an
//! increasing affine map, so skew, quantile ratios, missingness and
//! correlations are kept), so that `age` reads like years and `ph` stays
//! within 0–14 whatever the seed's magnitudes.

/// `(column, unit, low, high)`: the plausible range of a column.
pub(crate) const UNITS: &[(&str, &str, f64, f64)] = &[
    // healthcare
    ("age", "years", 18.0, 95.0),
    ("bmi", "kg/m²", 15.0, 50.0),
    ("systolic_bp", "mmHg", 85.0, 200.0),
    ("diastolic_bp", "mmHg", 50.0, 120.0),
    ("heart_rate", "beats/min", 40.0, 160.0),
    ("glucose", "mg/dL", 60.0, 300.0),
    ("cholesterol", "mg/dL", 110.0, 330.0),
    ("creatinine", "mg/dL", 0.4, 5.0),
    ("hemoglobin", "g/dL", 7.0, 19.0),
    ("days_since_last_visit", "days", 0.0, 730.0),
    ("steps_per_day", "steps", 500.0, 20000.0),
    ("sleep_hours", "hours", 3.0, 11.0),
    ("oxygen_saturation", "%", 82.0, 100.0),
    ("weight_kg", "kg", 40.0, 160.0),
    ("height_cm", "cm", 145.0, 205.0),
    ("length_of_stay", "days", 1.0, 45.0),
    // retail
    ("basket_value", "EUR", 2.0, 400.0),
    ("items", "items", 1.0, 40.0),
    ("discount_pct", "%", 0.0, 60.0),
    ("customer_age", "years", 16.0, 90.0),
    ("visits_last_month", "visits", 0.0, 30.0),
    ("minutes_on_site", "minutes", 0.5, 120.0),
    ("days_since_signup", "days", 0.0, 3650.0),
    ("returns_last_year", "returns", 0.0, 20.0),
    ("shipping_cost", "EUR", 0.0, 40.0),
    ("avg_item_price", "EUR", 1.0, 250.0),
    ("loyalty_points", "points", 0.0, 20000.0),
    ("pages_viewed", "pages", 1.0, 80.0),
    ("next_month_spend", "EUR", 0.0, 1500.0),
    // manufacturing
    ("temperature", "°C", 15.0, 250.0),
    ("pressure", "bar", 0.5, 12.0),
    ("vibration", "mm/s", 0.1, 25.0),
    ("humidity", "%", 10.0, 95.0),
    ("line_speed", "m/min", 5.0, 120.0),
    ("torque", "N·m", 5.0, 400.0),
    ("power_kw", "kW", 0.5, 150.0),
    ("cycle_time", "s", 5.0, 600.0),
    ("tool_wear", "min", 0.0, 250.0),
    ("coolant_flow", "L/min", 0.5, 60.0),
    ("ambient_temp", "°C", -5.0, 40.0),
    ("shift_hours", "hours", 0.0, 12.0),
    ("yield_pct", "%", 40.0, 100.0),
    // IT operations
    ("cpu_load", "%", 0.0, 100.0),
    ("memory_gb", "GB", 0.5, 256.0),
    ("disk_io", "MB/s", 0.0, 900.0),
    ("latency_ms", "ms", 1.0, 2000.0),
    ("error_rate", "%", 0.0, 25.0),
    ("requests_per_s", "requests/s", 0.0, 5000.0),
    ("open_connections", "connections", 0.0, 4000.0),
    ("uptime_days", "days", 0.0, 400.0),
    ("queue_depth", "messages", 0.0, 5000.0),
    ("retries", "retries", 0.0, 50.0),
    ("packet_loss", "%", 0.0, 10.0),
    ("deploys_last_week", "deploys", 0.0, 40.0),
    ("resolution_minutes", "minutes", 1.0, 2880.0),
    // transportation
    ("distance_km", "km", 0.5, 1200.0),
    ("planned_minutes", "minutes", 5.0, 900.0),
    ("stops", "stops", 0.0, 40.0),
    ("load_kg", "kg", 0.0, 24000.0),
    ("fuel_l", "L", 0.0, 400.0),
    ("driver_hours", "hours", 0.0, 14.0),
    ("vehicle_age", "years", 0.0, 25.0),
    ("avg_speed", "km/h", 5.0, 110.0),
    ("traffic_index", "index", 0.0, 10.0),
    ("rain_mm", "mm", 0.0, 80.0),
    ("departure_hour", "hour", 0.0, 23.0),
    ("toll_cost", "EUR", 0.0, 120.0),
    ("arrival_delay", "minutes", -30.0, 240.0),
    // finance
    ("income", "EUR/year", 8000.0, 250000.0),
    ("loan_amount", "EUR", 500.0, 500000.0),
    ("debt_ratio", "ratio", 0.0, 1.5),
    ("credit_lines", "lines", 0.0, 30.0),
    ("utilisation", "%", 0.0, 100.0),
    ("months_employed", "months", 0.0, 480.0),
    ("applicant_age", "years", 18.0, 85.0),
    ("late_payments", "payments", 0.0, 24.0),
    ("savings", "EUR", 0.0, 200000.0),
    ("monthly_rent", "EUR", 200.0, 4000.0),
    ("inquiries", "inquiries", 0.0, 20.0),
    ("term_months", "months", 6.0, 360.0),
    ("approved_amount", "EUR", 0.0, 500000.0),
    // science
    ("absorbance", "AU", 0.0, 3.0),
    ("ph", "pH", 0.0, 14.0),
    ("conductivity", "µS/cm", 0.0, 5000.0),
    ("mass_mg", "mg", 0.1, 1000.0),
    ("volume_ml", "mL", 0.1, 500.0),
    ("reaction_time", "s", 1.0, 7200.0),
    ("wavelength_nm", "nm", 200.0, 900.0),
    ("concentration", "mol/L", 0.0, 5.0),
    ("viscosity", "mPa·s", 0.3, 1500.0),
    ("density", "g/cm³", 0.5, 3.0),
    ("turbidity", "NTU", 0.0, 400.0),
    ("incubation_hours", "hours", 0.0, 96.0),
    ("activity", "µmol/min", 0.0, 100.0),
    // agriculture
    ("nitrogen", "kg/ha", 0.0, 250.0),
    ("phosphorus", "kg/ha", 0.0, 120.0),
    ("potassium", "kg/ha", 0.0, 300.0),
    ("soil_moisture", "%", 5.0, 60.0),
    ("rainfall_mm", "mm", 0.0, 1500.0),
    ("sun_hours", "hours/day", 2.0, 14.0),
    ("plot_area", "ha", 0.1, 50.0),
    ("seed_density", "seeds/m²", 50.0, 600.0),
    ("soil_ph", "pH", 4.0, 9.0),
    ("altitude_m", "m", 0.0, 3000.0),
    ("irrigation_l", "L/m²", 0.0, 800.0),
    ("days_to_harvest", "days", 40.0, 200.0),
    ("yield_t_ha", "t/ha", 0.5, 15.0),
    // energy
    ("floor_area_m2", "m²", 30.0, 20000.0),
    ("occupants", "people", 1.0, 900.0),
    ("heating_degree_days", "degree days", 0.0, 700.0),
    ("outdoor_temp", "°C", -20.0, 38.0),
    ("building_age", "years", 0.0, 150.0),
    ("solar_kw", "kW", 0.0, 400.0),
    ("max_demand_kw", "kW", 1.0, 2500.0),
    ("appliances", "appliances", 1.0, 400.0),
    ("window_share", "%", 5.0, 80.0),
    ("insulation_cm", "cm", 0.0, 40.0),
    ("tariff_rate", "EUR/kWh", 0.08, 0.6),
    ("meter_faults", "faults", 0.0, 30.0),
    ("monthly_kwh", "kWh", 50.0, 400000.0),
    // insurance
    ("policy_age_months", "months", 0.0, 360.0),
    ("insured_age", "years", 18.0, 95.0),
    ("premium", "EUR/year", 80.0, 6000.0),
    ("deductible", "EUR", 0.0, 5000.0),
    ("claim_amount", "EUR", 50.0, 250000.0),
    ("prior_claims", "claims", 0.0, 25.0),
    ("days_to_report", "days", 0.0, 365.0),
    ("vehicle_value", "EUR", 500.0, 150000.0),
    ("coverage_limit", "EUR", 5000.0, 2000000.0),
    ("witnesses", "witnesses", 0.0, 25.0),
    ("repair_estimate", "EUR", 0.0, 200000.0),
    ("policy_holders", "people", 1.0, 30.0),
    ("settled_amount", "EUR", 0.0, 250000.0),
];

/// Lexicon columns whose values are whole numbers whatever the seed's
/// column was: counts, ages in years, days, months, hours of the day,
/// pressures in mmHg, steps.
const WHOLE: &[&str] = &[
    "age",
    "systolic_bp",
    "diastolic_bp",
    "heart_rate",
    "glucose",
    "cholesterol",
    "days_since_last_visit",
    "steps_per_day",
    "length_of_stay",
    "items",
    "customer_age",
    "visits_last_month",
    "days_since_signup",
    "returns_last_year",
    "loyalty_points",
    "pages_viewed",
    "open_connections",
    "uptime_days",
    "queue_depth",
    "retries",
    "deploys_last_week",
    "resolution_minutes",
    "stops",
    "vehicle_age",
    "departure_hour",
    "arrival_delay",
    "credit_lines",
    "months_employed",
    "applicant_age",
    "late_payments",
    "inquiries",
    "term_months",
    "seed_density",
    "altitude_m",
    "days_to_harvest",
    "occupants",
    "building_age",
    "appliances",
    "meter_faults",
    "policy_age_months",
    "insured_age",
    "prior_claims",
    "days_to_report",
    "witnesses",
    "policy_holders",
];

/// How a column's values are written: whole numbers, money to the cent,
/// or four significant digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grain {
    /// Whole numbers (counts, ages, days).
    Whole,
    /// Two decimals (an amount of money).
    Cents,
    /// Four significant digits.
    Measured,
}

/// How the lexicon column `name` (or its base) is written.
pub(crate) fn grain_of(name: &str) -> Grain {
    let base = crate::lexicon::base_name(name);
    if WHOLE.contains(&base) {
        Grain::Whole
    } else if unit_of(name).is_some_and(|(u, ..)| u == "EUR" || u == "EUR/year") {
        Grain::Cents
    } else {
        Grain::Measured
    }
}

/// Values of a unit column from the latent factor `z` (standard normal):
/// the DNA's shape mapped into the range ([`into_range`]) unless that
/// piles values up — a fifth of the rows or more on one value, as a
/// discrete or zero-inflated seed column would give — in which case a
/// smooth shape of the DNA's skew inside the range (never on its bounds)
/// takes its place; then written at the column's grain. Both maps
/// increase with `z`, so what the hidden rule reads is kept.
pub(crate) fn realistic(
    latent: &[f64],
    shape: &sandmle_core::NumericShape,
    name: &str,
    (lo, hi): (f64, f64),
) -> Vec<f64> {
    let grain = grain_of(name);
    let mut values: Vec<f64> =
        latent.iter().map(|&z| crate::random::from_uniform(shape, crate::stats::normal_cdf(z))).collect();
    into_range(&mut values, shape.min, shape.max, lo, hi, false);
    if piled(&values) {
        // The skew bends the shape, not so far that whole numbers pile on
        // the smallest (`u^1.8` at most).
        let power = libm::exp(0.3 * shape.skew.clamp(-2.0, 2.0));
        values = latent
            .iter()
            .map(|&z| lo + (hi - lo) * (0.03 + 0.85 * libm::pow(crate::stats::normal_cdf(z), power)))
            .collect();
    }
    for v in &mut values {
        *v = match grain {
            Grain::Whole => v.round().clamp(lo.ceil(), hi.floor()),
            Grain::Cents => ((*v * 100.0).round() / 100.0).clamp(lo, hi),
            Grain::Measured => round_sig(*v).clamp(lo, hi),
        };
    }
    values
}

/// Whether a fifth of the values or more are one value.
fn piled(values: &[f64]) -> bool {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let (mut run, mut longest) = (0usize, 0usize);
    for (i, v) in sorted.iter().enumerate() {
        run = if i > 0 && sorted[i - 1] == *v { run + 1 } else { 1 };
        longest = longest.max(run);
    }
    !sorted.is_empty() && longest * 5 >= sorted.len()
}

/// The unit and plausible range of a lexicon column (qualified names like
/// `peak_glucose` take their base's), if it has one.
pub fn unit_range(name: &str) -> Option<(&'static str, f64, f64)> {
    unit_of(name)
}

/// The unit and range of a column (qualified names like `max_glucose`
/// take their base's).
pub(crate) fn unit_of(name: &str) -> Option<(&'static str, f64, f64)> {
    let base = crate::lexicon::base_name(name);
    UNITS.iter().find(|(n, ..)| *n == base).map(|&(_, u, lo, hi)| (u, lo, hi))
}

/// Maps values on the DNA's scale `[min, max]` into `[lo, hi]` with an
/// increasing affine map (a constant column goes to the middle); whole
/// numbers stay whole where the range is wide enough to hold them.
pub(crate) fn into_range(values: &mut [f64], min: f64, max: f64, lo: f64, hi: f64, integer: bool) {
    let span = max - min;
    for v in values.iter_mut().filter(|v| v.is_finite()) {
        let u = if span > 0.0 { ((*v - min) / span).clamp(0.0, 1.0) } else { 0.5 };
        let x = lo + u * (hi - lo);
        *v = if integer && hi - lo >= 20.0 {
            x.round().clamp(lo.ceil(), hi.floor())
        } else {
            round_sig(x).clamp(lo, hi)
        };
    }
}

/// Four significant decimals past the range's scale: readable values
/// (`37.2`, not `37.218734218`), still continuous.
fn round_sig(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let digits = 4 - libm::log10(x.abs()).floor() as i32;
    let scale = libm::pow(10.0, f64::from(digits.clamp(0, 8)));
    (x * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lexicon_numeric_column_and_value_target_has_a_range() {
        for d in crate::DOMAINS {
            for n in d.numeric.iter().chain(std::iter::once(&d.targets[2])) {
                let (_, lo, hi) = unit_of(n).unwrap_or_else(|| panic!("{n} has no unit"));
                assert!(lo < hi, "{n}");
            }
        }
    }

    /// A seed column that is 0 on most rows (or a 0/1 flag) gave most
    /// synthesized rows the range's bound (`weight_kg == 40`, loans of
    /// exactly 500 EUR); counts came out fractional (`items 15.323`).
    #[test]
    fn piled_seed_columns_spread_and_counts_are_whole() {
        let flag = sandmle_core::NumericShape {
            mean: 0.2,
            sd: 0.4,
            skew: 1.5,
            min: 0.0,
            max: 1.0,
            quantiles: [0.0, 0.0, 0.0, 0.0, 1.0],
            integer: true,
            distinct: 2,
        };
        let latent: Vec<f64> = (0..1000).map(|i| (f64::from(i) - 499.5) / 200.0).collect();
        for (name, (lo, hi)) in
            [("weight_kg", (40.0, 160.0)), ("loan_amount", (500.0, 500000.0)), ("items", (1.0, 40.0))]
        {
            let v = realistic(&latent, &flag, name, (lo, hi));
            let distinct = v.windows(2).filter(|w| w[0] != w[1]).count() + 1;
            assert!(distinct >= 20, "{name}: {distinct} values");
            assert!(name == "items" || !piled(&v), "{name}");
            assert!(v.iter().all(|&x| x > lo && x < hi), "{name}: on a bound");
            assert!(v.windows(2).all(|w| w[0] <= w[1]), "{name}: order kept");
        }
        let items = realistic(&latent, &flag, "items", (1.0, 40.0));
        assert!(items.iter().all(|x| x.fract() == 0.0));
        let loans = realistic(&latent, &flag, "loan_amount", (500.0, 500000.0));
        assert!(loans.iter().all(|x| ((x * 100.0).round() - x * 100.0).abs() < 1e-6));
    }

    /// Past every qualifier a column is named `round_9_items`; it kept no
    /// unit, so its values were the seed's raw (piled) numbers.
    #[test]
    fn round_numbered_names_keep_their_base_unit_and_grain() {
        assert_eq!(unit_of("round_9_items").map(|u| u.0), Some("items"));
        assert_eq!(grain_of("round_12_loan_amount"), Grain::Cents);
        assert_eq!(unit_of("round_x_items"), None);
    }

    #[test]
    fn mapping_keeps_order_and_lands_in_range() {
        let mut v = vec![13694.0, 10.0, f64::NAN, 500.0];
        into_range(&mut v, 10.0, 13694.0, 0.0, 14.0, false);
        assert_eq!(v[0], 14.0);
        assert_eq!(v[1], 0.0);
        assert!(v[2].is_nan());
        assert!(v[3] > 0.0 && v[3] < 1.0);
    }
}
