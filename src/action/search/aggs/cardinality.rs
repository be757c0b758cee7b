//! `cardinality`: distinct values counted by HyperLogLog++ (exact below `precision_threshold`,
//! as OpenSearch's linear counting), values hashed as OpenSearch's `CardinalityAggregator` hashes
//! them. Terms of a segment are hashed once each: a per-segment bitset of the ordinals already
//! added skips repeats.

use serde_json::{json, Map, Value};

use super::result::AggResult;
use super::sketch::hll::Hll;
use super::source::{resolve, token, NumKind, SegValues, SourceSpec, VType};
use super::{AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv};
use crate::engine::query::SegmentView;
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

fn new_hll(threshold: Option<u64>) -> Hll {
    match threshold {
        Some(t) => Hll::with_precision_threshold(t),
        None => Hll::with_precision(super::sketch::hll::DEFAULT_PRECISION),
    }
}

#[derive(Debug, Clone)]
pub struct CardinalitySpec {
    pub source: SourceSpec,
    /// `precision_threshold` (`None`: OpenSearch's default precision, 14).
    pub threshold: Option<u64>,
}

impl CardinalitySpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<CardinalitySpec> {
        let mut source = SourceSpec::default();
        let mut threshold = None;
        for (k, v) in body {
            if source.take("cardinality", k, v)? {
                continue;
            }
            match k.as_str() {
                "precision_threshold" => {
                    let n = v.as_i64().ok_or_else(|| {
                        OsError::parsing(format!(
                            "[cardinality] precision_threshold doesn't support values of type: {}",
                            token(v)
                        ))
                    })?;
                    if n < 0 {
                        return Err(OsError::illegal(format!(
                            "[precisionThreshold] must be greater than or equal to 0. Found [{n}] in [{name}]"
                        )));
                    }
                    threshold = Some(n as u64);
                }
                "rehash" | "execution_hint" => {}
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        "cardinality",
                        k,
                        &[
                            "field",
                            "script",
                            "missing",
                            "format",
                            "value_type",
                            "precision_threshold",
                            "execution_hint",
                        ],
                    )))
                }
            }
        }
        source.require("cardinality", name)?;
        Ok(CardinalitySpec { source, threshold })
    }
}

impl AggSpec for CardinalitySpec {
    fn type_name(&self) -> &'static str {
        "cardinality"
    }

    fn takes_subs(&self) -> bool {
        false
    }

    fn collector(&self, _def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let cfg = resolve(&self.source, env.qc, "cardinality")?;
        if matches!(cfg.vt, Some(VType::GeoPoint)) {
            return Err(super::source::unsupported(&cfg, "cardinality"));
        }
        Ok(Box::new(CardinalityCollector { cfg, threshold: self.threshold, states: Vec::new(), used: [0; 3] }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Cardinality(new_hll(self.threshold))
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, _rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let mut acc: Option<Hll> = None;
        for p in parts {
            if let AggResult::Cardinality(h) = p {
                match &mut acc {
                    None => acc = Some(h),
                    Some(a) => a.try_merge(&h).map_err(OsError::illegal)?,
                }
            }
        }
        Ok(acc.map(AggResult::Cardinality).unwrap_or_else(|| self.empty(def)))
    }

    fn render(&self, _def: &AggDef, r: &AggResult, _rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::Cardinality(h) = r else { return Err(OsError::internal("cardinality result of another kind")) };
        let mut m = Map::new();
        m.insert("value".into(), json!(h.cardinality()));
        Ok(m)
    }

    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        let AggResult::Cardinality(h) = r else { return Ok(f64::NAN) };
        match path {
            [] => Ok(h.cardinality() as f64),
            [p] if p == "value" => Ok(h.cardinality() as f64),
            _ => Err(OsError::illegal(format!("Invalid aggregation path [{}]: cardinality has one value", def.name))),
        }
    }
}

struct CardinalityCollector {
    cfg: super::source::Config,
    threshold: Option<u64>,
    states: Vec<Hll>,
    /// Segments collected with no values, by hashing numbers, through ordinals (each
    /// segment ordinal's term hashed once): the profile's `*_collectors_used`.
    used: [u64; 3],
}

