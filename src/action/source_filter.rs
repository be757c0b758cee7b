//! `_source` filtering (`_source`, `_source_includes`, `_source_excludes`) as OpenSearch's
//! `XContentMapValues.filter` does it: patterns are dotted paths with `*` wildcards; an include
//! that names an object keeps its whole subtree; excludes win over includes; objects left empty
//! by the filter disappear; arrays are filtered element by element.

use serde_json::{Map, Value};

use crate::cluster::resolve::glob;

/// What to return of `_source`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SourceFilter {
    /// `_source=false`.
    pub disabled: bool,
    pub includes: Vec<String>,
    pub excludes: Vec<String>,
}

impl SourceFilter {
    /// Whether the source is returned unchanged.
    pub fn is_noop(&self) -> bool {
        !self.disabled && self.includes.is_empty() && self.excludes.is_empty()
    }

    /// Parses the `_source` request body value: `true`/`false`, `"field"`, `["a","b"]`,
    /// `{"includes": [...], "excludes": [...]}` (also `include`/`exclude`).
    pub fn from_json(v: &Value) -> Result<SourceFilter, String> {
        let list = |v: &Value| -> Result<Vec<String>, String> {
            match v {
                Value::String(s) => Ok(vec![s.clone()]),
                Value::Array(a) => a
                    .iter()
                    .map(|x| {
                        x.as_str()
                            .map(str::to_string)
                            .ok_or_else(|| format!("expected a string in _source list, got {x}"))
                    })
                    .collect(),
                Value::Null => Ok(Vec::new()),
                other => Err(format!("expected a string or list of strings, got {other}")),
            }
        };
        match v {
            Value::Bool(b) => Ok(SourceFilter { disabled: !b, ..Default::default() }),
            Value::String(_) | Value::Array(_) => Ok(SourceFilter { includes: list(v)?, ..Default::default() }),
            Value::Object(m) => {
                let mut f = SourceFilter::default();
                for (k, val) in m {
                    match k.as_str() {
                        "includes" | "include" => f.includes = list(val)?,
                        "excludes" | "exclude" => f.excludes = list(val)?,
                        other => return Err(format!("Unknown key for a START_ARRAY in [{other}].")),
                    }
                }
                Ok(f)
            }
            other => Err(format!(
                "Expected one of [TRUE, FALSE, VALUE_STRING, START_ARRAY, START_OBJECT] but found [{other}]"
            )),
        }
    }

    /// From URL parameters: `_source` (true/false/list), `_source_includes`, `_source_excludes`.
    pub fn from_params(source: Option<&str>, includes: Option<&str>, excludes: Option<&str>) -> SourceFilter {
        let split =
            |s: &str| s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(str::to_string).collect::<Vec<_>>();
        let mut f = SourceFilter::default();
        match source {
            Some("false") => f.disabled = true,
            Some("true") | None => {}
            Some(list) => f.includes = split(list),
        }
        if let Some(i) = includes {
            f.includes = split(i);
        }
        if let Some(e) = excludes {
            f.excludes = split(e);
        }
        f
    }

    /// Applies the filter; `None` when the source is not to be returned.
    pub fn apply(&self, source: &Value) -> Option<Value> {
        if self.disabled {
            return None;
        }
        if self.is_noop() {
            return Some(source.clone());
        }
        match source {
            Value::Object(m) => Some(Value::Object(self.filter_map(m, ""))),
            other => Some(other.clone()),
        }
    }

    fn filter_map(&self, m: &Map<String, Value>, prefix: &str) -> Map<String, Value> {
        let mut out = Map::new();
        for (k, v) in m {
            let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            if let Some(kept) = self.filter_value(v, &path, false) {
                out.insert(k.clone(), kept);
            }
        }
        out
    }

