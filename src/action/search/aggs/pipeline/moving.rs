//! OpenSearch's `MovingFunctions` and the moving_fn scripts Fathom evaluates: a Painless
//! expression calling the built-ins on `values`, whose arguments are numbers, booleans,
//! `params.x` / `params['x']` and nested `MovingFunctions` calls (such as
//! `MovingFunctions.stdDev(values, MovingFunctions.unweightedAvg(values))`), optionally as
//! `return ...;`. Any other script is refused with a 400.

use serde_json::{Map, Value};

use crate::error::{OsError, OsResult};

/// Finds the maximum (NaN when empty).
pub fn max(values: &[f64]) -> f64 {
    values.iter().copied().fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| java_max(m, v)))).unwrap_or(f64::NAN)
}

/// Finds the minimum (NaN when empty).
pub fn min(values: &[f64]) -> f64 {
    values.iter().copied().fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| java_min(m, v)))).unwrap_or(f64::NAN)
}

// Java's Math.max/min (as DoubleStream.max uses): NaN wins.
fn java_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

fn java_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

pub fn sum(values: &[f64]) -> f64 {
    values.iter().filter(|v| !v.is_nan()).sum()
}

pub fn unweighted_avg(values: &[f64]) -> f64 {
    let (s, n) = values.iter().filter(|v| !v.is_nan()).fold((0.0, 0u64), |(s, n), v| (s + v, n + 1));
    if n == 0 {
        f64::NAN
    } else {
        s / n as f64
    }
}

pub fn std_dev(values: &[f64], avg: f64) -> f64 {
    if avg.is_nan() {
        return f64::NAN;
    }
    let (sq, n) = values.iter().filter(|v| !v.is_nan()).fold((0.0, 0u64), |(s, n), v| (s + (v - avg).powi(2), n + 1));
    (sq / n as f64).sqrt()
}

pub fn linear_weighted_avg(values: &[f64]) -> f64 {
    let (mut avg, mut total, mut current) = (0.0, 1i64, 1i64);
    for v in values.iter().filter(|v| !v.is_nan()) {
        avg += v * current as f64;
        total += current;
        current += 1;
    }
    if total == 1 {
        f64::NAN
    } else {
        avg / total as f64
    }
}

pub fn ewma(values: &[f64], alpha: f64) -> f64 {
    let mut avg = f64::NAN;
    let mut first = true;
    for &v in values.iter().filter(|v| !v.is_nan()) {
        if first {
            avg = v;
            first = false;
        } else {
            avg = v * alpha + avg * (1.0 - alpha);
        }
    }
    avg
}

pub fn holt(values: &[f64], alpha: f64, beta: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    holt_forecast(values, alpha, beta, 1)[0]
}

/// `holtForecast`: the smoothed value plus `i` times the trend, for `i` in `0..n` (NaNs when
/// no value is a number).
pub fn holt_forecast(values: &[f64], alpha: f64, beta: f64, n: usize) -> Vec<f64> {
    let (mut s, mut last_s, mut last_b) = (0.0, 0.0, 0.0);
    let mut b = 0.0;
    let mut counter = 0;
    for &v in values.iter().filter(|v| !v.is_nan()) {
        if counter == 0 {
            s = v;
            b = 0.0;
        } else {
            s = alpha * v + (1.0 - alpha) * (last_s + last_b);
            b = beta * (s - last_s) + (1.0 - beta) * last_b;
        }
        counter += 1;
        last_s = s;
        last_b = b;
    }
    if counter == 0 {
        return vec![f64::NAN; n];
    }
    (0..n).map(|i| s + i as f64 * b).collect()
}

pub fn holt_winters(values: &[f64], alpha: f64, beta: f64, gamma: f64, period: i64, mult: bool) -> OsResult<f64> {
    let padding = if mult { 0.000_000_000_1 } else { 0.0 };
    holt_winters_padded(values, alpha, beta, gamma, period, padding, mult)
}

/// Holt-Winters with an explicit padding of the values (moving_avg's `pad`).
pub fn holt_winters_padded(
    values: &[f64],
    alpha: f64,
    beta: f64,
    gamma: f64,
    period: i64,
    padding: f64,
    mult: bool,
) -> OsResult<f64> {
    if values.is_empty() {
        return Ok(f64::NAN);
    }
    Ok(holt_winters_forecast(values, alpha, beta, gamma, period, padding, mult, 1)?[0])
}

