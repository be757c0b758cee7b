//! Processors that split one string into fields: kv, dissect, csv.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::super::config::{render_path, Config};
use super::super::doc::IngestDocument;
use super::super::pipeline::{Exec, Flow, Op};
use super::super::template::Template;
use super::strings::java_split;
use crate::error::{OsError, OsResult};

#[derive(Debug)]
pub struct Kv {
    field: Template,
    target: Option<Template>,
    field_split: regex::Regex,
    value_split: regex::Regex,
    include: Option<HashSet<String>>,
    exclude: Option<HashSet<String>>,
    ignore_missing: bool,
    prefix: String,
    trim_key: Option<String>,
    trim_value: Option<String>,
    strip_brackets: bool,
}

impl Kv {
    pub fn new(c: &mut Config) -> OsResult<Kv> {
        let field = c.req_template("field")?;
        let target = c.opt_template("target_field")?;
        let fs = c.req_str("field_split")?;
        let vs = c.req_str("value_split")?;
        let field_split = regex::Regex::new(&fs).map_err(|e| c.err("field_split", &e.to_string()))?;
        let value_split = regex::Regex::new(&vs).map_err(|e| c.err("value_split", &e.to_string()))?;
        let include = c.opt_str_list("include_keys")?.map(|l| l.into_iter().collect());
        let exclude = c.opt_str_list("exclude_keys")?.map(|l| l.into_iter().collect());
        Ok(Kv {
            field,
            target,
            field_split,
            value_split,
            include,
            exclude,
            ignore_missing: c.bool("ignore_missing", false)?,
            prefix: c.opt_str("prefix")?.unwrap_or_default(),
            trim_key: c.opt_str("trim_key")?,
            trim_value: c.opt_str("trim_value")?,
            strip_brackets: c.bool("strip_brackets", false)?,
        })
    }
}

fn trim_chars(s: &str, chars: &Option<String>) -> String {
    match chars {
        Some(c) => s.trim_matches(|x| c.contains(x)).to_string(),
        None => s.to_string(),
    }
}

impl Op for Kv {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let field = self.field.render(doc);
        if field.is_empty() && self.ignore_missing {
            return Ok(Flow::Continue);
        }
        let field = render_path(&self.field, doc, "field")?;
        let s = match doc.get_opt(&field) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None if self.ignore_missing => return Ok(Flow::Continue),
            None => return Err(OsError::illegal(format!("field [{field}] doesn't exist"))),
            Some(other) => super::super::template::java_string(other),
        };
        let target = match &self.target {
            Some(t) => Some(render_path(t, doc, "target field")?),
            None => None,
        };
        for pair in java_split(&self.field_split, &s, false) {
            let kv: Vec<&str> = self.value_split.splitn(&pair, 2).collect();
            if kv.len() != 2 {
                return Err(OsError::illegal(format!(
                    "field [{field}] does not contain value_split [{}]",
                    self.value_split
                )));
            }
            let key = trim_chars(kv[0], &self.trim_key);
            if self.include.as_ref().is_some_and(|i| !i.contains(&key))
                || self.exclude.as_ref().is_some_and(|e| e.contains(&key))
            {
                continue;
            }
            let mut value = trim_chars(kv[1], &self.trim_value);
            if self.strip_brackets {
                value = value.trim_matches(|c| matches!(c, '(' | ')' | '<' | '>' | '[' | ']' | '"' | '\'')).to_string();
            }
            let path = match &target {
                Some(t) => format!("{t}.{}{key}", self.prefix),
                None => format!("{}{key}", self.prefix),
            };
            // KeyValueProcessor.append: a repeated key becomes a list, a first one a string.
            if doc.has(&path) {
                doc.append(&path, Value::String(value), true)?;
            } else {
                doc.set(&path, Value::String(value))?;
            }
        }
        Ok(Flow::Continue)
    }
}

/// One `%{...}` of a dissect pattern and the literal after it.
#[derive(Debug, Clone)]
struct DKey {
    name: String,
    skip: bool,
    append: bool,
    pad: bool,
    delim: String,
}

#[derive(Debug)]
pub struct Dissect {
    field: String,
    pattern: String,
    prefix: String,
    keys: Vec<DKey>,
    append_separator: String,
    ignore_missing: bool,
}

impl Dissect {
    pub fn new(c: &mut Config) -> OsResult<Dissect> {
        let field = c.req_str("field")?;
        let pattern = c.req_str("pattern")?;
        let append_separator = c.opt_str("append_separator")?.unwrap_or_default();
        let ignore_missing = c.bool("ignore_missing", false)?;
        let (prefix, keys) =
            parse_dissect(&pattern).ok_or_else(|| OsError::illegal(format!("Unable to parse pattern: {pattern}")))?;
        Ok(Dissect { field, pattern, prefix, keys, append_separator, ignore_missing })
    }
}

