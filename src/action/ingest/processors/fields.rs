//! Processors that move fields around: set, remove, rename, copy, append, remove_by_pattern,
//! dot_expander; and fail, drop.

use serde_json::{Map, Value};

use super::super::config::{render_path, Config};
use super::super::doc::{IngestDocument, METADATA};
use super::super::pipeline::{Exec, Flow, Op};
use super::super::template::{Template, ValueSource};
use crate::error::{ErrorKind, OsError, OsResult};

#[derive(Debug)]
pub struct Set {
    field: Template,
    value: Option<ValueSource>,
    copy_from: Option<String>,
    override_: bool,
    ignore_empty_value: bool,
}

impl Set {
    pub fn new(c: &mut Config) -> OsResult<Set> {
        let field = c.req_template("field")?;
        let copy_from = c.opt_str("copy_from")?;
        let value = match (&copy_from, c.opt_value("value")) {
            (Some(_), Some(_)) => {
                return Err(c.err("copy_from", "cannot set both `copy_from` and `value` in the same processor"))
            }
            (None, None) => return Err(c.err("value", "required property is missing")),
            (_, v) => v.map(|v| ValueSource::new(&v)),
        };
        let override_ = c.bool("override", true)?;
        let ignore_empty_value = c.bool("ignore_empty_value", false)?;
        Ok(Set { field, value, copy_from, override_, ignore_empty_value })
    }
}

impl Op for Set {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let path = render_path(&self.field, doc, "field")?;
        if !self.override_ && doc.get_opt(&path).is_some_and(|v| !v.is_null()) {
            return Ok(Flow::Continue);
        }
        let value = match (&self.copy_from, &self.value) {
            (Some(from), _) => doc.get(from)?.clone(),
            (None, Some(v)) => v.value(doc),
            (None, None) => Value::Null,
        };
        if self.ignore_empty_value && (value.is_null() || value.as_str() == Some("")) {
            return Ok(Flow::Continue);
        }
        if path == "_op_type" {
            check_op_type(&value)?;
        }
        doc.set(&path, value)?;
        Ok(Flow::Continue)
    }
}

fn check_op_type(v: &Value) -> OsResult<()> {
    match v.as_str() {
        Some("index") | Some("create") => Ok(()),
        _ => Err(OsError::illegal(format!(
            "invalid value [{}] for field [_op_type], only [index] and [create] are allowed",
            super::super::template::java_string(v)
        ))),
    }
}

#[derive(Debug)]
pub struct Remove {
    fields: Vec<Template>,
    ignore_missing: bool,
}

impl Remove {
    pub fn new(c: &mut Config) -> OsResult<Remove> {
        let fields = match c.req_value("field")? {
            Value::String(s) => vec![Template::new(&s)],
            Value::Array(a) => a.iter().map(|v| Template::new(v.as_str().unwrap_or_default())).collect(),
            other => vec![Template::new(&other.to_string())],
        };
        let ignore_missing = c.bool("ignore_missing", false)?;
        Ok(Remove { fields, ignore_missing })
    }
}

impl Op for Remove {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        for f in &self.fields {
            let path = f.render(doc);
            if path.is_empty() && self.ignore_missing {
                continue;
            }
            let path = render_path(f, doc, "field")?;
            match path.as_str() {
                "_index" | "_version" | "_version_type" => {
                    return Err(OsError::illegal(format!("cannot remove metadata field [{path}]")))
                }
                "_id" if doc.sm.get("_version_type").and_then(Value::as_str).is_some_and(|t| t != "internal") => {
                    return Err(OsError::illegal(
                        "cannot remove metadata field [_id] when specifying external version for the document, version: "
                            .to_string()
                            + &doc.meta_str("_version").unwrap_or_default()
                            + ", version_type: "
                            + &doc.meta_str("_version_type").unwrap_or_default(),
                    ))
                }
                _ => {}
            }
            if !doc.has(&path) {
                if self.ignore_missing {
                    continue;
                }
                return Err(OsError::illegal(format!("field [{path}] doesn't exist")));
            }
            doc.remove(&path)?;
        }
        Ok(Flow::Continue)
    }
}

