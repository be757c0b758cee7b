//! `weighted_avg` (OpenSearch's `WeightedAvgAggregator`): `sum(value * weight) / sum(weight)`
//! over two numeric value sources, each with its own `missing`; a document counts when it has
//! both a value and a weight (each of its values with the weight), and a document with several
//! weights is an error. Sums are Kahan-compensated as OpenSearch's.

use serde_json::{json, Map, Value};

use super::fmt::{double, Fmt};
use super::result::{AggResult, WeightedAvg};
use super::source::{resolve, token, NumKind, SegValues, SourceSpec};
use super::{AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv};
use crate::engine::query::SegmentView;
use crate::engine::segment::DocId;
use crate::error::{ErrorKind, OsError, OsResult};

const T: &str = "weighted_avg";

/// A parsed `weighted_avg`.
#[derive(Debug, Clone)]
pub struct WeightedAvgSpec {
    pub value: SourceSpec,
    pub weight: SourceSpec,
    pub format: Option<String>,
}

/// One `value` or `weight` object (`field`, `script`, `missing`).
fn field_config(key: &str, v: &Value) -> OsResult<SourceSpec> {
    let Value::Object(m) = v else {
        return Err(OsError::parsing(format!("[{T}] {key} doesn't support values of type: {}", token(v))));
    };
    let mut s = SourceSpec::default();
    for (k, x) in m {
        match k.as_str() {
            "field" | "script" | "missing" => {
                s.take(key, k, x)?;
            }
            _ => return Err(OsError::parsing(crate::error::unknown_field(key, k, &["field", "script", "missing"]))),
        }
    }
    if s.field.is_none() && s.script.is_none() {
        return Err(OsError::illegal("[field] and [script] cannot both be null.  Please specify one or the other."));
    }
    Ok(s)
}

impl WeightedAvgSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<WeightedAvgSpec> {
        let (mut value, mut weight, mut format) = (None, None, None);
        for (k, v) in body {
            match k.as_str() {
                "value" => value = Some(field_config(k, v)?),
                "weight" => weight = Some(field_config(k, v)?),
                "format" => format = Some(super::source::string(T, k, v)?),
                "value_type" | "valueType" => {
                    let t = super::source::string(T, k, v)?;
                    if !matches!(t.as_str(), "number" | "numeric" | "long" | "double" | "float" | "integer" | "date") {
                        return Err(OsError::illegal(format!(
                            "Aggregation [{name}] of type [{T}] does not support value type [{t}]"
                        )));
                    }
                }
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        T,
                        k,
                        &["value", "weight", "format", "value_type"],
                    )))
                }
            }
        }
        let need = |what: &str| OsError::illegal(format!("[{what}] must be set on aggregation [{name}] of type [{T}]"));
        Ok(WeightedAvgSpec {
            value: value.ok_or_else(|| need("value"))?,
            weight: weight.ok_or_else(|| need("weight"))?,
            format,
        })
    }

    fn fmt(&self) -> Fmt {
        self.format.clone().map_or(Fmt::Raw, Fmt::Decimal)
    }
}

impl AggSpec for WeightedAvgSpec {
    fn type_name(&self) -> &'static str {
        T
    }

    fn takes_subs(&self) -> bool {
        false
    }

    fn collector(&self, _def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let value = resolve(&self.value, env.qc, T)?;
        let weight = resolve(&self.weight, env.qc, T)?;
        let vk = value.numeric(T)?;
        let wk = weight.numeric(T)?;
        Ok(Box::new(WeightedCollector { value, weight, kinds: (vk, wk), states: Vec::new() }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::WeightedAvg(WeightedAvg::default())
    }

    fn reduce(&self, _def: &AggDef, parts: Vec<AggResult>, _rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let mut out = WeightedAvg::default();
        for p in parts {
            if let AggResult::WeightedAvg(w) = p {
                out.sum.add(w.sum.value);
                out.weights.add(w.weights.value);
            }
        }
        Ok(AggResult::WeightedAvg(out))
    }

    fn render(&self, _def: &AggDef, r: &AggResult, _rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::WeightedAvg(w) = r else { return Err(OsError::internal("weighted_avg result of another kind")) };
        let mut m = Map::new();
        if w.weights.value == 0.0 {
            m.insert("value".into(), Value::Null);
        } else {
            let v = w.sum.value / w.weights.value;
            m.insert("value".into(), double(v));
            let fmt = self.fmt();
            if let Some(s) = fmt.number_string(v).filter(|_| !fmt.is_raw()) {
                m.insert("value_as_string".into(), json!(s));
            }
        }
        Ok(m)
    }

    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        let AggResult::WeightedAvg(w) = r else { return Ok(f64::NAN) };
        match path.first().map(String::as_str) {
            None | Some("value") => Ok(w.sum.value / w.weights.value),
            Some(p) => Err(OsError::illegal(format!("path not supported for [{}]: [{p}]", def.name))),
        }
    }
}