fn parse_dissect(p: &str) -> Option<(String, Vec<DKey>)> {
    let first = p.find("%{")?;
    let prefix = p[..first].to_string();
    let mut keys = Vec::new();
    let mut rest = &p[first..];
    while let Some(body) = rest.strip_prefix("%{") {
        let end = body.find('}')?;
        let mut name = &body[..end];
        let mut k = DKey { name: String::new(), skip: false, append: false, pad: false, delim: String::new() };
        if let Some(n) = name.strip_suffix("->") {
            k.pad = true;
            name = n;
        }
        if let Some(n) = name.strip_prefix('+') {
            k.append = true;
            name = n.split('/').next().unwrap_or(n);
        } else if let Some(n) = name.strip_prefix('?') {
            k.skip = true;
            name = n;
        } else if name.starts_with('*') || name.starts_with('&') {
            return None;
        }
        k.skip |= name.is_empty();
        k.name = name.to_string();
        let after = &body[end + 1..];
        let next = after.find("%{").unwrap_or(after.len());
        k.delim = after[..next].to_string();
        rest = &after[next..];
        keys.push(k);
    }
    Some((prefix, keys))
}

impl Op for Dissect {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let s = match doc.get_opt(&self.field) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None if self.ignore_missing => return Ok(Flow::Continue),
            None => {
                return Err(OsError::illegal(format!(
                    "field [{}] not present as part of path [{}]",
                    self.field, self.field
                )))
            }
            Some(Value::Null) => {
                return Err(OsError::illegal(format!("field [{}] is null, cannot process it.", self.field)))
            }
            Some(other) => super::super::template::java_string(other),
        };
        let mismatch = || {
            OsError::illegal(format!("Unable to find match for dissect pattern: {} against source: {s}", self.pattern))
        };
        let Some(mut rest) = s.strip_prefix(self.prefix.as_str()) else { return Err(mismatch()) };
        let mut out: Map<String, Value> = Map::new();
        for (i, k) in self.keys.iter().enumerate() {
            let last = i + 1 == self.keys.len();
            let value = if k.delim.is_empty() {
                if !last {
                    return Err(mismatch());
                }
                let v = rest;
                rest = "";
                v
            } else {
                let at = rest.find(k.delim.as_str()).ok_or_else(mismatch)?;
                let v = &rest[..at];
                rest = &rest[at + k.delim.len()..];
                if k.pad {
                    while let Some(r) = rest.strip_prefix(k.delim.as_str()) {
                        rest = r;
                    }
                }
                v
            };
            if k.skip {
                continue;
            }
            match out.get_mut(&k.name) {
                Some(Value::String(prev)) if k.append => {
                    prev.push_str(&self.append_separator);
                    prev.push_str(value);
                }
                _ => {
                    out.insert(k.name.clone(), Value::String(value.to_string()));
                }
            }
        }
        for (k, v) in out {
            doc.set(&k, v)?;
        }
        Ok(Flow::Continue)
    }
}

#[derive(Debug)]
pub struct Csv {
    field: String,
    targets: Vec<String>,
    separator: char,
    quote: char,
    trim: bool,
    ignore_missing: bool,
    empty_value: Option<Value>,
}

impl Csv {
    pub fn new(c: &mut Config) -> OsResult<Csv> {
        let field = c.req_str("field")?;
        let targets = c.req_str_list("target_fields")?;
        if targets.is_empty() {
            return Err(c.err("target_fields", "target fields list can't be empty"));
        }
        let one_char = |c: &mut Config, name: &str, d: char| -> OsResult<char> {
            match c.opt_str(name)? {
                None => Ok(d),
                Some(s) if s.chars().count() == 1 => Ok(s.chars().next().unwrap_or(d)),
                Some(_) => Err(c.err(name, &format!("{name} has to be single character like \" or '"))),
            }
        };
        let separator = one_char(c, "separator", ',')?;
        let quote = one_char(c, "quote", '"')?;
        Ok(Csv {
            field,
            targets,
            separator,
            quote,
            trim: c.bool("trim", false)?,
            ignore_missing: c.bool("ignore_missing", false)?,
            empty_value: c.opt_value("empty_value"),
        })
    }

    fn split(&self, s: &str) -> OsResult<Vec<String>> {
        let mut out = Vec::new();
        let mut cur = String::new();
        let mut chars = s.chars().peekable();
        let mut quoted = false;
        while let Some(ch) = chars.next() {
            if quoted {
                if ch == self.quote {
                    if chars.peek() == Some(&self.quote) {
                        cur.push(ch);
                        chars.next();
                    } else {
                        quoted = false;
                    }
                } else {
                    cur.push(ch);
                }
            } else if ch == self.quote && cur.trim().is_empty() {
                cur.clear();
                quoted = true;
            } else if ch == self.separator {
                out.push(std::mem::take(&mut cur));
            } else {
                cur.push(ch);
            }
        }
        if quoted {
            return Err(OsError::illegal("Unmatched quote"));
        }
        out.push(cur);
        Ok(out)
    }
}

impl Op for Csv {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let s = match doc.get_opt(&self.field) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None if self.ignore_missing => return Ok(Flow::Continue),
            None => return Err(OsError::illegal(format!("field [{}] doesn't exist", self.field))),
            Some(other) => super::super::template::java_string(other),
        };
        let cells = self.split(&s)?;
        for (t, cell) in self.targets.iter().zip(cells) {
            let cell = if self.trim { cell.trim().to_string() } else { cell };
            if cell.is_empty() {
                if let Some(e) = &self.empty_value {
                    doc.set(t, e.clone())?;
                }
                continue;
            }
            doc.set(t, Value::String(cell))?;
        }
        Ok(Flow::Continue)
    }
}