/// `holtWintersForecast`: the next `n` values (the trend times `i` and the season's factor at
/// `i`, for `i` in `1..=n`).
#[allow(clippy::too_many_arguments)]
pub fn holt_winters_forecast(
    values: &[f64],
    alpha: f64,
    beta: f64,
    gamma: f64,
    period: i64,
    padding: f64,
    mult: bool,
    n: usize,
) -> OsResult<Vec<f64>> {
    let period_u = period.max(0) as usize;
    if (values.len() as i64) < period * 2 {
        return Err(OsError::illegal(format!(
            "Holt-Winters aggregation requires at least (2 * period == 2 * {period} == {}) data-points to function.  Only [{}] were provided.",
            2 * period,
            values.len()
        )));
    }
    if period_u == 0 {
        return Err(OsError::illegal("Holt-Winters period must be a positive integer"));
    }
    let mut vs = vec![0.0; values.len()];
    let mut counter = 0;
    for &v in values.iter().filter(|v| !v.is_nan()) {
        vs[counter] = v + padding;
        counter += 1;
    }
    if counter == 0 {
        return Ok(vec![f64::NAN; n]);
    }
    let (mut s, mut b) = (0.0, 0.0);
    for i in 0..period_u {
        s += vs[i];
        b += (vs[i + period_u] - vs[i]) / period as f64;
    }
    s /= period as f64;
    b /= period as f64;
    let mut last_s = s;
    let mut last_b = 0.0;
    let mut seasonal = vec![0.0; values.len()];
    if s != 0.0 {
        for i in 0..period_u {
            seasonal[i] = vs[i] / s;
        }
    }
    for i in period_u..vs.len() {
        s = if mult {
            alpha * (vs[i] / seasonal[i - period_u]) + (1.0 - alpha) * (last_s + last_b)
        } else {
            alpha * (vs[i] - seasonal[i - period_u]) + (1.0 - alpha) * (last_s + last_b)
        };
        b = beta * (s - last_s) + (1.0 - beta) * last_b;
        seasonal[i] = if mult {
            gamma * (vs[i] / (last_s + last_b)) + (1.0 - gamma) * seasonal[i - period_u]
        } else {
            gamma * (vs[i] - (last_s - last_b)) + (1.0 - gamma) * seasonal[i - period_u]
        };
        last_s = s;
        last_b = b;
    }
    Ok((1..=n)
        .map(|i| {
            let idx = values.len() - period_u + ((i - 1) % period_u);
            if mult {
                (s + i as f64 * b) * seasonal[idx]
            } else {
                s + i as f64 * b + seasonal[idx]
            }
        })
        .collect())
}

/// A parsed moving_fn script expression.
#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Num(f64),
    Bool(bool),
    Param(String),
    Values,
    Call(String, Vec<Expr>),
}

/// A moving_fn script Fathom can evaluate, with its params.
#[derive(Debug, Clone)]
pub struct MovingScript {
    source: String,
    expr: Expr,
    params: Map<String, Value>,
}

fn unsupported(src: &str) -> OsError {
    OsError::illegal(format!(
        "moving_fn script [{src}] is not supported: Fathom evaluates only MovingFunctions calls on [values] (max, min, sum, unweightedAvg, linearWeightedAvg, ewma, holt, holtWinters, stdDev) with number, boolean and params arguments"
    ))
}

struct P<'a> {
    s: &'a [u8],
    at: usize,
}

