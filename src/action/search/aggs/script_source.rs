//! A `script` as an aggregation's values source (OpenSearch's `ValuesSourceConfig` with a script
//! and `AggregationScript`): the script runs per collected document with `doc` reading the
//! segment's doc values, and what it returns are the document's values: numbers (OpenSearch's
//! `ScriptDoubleValues` / `ScriptLongValues`) or, for a bytes source, their `toString()`
//! (`ScriptBytesValues`). A value script (a `field` and a `script`) runs once per value of the
//! field with the value as `_value` (`ValuesSource.Numeric.WithScript`: doubles in, doubles out;
//! `ValuesSource.Bytes.WithScript`: strings in, strings out). `_score` is the score of the
//! document being collected (see [`set_score`]).
//!
//! The source reads through `source::NumReader` / `source::OrdReader`, whose reads cannot fail;
//! a script failure is kept in a per-thread slot and `take_failure` (called after the shard's
//! collection) turns it into the search's error. Scripts are compiled once per shard and
//! evaluated per document.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::source::NumKind;
use crate::action::script_glue::search_script_error;
use crate::engine::query::sort::double_to_sortable_long;
use crate::engine::query::SegmentView;
use crate::engine::schema::{ip, FieldKind, Mapping, NumberType};
use crate::engine::segment::DocId;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::script::{parse_script_request, AggItem, AggOut, DocLookup, DocValue, SearchScript};

thread_local! {
    static FAILURE: RefCell<Option<OsError>> = const { RefCell::new(None) };
    static SCORE: Cell<f32> = const { Cell::new(f32::NAN) };
    static NEEDS_SCORES: Cell<bool> = const { Cell::new(false) };
}

/// The first script failure of this thread's collection since the last call (and clears it).
pub fn take_failure() -> Option<OsError> {
    FAILURE.with(|f| f.borrow_mut().take())
}

/// Records a failure of this thread's collection (the first one is kept): a source that
/// cannot read its values (a script that failed, fielddata a breaker refused).
pub(super) fn record_failure(e: OsError) {
    fail(e)
}

fn fail(e: OsError) {
    FAILURE.with(|f| {
        let mut f = f.borrow_mut();
        if f.is_none() {
            *f = Some(e);
        }
    });
}

/// The score of the document being collected on this thread (set where documents are handed
/// to leaf collectors with their score); scripts read it as `_score`.
#[inline]
pub fn set_score(score: f32) {
    SCORE.with(|s| s.set(score));
}

/// Whether a values-source script compiled on this thread since the last call reads `_score`
/// (and clears it): the shard's collection must then score its matches.
pub fn take_needs_scores() -> bool {
    NEEDS_SCORES.with(|n| n.replace(false))
}

/// Whether a script compiled on this thread since the last [`take_needs_scores`] reads
/// `_score` (without clearing it).
pub fn peek_needs_scores() -> bool {
    NEEDS_SCORES.with(|n| n.get())
}

/// What a script source produces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScriptOut {
    /// Numbers in `NumKind`'s raw encoding.
    Num(NumKind),
    /// Strings (a bytes values source).
    Bytes,
}

/// A compiled value script with its params and the shard's mapping (for `doc`).
#[derive(Debug)]
pub struct ValueScript {
    pub script: SearchScript,
    pub params: Map<String, Value>,
    pub mapping: Mapping,
    pub out: ScriptOut,
    /// A value script: the field whose values the script maps as `_value`, and how its numeric
    /// values decode (`None`: a keyword field).
    pub field: Option<(String, Option<NumKind>)>,
    /// Whether the script reads `_score`.
    pub scores: bool,
}

impl ValueScript {
    /// Parses and compiles the request's `script`; `field` makes it a value script (without
    /// one, `_value` is null, as in OpenSearch).
    pub fn compile(
        v: &Value,
        mapping: &Mapping,
        out: ScriptOut,
        field: Option<(String, Option<NumKind>)>,
    ) -> OsResult<ValueScript> {
        let req = parse_script_request(v).map_err(|e| search_script_error(&e))?;
        let script = SearchScript::compile(&req.source, Some(&req.lang)).map_err(|e| search_script_error(&e))?;
        let scores = script.uses_score();
        if scores {
            NEEDS_SCORES.with(|n| n.set(true));
        }
        Ok(ValueScript { script, params: req.params, mapping: mapping.clone(), out, field, scores })
    }
}

