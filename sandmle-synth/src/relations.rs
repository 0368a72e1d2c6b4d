//! Relations that hold in the world between a table's columns, made to
//! hold in synthesized rows.
//!
//! Each column is drawn on its own (its unit, its range, its correlations
//! with the others), so a table with both `systolic_bp` and
//! `diastolic_bp` could show a diastolic pressure above the systolic, a
//! loan approved above its request, a body-mass index unrelated to the
//! weight and height beside it, or a 600 km trip planned for five minutes.
//! [`apply`] mends the columns a table has after they are drawn, before
//! the rule reads them:
//!
//! | columns | relation |
//! |---|---|
//! | `bmi`, `weight_kg`, `height_cm` | the index is the weight over the height squared (to 0.1) |
//! | `systolic_bp`, `diastolic_bp` | the diastolic is at most the systolic less 20 mmHg |
//! | `approved_amount`, `loan_amount` | at most the request |
//! | `settled_amount`, `claim_amount` | at most the claim |
//! | `planned_minutes`, `distance_km` | a speed between 15 and 110 km/h, plus up to 45 minutes of stops |
//!
//! A value over its bound is mirrored under it (`bound² / value`, whole
//! when both are), so mended rows spread below the bound rather than pile
//! on it. The lexicon names `approved_amount` and `settled_amount` as
//! targets only: those relations hold between feature columns (an LLM
//! strategist's plan may have them), and a target is the rule's value, left
//! as it is. A mended signal column's latent is its new values' normal
//! scores, so the hidden rule reads what the column shows. [`violations`]
//! counts the rows that break a relation (the realism check
//! `relations_hold`). A weight that would make a BMI outside
//! [`BMI_RANGE`] with its height (a 160 kg adult of 145 cm) is mirrored
//! into the weights that keep it inside, within the weight's own unit
//! range, before the BMI is computed.

use crate::features::Generated;
use crate::lexicon::base_name;
use sandmle_core::Column;

/// The BMIs adults have, in kg/m².
pub(crate) const BMI_RANGE: (f64, f64) = (15.0, 50.0);

/// `(column, bound)` pairs: the column's value is at most the bound's,
/// less the margin.
const AT_MOST: [(&str, &str, f64); 3] = [
    ("diastolic_bp", "systolic_bp", 20.0),
    ("approved_amount", "loan_amount", 0.0),
    ("settled_amount", "claim_amount", 0.0),
];

/// Slowest and fastest plausible speeds of a trip, in km/h.
const SPEED_KMH: (f64, f64) = (15.0, 110.0);

/// The most minutes of stops a trip's plan adds to its driving time.
const STOP_MINUTES: f64 = 45.0;

/// The first numeric column whose base name is `base`.
fn find(feats: &[Generated], base: &str) -> Option<usize> {
    feats.iter().position(|f| base_name(&f.name) == base && matches!(f.column, Column::Numeric(_)))
}

fn values(feats: &[Generated], i: usize) -> Vec<f64> {
    match &feats[i].column {
        Column::Numeric(v) => v.clone(),
        _ => Vec::new(),
    }
}

fn set(feats: &mut [Generated], i: usize, new: Vec<f64>) {
    if feats[i].signal {
        feats[i].latent = crate::stats::normal_scores(&new);
    }
    feats[i].column = Column::Numeric(new);
}

/// `value`, or mirrored under `limit` when above it (`limit² / value`),
/// whole when both are.
fn mirror_under(value: f64, limit: f64) -> f64 {
    if value <= limit || limit <= 0.0 || !value.is_finite() {
        return value.min(limit.max(0.0));
    }
    let mirrored = limit * limit / value;
    if value.fract() == 0.0 && limit.fract() == 0.0 { mirrored.round().min(limit) } else { mirrored }
}

/// `value`, or mirrored into `[lo, hi]` when outside it (`hi² / value`
/// above, `lo² / value` below), whole when it was, else to 0.1; kept as it
/// is when missing or when the range is empty.
fn mirror_into(value: f64, lo: f64, hi: f64) -> f64 {
    if !(value.is_finite() && lo.is_finite() && lo <= hi) || (lo..=hi).contains(&value) {
        return value;
    }
    let mirrored = if value > hi { hi * hi / value } else { lo * lo / value.max(f64::MIN_POSITIVE) };
    let kept = mirrored.clamp(lo, hi);
    if value.fract() == 0.0 { kept.round().clamp(lo.ceil(), hi.floor().max(lo.ceil())) } else { tenth(kept) }
}