impl P<'_> {
    fn ws(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.at..].starts_with(t.as_bytes()) {
            self.at += t.len();
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Option<String> {
        self.ws();
        let start = self.at;
        while self.at < self.s.len() && (self.s[self.at].is_ascii_alphanumeric() || self.s[self.at] == b'_') {
            self.at += 1;
        }
        (self.at > start).then(|| String::from_utf8_lossy(&self.s[start..self.at]).into_owned())
    }

    fn expr(&mut self) -> Option<Expr> {
        self.ws();
        let c = *self.s.get(self.at)?;
        if c.is_ascii_digit() || c == b'-' || c == b'.' {
            let start = self.at;
            self.at += 1;
            while self.at < self.s.len() && (self.s[self.at].is_ascii_alphanumeric() || self.s[self.at] == b'.') {
                self.at += 1;
            }
            let t = String::from_utf8_lossy(&self.s[start..self.at]).into_owned();
            let t = t.trim_end_matches(['d', 'D', 'f', 'F', 'l', 'L']);
            return t.parse().ok().map(Expr::Num);
        }
        let id = self.ident()?;
        match id.as_str() {
            "true" => Some(Expr::Bool(true)),
            "false" => Some(Expr::Bool(false)),
            "values" => Some(Expr::Values),
            "params" => {
                if self.eat(".") {
                    return self.ident().map(Expr::Param);
                }
                if self.eat("[") {
                    self.ws();
                    let q = *self.s.get(self.at)?;
                    if q != b'\'' && q != b'"' {
                        return None;
                    }
                    self.at += 1;
                    let start = self.at;
                    while self.at < self.s.len() && self.s[self.at] != q {
                        self.at += 1;
                    }
                    let name = String::from_utf8_lossy(&self.s[start..self.at]).into_owned();
                    self.at += 1;
                    return self.eat("]").then_some(Expr::Param(name));
                }
                None
            }
            "MovingFunctions" => {
                if !self.eat(".") {
                    return None;
                }
                let f = self.ident()?;
                if !self.eat("(") {
                    return None;
                }
                let mut args = Vec::new();
                if !self.eat(")") {
                    loop {
                        args.push(self.expr()?);
                        if self.eat(")") {
                            break;
                        }
                        if !self.eat(",") {
                            return None;
                        }
                    }
                }
                Some(Expr::Call(f, args))
            }
            _ => None,
        }
    }
}

/// A value while evaluating: a number, a boolean or the window.
enum V<'a> {
    N(f64),
    B(bool),
    Values(&'a [f64]),
}

impl MovingScript {
    /// Parses the moving_fn `script` (a string or `{source, lang, params}`).
    pub fn parse(v: &Value) -> OsResult<MovingScript> {
        let req = super::script_request(v)?;
        if req.lang != crate::script::PAINLESS {
            return Err(OsError::illegal(format!("script_lang not supported [{}]", req.lang)));
        }
        let src = req.source.trim();
        let body = src.strip_prefix("return ").unwrap_or(src).trim().trim_end_matches(';').trim();
        let mut p = P { s: body.as_bytes(), at: 0 };
        let expr = p.expr().ok_or_else(|| unsupported(src))?;
        p.ws();
        if p.at != body.len() || !matches!(expr, Expr::Call(..)) {
            return Err(unsupported(src));
        }
        let s = MovingScript { source: src.to_string(), expr, params: req.params };
        s.check(&s.expr)?;
        Ok(s)
    }

    /// Checks the calls' names and arities (Painless fails to compile others).
    fn check(&self, e: &Expr) -> OsResult<()> {
        if let Expr::Call(f, args) = e {
            let arity = match f.as_str() {
                "max" | "min" | "sum" | "unweightedAvg" | "linearWeightedAvg" => 1,
                "ewma" | "stdDev" => 2,
                "holt" => 3,
                "holtWinters" => 6,
                _ => {
                    return Err(OsError::illegal(format!(
                        "Unknown call [{f}] with [{}] arguments on type [MovingFunctions].",
                        args.len()
                    )))
                }
            };
            if args.len() != arity {
                return Err(OsError::illegal(format!(
                    "Unknown call [{f}] with [{}] arguments on type [MovingFunctions].",
                    args.len()
                )));
            }
            for a in args {
                self.check(a)?;
            }
        }
        Ok(())
    }