/// The script's reader on one segment.
pub struct ScriptReader<'a> {
    vs: &'a ValueScript,
    lookup: SegLookup<'a>,
    nums: Vec<i64>,
    ords: Vec<u64>,
}

impl<'a> ScriptReader<'a> {
    pub fn new(vs: &'a ValueScript, seg: &'a dyn SegmentView) -> ScriptReader<'a> {
        ScriptReader { vs, lookup: SegLookup::new(seg, &vs.mapping), nums: Vec::new(), ords: Vec::new() }
    }

    fn run(&mut self, doc: DocId, value: Option<&DocValue>) -> OsResult<AggOut> {
        self.lookup.doc = doc;
        let score = if self.vs.scores { f64::from(SCORE.with(Cell::get)) } else { 0.0 };
        self.vs.script.execute_agg(&self.vs.params, &mut self.lookup, score, value).map_err(|e| search_script_error(&e))
    }

    /// The document's values in the reader's raw encoding, ascending, into `out` (a numeric
    /// source).
    pub fn values(&mut self, doc: DocId, out: &mut Vec<i64>) {
        out.clear();
        let kind = match self.vs.out {
            ScriptOut::Num(k) => k,
            ScriptOut::Bytes => return,
        };
        let res = match self.vs.field.clone() {
            None => self.run(doc, None).and_then(|v| push_values(&v, kind, out)),
            Some((field, fk)) => self.map_numbers(doc, &field, fk.unwrap_or(NumKind::Double), out),
        };
        if let Err(e) = res {
            out.clear();
            fail(e);
        }
        out.sort_unstable();
    }

    /// `ValuesSource.Numeric.WithScript`: each value as a double `_value`, the script's number
    /// as a double.
    fn map_numbers(&mut self, doc: DocId, field: &str, fk: NumKind, out: &mut Vec<i64>) -> OsResult<()> {
        let mut raws = std::mem::take(&mut self.nums);
        if !self.lookup.seg.numeric_values(field, doc, &mut raws) {
            raws.clear();
        }
        let mut res = Ok(());
        for &raw in &raws {
            let v = DocValue::Double(fk.to_f64(raw));
            match self.run(doc, Some(&v)).and_then(|r| run_as_double(&r)) {
                Ok(x) => out.push(double_to_sortable_long(x)),
                Err(e) => {
                    res = Err(e);
                    break;
                }
            }
        }
        self.nums = raws;
        res
    }

    /// The document's strings (a bytes source), in `out` (unsorted, duplicates kept).
    pub fn strings(&mut self, doc: DocId, out: &mut Vec<String>) {
        out.clear();
        let res = match self.vs.field.clone() {
            None => self.run(doc, None).map(|v| match v {
                AggOut::Null => {}
                // `ScriptBytesValues`: a null element is an empty value.
                AggOut::One(i) => out.push(i.java_string().unwrap_or_default()),
                AggOut::Many(items) => out.extend(items.iter().map(|i| i.java_string().unwrap_or_default())),
            }),
            Some((field, _)) => self.map_strings(doc, &field, out),
        };
        if let Err(e) = res {
            out.clear();
            fail(e);
        }
    }

    /// `ValuesSource.Bytes.WithScript`: each term as a string `_value`, the script's value's
    /// `toString()`.
    fn map_strings(&mut self, doc: DocId, field: &str, out: &mut Vec<String>) -> OsResult<()> {
        let mut ords = std::mem::take(&mut self.ords);
        if !self.lookup.seg.sorted_set_ords(field, doc, &mut ords) {
            ords.clear();
        }
        let mut res = Ok(());
        for &o in &ords {
            let r = self
                .lookup
                .seg
                .sorted_set_term(field, o)
                .map_err(|e| OsError::new(ErrorKind::Io, e.to_string()))
                .and_then(|t| self.run(doc, Some(&DocValue::Str(String::from_utf8_lossy(&t).into_owned()))));
            match r {
                Ok(AggOut::One(i)) if i != AggItem::Null => out.push(i.java_string().unwrap_or_default()),
                Ok(AggOut::Many(items)) => {
                    let list: Vec<String> = items.iter().map(|i| i.java_string().unwrap_or("null".into())).collect();
                    out.push(format!("[{}]", list.join(", ")));
                }
                Ok(_) => {
                    res = Err(OsError::new(
                        ErrorKind::NullPointer,
                        "Cannot invoke \"Object.toString()\" because the value script returned null",
                    ));
                    break;
                }
                Err(e) => {
                    res = Err(e);
                    break;
                }
            }
        }
        self.ords = ords;
        res
    }
}

