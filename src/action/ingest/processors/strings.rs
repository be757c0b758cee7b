//! Processors that rewrite one field's value: lowercase, uppercase, trim, urldecode,
//! html_strip (OpenSearch's `AbstractStringProcessor`: a string or a list of strings), gsub,
//! split, join, sort. (`values.rs` has convert, bytes and json.)

use serde_json::Value;

use super::super::config::{java_type, Config};
use super::super::doc::IngestDocument;
use super::super::pipeline::{Exec, Flow, Op};
use crate::error::{ErrorKind, OsError, OsResult};

/// `field`, `target_field` (default the field), `ignore_missing`.
#[derive(Debug)]
pub(super) struct FieldOpts {
    pub(super) field: String,
    pub(super) target: String,
    ignore_missing: bool,
}

impl FieldOpts {
    pub(super) fn read(c: &mut Config) -> OsResult<FieldOpts> {
        let field = c.req_str("field")?;
        let ignore_missing = c.bool("ignore_missing", false)?;
        let target = c.opt_str("target_field")?.unwrap_or_else(|| field.clone());
        Ok(FieldOpts { field, target, ignore_missing })
    }

    /// The field's value; `None` to skip (missing/null with `ignore_missing`).
    pub(super) fn value(&self, doc: &IngestDocument) -> OsResult<Option<Value>> {
        match doc.get(&self.field) {
            Ok(Value::Null) | Err(_) if self.ignore_missing => Ok(None),
            Ok(Value::Null) => Err(OsError::illegal(format!("field [{}] is null, cannot process it.", self.field))),
            Ok(v) => Ok(Some(v.clone())),
            Err(e) => Err(e),
        }
    }
}

pub(super) fn cast_error(field: &str, v: &Value, to: &str) -> OsError {
    OsError::new(
        ErrorKind::IllegalArgument,
        format!("field [{field}] of type [{}] cannot be cast to [{to}]", java_type(v)),
    )
}

#[derive(Debug)]
pub struct StringOp {
    kind: String,
    f: FieldOpts,
}

impl StringOp {
    pub fn new(c: &mut Config) -> OsResult<StringOp> {
        Ok(StringOp { kind: c.ty.clone(), f: FieldOpts::read(c)? })
    }

    fn apply(&self, s: &str) -> OsResult<String> {
        Ok(match self.kind.as_str() {
            "lowercase" => s.to_lowercase(),
            "uppercase" => s.to_uppercase(),
            "trim" => s.trim().to_string(),
            "urldecode" => url_decode(s)?,
            _ => html_strip(s),
        })
    }
}

impl Op for StringOp {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let Some(v) = self.f.value(doc)? else { return Ok(Flow::Continue) };
        let out = match &v {
            Value::String(s) => Value::String(self.apply(s)?),
            Value::Array(a) => {
                let mut out = Vec::with_capacity(a.len());
                for x in a {
                    match x {
                        Value::String(s) => out.push(Value::String(self.apply(s)?)),
                        other => return Err(cast_error(&self.f.field, other, "java.lang.String")),
                    }
                }
                Value::Array(out)
            }
            other => return Err(cast_error(&self.f.field, other, "java.lang.String")),
        };
        doc.set(&self.f.target, out)?;
        Ok(Flow::Continue)
    }
}

/// `URLDecoder.decode(s, UTF-8)`: `+` is a space, `%XX` a byte.
pub fn url_decode(s: &str) -> OsResult<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = b.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(x) => out.push(x),
                    None => {
                        return Err(OsError::illegal(format!(
                            "URLDecoder: Illegal hex characters in escape (%) pattern - {s}"
                        )))
                    }
                }
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Markup removed (tags dropped, the usual entities decoded), as Lucene's `HTMLStripCharFilter`
/// leaves text: block tags become a newline.
fn html_strip(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        match rest[i..].find('>') {
            Some(j) => {
                let tag = rest[i + 1..i + j].trim_start_matches('/').to_ascii_lowercase();
                let name: String = tag.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
                if matches!(name.as_str(), "p" | "div" | "br" | "li" | "tr" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6") {
                    out.push('\n');
                }
                rest = &rest[i + j + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&nbsp;", "\u{a0}")
}

#[derive(Debug)]
pub struct Gsub {
    f: FieldOpts,
    pattern: regex::Regex,
    replacement: String,
}

impl Gsub {
    pub fn new(c: &mut Config) -> OsResult<Gsub> {
        let f = FieldOpts::read(c)?;
        let p = c.req_str("pattern")?;
        let pattern = regex::Regex::new(&p).map_err(|e| c.err("pattern", &format!("Invalid regex pattern. {e}")))?;
        // Java's `$1` group references are the regex crate's `${1}`.
        let replacement = java_replacement(&c.req_str("replacement")?);
        Ok(Gsub { f, pattern, replacement })
    }
}

fn java_replacement(r: &str) -> String {
    let mut out = String::new();
    let mut chars = r.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => {
                if let Some(n) = chars.next() {
                    if n == '$' {
                        out.push_str("$$");
                    } else {
                        out.push(n);
                    }
                }
            }
            '$' => {
                let mut num = String::new();
                while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    num.push(*d);
                    chars.next();
                }
                out.push_str(&format!("${{{num}}}"));
            }
            c => out.push(c),
        }
    }
    out
}