    fn eval<'a>(&self, e: &Expr, values: &'a [f64]) -> OsResult<V<'a>> {
        Ok(match e {
            Expr::Num(n) => V::N(*n),
            Expr::Bool(b) => V::B(*b),
            Expr::Values => V::Values(values),
            Expr::Param(p) => match self.params.get(p) {
                Some(Value::Number(n)) => V::N(n.as_f64().unwrap_or(f64::NAN)),
                Some(Value::Bool(b)) => V::B(*b),
                Some(other) => {
                    return Err(OsError::illegal(format!(
                        "moving_fn script [{}]: params.{p} is not a number: {other}",
                        self.source
                    )))
                }
                None => {
                    return Err(OsError::illegal(format!(
                        "moving_fn script [{}]: params.{p} is null (not in the script's params)",
                        self.source
                    )))
                }
            },
            Expr::Call(f, args) => {
                let vals: Vec<V<'a>> = args.iter().map(|a| self.eval(a, values)).collect::<OsResult<_>>()?;
                let bad = || OsError::illegal(format!("moving_fn script [{}]: bad arguments to [{f}]", self.source));
                let arr = match vals.first() {
                    Some(V::Values(v)) => *v,
                    _ => return Err(bad()),
                };
                let num = |i: usize| match vals.get(i) {
                    Some(V::N(n)) => Ok(*n),
                    _ => Err(bad()),
                };
                V::N(match f.as_str() {
                    "max" => max(arr),
                    "min" => min(arr),
                    "sum" => sum(arr),
                    "unweightedAvg" => unweighted_avg(arr),
                    "linearWeightedAvg" => linear_weighted_avg(arr),
                    "ewma" => ewma(arr, num(1)?),
                    "stdDev" => std_dev(arr, num(1)?),
                    "holt" => holt(arr, num(1)?, num(2)?),
                    "holtWinters" => {
                        let mult = match vals.get(5) {
                            Some(V::B(b)) => *b,
                            _ => return Err(bad()),
                        };
                        holt_winters(arr, num(1)?, num(2)?, num(3)?, num(4)? as i64, mult)?
                    }
                    _ => return Err(bad()),
                })
            }
        })
    }

    /// Runs the script on one window of values.
    pub fn execute(&self, values: &[f64]) -> OsResult<f64> {
        match self.eval(&self.expr, values)? {
            V::N(n) => Ok(n),
            _ => Err(OsError::illegal(format!("moving_fn script [{}] must return a double", self.source))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn built_ins_follow_opensearch() {
        let v = [1.0, 2.0, f64::NAN, 4.0];
        assert_eq!(sum(&v), 7.0);
        assert_eq!(unweighted_avg(&v), 7.0 / 3.0);
        // weights 1, 2, 3 over 1, 2, 4 with a starting total weight of 1.
        assert_eq!(linear_weighted_avg(&v), (1.0 + 4.0 + 12.0) / 7.0);
        assert_eq!(ewma(&[1.0, 3.0], 0.5), 2.0);
        assert!(max(&[]).is_nan());
        assert_eq!(max(&[1.0, 5.0, 2.0]), 5.0);
        assert_eq!(min(&[1.0, 5.0, 2.0]), 1.0);
        assert_eq!(std_dev(&[1.0, 3.0], 2.0), 1.0);
        assert!(unweighted_avg(&[]).is_nan());
        assert_eq!(holt(&[1.0], 0.5, 0.5), 1.0);
        assert!(holt_winters(&[1.0, 2.0], 0.5, 0.5, 0.5, 2, false).is_err());
    }

    #[test]
    fn evaluates_calls_with_params_and_nesting() {
        let s = MovingScript::parse(&json!("MovingFunctions.max(values)")).unwrap();
        assert_eq!(s.execute(&[1.0, 3.0, 2.0]).unwrap(), 3.0);
        let s = MovingScript::parse(
            &json!({"source": "return MovingFunctions.ewma(values, params.a);", "params": {"a": 1.0}}),
        )
        .unwrap();
        assert_eq!(s.execute(&[1.0, 3.0]).unwrap(), 3.0);
        let s = MovingScript::parse(&json!("MovingFunctions.stdDev(values, MovingFunctions.unweightedAvg(values))"))
            .unwrap();
        assert_eq!(s.execute(&[1.0, 3.0]).unwrap(), 1.0);
        assert!(MovingScript::parse(&json!("MovingFunctions.windowMax(values)")).is_err());
        assert!(MovingScript::parse(&json!("values[0] + 1")).is_err());
        assert!(MovingScript::parse(&json!("MovingFunctions.holt(values, 0.5)")).is_err());
        let s = MovingScript::parse(&json!("MovingFunctions.ewma(values, params.missing)")).unwrap();
        assert!(s.execute(&[1.0]).is_err());
    }
}
