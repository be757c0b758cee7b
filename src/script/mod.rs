//! A Painless subset for `_update` (and `_reindex`) scripts, interpreted over `serde_json` values.
//!
//! ```text
//! lexer.rs    source → tokens (byte offsets)
//! parser/     tokens → ast.rs (locals resolved to slots, compile errors with positions)
//! interp.rs   statements, expressions, assignment, loop budget
//! methods.rs  List / Map / String / Number methods, Math & co., constructors
//! digest.rs   SHA-1 / SHA-256 of `String.sha1()` / `sha256()`
//! arith.rs    Java numeric promotion, overflow, division
//! value.rs    runtime values (Java's reference semantics for lists and maps), JSON in and out
//! error.rs    ScriptError shaped like OpenSearch's script_exception
//! request.rs  the request's `script` object (string, {source, lang, params}, {id})
//! ```
//!
//! How the update action drives it (crate-internal; `tests/constructs.rs` runs the same steps):
//!
//! ```text
//! use fathom::script::{Script, UpdateContext};
//! let script = Script::compile("ctx._source.counter += params.n", None).unwrap();
//! let mut ctx = UpdateContext::new("idx", "1", 1, serde_json::json!({"counter": 1}).as_object().unwrap().clone());
//! let params = serde_json::json!({"n": 2}).as_object().unwrap().clone();
//! script.execute_update(&mut ctx, &params).unwrap();
//! assert_eq!(ctx.source["counter"], serde_json::json!(3));
//! ```
//!
//! What is not here: lambdas, functions, `try`/`catch`, arrays, regexes (disabled, as with
//! `script.painless.regex.enabled: false`), stored scripts. `doc[...]` exists only in search contexts (search.rs, doc.rs). A list or map that
//! is made to contain itself is refused when the result is converted back to JSON.

// `ScriptError` mirrors OpenSearch's script_exception field by field; it is built only on the
// failure path, so its size does not matter there.
#![allow(clippy::result_large_err)]

mod arith;
mod ast;
mod date;
mod digest;
mod doc;
mod error;
mod interp;
mod lexer;
mod methods;
mod metric;
mod parser;
mod request;
mod search;
mod value;

#[cfg(test)]
mod tests;

use crate::error::ErrorKind;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value as Json};

pub use doc::{DocLookup, DocValue};
pub use error::ScriptError;
pub use metric::{MetricScript, MetricState, Phase as MetricPhase};
pub use request::{parse_script_request, ScriptRequest};
pub use search::{AggItem, AggOut, SearchScript};

use value::Value;

/// The only language Fathom runs.
pub const PAINLESS: &str = "painless";

/// A compiled script; cloning is cheap (the tree is shared).
#[derive(Debug, Clone)]
pub struct Script {
    inner: Arc<Compiled>,
}

#[derive(Debug)]
pub(crate) struct Compiled {
    pub(crate) source: String,
    pub(crate) program: parser::Program,
}

/// What an aggregation script returned.
#[derive(Debug, Clone, PartialEq)]
pub enum AggScriptValue {
    Null,
    Bool(bool),
    Number(f64),
    /// Anything else, by its Java class name.
    Other(&'static str),
}

/// The `ctx` of an update script. `op` starts as `"index"`; the script may set it to `"noop"`,
/// `"none"` or `"delete"` (any other value is the caller's to reject or ignore, as OpenSearch's
/// `UpdateHelper` does).
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateContext {
    pub source: Map<String, Json>,
    pub op: String,
    pub id: String,
    pub index: String,
    pub version: i64,
    pub routing: Option<String>,
    pub now_millis: i64,
}

impl UpdateContext {
    /// A context with `op = "index"`, no routing and `_now` from the system clock.
    #[cfg(test)]
    pub fn new(index: &str, id: &str, version: i64, source: Map<String, Json>) -> UpdateContext {
        let now_millis = crate::clock::now_millis();
        UpdateContext {
            source,
            op: "index".into(),
            id: id.into(),
            index: index.into(),
            version,
            routing: None,
            now_millis,
        }
    }
}

/// Scripts compiled by this process (`_nodes/stats` `script.compilations`; Fathom keeps no
/// script cache, so every compilation is counted and nothing is evicted).
pub static COMPILATIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Compiled {
    /// A compiled program, counted in [`COMPILATIONS`].
    pub(crate) fn new(source: &str, program: parser::Program) -> Compiled {
        COMPILATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Compiled { source: source.to_string(), program }
    }
}

impl Script {
    /// Compiles `source`. `lang` defaults to `painless`; any other language is OpenSearch's
    /// `illegal_argument_exception` "script_lang not supported [lang]".
    pub fn compile(source: &str, lang: Option<&str>) -> Result<Script, ScriptError> {
        let lang = lang.unwrap_or(PAINLESS);
        if lang != PAINLESS {
            return Err(ScriptError::plain(ErrorKind::IllegalArgument, format!("script_lang not supported [{lang}]")));
        }
        let to_error = |e: error::CompileError| error::compile_error(source, lang, &e);
        let tokens = lexer::lex(source).map_err(to_error)?;
        let program = parser::parse(source, tokens).map_err(to_error)?;
        if program.stmts.iter().all(|s| matches!(s, ast::Stmt::Empty)) {
            return Err(to_error(error::CompileError::new(0, "Cannot generate an empty script.".into())));
        }
        Ok(Script { inner: Arc::new(Compiled::new(source, program)) })
    }