    fn filter_value(&self, v: &Value, path: &str, included: bool) -> Option<Value> {
        if self.excludes.iter().any(|p| covers(p, path)) {
            return None;
        }
        let included = included || self.includes.is_empty() || self.includes.iter().any(|p| covers(p, path));
        match v {
            Value::Object(m) => {
                if !included && !self.may_include_below(path) {
                    return None;
                }
                let mut out = Map::new();
                for (k, child) in m {
                    if let Some(c) = self.filter_value(child, &format!("{path}.{k}"), included) {
                        out.insert(k.clone(), c);
                    }
                }
                if out.is_empty() && !(included && m.is_empty()) {
                    return if included && self.excludes.is_empty() { Some(Value::Object(out)) } else { None };
                }
                Some(Value::Object(out))
            }
            Value::Array(items) => {
                if !included && !self.may_include_below(path) {
                    return None;
                }
                let mut out = Vec::new();
                for it in items {
                    match it {
                        Value::Object(_) | Value::Array(_) => {
                            if let Some(c) = self.filter_value(it, path, included) {
                                out.push(c);
                            }
                        }
                        scalar if included => out.push(scalar.clone()),
                        _ => {}
                    }
                }
                if out.is_empty() && !items.is_empty() {
                    return None;
                }
                Some(Value::Array(out))
            }
            scalar => included.then(|| scalar.clone()),
        }
    }

    /// Whether some include pattern could match a path below `path`.
    fn may_include_below(&self, path: &str) -> bool {
        let prefix = format!("{path}.");
        self.includes.iter().any(|p| {
            p.starts_with(&prefix) || {
                // A wildcard before the end may cover deeper paths: compare the literal prefix.
                let lit = p.split('*').next().unwrap_or("");
                p.contains('*') && (prefix.starts_with(lit) || lit.starts_with(&prefix))
            }
        })
    }
}

/// Whether pattern `p` names `path` or an object above it. A key may itself hold dots
/// (`{"a.b": 1}`), so the prefixes of the path at each dot are tried too, as OpenSearch's
/// automaton (`p` or `p.*`) does.
fn covers(p: &str, path: &str) -> bool {
    glob(p, path) || path.match_indices('.').any(|(i, _)| glob(p, &path[..i]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn f(inc: &[&str], exc: &[&str]) -> SourceFilter {
        SourceFilter {
            disabled: false,
            includes: inc.iter().map(|s| s.to_string()).collect(),
            excludes: exc.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn includes_and_excludes() {
        let src = json!({"a": 1, "b": {"c": 2, "d": 3}, "e": [{"f": 1, "g": 2}]});
        assert_eq!(f(&["a"], &[]).apply(&src).unwrap(), json!({"a": 1}));
        assert_eq!(f(&["b"], &[]).apply(&src).unwrap(), json!({"b": {"c": 2, "d": 3}}));
        assert_eq!(f(&["b.c"], &[]).apply(&src).unwrap(), json!({"b": {"c": 2}}));
        assert_eq!(f(&[], &["b"]).apply(&src).unwrap(), json!({"a": 1, "e": [{"f": 1, "g": 2}]}));
        assert_eq!(f(&["*.c"], &[]).apply(&src).unwrap(), json!({"b": {"c": 2}}));
        assert_eq!(f(&["e.f"], &[]).apply(&src).unwrap(), json!({"e": [{"f": 1}]}));
        assert_eq!(f(&["b.*"], &["b.d"]).apply(&src).unwrap(), json!({"b": {"c": 2}}));
        assert_eq!(f(&["zzz"], &[]).apply(&src).unwrap(), json!({}));
    }

    #[test]
    fn keys_with_dots_match_their_object_paths() {
        let src = json!({"a.b": 1, "a": {"c": 2}, "x.y": {"z": 3, "w": 4}, "n": 5});
        assert_eq!(f(&["a"], &[]).apply(&src).unwrap(), json!({"a.b": 1, "a": {"c": 2}}));
        assert_eq!(f(&[], &["a"]).apply(&src).unwrap(), json!({"x.y": {"z": 3, "w": 4}, "n": 5}));
        assert_eq!(f(&["x"], &["x.y.w"]).apply(&src).unwrap(), json!({"x.y": {"z": 3}}));
        assert_eq!(f(&["x.y.z"], &[]).apply(&src).unwrap(), json!({"x.y": {"z": 3}}));
        assert_eq!(f(&["a.b"], &[]).apply(&src).unwrap(), json!({"a.b": 1}));
    }

    #[test]
    fn params_parse() {
        assert!(SourceFilter::from_params(Some("false"), None, None).apply(&json!({})).is_none());
        assert_eq!(SourceFilter::from_params(Some("a,b"), None, None).includes, vec!["a", "b"]);
        assert_eq!(SourceFilter::from_json(&json!({"includes": "x"})).unwrap().includes, vec!["x"]);
    }
}