impl Op for Gsub {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let Some(v) = self.f.value(doc)? else { return Ok(Flow::Continue) };
        let one = |x: &Value| -> OsResult<Value> {
            match x {
                Value::String(s) => {
                    Ok(Value::String(self.pattern.replace_all(s, self.replacement.as_str()).into_owned()))
                }
                other => Err(cast_error(&self.f.field, other, "java.lang.String")),
            }
        };
        let out = match &v {
            Value::Array(a) => Value::Array(a.iter().map(one).collect::<OsResult<_>>()?),
            x => one(x)?,
        };
        doc.set(&self.f.target, out)?;
        Ok(Flow::Continue)
    }
}

#[derive(Debug)]
pub struct Split {
    f: FieldOpts,
    separator: regex::Regex,
    preserve_trailing: bool,
}

impl Split {
    pub fn new(c: &mut Config) -> OsResult<Split> {
        let f = FieldOpts::read(c)?;
        let s = c.req_str("separator")?;
        let separator = regex::Regex::new(&s).map_err(|e| c.err("separator", &format!("Invalid regex. {e}")))?;
        Ok(Split { f, separator, preserve_trailing: c.bool("preserve_trailing", false)? })
    }
}

/// Java's `String.split(regex, limit)`: limit 0 drops trailing empty strings, -1 keeps them.
pub fn java_split(re: &regex::Regex, s: &str, keep_trailing: bool) -> Vec<String> {
    let mut parts: Vec<String> = re.split(s).map(str::to_string).collect();
    // A leading empty string from a zero-width match at 0 is dropped by Java.
    if parts.len() > 1 && parts[0].is_empty() && re.find(s).is_some_and(|m| m.start() == 0 && m.end() == 0) {
        parts.remove(0);
    }
    if !keep_trailing {
        while parts.len() > 1 && parts.last().is_some_and(String::is_empty) {
            parts.pop();
        }
    }
    parts
}

impl Op for Split {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let Some(v) = self.f.value(doc)? else { return Ok(Flow::Continue) };
        let Value::String(s) = &v else { return Err(cast_error(&self.f.field, &v, "java.lang.String")) };
        let parts = java_split(&self.separator, s, self.preserve_trailing);
        doc.set(&self.f.target, Value::Array(parts.into_iter().map(Value::String).collect()))?;
        Ok(Flow::Continue)
    }
}

#[derive(Debug)]
pub struct Join {
    f: FieldOpts,
    separator: String,
}

impl Join {
    pub fn new(c: &mut Config) -> OsResult<Join> {
        Ok(Join { f: FieldOpts::read(c)?, separator: c.req_str("separator")? })
    }
}

impl Op for Join {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let Some(v) = self.f.value(doc)? else { return Ok(Flow::Continue) };
        let Value::Array(a) = &v else { return Err(cast_error(&self.f.field, &v, "java.util.List")) };
        let s: Vec<String> = a.iter().map(super::super::template::java_string).collect();
        doc.set(&self.f.target, Value::String(s.join(&self.separator)))?;
        Ok(Flow::Continue)
    }
}

#[derive(Debug)]
pub struct Sort {
    f: FieldOpts,
    desc: bool,
}

impl Sort {
    pub fn new(c: &mut Config) -> OsResult<Sort> {
        let f = FieldOpts::read(c)?;
        let desc = match c.opt_str("order")?.as_deref() {
            None | Some("asc") => false,
            Some("desc") => true,
            Some(o) => {
                return Err(
                    c.err("order", &format!("Sort direction [{o}] not recognized. Valid values are: [asc, desc]"))
                )
            }
        };
        Ok(Sort { f, desc })
    }
}

fn cmp_values(a: &Value, b: &Value) -> std::cmp::Ordering {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x.as_f64().unwrap_or(0.0).partial_cmp(&y.as_f64().unwrap_or(0.0)).unwrap_or(std::cmp::Ordering::Equal)
        }
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        _ => a.to_string().cmp(&b.to_string()),
    }
}

impl Op for Sort {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let Some(v) = self.f.value(doc)? else { return Ok(Flow::Continue) };
        let Value::Array(mut a) = v else { return Err(cast_error(&self.f.field, &v, "java.util.List")) };
        a.sort_by(cmp_values);
        if self.desc {
            a.reverse();
        }
        doc.set(&self.f.target, Value::Array(a))?;
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn url_decode_and_strip() {
        assert_eq!(url_decode("a%20b+c").ok(), Some("a b c".to_string()));
        assert!(url_decode("%zz").is_err());
        assert_eq!(html_strip("<p>a &amp; b</p>"), "\na & b\n");
        assert_eq!(java_replacement("x$1\\$"), "x${1}$$");
    }

    proptest! {
        #[test]
        fn split_then_join_round_trips(parts in prop::collection::vec("[a-z]{1,5}", 1..6)) {
            let joined = parts.join(",");
            let re = regex::Regex::new(",").unwrap();
            prop_assert_eq!(java_split(&re, &joined, false), parts);
        }
    }
}