#[derive(Debug)]
pub struct Rename {
    field: Template,
    target: Template,
    ignore_missing: bool,
    override_target: bool,
}

impl Rename {
    pub fn new(c: &mut Config) -> OsResult<Rename> {
        Ok(Rename {
            field: c.req_template("field")?,
            target: c.req_template("target_field")?,
            ignore_missing: c.bool("ignore_missing", false)?,
            override_target: c.bool("override_target", false)?,
        })
    }
}

impl Op for Rename {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let from = self.field.render(doc);
        if from.is_empty() && self.ignore_missing {
            return Ok(Flow::Continue);
        }
        let from = render_path(&self.field, doc, "field")?;
        if !doc.has(&from) {
            if self.ignore_missing {
                return Ok(Flow::Continue);
            }
            return Err(OsError::illegal(format!("field [{from}] doesn't exist")));
        }
        let to = render_path(&self.target, doc, "target field")?;
        if doc.has(&to) && !self.override_target {
            return Err(OsError::illegal(format!("field [{to}] already exists")));
        }
        let v = doc.get(&from)?.clone();
        doc.remove(&from)?;
        if let Err(e) = doc.set(&to, v.clone()) {
            // Put it back as it was.
            let _ = doc.set(&from, v);
            return Err(e);
        }
        Ok(Flow::Continue)
    }
}

#[derive(Debug)]
pub struct Copy {
    source: Template,
    target: Template,
    ignore_missing: bool,
    remove_source: bool,
    override_target: bool,
}

impl Copy {
    pub fn new(c: &mut Config) -> OsResult<Copy> {
        Ok(Copy {
            source: c.req_template("source_field")?,
            target: c.req_template("target_field")?,
            ignore_missing: c.bool("ignore_missing", false)?,
            remove_source: c.bool("remove_source", false)?,
            override_target: c.bool("override_target", false)?,
        })
    }
}

impl Op for Copy {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let from = render_path(&self.source, doc, "source field")?;
        let to = render_path(&self.target, doc, "target field")?;
        if from == to {
            return Err(OsError::illegal("source field path and target field path cannot be same"));
        }
        let Some(v) = doc.get_opt(&from).cloned() else {
            if self.ignore_missing {
                return Ok(Flow::Continue);
            }
            return Err(OsError::illegal(format!("source field [{from}] doesn't exist")));
        };
        if v.is_null() && self.ignore_missing {
            return Ok(Flow::Continue);
        }
        if doc.has(&to) && !self.override_target {
            return Err(OsError::illegal(format!("target field [{to}] already exists")));
        }
        doc.set(&to, v)?;
        if self.remove_source {
            doc.remove(&from)?;
        }
        Ok(Flow::Continue)
    }
}

#[derive(Debug)]
pub struct Append {
    field: Template,
    value: ValueSource,
    allow_duplicates: bool,
}

impl Append {
    pub fn new(c: &mut Config) -> OsResult<Append> {
        let field = c.req_template("field")?;
        let value = ValueSource::new(&c.req_value("value")?);
        Ok(Append { field, value, allow_duplicates: c.bool("allow_duplicates", true)? })
    }
}

impl Op for Append {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let path = render_path(&self.field, doc, "field")?;
        let v = self.value.value(doc);
        doc.append(&path, v, self.allow_duplicates)?;
        Ok(Flow::Continue)
    }
}

/// A glob pattern of `remove_by_pattern` (`*` wildcards).
fn glob_match(p: &str, s: &str) -> bool {
    crate::cluster::resolve::glob(p, s)
}

#[derive(Debug)]
pub struct RemoveByPattern {
    include: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
}