    /// Compiles an analysis predicate script (Painless's `AnalysisPredicateScript`): the token is
    /// the context variable `token` (run it with [`Script::execute_ctx`], the token's attributes
    /// as the map), and a last expression statement is the script's value, as Painless returns
    /// it for a `boolean` script.
    pub fn compile_analysis_predicate(source: &str, lang: Option<&str>) -> Result<Script, ScriptError> {
        let lang = lang.unwrap_or(PAINLESS);
        if lang != PAINLESS {
            return Err(ScriptError::plain(ErrorKind::IllegalArgument, format!("script_lang not supported [{lang}]")));
        }
        let to_error = |e: error::CompileError| error::compile_error(source, lang, &e);
        let tokens = lexer::lex(source).map_err(to_error)?;
        let mut program = parser::parse_with_context(source, tokens, "token").map_err(to_error)?;
        if program.stmts.iter().all(|s| matches!(s, ast::Stmt::Empty)) {
            return Err(to_error(error::CompileError::new(0, "Cannot generate an empty script.".into())));
        }
        if let Some(last) = program.stmts.iter_mut().rev().find(|s| !matches!(s, ast::Stmt::Empty)) {
            if let ast::Stmt::Expr(e) = last {
                *last = ast::Stmt::Return(Some(e.clone()));
            }
        }
        Ok(Script { inner: Arc::new(Compiled::new(source, program)) })
    }

    /// Compiles an aggregation script (`bucket_script`, `bucket_selector`): its value is a
    /// `return` or, as Painless returns for these non-void contexts, its last expression.
    pub fn compile_aggregation(source: &str, lang: Option<&str>) -> Result<Script, ScriptError> {
        let lang = lang.unwrap_or(PAINLESS);
        if lang != PAINLESS {
            return Err(ScriptError::plain(ErrorKind::IllegalArgument, format!("script_lang not supported [{lang}]")));
        }
        let to_error = |e: error::CompileError| error::compile_error(source, lang, &e);
        let tokens = lexer::lex(source).map_err(to_error)?;
        let mut program = parser::parse(source, tokens).map_err(to_error)?;
        if program.stmts.iter().all(|s| matches!(s, ast::Stmt::Empty)) {
            return Err(to_error(error::CompileError::new(0, "Cannot generate an empty script.".into())));
        }
        if let Some(last) = program.stmts.iter_mut().rev().find(|s| !matches!(s, ast::Stmt::Empty)) {
            if let ast::Stmt::Expr(e) = last {
                *last = ast::Stmt::Return(Some(e.clone()));
            }
        }
        Ok(Script { inner: Arc::new(Compiled::new(source, program)) })
    }

    /// Runs an aggregation script with `params` plus the numeric variables `vars` (doubles,
    /// `NaN` included, or null) in `params`, and returns what it returned.
    pub fn execute_aggregation(
        &self,
        params: &Map<String, Json>,
        vars: &[(String, Option<f64>)],
    ) -> Result<AggScriptValue, ScriptError> {
        let mut map = value::map_from_json(params);
        for (k, v) in vars {
            map.insert(k.clone(), v.map_or(Value::Null, Value::Double));
        }
        let program = &self.inner.program;
        value::reset_work();
        let mut exec = interp::Exec {
            locals: program.slot_types.iter().map(|t| interp::default_value(*t)).collect(),
            slot_types: &program.slot_types,
            budget: interp::MAX_LOOP_COUNTER,
            params: Value::new_map(map),
            ctx: Value::Null,
            vars: Vec::new(),
            doc: None,
        };
        let flow = exec.run(&program.stmts).map_err(|e| self.runtime_failure(e.at, e.kind, e.reason))?;
        Ok(match flow {
            interp::Flow::Return(v) => match v {
                Value::Null => AggScriptValue::Null,
                Value::Bool(b) => AggScriptValue::Bool(b),
                Value::Int(n) => AggScriptValue::Number(n as f64),
                Value::Long(n) => AggScriptValue::Number(n as f64),
                Value::Float(n) => AggScriptValue::Number(n as f64),
                Value::Double(n) => AggScriptValue::Number(n),
                other => AggScriptValue::Other(other.java_class()),
            },
            _ => AggScriptValue::Null,
        })
    }

