//! Rendering response bodies: JSON (compact or `pretty`), YAML (`format=yaml`), and
//! `filter_path` (dotted paths with `*` and `**`, `-` for exclusion) applied to any body.

use serde_json::{Map, Value};

use crate::action::deferred::Deferred;
use crate::cluster::resolve::glob;

/// A response body before rendering.
#[derive(Debug, Clone)]
pub enum Body {
    Json(Value),
    /// Plain text (CAT tables, hot threads), `text/plain; charset=UTF-8`.
    Text(String),
    /// A page embedded in the binary (the status page), `text/html; charset=UTF-8`.
    Html(&'static str),
    Empty,
}

/// A handler's response.
#[derive(Debug, Clone)]
pub struct RestResponse {
    pub status: u16,
    pub body: Body,
    pub headers: Vec<(String, String)>,
    /// A body already rendered as compact JSON (`body` is then [`Body::Empty`]): sent as-is
    /// when no `filter_path`, `pretty` or `format` asks for another rendering, parsed back into
    /// a [`Value`] for the generic path otherwise ([`RestResponse::into_json`]).
    pub raw_json: Option<Vec<u8>>,
    /// What the action left for before the answer is sent: deprecation warnings (rendered as
    /// `Warning` headers) and refresh waits.
    pub deferred: Deferred,
}

impl RestResponse {
    /// The response with what its action left for later.
    pub fn with_deferred(mut self, deferred: Deferred) -> RestResponse {
        self.deferred.absorb(deferred);
        self
    }
    /// Adds a deprecation warning (a `Warning` header).
    pub fn warn(mut self, msg: impl Into<String>) -> RestResponse {
        self.deferred.warn(msg);
        self
    }
    /// 200 with a JSON body.
    pub fn ok(v: Value) -> RestResponse {
        RestResponse {
            status: 200,
            body: Body::Json(v),
            headers: Vec::new(),
            raw_json: None,
            deferred: Deferred::default(),
        }
    }
    /// A status with a JSON body.
    pub fn json(status: u16, v: Value) -> RestResponse {
        RestResponse { status, body: Body::Json(v), headers: Vec::new(), raw_json: None, deferred: Deferred::default() }
    }
    /// 200 with text.
    pub fn text(s: String) -> RestResponse {
        RestResponse {
            status: 200,
            body: Body::Text(s),
            headers: Vec::new(),
            raw_json: None,
            deferred: Deferred::default(),
        }
    }
    /// A status with a body already rendered as compact JSON (see `raw_json`).
    pub fn raw_json(status: u16, json: Vec<u8>) -> RestResponse {
        RestResponse {
            status,
            body: Body::Empty,
            headers: Vec::new(),
            raw_json: Some(json),
            deferred: Deferred::default(),
        }
    }
    /// The body as a JSON value: a pre-rendered body is parsed back (an unparsable one, which
    /// a handler never produces, becomes an `internal` error body).
    pub fn json_body(&mut self) {
        if let Some(raw) = self.raw_json.take() {
            self.body = match serde_json::from_slice(&raw) {
                Ok(v) => Body::Json(v),
                Err(e) => {
                    Body::Json(crate::error::OsError::internal(format!("pre-rendered body is not JSON: {e}")).to_body())
                }
            };
        }
    }
    /// A status without a body (HEAD answers).
    pub fn status(status: u16) -> RestResponse {
        RestResponse { status, body: Body::Empty, headers: Vec::new(), raw_json: None, deferred: Deferred::default() }
    }
}

/// Applies `filter_path` to a body.
pub fn filter_path(v: &Value, filters: &str) -> Value {
    let (mut inc, mut exc): (Vec<Vec<&str>>, Vec<Vec<&str>>) = (Vec::new(), Vec::new());
    for f in filters.split(',').map(str::trim).filter(|f| !f.is_empty()) {
        match f.strip_prefix('-') {
            Some(e) => exc.push(e.split('.').collect()),
            None => inc.push(f.split('.').collect()),
        }
    }
    let mut out = v.clone();
    if !inc.is_empty() {
        out = include(&out, &inc.iter().map(|p| p.as_slice()).collect::<Vec<_>>()).unwrap_or(Value::Object(Map::new()));
    }
    for e in &exc {
        exclude(&mut out, e);
    }
    out
}

fn include(v: &Value, patterns: &[&[&str]]) -> Option<Value> {
    if patterns.iter().any(|p| p.is_empty()) {
        return Some(v.clone());
    }
    match v {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, child) in m {
                let mut next: Vec<&[&str]> = Vec::new();
                for p in patterns {
                    if p[0] == "**" {
                        next.push(p); // ** may swallow this level
                        if p.len() > 1 && glob(p[1], k) {
                            next.push(&p[2..]);
                        }
                    } else if glob(p[0], k) {
                        next.push(&p[1..]);
                    }
                }
                if next.is_empty() {
                    continue;
                }
                if let Some(c) = include(child, &next) {
                    out.insert(k.clone(), c);
                }
            }
            (!out.is_empty()).then_some(Value::Object(out))
        }
        Value::Array(items) => {
            let kept: Vec<Value> = items.iter().filter_map(|i| include(i, patterns)).collect();
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        _ => patterns.iter().any(|p| p.iter().all(|s| *s == "**")).then(|| v.clone()),
    }
}