impl RemoveByPattern {
    pub fn new(c: &mut Config) -> OsResult<RemoveByPattern> {
        let read = |c: &mut Config, name: &str| -> OsResult<Option<Vec<String>>> {
            match c.opt_value(name) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(vec![s])),
                Some(Value::Array(a)) => {
                    Ok(Some(a.iter().map(|v| v.as_str().unwrap_or_default().to_string()).collect()))
                }
                Some(_) => Err(c.err(name, "property isn't a list or string")),
            }
        };
        let include = read(c, "field_pattern")?;
        let exclude = read(c, "exclude_field_pattern")?;
        match (&include, &exclude) {
            (Some(_), Some(_)) | (None, None) => {
                return Err(c.err("field_pattern", "either field_pattern or exclude_field_pattern must be set"))
            }
            _ => {}
        }
        if let Some(inc) = &include {
            let bad: Vec<&String> = inc.iter().filter(|p| p.starts_with('_')).collect();
            if !bad.is_empty() {
                let mut msg = String::new();
                for p in bad {
                    msg.push_str(&format!("field_pattern [{p}] must not start with '_';"));
                }
                return Err(c.err("field_pattern", &format!("Validation Failed: 1: {msg}")));
            }
        }
        Ok(RemoveByPattern { include, exclude })
    }
}

impl Op for RemoveByPattern {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let keys: Vec<String> = doc.sm.keys().filter(|k| !METADATA.contains(&k.as_str())).cloned().collect();
        for k in keys {
            let remove = match (&self.include, &self.exclude) {
                (Some(inc), _) => inc.iter().any(|p| glob_match(p, &k)),
                (None, Some(exc)) => !exc.iter().any(|p| glob_match(p, &k)),
                (None, None) => false,
            };
            if remove {
                doc.sm.shift_remove(&k);
            }
        }
        Ok(Flow::Continue)
    }
}

#[derive(Debug)]
pub struct DotExpander {
    field: String,
    path: Option<String>,
    override_: bool,
}

impl DotExpander {
    pub fn new(c: &mut Config) -> OsResult<DotExpander> {
        let field = c.req_str("field")?;
        if field != "*"
            && (!field.contains('.') || field.starts_with('.') || field.ends_with('.') || field.contains(".."))
        {
            return Err(c.err("field", "field does not contain a dot and is not a wildcard"));
        }
        Ok(DotExpander { field, path: c.opt_str("path")?, override_: c.bool("override", false)? })
    }

    fn expand_one(&self, map: &mut Map<String, Value>, key: &str) -> OsResult<()> {
        let Some(v) = map.shift_remove(key) else { return Ok(()) };
        let parts: Vec<&str> = key.split('.').collect();
        let mut cur = map;
        for p in &parts[..parts.len() - 1] {
            let e = cur.entry(p.to_string()).or_insert_with(|| Value::Object(Map::new()));
            if !e.is_object() {
                let old = std::mem::take(e);
                *e = Value::Object(Map::new());
                if let Value::Object(m) = e {
                    m.insert(String::new(), old);
                    m.shift_remove("");
                }
            }
            cur = match e {
                Value::Object(m) => m,
                _ => return Ok(()),
            };
        }
        let leaf = parts[parts.len() - 1].to_string();
        match cur.get_mut(&leaf) {
            Some(existing) if !self.override_ => {
                let mut list = match std::mem::take(existing) {
                    Value::Array(a) => a,
                    other => vec![other],
                };
                list.push(v);
                *existing = Value::Array(list);
            }
            _ => {
                cur.insert(leaf, v);
            }
        }
        Ok(())
    }
}

impl Op for DotExpander {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let mut target = match &self.path {
            Some(p) => match doc.get(p)?.clone() {
                Value::Object(m) => m,
                _ => return Ok(Flow::Continue),
            },
            None => std::mem::take(&mut doc.sm),
        };
        let keys: Vec<String> = if self.field == "*" {
            target.keys().filter(|k| k.contains('.')).cloned().collect()
        } else {
            vec![self.field.clone()]
        };
        let mut r = Ok(());
        for k in keys {
            r = r.and(self.expand_one(&mut target, &k));
        }
        match &self.path {
            Some(p) => doc.set(p, Value::Object(target))?,
            None => doc.sm = target,
        }
        r.map(|_| Flow::Continue)
    }
}

#[derive(Debug)]
pub struct Fail {
    message: Template,
}

impl Fail {
    pub fn new(c: &mut Config) -> OsResult<Fail> {
        Ok(Fail { message: c.req_template("message")? })
    }
}

impl Op for Fail {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        Err(OsError::new(ErrorKind::FailProcessor, self.message.render(doc)))
    }
}

#[derive(Debug)]
pub struct Drop;

impl Op for Drop {
    fn run(&self, _doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        Ok(Flow::Drop)
    }
}
