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
    pub fn uses_value(&self) -> bool {
        self.used_vars & 4 != 0
    }

    /// Runs the script on the document `doc` looks up; its value as JSON (null when it
    /// returned nothing).
    pub fn execute(
        &self,
        params: &Map<String, Json>,
        doc: &mut dyn DocLookup,
        score: f64,
        value: Option<&DocValue>,
    ) -> Result<Json, ScriptError> {
        let program = &self.inner.program;
        value::reset_work();
        let v = match value {
            None => Value::Null,
            Some(DocValue::Long(n)) => Value::Long(*n),
            Some(DocValue::Double(d)) => Value::Double(*d),
            Some(DocValue::Bool(b)) => Value::Bool(*b),
            Some(DocValue::Str(s)) => Value::str(s),
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
        let fail = |e: interp::RuntimeError| {
            let c = &self.inner;
            error::runtime_error(&c.source, PAINLESS, &c.program.statement_starts, e.at, e.kind, e.reason)
        };
        let flow = exec.run(&program.stmts).map_err(fail)?;
        match flow {
            interp::Flow::Return(v) => v
                .to_json()
                .map_err(|r| fail(interp::RuntimeError { at: 0, kind: "illegal_argument_exception", reason: r })),
            _ => Ok(Json::Null),
        }
    }
}
