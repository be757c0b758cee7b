//! `scripted_metric` (OpenSearch's `ScriptedMetricAggregator` and `InternalScriptedMetric`):
//! per owning bucket a `state` map set up by `init_script`, fed each document by `map_script`,
//! turned into the shard's value by `combine_script`; the coordinator's final reduce runs
//! `reduce_script` over the shards' values (`states`). The response is `{"value": ...}`.

use serde_json::{Map, Value};

use super::result::AggResult;
use super::script_source::SegLookup;
use super::{AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv};
use crate::action::script_glue::search_script_error;
use crate::engine::query::SegmentView;
use crate::engine::schema::Mapping;
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};
use crate::script::{parse_script_request, MetricPhase, MetricScript, MetricState};

/// One script with its params merged with the aggregation's.
#[derive(Debug, Clone)]
struct Phased {
    script: MetricScript,
    params: Map<String, Value>,
}

#[derive(Debug)]
pub struct ScriptedMetricSpec {
    init: Option<Phased>,
    map: Phased,
    combine: Phased,
    reduce: Phased,
}

fn phased(phase: MetricPhase, v: &Value, agg_params: &Map<String, Value>) -> OsResult<Phased> {
    let req = parse_script_request(v).map_err(|e| search_script_error(&e))?;
    let script = MetricScript::compile(phase, &req.source, Some(&req.lang)).map_err(|e| search_script_error(&e))?;
    let mut params = agg_params.clone();
    for (k, v) in req.params {
        if params.contains_key(&k) {
            return Err(OsError::illegal(format!(
                "Parameter name \"{k}\" used in both aggregation and script parameters"
            )));
        }
        params.insert(k, v);
    }
    Ok(Phased { script, params })
}

impl ScriptedMetricSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<ScriptedMetricSpec> {
        let mut scripts: [Option<&Value>; 4] = [None; 4];
        let mut params = Map::new();
        for (k, v) in body {
            match k.as_str() {
                "init_script" => scripts[0] = Some(v),
                "map_script" => scripts[1] = Some(v),
                "combine_script" => scripts[2] = Some(v),
                "reduce_script" => scripts[3] = Some(v),
                "params" => match v {
                    Value::Object(m) => params = m.clone(),
                    other => {
                        return Err(OsError::parsing(format!(
                            "[scripted_metric] params doesn't support values of type: {}",
                            super::source::token(other)
                        )))
                    }
                },
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        "scripted_metric",
                        k,
                        &["init_script", "map_script", "combine_script", "reduce_script", "params"],
                    )))
                }
            }
        }
        let [init, map, combine, reduce] = scripts;
        let Some(map) = map else {
            return Err(OsError::illegal(format!("[mapScript] must not be null: [{name}]")));
        };
        let Some(combine) = combine else {
            return Err(OsError::illegal(format!("[combineScript] must not be null: [{name}]")));
        };
        let Some(reduce) = reduce else {
            return Err(OsError::illegal(format!("[reduceScript] must not be null: [{name}]")));
        };
        Ok(ScriptedMetricSpec {
            init: init.map(|v| phased(MetricPhase::Init, v, &params)).transpose()?,
            map: phased(MetricPhase::Map, map, &params)?,
            combine: phased(MetricPhase::Combine, combine, &params)?,
            reduce: phased(MetricPhase::Reduce, reduce, &params)?,
        })
    }
}

struct ScriptedCollector {
    init: Option<Phased>,
    map: Phased,
    combine: Phased,
    mapping: Mapping,
    states: Vec<Option<MetricState>>,
}

/// The state of owning bucket `ord`, made (and initialised) on first use.
fn state<'s>(states: &'s mut Vec<Option<MetricState>>, init: &Option<Phased>, ord: u32) -> OsResult<&'s MetricState> {
    let i = ord as usize;
    if states.len() <= i {
        states.resize_with(i + 1, || None);
    }
    if states[i].is_none() {
        let st = MetricState::new();
        if let Some(init) = init {
            init.script.run_state(&st, &init.params).map_err(|e| search_script_error(&e))?;
        }
        states[i] = Some(st);
    }
    states[i].as_ref().ok_or_else(|| OsError::internal("scripted_metric state"))
}

impl Collector for ScriptedCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, _si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let ScriptedCollector { init, map, mapping, states, .. } = self;
        Ok(Box::new(ScriptedLeaf { lookup: SegLookup::new(seg, mapping), init, map, states }))
    }
    fn result(&mut self, ord: u32) -> OsResult<AggResult> {
        let st = state(&mut self.states, &self.init, ord)?;
        let v = self.combine.script.run_state(st, &self.combine.params).map_err(|e| search_script_error(&e))?;
        Ok(AggResult::Scripted(vec![v]))
    }
    fn needs_scores(&self) -> bool {
        self.map.script.uses_score()
    }
}

struct ScriptedLeaf<'a> {
    lookup: SegLookup<'a>,
    init: &'a Option<Phased>,
    map: &'a Phased,
    states: &'a mut Vec<Option<MetricState>>,
}

impl LeafCollector for ScriptedLeaf<'_> {
    fn collect(&mut self, doc: DocId, ord: u32, score: f32) -> OsResult<()> {
        let st = state(self.states, self.init, ord)?;
        self.lookup.doc = doc;
        let score = if score.is_nan() { 0.0 } else { score as f64 };
        self.map.script.run_map(st, &self.map.params, &mut self.lookup, score).map_err(|e| search_script_error(&e))
    }
}

impl AggSpec for ScriptedMetricSpec {
    fn type_name(&self) -> &'static str {
        "scripted_metric"
    }
    fn collector(&self, _def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        Ok(Box::new(ScriptedCollector {
            init: self.init.clone(),
            map: self.map.clone(),
            combine: self.combine.clone(),
            mapping: env.qc.mapping.clone(),
            states: Vec::new(),
        }))
    }
    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Scripted(Vec::new())
    }
    fn reduce(&self, _def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let mut states = Vec::new();
        for p in parts {
            match p {
                AggResult::Scripted(v) => states.extend(v),
                _ => return Err(OsError::internal("scripted_metric result of another kind")),
            }
        }
        if !rc.final_reduce {
            return Ok(AggResult::Scripted(states));
        }
        let v = self.reduce.script.run_reduce(&states, &self.reduce.params).map_err(|e| search_script_error(&e))?;
        Ok(AggResult::Scripted(vec![v]))
    }
    fn render(&self, _def: &AggDef, r: &AggResult, _rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::Scripted(v) = r else { return Err(OsError::internal("scripted_metric result of another kind")) };
        let mut m = Map::new();
        m.insert("value".into(), v.first().cloned().unwrap_or(Value::Null));
        Ok(m)
    }
    fn takes_subs(&self) -> bool {
        false
    }
}
