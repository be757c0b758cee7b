//! A `script` as an aggregation's values source (OpenSearch's `ValuesSourceConfig` with a script
//! and `AggregationScript`): the script runs per collected document with `doc` reading the
//! segment's doc values, and its number (or list of numbers) are the document's values.
//!
//! The source reads through `source::NumReader`, whose `values` cannot fail; a script failure is
//! kept in a per-thread slot and `take_failure` (called after the shard's collection) turns it
//! into the search's error. Scripts are compiled once per shard and evaluated per document.

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::source::NumKind;
use crate::action::script_glue::search_script_error;
use crate::engine::query::sort::double_to_sortable_long;
use crate::engine::query::SegmentView;
use crate::engine::schema::{ip, FieldKind, Mapping, NumberType};
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};
use crate::script::{parse_script_request, DocLookup, DocValue, SearchScript};

thread_local! {
    static FAILURE: RefCell<Option<OsError>> = const { RefCell::new(None) };
}

/// The first script failure of this thread's collection since the last call (and clears it).
pub fn take_failure() -> Option<OsError> {
    FAILURE.with(|f| f.borrow_mut().take())
}

/// A compiled value script with its params and the shard's mapping (for `doc`).
#[derive(Debug)]
pub struct ValueScript {
    pub script: SearchScript,
    pub params: Map<String, Value>,
    pub mapping: Mapping,
    /// How the numbers are encoded in the reader's raw values.
    pub kind: NumKind,
}

impl ValueScript {
    /// Parses and compiles the request's `script` (refusing what this node cannot run).
    pub fn compile(v: &Value, mapping: &Mapping, kind: NumKind, agg_type: &str) -> OsResult<ValueScript> {
        let req = parse_script_request(v).map_err(|e| search_script_error(&e))?;
        let script = SearchScript::compile(&req.source, Some(&req.lang)).map_err(|e| search_script_error(&e))?;
        if script.uses_score() {
            return Err(OsError::illegal(format!(
                "[_score] in the script of aggregation [{agg_type}] is not supported by this node"
            )));
        }
        if script.uses_value() {
            return Err(OsError::illegal(format!(
                "[_value] in aggregation [{agg_type}] needs a value script (a field and a script), which this node does not support"
            )));
        }
        Ok(ValueScript { script, params: req.params, mapping: mapping.clone(), kind })
    }
}

/// The script's reader on one segment.
pub struct ScriptReader<'a> {
    vs: &'a ValueScript,
    lookup: SegLookup<'a>,
}

impl<'a> ScriptReader<'a> {
    pub fn new(vs: &'a ValueScript, seg: &'a dyn SegmentView) -> ScriptReader<'a> {
        ScriptReader {
            vs,
            lookup: SegLookup {
                seg,
                mapping: &vs.mapping,
                doc: 0,
                kinds: HashMap::new(),
                buf: Vec::new(),
                ords: Vec::new(),
            },
        }
    }

    /// The document's values in the reader's raw encoding, ascending, into `out`.
    pub fn values(&mut self, doc: DocId, out: &mut Vec<i64>) {
        out.clear();
        self.lookup.doc = doc;
        let r = self.vs.script.execute(&self.vs.params, &mut self.lookup, 0.0, None);
        let res = r.map_err(|e| search_script_error(&e)).and_then(|v| push_values(&v, self.vs.kind, out));
        if let Err(e) = res {
            out.clear();
            FAILURE.with(|f| {
                let mut f = f.borrow_mut();
                if f.is_none() {
                    *f = Some(e);
                }
            });
        }
        out.sort_unstable();
    }
}

/// Numbers (and booleans as 1/0, lists of them) in `kind`'s raw encoding (OpenSearch's
/// `ScriptDoubleValues` / `ScriptLongValues`).
fn push_values(v: &Value, kind: NumKind, out: &mut Vec<i64>) -> OsResult<()> {
    let x = match v {
        Value::Null => return Ok(()),
        Value::Array(items) => {
            for i in items {
                push_values(i, kind, out)?;
            }
            return Ok(());
        }
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::Bool(b) => *b as i64 as f64,
        other => {
            return Err(OsError::illegal(format!(
                "Unsupported script value [{}], expected a number, date, or boolean",
                other.as_str().map_or_else(|| other.to_string(), str::to_string)
            )))
        }
    };
    out.push(match kind {
        NumKind::Double => double_to_sortable_long(x),
        _ => x as i64,
    });
    Ok(())
}

/// How a field reads in a script.
#[derive(Clone, Copy)]
enum ScriptKind {
    Long,
    Double,
    Unsigned,
    Scaled(f64),
    Bool,
    Keyword,
    Ip,
}

/// `doc` over one segment (OpenSearch's `LeafDocLookup`).
pub(super) struct SegLookup<'a> {
    seg: &'a dyn SegmentView,
    mapping: &'a Mapping,
    pub(super) doc: DocId,
    kinds: HashMap<String, ScriptKind>,
    buf: Vec<i64>,
    ords: Vec<u64>,
}

