//! moving_avg's models (OpenSearch's `MovAvgModel`s: simple, linear, ewma, holt, holt_winters):
//! the next value from a window, `predict`ions past the last bucket, and the fit of a model's
//! parameters to the data by simulated annealing (`SimulatedAnealingMinimizer`, `minimize`).
//!
//! OpenSearch draws the annealing's random numbers from `Math.random()`, so its minimized
//! parameters vary from request to request. This node draws them from a SplitMix64 generator
//! seeded with [`MINIMIZE_SEED`] for every minimization: the same data gives the same fit.

use serde_json::{Map, Value};

use super::moving;
use crate::error::OsResult;

/// The seed of the generator each `minimize` run starts from.
pub const MINIMIZE_SEED: u64 = 0x6d6f_7669_6e67_5f61;

#[derive(Debug, Clone, PartialEq)]
pub enum Model {
    Simple,
    Linear,
    Ewma { alpha: f64 },
    Holt { alpha: f64, beta: f64 },
    HoltWinters { alpha: f64, beta: f64, gamma: f64, period: i64, mult: bool, pad: bool },
}

impl Model {
    /// Parses a model and its settings (OpenSearch's model parsers).
    pub fn parse(name: &str, settings: Option<&Map<String, Value>>) -> Result<Model, String> {
        let mut s = settings.cloned().unwrap_or_default();
        let mut double = |k: &str, default: f64| -> Result<f64, String> {
            match s.remove(k) {
                None => Ok(default),
                Some(Value::Number(n)) => {
                    let v = n.as_f64().unwrap_or(f64::NAN);
                    if (0.0..=1.0).contains(&v) {
                        Ok(v)
                    } else {
                        Err(format!("Parameter [{k}] must be between 0-1 inclusive.  Provided value was [{v}]"))
                    }
                }
                Some(other) => {
                    Err(format!("Parameter [{k}] must be a double, type `{}` provided instead", java_type(&other)))
                }
            }
        };
        let model = match name {
            "simple" => Model::Simple,
            "linear" => Model::Linear,
            "ewma" => Model::Ewma { alpha: double("alpha", 0.3)? },
            "holt" => Model::Holt { alpha: double("alpha", 0.3)?, beta: double("beta", 0.1)? },
            _ => {
                let (alpha, beta, gamma) = (double("alpha", 0.3)?, double("beta", 0.1)?, double("gamma", 0.3)?);
                let period = match s.remove("period") {
                    None => 1,
                    Some(Value::Number(n)) if n.as_i64().is_some() => n.as_i64().unwrap_or(1),
                    Some(other) => {
                        return Err(format!(
                            "Parameter [period] must be an integer, type `{}` provided instead",
                            java_type(&other)
                        ))
                    }
                };
                let mult = match s.remove("type") {
                    None => false,
                    Some(Value::String(t)) if t == "add" => false,
                    Some(Value::String(t)) if t == "mult" => true,
                    Some(other) => return Err(format!("Unknown value [{other}] for seasonality type [type]")),
                };
                let pad = match s.remove("pad") {
                    None => true,
                    Some(Value::Bool(b)) => b,
                    Some(other) => {
                        return Err(format!(
                            "Parameter [pad] must be a boolean, type `{}` provided instead",
                            java_type(&other)
                        ))
                    }
                };
                Model::HoltWinters { alpha, beta, gamma, period, mult, pad }
            }
        };
        if !s.is_empty() {
            let keys: Vec<&str> = s.keys().map(String::as_str).collect();
            return Err(format!("Unrecognized parameter(s): [[{}]]", keys.join(", ")));
        }
        Ok(model)
    }

    /// Whether the model gives a value with `n` values available.
    pub fn has_value(&self, n: usize) -> bool {
        match self {
            Model::HoltWinters { period, .. } => n as i64 >= period * 2,
            _ => n > 0,
        }
    }

    pub fn next(&self, values: &[f64]) -> OsResult<f64> {
        Ok(match *self {
            Model::Simple => moving::unweighted_avg(values),
            Model::Linear => moving::linear_weighted_avg(values),
            Model::Ewma { alpha } => moving::ewma(values, alpha),
            Model::Holt { alpha, beta } => moving::holt(values, alpha, beta),
            Model::HoltWinters { alpha, beta, gamma, period, mult, pad } => {
                let padding = if mult && pad { 0.000_000_000_1 } else { 0.0 };
                moving::holt_winters_padded(values, alpha, beta, gamma, period, padding, mult)?
            }
        })
    }
}

fn java_type(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "String",
        Value::Bool(_) => "Boolean",
        Value::Number(n) if n.is_i64() => "Integer",
        Value::Number(_) => "Double",
        Value::Array(_) => "ArrayList",
        Value::Object(_) => "HashMap",
        Value::Null => "null",
    }
}

impl Model {
    /// `canBeMinimized`: the models with parameters to fit.
    pub fn can_be_minimized(&self) -> bool {
        !matches!(self, Model::Simple | Model::Linear)
    }

    /// `minimizeByDefault`: Holt-Winters fits its parameters unless told not to.
    pub fn minimize_by_default(&self) -> bool {
        matches!(self, Model::HoltWinters { .. })
    }

