//! The four scripts of `scripted_metric` (OpenSearch's `ScriptedMetricAggContexts`): `init`
//! and `map` (void, `state`; `map` also `doc` and `_score`), `combine` (`state`, returns the
//! shard's value) and `reduce` (`states`, returns the aggregation's value); all see `params`.

use serde_json::{Map, Value as Json};
use std::sync::Arc;

use super::doc::DocLookup;
use super::error::{self, CompileError};
use super::value::{self, Value};
use super::{ast, interp, lexer, parser, Compiled, ScriptError, PAINLESS};
use crate::error::ErrorKind;

/// Which script of the aggregation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Init,
    Map,
    Combine,
    Reduce,
}

impl Phase {
    fn vars(self) -> &'static [&'static str] {
        match self {
            Phase::Init | Phase::Combine => &["state"],
            Phase::Map => &["doc", "_score", "state"],
            Phase::Reduce => &["states"],
        }
    }
}

/// A compiled `scripted_metric` script.
#[derive(Debug, Clone)]
pub struct MetricScript {
    inner: Arc<Compiled>,
    phase: Phase,
    used_vars: u32,
}

/// One bucket's `state` and the scripts' `params` (lives on the collecting thread).
pub struct MetricState {
    state: Value,
}

impl MetricState {
    /// A fresh `state` (an empty map).
    pub fn new() -> MetricState {
        MetricState { state: Value::new_map(Default::default()) }
    }
}

impl Default for MetricState {
    fn default() -> Self {
        MetricState::new()
    }
}

impl MetricScript {
    pub fn compile(phase: Phase, source: &str, lang: Option<&str>) -> Result<MetricScript, ScriptError> {
        let lang = lang.unwrap_or(PAINLESS);
        if lang != PAINLESS {
            return Err(ScriptError::plain(ErrorKind::IllegalArgument, format!("script_lang not supported [{lang}]")));
        }
        let to_error = |e: CompileError| error::compile_error(source, lang, &e);
        let tokens = lexer::lex(source).map_err(to_error)?;
        let mut program = parser::parse_with_vars(source, tokens, "ctx", phase.vars()).map_err(to_error)?;
        if program.stmts.iter().all(|s| matches!(s, ast::Stmt::Empty)) {
            return Err(to_error(CompileError::new(0, "Cannot generate an empty script.".into())));
        }
        if matches!(phase, Phase::Combine | Phase::Reduce) {
            if let Some(last) = program.stmts.iter_mut().rev().find(|s| !matches!(s, ast::Stmt::Empty)) {
                if let ast::Stmt::Expr(e) = last {
                    *last = ast::Stmt::Return(Some(e.clone()));
                }
            }
        }
        let used_vars = program.used_vars;
        Ok(MetricScript { inner: Arc::new(Compiled::new(source, program)), phase, used_vars })
    }

    /// Whether a map script reads `_score`.
    pub fn uses_score(&self) -> bool {
        self.phase == Phase::Map && self.used_vars & 2 != 0
    }

    fn exec<'a>(
        &'a self,
        params: Value,
        vars: Vec<Value>,
        doc: Option<&'a mut (dyn DocLookup + 'a)>,
    ) -> Result<Json, ScriptError> {
        let program = &self.inner.program;
        value::reset_work();
        let mut exec = interp::Exec {
            locals: program.slot_types.iter().map(|t| interp::default_value(*t)).collect(),
            slot_types: &program.slot_types,
            budget: interp::MAX_LOOP_COUNTER,
            params,
            ctx: Value::Null,
            vars,
            doc,
        };
        let fail = |e: interp::RuntimeError| {
            let c = &self.inner;
            error::runtime_error(&c.source, PAINLESS, &c.program.statement_starts, e.at, e.kind, e.reason)
        };
        match exec.run(&program.stmts).map_err(fail)? {
            interp::Flow::Return(v) => v
                .to_json()
                .map_err(|r| fail(interp::RuntimeError { at: 0, kind: "illegal_argument_exception", reason: r })),
            _ => Ok(Json::Null),
        }
    }

    /// Runs an init or combine script on `st`; a combine script's value.
    pub fn run_state(&self, st: &MetricState, params: &Map<String, Json>) -> Result<Json, ScriptError> {
        self.exec(Value::new_map(value::map_from_json(params)), vec![st.state.clone()], None)
    }

    /// Runs the map script on the document `doc` looks up.
    pub fn run_map(
        &self,
        st: &MetricState,
        params: &Map<String, Json>,
        doc: &mut dyn DocLookup,
        score: f64,
    ) -> Result<(), ScriptError> {
        self.exec(
            Value::new_map(value::map_from_json(params)),
            vec![Value::Null, Value::Double(score), st.state.clone()],
            Some(doc),
        )
        .map(|_| ())
    }

    /// Runs the reduce script over the shards' combined values.
    pub fn run_reduce(&self, states: &[Json], params: &Map<String, Json>) -> Result<Json, ScriptError> {
        let states = Value::new_list(states.iter().map(Value::from_json).collect());
        self.exec(Value::new_map(value::map_from_json(params)), vec![states], None)
    }
}