/// `AggregationScript.runAsDouble`: the value must be a number.
fn run_as_double(v: &AggOut) -> OsResult<f64> {
    match v {
        AggOut::One(AggItem::Long(n)) => Ok(*n as f64),
        AggOut::One(AggItem::Double(d)) => Ok(*d),
        AggOut::Null | AggOut::One(AggItem::Null) => {
            Err(OsError::new(ErrorKind::NullPointer, "Cannot invoke \"java.lang.Number.doubleValue()\" because the return value of \"org.opensearch.script.AggregationScript.execute()\" is null"))
        }
        AggOut::One(i) => Err(class_cast(i.java_class())),
        AggOut::Many(_) => Err(class_cast("java.util.ArrayList")),
    }
}

fn class_cast(class: &str) -> OsError {
    OsError::new(ErrorKind::ClassCast, format!("class {class} cannot be cast to class java.lang.Number"))
}

/// Numbers, dates (their millis) and booleans as 1/0, lists of them, in `kind`'s raw encoding
/// (OpenSearch's `ScriptDoubleValues` / `ScriptLongValues`).
fn push_values(v: &AggOut, kind: NumKind, out: &mut Vec<i64>) -> OsResult<()> {
    match v {
        AggOut::Null => Ok(()),
        AggOut::One(i) => push_item(i, kind, out),
        AggOut::Many(items) => items.iter().try_for_each(|i| push_item(i, kind, out)),
    }
}

