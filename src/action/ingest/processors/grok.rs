//! The `grok` processor (OpenSearch's `GrokProcessor` and `Grok`): `%{NAME:field:type}`
//! expressions expanded from the pattern bank (`grok_bank.rs`, extended by
//! `pattern_definitions`) into one regex; the first pattern that matches sets its named fields.
//! Options: `field`, `patterns`, `pattern_definitions`, `trace_match` (`_ingest._grok_match_index`),
//! `ignore_missing`, `capture_all_matches` (every value of a repeated field name, as a list).

use std::collections::HashMap;

use fancy_regex::Regex;
use serde_json::{Map, Value};

use super::super::config::Config;
use super::super::doc::IngestDocument;
use super::super::pipeline::{Exec, Flow, Op};
use super::grok_bank;
use super::strings::cast_error;
use crate::error::{OsError, OsResult};

const MATCH_KEY: &str = "_ingest._grok_match_index";
/// Deepest pattern nesting followed (the standard bank nests about 6 deep).
const MAX_DEPTH: usize = 64;

/// How a captured string becomes a value (`%{NAME:field:type}`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Conv {
    Str,
    Int,
    Long,
    Float,
    Double,
    Bool,
}

/// A named capture: the document field it sets and how.
#[derive(Debug)]
struct Capture {
    field: String,
    conv: Conv,
}

/// A compiled grok expression.
#[derive(Debug)]
pub struct Grok {
    regex: Regex,
    /// Group `g{i}` of the regex is `captures[i]`.
    captures: Vec<Capture>,
    /// How many traced alternatives (groups `_m{i}`) the regex has (0: none).
    alts: usize,
}

/// What a match yields: the fields set, and which traced alternative matched.
#[derive(Debug)]
pub struct Matched {
    pub fields: Vec<(String, Value)>,
    pub alt: Option<usize>,
}

/// Expands `%{...}` references with `bank` (custom definitions first, then the built-in bank).
struct Expander<'a> {
    custom: &'a HashMap<String, String>,
    captures: Vec<Capture>,
    /// Pattern names being expanded (to report circular references).
    stack: Vec<String>,
}

impl Expander<'_> {
    fn lookup(&self, name: &str) -> Option<String> {
        self.custom.get(name).cloned().or_else(|| grok_bank::builtin(name).map(str::to_string))
    }

    fn expand(&mut self, pat: &str) -> Result<String, String> {
        let mut out = String::with_capacity(pat.len() * 2);
        let mut rest = pat;
        while let Some(at) = rest.find("%{") {
            self.literal(&mut out, &rest[..at]);
            let after = &rest[at + 2..];
            let Some(end) = after.find('}') else {
                out.push_str(&rest[at..]);
                return Ok(out);
            };
            let Some(r) = parse_ref(&after[..end]) else {
                out.push_str("%{");
                rest = after;
                continue;
            };
            rest = &after[end + 1..];
            let def = match r.inline {
                Some(d) => d.to_string(),
                None => self
                    .lookup(r.name)
                    .ok_or_else(|| format!("Unable to find pattern [{}] in Grok's pattern dictionary", r.name))?,
            };
            if let Some(pos) = self.stack.iter().position(|s| s == r.name) {
                let from = self.stack.last().map(String::as_str).unwrap_or(r.name);
                return Err(if pos + 1 == self.stack.len() {
                    format!("circular reference in pattern [{}][{def}]", r.name)
                } else {
                    let from_def = self.lookup(from).unwrap_or_default();
                    format!("circular reference in pattern [{from}][{from_def}] back to pattern [{}]", r.name)
                });
            }
            if self.stack.len() >= MAX_DEPTH {
                return Err(format!("pattern [{}] nests deeper than {MAX_DEPTH} levels", r.name));
            }
            self.stack.push(r.name.to_string());
            let inner = self.expand(&def)?;
            self.stack.pop();
            match r.field {
                Some(field) => {
                    out.push_str(&format!("(?P<g{}>", self.captures.len()));
                    self.captures.push(Capture { field: field.to_string(), conv: r.conv });
                }
                None => out.push_str("(?:"),
            }
            out.push_str(&inner);
            out.push(')');
        }
        self.literal(&mut out, rest);
        Ok(out)
    }

    /// Copies regex text, turning each raw named group `(?<name>..)` into a capture of field
    /// `name` (as Grok does for named groups written directly in a pattern).
    fn literal(&mut self, out: &mut String, text: &str) {
        let mut rest = text;
        while let Some(at) = find_named_group(rest) {
            out.push_str(&rest[..at]);
            let after = &rest[at + 3..];
            let Some(end) = after.find('>') else { break };
            out.push_str(&format!("(?P<g{}>", self.captures.len()));
            self.captures.push(Capture { field: after[..end].to_string(), conv: Conv::Str });
            rest = &after[end + 1..];
        }
        out.push_str(rest);
    }
}