    /// `MovAvgModel.predict`: the next `n` values after `values` (NaNs without values). Simple,
    /// linear and ewma repeat their next value; holt and holt_winters extrapolate.
    pub fn predict(&self, values: &[f64], n: usize) -> OsResult<Vec<f64>> {
        if values.is_empty() {
            return Ok(vec![f64::NAN; n]);
        }
        Ok(match *self {
            Model::Holt { alpha, beta } => moving::holt_forecast(values, alpha, beta, n),
            Model::HoltWinters { alpha, beta, gamma, period, mult, pad } => {
                let padding = if mult && pad { 0.000_000_000_1 } else { 0.0 };
                moving::holt_winters_forecast(values, alpha, beta, gamma, period, padding, mult, n)?
            }
            _ => vec![self.next(values)?; n],
        })
    }

    /// `neighboringModel`: one parameter replaced by a random value (the value is drawn first,
    /// then which parameter).
    fn neighbor(&self, rng: &mut Rng) -> Model {
        let v = rng.next_f64();
        match *self {
            Model::Ewma { .. } => Model::Ewma { alpha: v },
            Model::Holt { alpha, beta } => {
                if (rng.next_f64() * 2.0) as i64 == 0 {
                    Model::Holt { alpha: v, beta }
                } else {
                    Model::Holt { alpha, beta: v }
                }
            }
            Model::HoltWinters { alpha, beta, gamma, period, mult, pad } => match (rng.next_f64() * 3.0) as i64 {
                0 => Model::HoltWinters { alpha: v, beta, gamma, period, mult, pad },
                1 => Model::HoltWinters { alpha, beta: v, gamma, period, mult, pad },
                _ => Model::HoltWinters { alpha, beta, gamma: v, period, mult, pad },
            },
            ref m => m.clone(),
        }
    }

    /// The least absolute differences between the predictions from `train` and `test`.
    fn cost(&self, train: &[f64], test: &[f64]) -> OsResult<f64> {
        let p = self.predict(train, test.len())?;
        Ok(p.iter().zip(test).map(|(p, t)| (t - p).abs()).sum())
    }

    /// `SimulatedAnealingMinimizer.minimize`: from temperature 1 down to 0.0001 (times 0.9 per
    /// round), 100 neighbours per round; a neighbour is taken when it costs less, or with
    /// probability `exp(-(new - old) / temp)`; the cheapest model seen wins.
    pub fn minimize(&self, train: &[f64], test: &[f64]) -> OsResult<Model> {
        let mut rng = Rng(MINIMIZE_SEED);
        let mut temp = 1.0;
        let (mut old, mut best) = (self.clone(), self.clone());
        let mut old_cost = self.cost(train, test)?;
        let mut best_cost = old_cost;
        while temp > 0.0001 {
            for _ in 0..100 {
                let new = old.neighbor(&mut rng);
                let new_cost = new.cost(train, test)?;
                let ap = if new_cost < old_cost { 1.0 } else { (-(new_cost - old_cost) / temp).exp() };
                if ap > rng.next_f64() {
                    old = new;
                    old_cost = new_cost;
                    if new_cost < best_cost {
                        best_cost = new_cost;
                        best = old.clone();
                    }
                }
            }
            temp *= 0.9;
        }
        Ok(best)
    }
}

/// SplitMix64: uniform doubles in [0, 1) (53 bits), as `Math.random()` gives.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predictions_repeat_or_extrapolate() {
        let vals = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(Model::Simple.predict(&vals, 3).unwrap(), vec![2.5; 3]);
        assert_eq!(Model::Linear.predict(&vals, 2).unwrap(), vec![Model::Linear.next(&vals).unwrap(); 2]);
        assert!(Model::Ewma { alpha: 0.5 }.predict(&[], 2).unwrap().iter().all(|v| v.is_nan()));
        // Holt on a line with full smoothing follows the line: s + i * b from i = 0.
        let h = Model::Holt { alpha: 1.0, beta: 1.0 }.predict(&vals, 3).unwrap();
        assert_eq!(h, vec![4.0, 5.0, 6.0]);
        assert_eq!(h[0], Model::Holt { alpha: 1.0, beta: 1.0 }.next(&vals).unwrap());
        // Holt-Winters: the first prediction is next(); later ones cycle through the season.
        let hw = Model::HoltWinters { alpha: 0.5, beta: 0.5, gamma: 0.5, period: 2, mult: false, pad: false };
        let series = [1.0, 5.0, 2.0, 6.0, 3.0, 7.0];
        let p = hw.predict(&series, 4).unwrap();
        assert_eq!(p[0], hw.next(&series).unwrap());
        assert!(p.iter().all(|v| v.is_finite()));
        assert!(p[1] > p[0] && p[3] > p[2], "{p:?}");
    }

    #[test]
    fn minimizing_fits_the_data_and_is_repeatable() {
        // A trend Holt follows best with high alpha and beta.
        let train: Vec<f64> = (0..10).map(|i| 3.0 * i as f64).collect();
        let test: Vec<f64> = (10..20).map(|i| 3.0 * i as f64).collect();
        let start = Model::Holt { alpha: 0.1, beta: 0.1 };
        let fit = start.minimize(&train, &test).unwrap();
        assert!(fit.cost(&train, &test).unwrap() < start.cost(&train, &test).unwrap() / 10.0, "{fit:?}");
        assert_eq!(fit, start.minimize(&train, &test).unwrap());
        let e = Model::Ewma { alpha: 0.01 };
        let fit = e.minimize(&train, &test).unwrap();
        assert!(matches!(fit, Model::Ewma { alpha } if alpha > 0.9), "{fit:?}");
        assert!(!Model::Simple.can_be_minimized() && Model::Ewma { alpha: 0.3 }.can_be_minimized());
        let mut r = Rng(1);
        assert!((0..1000).map(|_| r.next_f64()).all(|v| (0.0..1.0).contains(&v)));
    }
}
