//! `doc[...]` in search contexts (OpenSearch's `LeafDocLookup` and `ScriptDocValues`).
//!
//! The caller hands the interpreter a [`DocLookup`] for the current document; `doc['f']` (or
//! `doc.f`) loads the field's doc values as a list, on which `.value` / `getValue()` give the
//! first value, `.values` / `getValues()` the list, `.empty`, and the list's own methods
//! (`size()`, `isEmpty()`, `get(i)`, `[i]`, `contains(x)`) the rest. `doc` itself is not a value:
//! `doc.containsKey('f')`, `doc.get('f')` and `doc['f']` are the ways to use it.

use super::ast::{Expr, ExprKind};
use super::interp::{fail, Exec, RuntimeError};
use super::value::Value;

/// One doc value as a script sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum DocValue {
    Long(i64),
    Double(f64),
    Bool(bool),
    Str(String),
    /// A date: epoch millis and the nanoseconds within the milli (UTC).
    Date(i64, u32),
}

/// The doc values of the current document. Errors are (OpenSearch exception name, reason).
pub trait DocLookup {
    /// Appends the values of `field` for the current document (ascending, as doc values are).
    fn load(&mut self, field: &str, out: &mut Vec<DocValue>) -> Result<(), (&'static str, String)>;
    /// Whether `field` is mapped (`doc.containsKey`).
    fn contains(&self, field: &str) -> bool;
}

/// OpenSearch's message for `.value` on a document without values.
pub(crate) const NO_VALUE: &str =
    "A document doesn't have a value for a field! Use doc[<field>].size()==0 to check if a document is missing a field!";

impl Exec<'_> {
    pub(crate) fn is_doc(&self, e: &Expr) -> bool {
        matches!(e.kind, ExprKind::Var(0)) && self.doc.is_some()
    }

    pub(crate) fn var(&self, i: u8, at: usize) -> Result<Value, RuntimeError> {
        if i == 0 && self.doc.is_some() {
            return fail(
                at,
                "illegal_argument_exception",
                "[doc] can only be read through doc['field'], doc.containsKey('field') or doc.get('field') here".into(),
            );
        }
        Ok(self.vars.get(i as usize).cloned().unwrap_or(Value::Null))
    }

    /// `doc[key]`: the field's values as a list.
    pub(crate) fn doc_values(&mut self, key: &Value, at: usize) -> Result<Value, RuntimeError> {
        let field = match key {
            Value::Str(s) => s.to_string(),
            Value::Null => return fail(at, "null_pointer_exception", "Cannot load from a null value".into()),
            other => other.java_string(),
        };
        let Some(doc) = self.doc.as_deref_mut() else { return Ok(Value::Null) };
        let mut out = Vec::new();
        doc.load(&field, &mut out).or_else(|(kind, reason)| fail(at, kind, reason))?;
        let items = out
            .into_iter()
            .map(|v| match v {
                DocValue::Long(n) => Value::Long(n),
                DocValue::Double(d) => Value::Double(d),
                DocValue::Bool(b) => Value::Bool(b),
                DocValue::Str(s) => Value::str(&s),
                DocValue::Date(ms, ns) => Value::Date(ms, ns),
            })
            .collect();
        Ok(Value::new_list(items))
    }

    fn first_value(list: &Value, at: usize) -> Result<Value, RuntimeError> {
        match list {
            Value::List(l) => match l.borrow().first() {
                Some(v) => Ok(v.clone()),
                None => fail(at, "illegal_state_exception", NO_VALUE.into()),
            },
            _ => Ok(Value::Null),
        }
    }

    /// The field name of `doc[key]`, `doc.key` or `doc.get(key)`; `None`: `e` is none of them.
    fn doc_key(&mut self, e: &Expr) -> Result<Option<Value>, RuntimeError> {
        Ok(match &e.kind {
            ExprKind::Index { target, index } if self.is_doc(target) => Some(self.eval(index)?),
            ExprKind::Field { target, name, .. } if self.is_doc(target) => Some(Value::str(name)),
            ExprKind::Call { target, name, args, .. } if self.is_doc(target) && name == "get" && args.len() == 1 => {
                Some(self.eval(&args[0])?)
            }
            _ => None,
        })
    }

    /// `doc.f`, and `doc[f].value` / `.values` / `.empty`; `None`: not a doc access.
    pub(crate) fn doc_field(&mut self, target: &Expr, name: &str, at: usize) -> Result<Option<Value>, RuntimeError> {
        if self.is_doc(target) {
            return self.doc_values(&Value::str(name), at).map(Some);
        }
        if !matches!(name, "value" | "values" | "empty") {
            return Ok(None);
        }
        let Some(key) = self.doc_key(target)? else { return Ok(None) };
        let list = self.doc_values(&key, at)?;
        Ok(Some(match name {
            "value" => Self::first_value(&list, at)?,
            "values" => list,
            _ => match &list {
                Value::List(l) => Value::Bool(l.borrow().is_empty()),
                _ => Value::Bool(true),
            },
        }))
    }

    /// `doc.containsKey(f)`, `doc.get(f)`, `doc[f].getValue()`, `doc[f].getValues()`; `None`:
    /// not a doc access (the list's own methods handle the rest).
    pub(crate) fn doc_call(
        &mut self,
        target: &Expr,
        name: &str,
        args: &[Expr],
        at: usize,
    ) -> Result<Option<Value>, RuntimeError> {
        if self.is_doc(target) {
            return match (name, args) {
                ("containsKey", [a]) => {
                    let key = self.eval(a)?.java_string();
                    Ok(Some(Value::Bool(self.doc.as_deref().is_some_and(|d| d.contains(&key)))))
                }
                ("get", [a]) => {
                    let key = self.eval(a)?;
                    self.doc_values(&key, at).map(Some)
                }
                _ => fail(
                    at,
                    "illegal_argument_exception",
                    format!(
                        "dynamic method [org.opensearch.search.lookup.LeafDocLookup, {name}/{}] not found",
                        args.len()
                    ),
                ),
            };
        }
        if !args.is_empty() || !matches!(name, "getValue" | "getValues") {
            return Ok(None);
        }
        let Some(key) = self.doc_key(target)? else { return Ok(None) };
        let list = self.doc_values(&key, at)?;
        Ok(Some(if name == "getValue" { Self::first_value(&list, at)? } else { list }))
    }
}