/// Where the first unescaped `(?<name>` (not a lookbehind) starts.
fn find_named_group(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'(' if b[i + 1..].starts_with(b"?<") && b.get(i + 3).is_some_and(|c| c.is_ascii_alphabetic()) => {
                return Some(i)
            }
            _ => i += 1,
        }
    }
    None
}

/// `NAME`, `NAME:field`, `NAME:field:type`, each optionally `=inline definition`.
struct Ref<'a> {
    name: &'a str,
    field: Option<&'a str>,
    conv: Conv,
    inline: Option<&'a str>,
}

fn parse_ref(s: &str) -> Option<Ref<'_>> {
    let (head, inline) = match s.split_once('=') {
        Some((h, d)) => (h, Some(d)),
        None => (s, None),
    };
    let mut parts = head.splitn(3, ':');
    let name = parts.next()?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let field = parts.next().filter(|f| !f.is_empty());
    let conv = match parts.next() {
        Some("int") => Conv::Int,
        Some("long") => Conv::Long,
        Some("float") => Conv::Float,
        Some("double") => Conv::Double,
        Some("boolean") => Conv::Bool,
        _ => Conv::Str,
    };
    Some(Ref { name, field, conv, inline })
}

impl Grok {
    /// Compiles `pattern` with the built-in bank and `custom` definitions; `alts` traced
    /// alternatives (groups `_m{i}`, see `combine`).
    pub fn compile(pattern: &str, custom: &HashMap<String, String>, alts: usize) -> Result<Grok, String> {
        let mut x = Expander { custom, captures: Vec::new(), stack: Vec::new() };
        let expanded = x.expand(pattern)?;
        let regex = Regex::new(&expanded).map_err(|e| e.to_string())?;
        Ok(Grok { regex, captures: x.captures, alts })
    }

    /// The fields `text` yields, `None` when it does not match. A field named by several
    /// captures takes the first that matched, or with `all` every one that matched (a list when
    /// more than one).
    pub fn captures(&self, text: &str, all: bool) -> OsResult<Option<Matched>> {
        let caps = match self.regex.captures(text) {
            Ok(Some(c)) => c,
            Ok(None) => return Ok(None),
            Err(e) => return Err(OsError::illegal(format!("grok match failed: {e}"))),
        };
        let mut out: Vec<(String, Vec<Value>)> = Vec::new();
        for (i, cap) in self.captures.iter().enumerate() {
            let Some(m) = caps.name(&format!("g{i}")) else { continue };
            let v = convert(m.as_str(), cap.conv)?;
            match out.iter_mut().find(|(f, _)| *f == cap.field) {
                Some((_, vals)) if all => vals.push(v),
                Some(_) => {}
                None => out.push((cap.field.clone(), vec![v])),
            }
        }
        let alt = (0..self.alts).find(|i| caps.name(&format!("_m{i}")).is_some());
        let fields = out
            .into_iter()
            .map(|(f, mut vals)| {
                let v = if vals.len() == 1 { vals.remove(0) } else { Value::Array(vals) };
                (f, v)
            })
            .collect();
        Ok(Some(Matched { fields, alt }))
    }
}

fn number_error(s: &str) -> OsError {
    OsError::illegal(format!("For input string: \"{s}\""))
}