    pub fn source(&self) -> &str {
        &self.inner.source
    }

    /// Runs the script with `ctx` as the `ctx` map and `params` as `params`; on success `ctx`
    /// holds what the script left in it and the script's `return` value (or null) is returned.
    /// On error `ctx` is unchanged.
    pub fn execute_ctx(&self, ctx: &mut Map<String, Json>, params: &Map<String, Json>) -> Result<Json, ScriptError> {
        let ctx_value = Value::new_map(value::map_from_json(ctx));
        let (result, ctx_value) = self.run(ctx_value, params)?;
        let Value::Map(map) = ctx_value else { return Ok(result) };
        let mut out = Map::new();
        for (k, v) in map.borrow().iter() {
            out.insert(k.clone(), v.to_json().map_err(|r| self.runtime_failure(0, "illegal_argument_exception", r))?);
        }
        *ctx = out;
        Ok(result)
    }

    /// Runs an update script: `ctx._source`, `ctx.op`, `ctx._id`, `ctx._index`, `ctx._version`,
    /// `ctx._routing`, `ctx._now`. On success the context holds the new source and op; on error
    /// it is unchanged.
    pub fn execute_update(&self, update: &mut UpdateContext, params: &Map<String, Json>) -> Result<(), ScriptError> {
        let mut ctx = BTreeMap::new();
        ctx.insert("_source".to_string(), Value::new_map(value::map_from_json(&update.source)));
        ctx.insert("op".to_string(), Value::str(&update.op));
        ctx.insert("_id".to_string(), Value::str(&update.id));
        ctx.insert("_index".to_string(), Value::str(&update.index));
        ctx.insert("_version".to_string(), Value::Long(update.version));
        ctx.insert("_routing".to_string(), update.routing.as_deref().map_or(Value::Null, Value::str));
        ctx.insert("_now".to_string(), Value::Long(update.now_millis));
        let (_, ctx) = self.run(Value::new_map(ctx), params)?;
        let Value::Map(ctx) = ctx else { return Ok(()) };
        let ctx = ctx.borrow();
        let source = match ctx.get("_source") {
            Some(Value::Map(m)) => {
                let mut out = Map::new();
                for (k, v) in m.borrow().iter() {
                    out.insert(
                        k.clone(),
                        v.to_json().map_err(|r| self.runtime_failure(0, "illegal_argument_exception", r))?,
                    );
                }
                out
            }
            Some(other) => {
                let reason = format!("class {} cannot be cast to class java.util.Map", other.java_class());
                return Err(self.runtime_failure(0, "class_cast_exception", reason));
            }
            None => Map::new(),
        };
        update.source = source;
        update.op = ctx.get("op").map_or_else(|| "null".to_string(), Value::java_string);
        Ok(())
    }

    fn run(&self, ctx: Value, params: &Map<String, Json>) -> Result<(Json, Value), ScriptError> {
        let program = &self.inner.program;
        value::reset_work();
        let mut exec = interp::Exec {
            locals: program.slot_types.iter().map(|t| interp::default_value(*t)).collect(),
            slot_types: &program.slot_types,
            budget: interp::MAX_LOOP_COUNTER,
            params: Value::new_map(value::map_from_json(params)),
            ctx: ctx.clone(),
            vars: Vec::new(),
            doc: None,
        };
        let flow = exec.run(&program.stmts).map_err(|e| self.runtime_failure(e.at, e.kind, e.reason))?;
        let result = match flow {
            interp::Flow::Return(v) => {
                v.to_json().map_err(|r| self.runtime_failure(0, "illegal_argument_exception", r))?
            }
            _ => Json::Null,
        };
        Ok((result, ctx))
    }

    fn runtime_failure(&self, at: usize, kind: &str, reason: String) -> ScriptError {
        let c = &self.inner;
        error::runtime_error(&c.source, PAINLESS, &c.program.statement_starts, at, kind, reason)
    }
}