fn push_item(i: &AggItem, kind: NumKind, out: &mut Vec<i64>) -> OsResult<()> {
    let x = match i {
        AggItem::Long(n) => {
            if kind != NumKind::Double {
                out.push(*n);
                return Ok(());
            }
            *n as f64
        }
        AggItem::Double(d) => *d,
        AggItem::Bool(b) => *b as i64 as f64,
        AggItem::Date(ms, _) => {
            if kind != NumKind::Double {
                out.push(*ms);
                return Ok(());
            }
            *ms as f64
        }
        other => {
            return Err(OsError::illegal(format!(
                "Unsupported script value [{}], expected a number, date, or boolean",
                other.java_string().unwrap_or_else(|| "null".into())
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
    Date { nanos: bool },
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
            FieldKind::Date { nanos, .. } => ScriptKind::Date { nanos: *nanos },
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
                        ScriptKind::Date { nanos: false } => DocValue::Date(raw, 0),
                        ScriptKind::Date { nanos: true } => {
                            DocValue::Date(raw.div_euclid(1_000_000), raw.rem_euclid(1_000_000) as u32)
                        }
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

/// What a script-only source produces, by `value_type` (OpenSearch's `ValueType`) or else the
/// aggregation's default values source type (bytes for the term-like aggregations), or the
/// refusal for what this node cannot produce from a script.
pub fn script_out(value_type: Option<&str>, agg_type: &str) -> OsResult<ScriptOut> {
    let bytes_default = matches!(
        agg_type,
        "terms"
            | "rare_terms"
            | "significant_terms"
            | "multi_terms"
            | "cardinality"
            | "value_count"
            | "missing"
            | "diversified_sampler"
    );
    Ok(match value_type {
        Some("long" | "integer" | "short" | "byte") => ScriptOut::Num(NumKind::Long),
        Some("boolean") => ScriptOut::Num(NumKind::Bool),
        Some("date") => ScriptOut::Num(NumKind::Date { nanos: false }),
        Some("double" | "float" | "number" | "numeric") => ScriptOut::Num(NumKind::Double),
        Some("string") => ScriptOut::Bytes,
        None if bytes_default => ScriptOut::Bytes,
        None if matches!(agg_type, "date_histogram" | "auto_date_histogram") => {
            ScriptOut::Num(NumKind::Date { nanos: false })
        }
        None => ScriptOut::Num(NumKind::Double),
        Some(other) => {
            return Err(OsError::illegal(format!(
                "[script] producing values of type [{other}] in aggregation [{agg_type}] is not supported by this node"
            )))
        }
    })
}

/// A bytes script source on one segment as ordinals: each distinct string the script produces
/// gets an ordinal of this reader (in first-seen order), and a document's ordinals come in
/// term order without duplicates, as a sorted-set column's would.
pub struct ScriptTerms<'a> {
    reader: ScriptReader<'a>,
    terms: Vec<Vec<u8>>,
    index: HashMap<Vec<u8>, u64>,
    strs: Vec<String>,
    /// How many values (duplicates included) the last document had.
    pub raw_len: usize,
}

impl<'a> ScriptTerms<'a> {
    pub fn new(vs: &'a ValueScript, seg: &'a dyn SegmentView) -> ScriptTerms<'a> {
        ScriptTerms {
            reader: ScriptReader::new(vs, seg),
            terms: Vec::new(),
            index: HashMap::new(),
            strs: Vec::new(),
            raw_len: 0,
        }
    }

    /// The document's ordinals into `out`, in term order.
    pub fn ords(&mut self, doc: DocId, out: &mut Vec<u64>) {
        out.clear();
        let mut strs = std::mem::take(&mut self.strs);
        self.reader.strings(doc, &mut strs);
        self.raw_len = strs.len();
        strs.sort_unstable();
        strs.dedup();
        for s in strs.drain(..) {
            let next = self.terms.len() as u64;
            let o = *self.index.entry(s.as_bytes().to_vec()).or_insert(next);
            if o == next {
                self.terms.push(s.into_bytes());
            }
            out.push(o);
        }
        self.strs = strs;
    }

    /// The term of an ordinal this reader gave.
    pub fn term(&self, ord: u64) -> Vec<u8> {
        self.terms.get(ord as usize).cloned().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::query::sort::sortable_long_to_double;

    #[test]
    fn numbers_dates_and_booleans_are_values() {
        let mut out = Vec::new();
        let many =
            AggOut::Many(vec![AggItem::Long(3), AggItem::Bool(true), AggItem::Date(1500, 0), AggItem::Double(2.5)]);
        push_values(&many, NumKind::Long, &mut out).unwrap();
        assert_eq!(out, vec![3, 1, 1500, 2]);
        out.clear();
        push_values(&many, NumKind::Double, &mut out).unwrap();
        assert_eq!(out.iter().map(|&r| sortable_long_to_double(r)).collect::<Vec<_>>(), vec![3.0, 1.0, 1500.0, 2.5]);
        out.clear();
        push_values(&AggOut::Null, NumKind::Double, &mut out).unwrap();
        assert!(out.is_empty());
        let e = push_values(&AggOut::One(AggItem::Str("a".into())), NumKind::Double, &mut out).unwrap_err();
        assert_eq!(e.reason, "Unsupported script value [a], expected a number, date, or boolean");
    }

    #[test]
    fn value_scripts_run_as_double() {
        assert_eq!(run_as_double(&AggOut::One(AggItem::Long(4))).unwrap(), 4.0);
        assert_eq!(run_as_double(&AggOut::One(AggItem::Double(0.5))).unwrap(), 0.5);
        assert!(run_as_double(&AggOut::One(AggItem::Str("x".into()))).unwrap_err().reason.contains("java.lang.String"));
        assert!(run_as_double(&AggOut::One(AggItem::Bool(true))).unwrap_err().reason.contains("java.lang.Boolean"));
        assert_eq!(run_as_double(&AggOut::Null).unwrap_err().kind, ErrorKind::NullPointer);
    }

    #[test]
    fn source_type_by_value_type_and_aggregation() {
        assert_eq!(script_out(None, "terms").unwrap(), ScriptOut::Bytes);
        assert_eq!(script_out(None, "cardinality").unwrap(), ScriptOut::Bytes);
        assert_eq!(script_out(None, "avg").unwrap(), ScriptOut::Num(NumKind::Double));
        assert_eq!(script_out(None, "date_histogram").unwrap(), ScriptOut::Num(NumKind::Date { nanos: false }));
        assert_eq!(script_out(Some("long"), "terms").unwrap(), ScriptOut::Num(NumKind::Long));
        assert_eq!(script_out(Some("string"), "avg").unwrap(), ScriptOut::Bytes);
        assert!(script_out(Some("ip"), "terms").unwrap_err().reason.contains("not supported by this node"));
    }
}