struct WeightedCollector {
    value: super::source::Config,
    weight: super::source::Config,
    kinds: (Option<NumKind>, Option<NumKind>),
    states: Vec<WeightedAvg>,
}

impl Collector for WeightedCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, _si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        Ok(Box::new(WeightedLeaf {
            value: self.value.open(seg),
            weight: self.weight.open(seg),
            kinds: self.kinds,
            states: &mut self.states,
        }))
    }

    fn result(&mut self, ord: u32) -> OsResult<AggResult> {
        Ok(AggResult::WeightedAvg(self.states.get(ord as usize).cloned().unwrap_or_default()))
    }

    fn mem_bytes(&self) -> usize {
        self.states.capacity() * std::mem::size_of::<WeightedAvg>()
    }
}

struct WeightedLeaf<'a> {
    value: SegValues<'a>,
    weight: SegValues<'a>,
    kinds: (Option<NumKind>, Option<NumKind>),
    states: &'a mut Vec<WeightedAvg>,
}

impl LeafCollector for WeightedLeaf<'_> {
    fn collect(&mut self, doc: DocId, ord: u32, _score: f32) -> OsResult<()> {
        let (SegValues::Num(v), SegValues::Num(w), (Some(vk), Some(wk))) =
            (&mut self.value, &mut self.weight, self.kinds)
        else {
            return Ok(());
        };
        let ws = w.values(doc);
        let weight = match ws {
            [] => return Ok(()),
            [x] => wk.to_f64(*x),
            _ => {
                return Err(OsError::new(
                    ErrorKind::AggregationExecution,
                    "Encountered more than one weight for a single document. Use a script to combine multiple weights-per-doc into a single value.",
                ))
            }
        };
        let vs = v.values(doc);
        if vs.is_empty() {
            return Ok(());
        }
        let o = ord as usize;
        if self.states.len() <= o {
            self.states.resize_with(o + 1, WeightedAvg::default);
        }
        let st = &mut self.states[o];
        for x in vs {
            st.sum.add(vk.to_f64(*x) * weight);
            st.weights.add(weight);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsing_and_reduce() {
        let p = |v: Value| WeightedAvgSpec::parse("w", v.as_object().unwrap());
        let s = p(json!({"value": {"field": "a", "missing": 1}, "weight": {"field": "b"}, "format": "0.0"})).unwrap();
        assert_eq!(s.value.field.as_deref(), Some("a"));
        assert_eq!(s.value.missing, Some(json!(1)));
        let e = p(json!({"value": {"field": "a"}})).unwrap_err().to_string();
        assert!(e.contains("[weight] must be set"), "{e}");
        let e = p(json!({"value": {"nope": "a"}, "weight": {"field": "b"}})).unwrap_err().to_string();
        assert!(e.contains("[value] unknown field [nope]"), "{e}");
        let defs = super::super::parse::parse_aggs(
            &json!({"w": {"weighted_avg": {"value": {"field": "a"}, "weight": {"field": "b"}}}}),
        )
        .unwrap();
        let d = &defs[0];
        let part = |sum: f64, w: f64| {
            let mut x = WeightedAvg::default();
            x.sum.add(sum);
            x.weights.add(w);
            AggResult::WeightedAvg(x)
        };
        let r = d.spec.reduce(d, vec![part(10.0, 4.0), part(2.0, 1.0)], &mut ReduceCtx::new(true, 10)).unwrap();
        let m = d.spec.render(d, &r, &RenderCtx::default()).unwrap();
        assert_eq!(m["value"], json!(2.4));
        let m = d.spec.render(d, &d.empty(), &RenderCtx::default()).unwrap();
        assert_eq!(m["value"], Value::Null);
    }
}
