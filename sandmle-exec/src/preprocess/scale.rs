//! `scale`: standard or min-max scaling of numeric columns with training
//! statistics (missing values stay missing).

use super::{Frames, present};
use crate::error::Result;
use crate::spec::ScaleMethod;
use sandmle_core::Column;

pub(super) fn scale(f: &mut Frames, method: ScaleMethod) -> Result<()> {
    let names: Vec<String> = f.train.names().to_vec();
    for name in names {
        let (Ok(train), Ok(test)) = (f.train.numeric(&name), f.test.numeric(&name)) else {
            continue;
        };
        let n = present(train).count() as f64;
        if n == 0.0 {
            continue;
        }
        let (shift, scale) = match method {
            ScaleMethod::Standard => {
                let mean = present(train).sum::<f64>() / n;
                let sd = (present(train).map(|x| (x - mean) * (x - mean)).sum::<f64>() / n).sqrt();
                (mean, if sd > 0.0 { sd } else { 1.0 })
            }
            ScaleMethod::MinMax => {
                let min = present(train).fold(f64::INFINITY, f64::min);
                let max = present(train).fold(f64::NEG_INFINITY, f64::max);
                (min, if max > min { max - min } else { 1.0 })
            }
        };
        let apply = |v: &[f64]| Column::Numeric(v.iter().map(|x| (x - shift) / scale).collect());
        let (a, b) = (apply(train), apply(test));
        f.set(&name, a, b)?;
    }
    Ok(())
}
