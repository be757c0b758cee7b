//! The Mustache subset of ingest templates (field names and values of `set`, `append`, ...):
//! `{{path}}` and `{{{path}}}` insert the value at a dotted path of the document model (source,
//! metadata and `_ingest`), unescaped, as OpenSearch's ingest templates render (`text/plain`).
//! A missing value renders as nothing.

use serde_json::{Map, Value};

use super::doc::IngestDocument;

/// A string that may hold `{{...}}` snippets.
#[derive(Debug, Clone, PartialEq)]
pub enum Template {
    Plain(String),
    Parts(Vec<Part>),
}

/// A piece of a template.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Var(Vec<String>),
}

impl Template {
    /// Parses `s` (plain when it has no `{{`).
    pub fn new(s: &str) -> Template {
        if !s.contains("{{") {
            return Template::Plain(s.to_string());
        }
        let mut parts = Vec::new();
        let mut rest = s;
        while let Some(i) = rest.find("{{") {
            if i > 0 {
                parts.push(Part::Text(rest[..i].to_string()));
            }
            let after = &rest[i..];
            let (open, close) = if after.starts_with("{{{") { (3, "}}}") } else { (2, "}}") };
            match after[open..].find(close) {
                Some(j) => {
                    let name = after[open..open + j].trim();
                    parts.push(Part::Var(name.split('.').map(str::to_string).collect()));
                    rest = &after[open + j + close.len()..];
                }
                None => {
                    parts.push(Part::Text(after.to_string()));
                    rest = "";
                }
            }
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_string()));
        }
        Template::Parts(parts)
    }

    /// Whether the template has snippets.
    pub fn is_templated(&self) -> bool {
        matches!(self, Template::Parts(_))
    }

    /// The rendered string.
    pub fn render(&self, doc: &IngestDocument) -> String {
        match self {
            Template::Plain(s) => s.clone(),
            Template::Parts(parts) => {
                let mut out = String::new();
                for p in parts {
                    match p {
                        Part::Text(t) => out.push_str(t),
                        Part::Var(path) => {
                            if let Some(v) = lookup(doc, path) {
                                out.push_str(&java_string(v));
                            }
                        }
                    }
                }
                out
            }
        }
    }
}

fn lookup<'a>(doc: &'a IngestDocument, path: &[String]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    let mut cur: &Value = if first == "_ingest" {
        let (k, rest2) = rest.split_first()?;
        return walk(doc.ingest.get(k)?, rest2);
    } else if first == "_source" && !rest.is_empty() {
        let (k, rest2) = rest.split_first()?;
        return walk(doc.sm.get(k)?, rest2);
    } else {
        doc.sm.get(first)?
    };
    for p in rest {
        cur = step(cur, p)?;
    }
    Some(cur)
}

fn walk<'a>(mut cur: &'a Value, rest: &[String]) -> Option<&'a Value> {
    for p in rest {
        cur = step(cur, p)?;
    }
    Some(cur)
}

fn step<'a>(v: &'a Value, p: &str) -> Option<&'a Value> {
    match v {
        Value::Object(m) => m.get(p),
        Value::Array(a) => a.get(p.parse::<usize>().ok()?),
        _ => None,
    }
}

/// A value as a template renders it: Java's `toString` (`{a=1}`, `[1, 2]`), nothing for null.
pub fn java_string(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        other => java_value_of(other),
    }
}

/// Java's `String.valueOf` of a value (`null`, `{a=1}`, `[1, 2]`).
pub fn java_value_of(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::String(s) => s.clone(),
        Value::Object(m) => {
            let items: Vec<String> = m.iter().map(|(k, v)| format!("{k}={}", java_value_of(v))).collect();
            format!("{{{}}}", items.join(", "))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(java_value_of).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

/// A `value` option: a template string, or an object/list whose strings are templates.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueSource {
    Template(Template),
    Constant(Value),
    Map(Vec<(Template, ValueSource)>),
    List(Vec<ValueSource>),
}

impl ValueSource {
    /// Wraps a configured value.
    pub fn new(v: &Value) -> ValueSource {
        match v {
            Value::String(s) => {
                let t = Template::new(s);
                if t.is_templated() {
                    ValueSource::Template(t)
                } else {
                    ValueSource::Constant(v.clone())
                }
            }
            Value::Object(m) => {
                ValueSource::Map(m.iter().map(|(k, v)| (Template::new(k), ValueSource::new(v))).collect())
            }
            Value::Array(a) => ValueSource::List(a.iter().map(ValueSource::new).collect()),
            other => ValueSource::Constant(other.clone()),
        }
    }

    /// The value for `doc`.
    pub fn value(&self, doc: &IngestDocument) -> Value {
        match self {
            ValueSource::Template(t) => Value::String(t.render(doc)),
            ValueSource::Constant(v) => v.clone(),
            ValueSource::Map(m) => {
                let mut out = Map::new();
                for (k, v) in m {
                    out.insert(k.render(doc), v.value(doc));
                }
                Value::Object(out)
            }
            ValueSource::List(a) => Value::Array(a.iter().map(|v| v.value(doc)).collect()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_paths_and_ingest_metadata() {
        let src = json!({"a": {"b": "x"}, "n": 3, "l": [1, 2]}).as_object().cloned().unwrap_or_default();
        let mut doc = IngestDocument::new(src, &[("_index", json!("idx"))]);
        doc.ingest.insert("pipeline".into(), json!("p1"));
        assert_eq!(Template::new("{{a.b}}-{{{n}}}").render(&doc), "x-3");
        assert_eq!(Template::new("{{_ingest.pipeline}}/{{_index}}").render(&doc), "p1/idx");
        assert_eq!(Template::new("{{missing}}!").render(&doc), "!");
        assert_eq!(Template::new("{{l}}").render(&doc), "[1, 2]");
        assert_eq!(Template::new("plain").render(&doc), "plain");
    }
}