fn exclude(v: &mut Value, p: &[&str]) {
    if p.is_empty() {
        return;
    }
    match v {
        Value::Object(m) => {
            let keys: Vec<String> = m.keys().cloned().collect();
            for k in keys {
                if p[0] == "**" {
                    if let Some(c) = m.get_mut(&k) {
                        exclude(c, p);
                    }
                    if p.len() > 1 && glob(p[1], &k) {
                        if p.len() == 2 {
                            m.remove(&k);
                        } else if let Some(c) = m.get_mut(&k) {
                            exclude(c, &p[2..]);
                        }
                    }
                } else if glob(p[0], &k) {
                    if p.len() == 1 {
                        m.remove(&k);
                    } else if let Some(c) = m.get_mut(&k) {
                        exclude(c, &p[1..]);
                    }
                }
            }
        }
        Value::Array(items) => {
            for i in items {
                exclude(i, p);
            }
        }
        _ => {}
    }
}

/// Renders JSON as YAML (`format=yaml`), as OpenSearch's YAML output looks.
pub fn to_yaml(v: &Value) -> String {
    let mut out = String::from("---\n");
    match v {
        Value::Object(m) if !m.is_empty() => yaml_map(m, 0, &mut out),
        Value::Array(a) if !a.is_empty() => yaml_list(a, 0, &mut out),
        other => {
            out.push_str(&yaml_scalar(other));
            out.push('\n');
        }
    }
    out
}

fn yaml_scalar(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            let plain = !s.is_empty()
                && s.chars().all(|c| c.is_alphanumeric() || "_-./ ".contains(c))
                && !s.starts_with([' ', '-', '.'])
                && !s.ends_with(' ')
                && s.parse::<f64>().is_err()
                && !["true", "false", "null", "yes", "no", "on", "off", "~"].contains(&s.to_ascii_lowercase().as_str());
            if plain {
                s.clone()
            } else {
                serde_json::to_string(s).unwrap_or_default()
            }
        }
        Value::Array(a) if a.is_empty() => "[]".into(),
        Value::Object(m) if m.is_empty() => "{}".into(),
        _ => String::new(),
    }
}

fn yaml_key(k: &str) -> String {
    yaml_scalar(&Value::String(k.to_string()))
}

fn yaml_map(m: &Map<String, Value>, indent: usize, out: &mut String) {
    for (k, v) in m {
        out.push_str(&" ".repeat(indent));
        out.push_str(&yaml_key(k));
        out.push(':');
        match v {
            Value::Object(inner) if !inner.is_empty() => {
                out.push('\n');
                yaml_map(inner, indent + 2, out);
            }
            Value::Array(a) if !a.is_empty() => {
                out.push('\n');
                yaml_list(a, indent, out);
            }
            other => {
                out.push(' ');
                out.push_str(&yaml_scalar(other));
                out.push('\n');
            }
        }
    }
}

fn yaml_list(a: &[Value], indent: usize, out: &mut String) {
    for v in a {
        out.push_str(&" ".repeat(indent));
        out.push('-');
        match v {
            Value::Object(inner) if !inner.is_empty() => {
                // First key on the dash line, the rest indented under it.
                let mut first = String::new();
                yaml_map(inner, indent + 2, &mut first);
                out.push(' ');
                out.push_str(first.trim_start());
            }
            Value::Array(inner) if !inner.is_empty() => {
                out.push('\n');
                yaml_list(inner, indent + 2, out);
            }
            other => {
                out.push(' ');
                out.push_str(&yaml_scalar(other));
                out.push('\n');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn filter_path_includes_and_excludes() {
        let v = json!({"took": 1, "hits": {"total": 5, "hits": [{"_id": "1", "_source": {"a": 1}}, {"_id": "2"}]}});
        assert_eq!(filter_path(&v, "took"), json!({"took": 1}));
        assert_eq!(filter_path(&v, "hits.hits._id"), json!({"hits": {"hits": [{"_id": "1"}, {"_id": "2"}]}}));
        assert_eq!(filter_path(&v, "**._id"), json!({"hits": {"hits": [{"_id": "1"}, {"_id": "2"}]}}));
        assert_eq!(filter_path(&v, "-hits"), json!({"took": 1}));
        assert_eq!(filter_path(&v, "h*.total"), json!({"hits": {"total": 5}}));
        assert_eq!(filter_path(&v, "nothing"), json!({}));
    }

    #[test]
    fn raw_json_parses_back_for_the_generic_path() {
        let mut r = RestResponse::raw_json(200, br#"{"took":1,"items":[{"index":{"_id":"a"}}]}"#.to_vec());
        assert!(matches!(r.body, Body::Empty));
        r.json_body();
        assert!(r.raw_json.is_none());
        match r.body {
            Body::Json(v) => assert_eq!(v, json!({"took": 1, "items": [{"index": {"_id": "a"}}]})),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn yaml_output() {
        let y = to_yaml(&json!({"a": 1, "b": "x y", "c": [1, {"d": true, "e": "1"}], "f": {}}));
        assert_eq!(y, "---\na: 1\nb: x y\nc:\n- 1\n- d: true\n  e: \"1\"\nf: {}\n");
    }
}