impl<'a> SegLookup<'a> {
    pub(super) fn new(seg: &'a dyn SegmentView, mapping: &'a Mapping) -> SegLookup<'a> {
        SegLookup { seg, mapping, doc: 0, kinds: HashMap::new(), buf: Vec::new(), ords: Vec::new() }
    }

    fn kind(&mut self, field: &str) -> Result<ScriptKind, (&'static str, String)> {
        if let Some(k) = self.kinds.get(field) {
            return Ok(*k);
        }
        let Some(mut ft) = self.mapping.field_type(field) else {
            return Err(("illegal_argument_exception", format!("No field found for [{field}] in mapping")));
        };
        if let FieldKind::Alias { path } = &ft.kind {
            ft = self.mapping.field_type(path).unwrap_or(ft);
        }
        let k = match &ft.kind {
            FieldKind::Number(NumberType::Double | NumberType::Float | NumberType::HalfFloat) => ScriptKind::Double,
            FieldKind::Number(NumberType::UnsignedLong) => ScriptKind::Unsigned,
            FieldKind::Number(_) | FieldKind::TokenCount { .. } => ScriptKind::Long,
            FieldKind::ScaledFloat { scaling_factor } => ScriptKind::Scaled(*scaling_factor),
            FieldKind::Boolean => ScriptKind::Bool,
            FieldKind::Keyword(_) | FieldKind::ConstantKeyword(_) => ScriptKind::Keyword,
            FieldKind::Ip => ScriptKind::Ip,
            FieldKind::Text(_) => {
                return Err(("illegal_argument_exception", super::source::text_fielddata(field).reason))
            }
            _ => {
                return Err((
                    "illegal_argument_exception",
                    format!(
                        "doc values of field [{field}] of type [{}] are not available to scripts on this node",
                        ft.type_name()
                    ),
                ))
            }
        };
        if !ft.effective_doc_values() && !matches!(ft.kind, FieldKind::ConstantKeyword(_)) {
            return Err((
                "illegal_argument_exception",
                format!(
                    "Can't load fielddata on [{field}] because fielddata is unsupported on fields of type [{}]. Use doc values instead.",
                    ft.type_name()
                ),
            ));
        }
        self.kinds.insert(field.to_string(), k);
        Ok(k)
    }
}

impl DocLookup for SegLookup<'_> {
    fn load(&mut self, field: &str, out: &mut Vec<DocValue>) -> Result<(), (&'static str, String)> {
        let k = self.kind(field)?;
        match k {
            ScriptKind::Keyword | ScriptKind::Ip => {
                if !self.seg.sorted_set_ords(field, self.doc, &mut self.ords) {
                    return Ok(());
                }
                for &o in &self.ords {
                    let t = self.seg.sorted_set_term(field, o).map_err(|e| ("io_exception", e.to_string()))?;
                    out.push(DocValue::Str(match k {
                        ScriptKind::Ip => {
                            ip::format_ip(u128::from_be_bytes(t.as_slice().try_into().unwrap_or([0; 16])))
                        }
                        _ => String::from_utf8_lossy(&t).into_owned(),
                    }));
                }
            }
            _ => {
                if !self.seg.numeric_values(field, self.doc, &mut self.buf) {
                    return Ok(());
                }
                for &raw in &self.buf {
                    out.push(match k {
                        ScriptKind::Double => DocValue::Double(NumKind::Double.to_f64(raw)),
                        ScriptKind::Scaled(f) => DocValue::Double(NumKind::Scaled(f).to_f64(raw)),
                        ScriptKind::Bool => DocValue::Bool(raw != 0),
                        ScriptKind::Unsigned => {
                            let u = (raw as u64) ^ (1u64 << 63);
                            match i64::try_from(u) {
                                Ok(n) => DocValue::Long(n),
                                Err(_) => DocValue::Double(u as f64),
                            }
                        }
                        _ => DocValue::Long(raw),
                    });
                }
            }
        }
        Ok(())
    }

    fn contains(&self, field: &str) -> bool {
        self.mapping.field_type(field).is_some()
    }
}

/// The numeric kind for a script source by `value_type` (OpenSearch's `ValueType`), or the
/// refusal for what this node cannot produce from a script.
pub fn script_kind(value_type: Option<&str>, agg_type: &str) -> OsResult<NumKind> {
    let bytes_default = matches!(agg_type, "terms" | "rare_terms" | "significant_terms" | "multi_terms");
    Ok(match value_type {
        Some("long" | "integer" | "short" | "byte") => NumKind::Long,
        Some("boolean") => NumKind::Bool,
        Some("date") => NumKind::Date { nanos: false },
        Some("double" | "float" | "number" | "numeric") => NumKind::Double,
        None if !bytes_default => NumKind::Double,
        other => {
            return Err(OsError::illegal(format!(
                "[script] producing values of type [{}] in aggregation [{agg_type}] is not supported by this node; set [value_type] to a numeric type",
                other.unwrap_or("string")
            )))
        }
    })
}