impl Collector for CardinalityCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, _si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let num = match &self.cfg.vt {
            Some(VType::Num(k)) => Some(*k),
            _ => None,
        };
        let values = self.cfg.open(seg);
        self.used[match &values {
            SegValues::None => 0,
            SegValues::Num(_) => 1,
            SegValues::Bytes(_) => 2,
        }] += 1;
        Ok(Box::new(CardinalityLeaf {
            values,
            num,
            threshold: self.threshold,
            states: &mut self.states,
            seen: Vec::new(),
            missing_seen: Vec::new(),
        }))
    }

    fn result(&mut self, ord: u32) -> OsResult<AggResult> {
        Ok(AggResult::Cardinality(self.states.get(ord as usize).cloned().unwrap_or_else(|| new_hll(self.threshold))))
    }

    fn mem_bytes(&self) -> usize {
        self.states.iter().map(Hll::mem_bytes).sum()
    }

    fn debug(&self, add: &mut dyn FnMut(&'static str, Value)) {
        add("empty_collectors_used", json!(self.used[0]));
        add("numeric_collectors_used", json!(self.used[1]));
        add("ordinals_collectors_used", json!(self.used[2]));
        // Fathom's ordinals collector never gives up for its memory (OpenSearch's falls back
        // to hashing every value when the ordinals' bitsets would cost too much).
        add("ordinals_collectors_overhead_too_high", json!(0));
        add("string_hashing_collectors_used", json!(0));
    }
}

struct CardinalityLeaf<'a> {
    values: SegValues<'a>,
    num: Option<NumKind>,
    threshold: Option<u64>,
    states: &'a mut Vec<Hll>,
    /// Per owner: the segment ordinals already added.
    seen: Vec<Vec<u64>>,
    missing_seen: Vec<bool>,
}

impl LeafCollector for CardinalityLeaf<'_> {
    #[inline]
    fn collect(&mut self, doc: DocId, ord: u32, _score: f32) -> OsResult<()> {
        let o = ord as usize;
        if self.states.len() <= o {
            let t = self.threshold;
            self.states.resize_with(o + 1, || new_hll(t));
        }
        match &mut self.values {
            SegValues::Num(r) => {
                let k = self.num.unwrap_or(NumKind::Long);
                for &raw in r.values(doc) {
                    let h = match k {
                        NumKind::Double | NumKind::Scaled(_) => Hll::hash_double(k.to_f64(raw)),
                        // OpenSearch reads unsigned_long as a double here.
                        NumKind::Unsigned => Hll::hash_double(k.to_f64(raw)),
                        _ => Hll::hash_long(raw),
                    };
                    self.states[o].add_hash(h);
                }
            }
            SegValues::Bytes(r) => {
                if self.seen.len() <= o {
                    self.seen.resize_with(o + 1, Vec::new);
                }
                let n = r.value_count() as usize;
                let bits = &mut self.seen[o];
                if bits.is_empty() && n > 0 {
                    bits.resize(n.div_ceil(64), 0);
                }
                let mut any = false;
                let ords: smallvec::SmallVec<[u64; 4]> = r.ords(doc).iter().copied().collect();
                for so in ords {
                    any = true;
                    let (w, b) = (so as usize / 64, 1u64 << (so % 64));
                    if bits.get(w).is_some_and(|x| x & b != 0) {
                        continue;
                    }
                    if let Some(x) = bits.get_mut(w) {
                        *x |= b;
                    }
                    let term = r.term(so)?;
                    self.states[o].add_hash(Hll::hash_bytes(&term));
                }
                if !any {
                    if let Some(m) = r.missing.clone() {
                        if self.missing_seen.len() <= o {
                            self.missing_seen.resize(o + 1, false);
                        }
                        if !self.missing_seen[o] {
                            self.missing_seen[o] = true;
                            self.states[o].add_hash(Hll::hash_bytes(&m));
                        }
                    }
                }
            }
            SegValues::None => {}
        }
        Ok(())
    }
}