fn tenth(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Makes the relations of the module docs hold among `feats`' columns;
/// returns the relations mended, by their first column.
pub(crate) fn apply(feats: &mut [Generated]) -> Vec<&'static str> {
    let mut mended = Vec::new();
    let (bmi, weight, height) = (find(feats, "bmi"), find(feats, "weight_kg"), find(feats, "height_cm"));
    if let (Some(b), Some(w), Some(h)) = (bmi, weight, height) {
        let (wv, hv) = (values(feats, w), values(feats, h));
        let (lightest, heaviest) =
            crate::units::unit_of("weight_kg").map_or((0.0, f64::INFINITY), |(_, lo, hi)| (lo, hi));
        let weights: Vec<f64> = wv
            .iter()
            .zip(&hv)
            .map(|(&w, &h)| {
                let m2 = (h / 100.0).powi(2);
                mirror_into(w, (BMI_RANGE.0 * m2).max(lightest), (BMI_RANGE.1 * m2).min(heaviest))
            })
            .collect();
        set(feats, b, weights.iter().zip(&hv).map(|(w, h)| tenth(w / (h / 100.0).powi(2))).collect());
        if weights != wv {
            set(feats, w, weights);
        }
        mended.push("bmi");
    }
    for (column, bound, margin) in AT_MOST {
        if let (Some(c), Some(b)) = (find(feats, column), find(feats, bound)) {
            let (cv, bv) = (values(feats, c), values(feats, b));
            let mirrored = cv.iter().zip(&bv).map(|(&c, &b)| mirror_under(c, b - margin)).collect();
            set(feats, c, mirrored);
            mended.push(column);
        }
    }
    if let (Some(m), Some(d)) = (find(feats, "planned_minutes"), find(feats, "distance_km")) {
        let (mv, dv) = (values(feats, m), values(feats, d));
        let (slow, fast) = SPEED_KMH;
        let mended_minutes = mv
            .iter()
            .zip(&dv)
            .map(|(&m, &d)| m.max(60.0 * d / fast).min(60.0 * d / slow + STOP_MINUTES).round())
            .collect();
        set(feats, m, mended_minutes);
        mended.push("planned_minutes");
    }
    mended
}