fn convert(s: &str, conv: Conv) -> OsResult<Value> {
    Ok(match conv {
        Conv::Str => Value::String(s.to_string()),
        Conv::Int => Value::from(s.parse::<i32>().map_err(|_| number_error(s))?),
        Conv::Long => Value::from(s.parse::<i64>().map_err(|_| number_error(s))?),
        Conv::Float => {
            let f = s.trim().parse::<f32>().map_err(|_| number_error(s))?;
            // Java prints a float by its shortest decimal form; keep that, not the f64 widening.
            let d = f.to_string().parse::<f64>().unwrap_or(f64::from(f));
            serde_json::Number::from_f64(d).map(Value::Number).ok_or_else(|| number_error(s))?
        }
        Conv::Double => {
            let d = s.trim().parse::<f64>().map_err(|_| number_error(s))?;
            serde_json::Number::from_f64(d).map(Value::Number).ok_or_else(|| number_error(s))?
        }
        Conv::Bool => Value::Bool(s.eq_ignore_ascii_case("true")),
    })
}

/// Joins several patterns into one alternation, each wrapped in a group `_m{i}` when tracing
/// which one matched (`GrokProcessor.combinePatterns`).
fn combine(patterns: &[String], trace: bool) -> String {
    if patterns.len() == 1 {
        return patterns[0].clone();
    }
    let wrapped: Vec<String> = patterns
        .iter()
        .enumerate()
        .map(|(i, p)| if trace { format!("(?P<_m{i}>{p})") } else { format!("(?:{p})") })
        .collect();
    wrapped.join("|")
}

#[derive(Debug)]
pub struct GrokOp {
    field: String,
    grok: Grok,
    trace_match: bool,
    ignore_missing: bool,
    capture_all: bool,
}

impl GrokOp {
    pub fn new(c: &mut Config) -> OsResult<GrokOp> {
        let field = c.req_str("field")?;
        let patterns = c.req_str_list("patterns")?;
        let trace_match = c.bool("trace_match", false)?;
        let ignore_missing = c.bool("ignore_missing", false)?;
        let capture_all = c.bool("capture_all_matches", false)?;
        if patterns.is_empty() {
            return Err(c.err("patterns", "List of patterns must not be empty"));
        }
        let custom = read_definitions(c)?;
        let alts = if trace_match && patterns.len() > 1 { patterns.len() } else { 0 };
        let grok = Grok::compile(&combine(&patterns, trace_match), &custom, alts).map_err(|e| {
            c.err("patterns", &format!("Invalid regex pattern found in: [{}]. {e}", patterns.join(", ")))
        })?;
        Ok(GrokOp { field, grok, trace_match, ignore_missing, capture_all })
    }
}

fn read_definitions(c: &mut Config) -> OsResult<HashMap<String, String>> {
    let defs: Map<String, Value> = c.opt_map("pattern_definitions")?.unwrap_or_default();
    let mut out = HashMap::with_capacity(defs.len());
    for (k, v) in defs {
        match v {
            Value::String(s) => out.insert(k, s),
            other => {
                return Err(c.err(
                    "pattern_definitions",
                    &format!("pattern [{k}] must be a string, not [{}]", super::super::config::java_type(&other)),
                ))
            }
        };
    }
    Ok(out)
}

impl Op for GrokOp {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let text = match doc.get(&self.field) {
            Ok(Value::Null) | Err(_) if self.ignore_missing => return Ok(Flow::Continue),
            Ok(Value::Null) => {
                return Err(OsError::illegal(format!("field [{}] is null, cannot process it.", self.field)))
            }
            Ok(Value::String(s)) => s.clone(),
            Ok(other) => return Err(cast_error(&self.field, other, "java.lang.String")),
            Err(e) => return Err(e),
        };
        let Some(m) = self.grok.captures(&text, self.capture_all)? else {
            return Err(OsError::illegal(format!("Provided Grok expressions do not match field value: [{text}]")));
        };
        for (f, v) in m.fields {
            doc.set(&f, v)?;
        }
        if self.trace_match {
            doc.set(MATCH_KEY, Value::String(m.alt.unwrap_or(0).to_string()))?;
        }
        Ok(Flow::Continue)
    }
}

/// The built-in bank as `GET _ingest/processor/grok` shows it (`sorted` by name, or in bank order).
pub fn bank_json(sorted: bool) -> Value {
    let mut pats: Vec<(&str, &str)> = grok_bank::PATTERNS.to_vec();
    if sorted {
        pats.sort_by(|a, b| a.0.cmp(b.0));
    }
    let mut m = Map::new();
    for (k, v) in pats {
        m.insert(k.to_string(), Value::String(v.to_string()));
    }
    Value::Object(m)
}

#[cfg(test)]
#[path = "grok_tests.rs"]
mod tests;
