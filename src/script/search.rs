//! Scripts run per document in a search (OpenSearch's `AggregationScript`): `doc`, `_score`,
//! `_value` (the field's value, for value scripts) and `params`; the value is a `return` or the
//! last expression.

use serde_json::{Map, Value as Json};

use super::doc::{DocLookup, DocValue};
use super::error::{self, CompileError};
use super::value::{self, Value};
use super::{ast, interp, lexer, parser, ScriptError, PAINLESS};
use crate::error::ErrorKind;
use std::sync::Arc;

/// The variables of the search context, in `ExprKind::Var` order (`doc` must stay first).
const VARS: &[&str] = &["doc", "_score", "_value"];

/// A compiled per-document script; cloning is cheap.
#[derive(Debug, Clone)]
pub struct SearchScript {
    inner: Arc<super::Compiled>,
    used_vars: u32,
}

impl SearchScript {
    pub fn compile(source: &str, lang: Option<&str>) -> Result<SearchScript, ScriptError> {
        let lang = lang.unwrap_or(PAINLESS);
        if lang != PAINLESS {
            return Err(ScriptError::plain(ErrorKind::IllegalArgument, format!("script_lang not supported [{lang}]")));
        }
        let to_error = |e: CompileError| error::compile_error(source, lang, &e);
        let tokens = lexer::lex(source).map_err(to_error)?;
        let mut program = parser::parse_with_vars(source, tokens, "ctx", VARS).map_err(to_error)?;
        if program.stmts.iter().all(|s| matches!(s, ast::Stmt::Empty)) {
            return Err(to_error(CompileError::new(0, "Cannot generate an empty script.".into())));
        }
        if let Some(last) = program.stmts.iter_mut().rev().find(|s| !matches!(s, ast::Stmt::Empty)) {
            if let ast::Stmt::Expr(e) = last {
                *last = ast::Stmt::Return(Some(e.clone()));
            }
        }
        let used_vars = program.used_vars;
        Ok(SearchScript { inner: Arc::new(super::Compiled { source: source.to_string(), program }), used_vars })
    }

    /// Whether the script reads `_score`.
    pub fn uses_score(&self) -> bool {
        self.used_vars & 2 != 0
    }

    /// Whether the script reads `_value`.
    #[cfg(test)]
    pub fn uses_value(&self) -> bool {
        self.used_vars & 4 != 0
    }

    /// Runs the script as an aggregation's values source: its value as Java sees it (a list's
    /// elements one by one; null when it returned nothing).
    pub fn execute_agg(
        &self,
        params: &Map<String, Json>,
        doc: &mut dyn DocLookup,
        score: f64,
        value: Option<&DocValue>,
    ) -> Result<AggOut, ScriptError> {
        let v = self.run(params, doc, score, value)?;
        Ok(match &v {
            Value::Null => AggOut::Null,
            Value::List(l) => AggOut::Many(l.borrow().iter().map(AggItem::of).collect()),
            other => AggOut::One(AggItem::of(other)),
        })
    }

    /// Runs the script on the document `doc` looks up; its value as JSON (null when it
    /// returned nothing).
    #[cfg(test)]
    pub fn execute(
        &self,
        params: &Map<String, Json>,
        doc: &mut dyn DocLookup,
        score: f64,
        value: Option<&DocValue>,
    ) -> Result<Json, ScriptError> {
        let v = self.run(params, doc, score, value)?;
        v.to_json()
            .map_err(|r| self.failure(interp::RuntimeError { at: 0, kind: "illegal_argument_exception", reason: r }))
    }

    fn failure(&self, e: interp::RuntimeError) -> ScriptError {
        let c = &self.inner;
        error::runtime_error(&c.source, PAINLESS, &c.program.statement_starts, e.at, e.kind, e.reason)
    }

    fn run(
        &self,
        params: &Map<String, Json>,
        doc: &mut dyn DocLookup,
        score: f64,
        value: Option<&DocValue>,
    ) -> Result<Value, ScriptError> {
        let program = &self.inner.program;
        value::reset_work();
        let v = match value {
            None => Value::Null,
            Some(DocValue::Long(n)) => Value::Long(*n),
            Some(DocValue::Double(d)) => Value::Double(*d),
            Some(DocValue::Bool(b)) => Value::Bool(*b),
            Some(DocValue::Str(s)) => Value::str(s),
            Some(DocValue::Date(ms, ns)) => Value::Date(*ms, *ns),
        };
        let mut exec = interp::Exec {
            locals: program.slot_types.iter().map(|t| interp::default_value(*t)).collect(),
            slot_types: &program.slot_types,
            budget: interp::MAX_LOOP_COUNTER,
            params: Value::new_map(value::map_from_json(params)),
            ctx: Value::Null,
            vars: vec![Value::Null, Value::Double(score), v],
            doc: Some(doc),
        };
        let flow = exec.run(&program.stmts).map_err(|e| self.failure(e))?;
        Ok(match flow {
            interp::Flow::Return(v) => v,
            _ => Value::Null,
        })
    }
}

/// What an aggregation's values-source script returned (OpenSearch reads it through
/// `ScriptDoubleValues`, `ScriptLongValues` or `ScriptBytesValues`).
#[derive(Debug, Clone, PartialEq)]
pub enum AggOut {
    Null,
    One(AggItem),
    /// A list: each element is a value.
    Many(Vec<AggItem>),
}

/// One value of an [`AggOut`].
#[derive(Debug, Clone, PartialEq)]
pub enum AggItem {
    Null,
    /// `Integer` or `Long`.
    Long(i64),
    /// `Float` or `Double`.
    Double(f64),
    Bool(bool),
    /// A date: epoch millis, nanoseconds within the milli.
    Date(i64, u32),
    Str(String),
    /// Anything else (a list, a map): its Java class and `toString()`.
    Other(&'static str, String),
}

impl AggItem {
    fn of(v: &Value) -> AggItem {
        match v {
            Value::Null => AggItem::Null,
            Value::Int(n) => AggItem::Long(i64::from(*n)),
            Value::Long(n) => AggItem::Long(*n),
            Value::Float(f) => AggItem::Double(f64::from(*f)),
            Value::Double(d) => AggItem::Double(*d),
            Value::Bool(b) => AggItem::Bool(*b),
            Value::Date(ms, ns) => AggItem::Date(*ms, *ns),
            Value::Str(s) => AggItem::Str(s.to_string()),
            other => AggItem::Other(other.java_class(), other.java_string()),
        }
    }

    /// Java's `toString()` (what `ScriptBytesValues` keeps; `None` for null).
    pub fn java_string(&self) -> Option<String> {
        Some(match self {
            AggItem::Null => return None,
            AggItem::Long(n) => n.to_string(),
            AggItem::Double(d) => value::java_double_string(*d, None),
            AggItem::Bool(b) => b.to_string(),
            AggItem::Date(ms, ns) => super::date::to_string(*ms, *ns),
            AggItem::Str(s) => s.clone(),
            AggItem::Other(_, s) => s.clone(),
        })
    }

    /// The Java class name (for OpenSearch's cast and unsupported-value messages).
    pub fn java_class(&self) -> &'static str {
        match self {
            AggItem::Null => "null",
            AggItem::Long(_) => "java.lang.Long",
            AggItem::Double(_) => "java.lang.Double",
            AggItem::Bool(_) => "java.lang.Boolean",
            AggItem::Date(..) => super::date::CLASS,
            AggItem::Str(_) => "java.lang.String",
            AggItem::Other(c, _) => c,
        }
    }
}