/// Rows of the named numeric `columns` that break a relation of the module
/// docs, and the rows checked: `(broken, checked)` over every relation
/// whose columns are all there (a missing value skips the row).
pub(crate) fn violations(columns: &[(&str, &[f64])]) -> (usize, usize) {
    let get = |base: &str| columns.iter().find(|(n, _)| base_name(n) == base).map(|(_, v)| *v);
    let (mut broken, mut checked) = (0, 0);
    let mut count = |ok: &dyn Fn(usize) -> Option<bool>, n: usize| {
        for r in 0..n {
            if let Some(ok) = ok(r) {
                checked += 1;
                broken += usize::from(!ok);
            }
        }
    };
    let present = |v: &[f64], r: usize| v.get(r).copied().filter(|x| x.is_finite());
    if let (Some(b), Some(w), Some(h)) = (get("bmi"), get("weight_kg"), get("height_cm")) {
        let ok = |r: usize| {
            let bmi = present(b, r)?;
            let inside = (BMI_RANGE.0 - 0.05..=BMI_RANGE.1 + 0.05).contains(&bmi);
            Some(inside && (bmi - present(w, r)? / (present(h, r)? / 100.0).powi(2)).abs() <= 0.51)
        };
        count(&ok, b.len());
    }
    for (column, bound, margin) in AT_MOST {
        if let (Some(c), Some(b)) = (get(column), get(bound)) {
            let ok = |r: usize| Some(present(c, r)? <= present(b, r)? - margin + 1e-9);
            count(&ok, c.len());
        }
    }
    if let (Some(m), Some(d)) = (get("planned_minutes"), get("distance_km")) {
        let (slow, fast) = SPEED_KMH;
        let ok = |r: usize| {
            let (m, d) = (present(m, r)?, present(d, r)?);
            Some(m + 0.5 >= 60.0 * d / fast && m - 0.5 <= 60.0 * d / slow + STOP_MINUTES)
        };
        count(&ok, m.len());
    }
    (broken, checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generated(name: &str, values: Vec<f64>) -> Generated {
        Generated {
            name: name.into(),
            latent: vec![0.0; values.len()],
            drawn: vec![0.0; values.len()],
            column: Column::Numeric(values),
            signal: true,
            missing_rate: 0.0,
        }
    }

    #[test]
    fn mended_columns_keep_their_relations() {
        let mut feats = vec![
            generated("systolic_bp", vec![120.0, 100.0, 150.0]),
            generated("diastolic_bp", vec![80.0, 95.0, 90.0]),
            generated("weight_kg", vec![70.0, 100.0, 55.0]),
            generated("height_cm", vec![175.0, 160.0, 190.0]),
            generated("bmi", vec![40.0, 18.0, 25.0]),
            generated("distance_km", vec![600.0, 2.0, 50.0]),
            generated("planned_minutes", vec![5.0, 300.0, 40.0]),
        ];
        let view = |feats: &[Generated]| -> Vec<(String, Vec<f64>)> {
            feats
                .iter()
                .map(|f| (f.name.clone(), f.column.as_numeric().map(<[f64]>::to_vec).unwrap_or_default()))
                .collect()
        };
        let before = view(&feats);
        let refs: Vec<(&str, &[f64])> = before.iter().map(|(n, v)| (n.as_str(), v.as_slice())).collect();
        assert_eq!(violations(&refs), (6, 9), "diastolic 95 over 100 - 20; every bmi; 600 km in 5 and 2 km in 300 min");
        assert_eq!(apply(&mut feats), ["bmi", "diastolic_bp", "planned_minutes"]);
        let after = view(&feats);
        let refs: Vec<(&str, &[f64])> = after.iter().map(|(n, v)| (n.as_str(), v.as_slice())).collect();
        assert_eq!(violations(&refs), (0, 9));
        assert_eq!(after[1].1, [80.0, 67.0, 90.0], "95 over 80 mirrored to 80² / 95");
        assert_eq!(after[4].1, [22.9, 39.1, 15.2]);
        assert_eq!(after[6].1, [327.0, 53.0, 40.0]);
        // The rule reads the mended values.
        assert!(feats[1].latent[1] < feats[1].latent[2]);
    }

    /// A weight that would put the BMI outside 15–50 with its height is
    /// mirrored into the weights that keep it inside, whole if it was.
    #[test]
    fn bmi_stays_within_what_adults_have() {
        let mut feats = vec![
            generated("weight_kg", vec![160.0, 40.0, 70.0, f64::NAN]),
            generated("height_cm", vec![145.0, 205.0, 175.0, 170.0]),
            generated("bmi", vec![0.0; 4]),
        ];
        apply(&mut feats);
        let weights = feats[0].column.as_numeric().unwrap().to_vec();
        let bmi = feats[2].column.as_numeric().unwrap().to_vec();
        assert_eq!(weights[2], 70.0, "a weight inside is kept");
        assert!(weights[3].is_nan(), "a missing weight stays missing");
        for r in 0..3 {
            assert!((15.0..=50.0).contains(&bmi[r]), "row {r}: {bmi:?}");
            assert!((40.0..=160.0).contains(&weights[r]) && weights[r].fract() == 0.0, "{weights:?}");
        }
        let refs: Vec<(&str, &[f64])> =
            vec![("weight_kg", &weights), ("height_cm", &[145.0, 205.0, 175.0, 170.0]), ("bmi", &bmi)];
        assert_eq!(violations(&refs), (0, 3));
        // Unmended, the same rows break it.
        let raw = [160.0 / 1.45f64.powi(2), 40.0 / 2.05f64.powi(2), 70.0 / 1.75f64.powi(2)]
            .map(|b| (b * 10.0).round() / 10.0);
        let refs: Vec<(&str, &[f64])> =
            vec![("weight_kg", &[160.0, 40.0, 70.0]), ("height_cm", &[145.0, 205.0, 175.0]), ("bmi", &raw)];
        assert_eq!(violations(&refs), (2, 3));
    }
}
