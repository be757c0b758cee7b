//! `dynamic_templates`: the mappings OpenSearch gives new fields that match a template, as its
//! `DynamicTemplate` and `RootObjectMapper` do.
//!
//! A template matches a new field by name (`match`/`unmatch`, `*` wildcards or, with
//! `"match_pattern": "regex"`, a whole-name regular expression), by dotted path
//! (`path_match`/`path_unmatch`) and by the type detected from the JSON value
//! (`match_mapping_type`: `object`, `string`, `long`, `double`, `boolean`, `date`, `binary` or
//! `*`). The first matching template wins; its `mapping` (with `{name}` and `{dynamic_type}`
//! replaced) becomes the field's definition, its `type` defaulting to the detected type's default
//! (`text` for strings, `float` for fractions, `long` for integers, ...).
//!
//! Fathom also accepts the numeric type names `integer`, `short`, `byte` (matching integers, as
//! `long` does) and `float`, `half_float` (matching fractions, as `double` does) for
//! `match_mapping_type`, which OpenSearch's own tests use (`index/111_false_allow_templates.yml`);
//! JSON cannot tell them apart, so they select by the JSON kind only.

use serde_json::{json, Map, Value};

use super::mapping::{mapper_from_def, Mapper};
use super::MappingError;

/// The JSON kinds a value is detected as (OpenSearch's `XContentFieldType`).
pub const DETECTED_TYPES: [&str; 7] = ["object", "string", "long", "double", "boolean", "date", "binary"];

/// One named template.
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicTemplate {
    pub name: String,
    pub match_name: Option<String>,
    pub unmatch: Option<String>,
    pub path_match: Option<String>,
    pub path_unmatch: Option<String>,
    /// As given (`None`: any type; `"*"` is kept as `None`).
    pub match_mapping_type: Option<String>,
    /// `"match_pattern": "regex"`.
    pub regex: bool,
    pub mapping: Map<String, Value>,
}

/// The detected kind `match_mapping_type` stands for (numeric type names included, see above).
fn detected_kind(t: &str) -> Option<&'static str> {
    Some(match t {
        "integer" | "short" | "byte" => "long",
        "float" | "half_float" => "double",
        other => DETECTED_TYPES.iter().copied().find(|d| *d == other)?,
    })
}

/// The mapping type a detected kind gets by default.
pub fn default_type(kind: &str) -> &'static str {
    match kind {
        "object" => "object",
        "string" => "text",
        "long" => "long",
        "double" => "float",
        "boolean" => "boolean",
        "date" => "date",
        _ => "binary",
    }
}

fn syntax_error() -> MappingError {
    MappingError::parsing("Dynamic template syntax error. An array of named objects is expected.")
}

/// OpenSearch's `Regex.simpleMatch`: `*` matches any sequence (the pattern `*` everything).
pub fn simple_match(pattern: &str, s: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == s;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !s.starts_with(first) || s.len() < first.len() + last.len() || !s.ends_with(last) {
        return false;
    }
    let mut rest = &s[first.len()..s.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

impl DynamicTemplate {
    /// Parses `{"name": {...}}`.
    fn parse(name: &str, conf: &Map<String, Value>) -> Result<DynamicTemplate, MappingError> {
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let mut t = DynamicTemplate {
            name: name.to_string(),
            match_name: None,
            unmatch: None,
            path_match: None,
            path_unmatch: None,
            match_mapping_type: None,
            regex: false,
            mapping: Map::new(),
        };
        let mut mapping = None;
        let mut mmt = None;
        for (k, v) in conf {
            match k.as_str() {
                "match" => t.match_name = Some(text(v)),
                "unmatch" => t.unmatch = Some(text(v)),
                "path_match" => t.path_match = Some(text(v)),
                "path_unmatch" => t.path_unmatch = Some(text(v)),
                "match_mapping_type" => mmt = Some(text(v)),
                "match_pattern" => match text(v).as_str() {
                    "simple" => t.regex = false,
                    "regex" => t.regex = true,
                    other => return Err(MappingError::illegal(format!("No matching pattern matched on [{other}]"))),
                },
                "mapping" => match v {
                    Value::Object(m) => mapping = Some(m.clone()),
                    _ => return Err(MappingError::parsing("template must have mapping set")),
                },
                other => return Err(MappingError::illegal(format!("Illegal dynamic template parameter: [{other}]"))),
            }
        }
        if t.match_name.is_none() && t.path_match.is_none() && mmt.is_none() {
            return Err(MappingError::parsing(format!(
                "template must have match, path_match or match_mapping_type set {}",
                Value::Object(conf.clone())
            )));
        }
        t.mapping = mapping.ok_or_else(|| MappingError::parsing("template must have mapping set"))?;
        if let Some(m) = mmt.filter(|m| m != "*") {
            if detected_kind(&m).is_none() {
                return Err(MappingError::illegal(format!(
                    "No field type matched on [{m}], possible values are [{}]",
                    DETECTED_TYPES.join(", ")
                )));
            }
            t.match_mapping_type = Some(m);
        }
        if t.regex {
            for p in [&t.match_name, &t.unmatch, &t.path_match, &t.path_unmatch].into_iter().flatten() {
                if compile(p).is_none() {
                    return Err(MappingError::illegal(format!(
                        "Pattern [{p}] of type [regex] is invalid. Cannot create dynamic template [{name}]."
                    )));
                }
            }
        }
        // OpenSearch validates the mapping by building it for each type it may apply to.
        let kinds: Vec<&str> = match t.match_mapping_type.as_deref().and_then(detected_kind) {
            Some(k) => vec![k],
            None => DETECTED_TYPES.to_vec(),
        };
        let valid = kinds.iter().any(|k| t.build("__dummy__", k).is_ok());
        if !valid {
            let err = t.build("__dummy__", kinds[0]).err().unwrap_or_else(|| MappingError::parsing("invalid mapping"));
            return Err(MappingError::parsing(format!(
                "dynamic template [{name}] has invalid content [{}], attempted to validate it with the following match_mapping_type: [{}]",
                json!({name: Value::Object(conf.clone())}),
                kinds.join(", ")
            ))
            .caused_by(err));
        }
        Ok(t)
    }

    fn matches_pattern(&self, pattern: &str, s: &str) -> bool {
        if self.regex {
            compile(pattern).is_some_and(|r| r.is_match(s))
        } else {
            simple_match(pattern, s)
        }
    }

    /// Whether the template applies to a new field at `path` named `name` detected as `kind`.
    pub fn matches(&self, path: &str, name: &str, kind: &str) -> bool {
        let some = |p: &Option<String>, s: &str| p.as_deref().is_some_and(|p| self.matches_pattern(p, s));
        if self.path_match.is_some() && !some(&self.path_match, path) {
            return false;
        }
        if self.match_name.is_some() && !some(&self.match_name, name) {
            return false;
        }
        if some(&self.path_unmatch, path) || some(&self.unmatch, name) {
            return false;
        }
        match self.match_mapping_type.as_deref().and_then(detected_kind) {
            Some(k) => k == kind,
            None => true,
        }
    }

    /// The mapper for a field named `name` detected as `kind`.
    pub fn build(&self, name: &str, kind: &str) -> Result<Mapper, MappingError> {
        let default = default_type(kind);
        let mut def = match substitute(&Value::Object(self.mapping.clone()), name, default) {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        if !def.contains_key("type") {
            def.insert("type".into(), json!(default));
        }
        mapper_from_def(name, &def)
    }

    /// The template as `GET _mapping` prints it.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        let mut put = |k: &str, v: &Option<String>| {
            if let Some(v) = v {
                m.insert(k.into(), json!(v));
            }
        };
        put("match", &self.match_name);
        put("path_match", &self.path_match);
        put("unmatch", &self.unmatch);
        put("path_unmatch", &self.path_unmatch);
        match &self.match_mapping_type {
            Some(t) => {
                m.insert("match_mapping_type".into(), json!(t));
            }
            None if self.match_name.is_none() && self.path_match.is_none() => {
                m.insert("match_mapping_type".into(), json!("*"));
            }
            None => {}
        }
        if self.regex {
            m.insert("match_pattern".into(), json!("regex"));
        }
        // Sorted keys, as OpenSearch prints it (serde_json's map is ordered by key).
        m.insert("mapping".into(), Value::Object(self.mapping.clone()));
        json!({ self.name.clone(): Value::Object(m) })
    }
}

fn compile(p: &str) -> Option<regex::Regex> {
    regex::RegexBuilder::new(&format!("^(?:{p})$")).size_limit(1 << 20).build().ok()
}

/// Replaces `{name}`, `{dynamic_type}` and `{dynamicType}` in keys and string values.
fn substitute(v: &Value, name: &str, dynamic_type: &str) -> Value {
    let s = |x: &str| {
        x.replace("{name}", name).replace("{dynamic_type}", dynamic_type).replace("{dynamicType}", dynamic_type)
    };
    match v {
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (s(k), substitute(v, name, dynamic_type))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(|x| substitute(x, name, dynamic_type)).collect()),
        Value::String(x) => Value::String(s(x)),
        other => other.clone(),
    }
}

/// Parses the `dynamic_templates` array.
pub fn parse_templates(v: &Value) -> Result<Vec<DynamicTemplate>, MappingError> {
    let Value::Array(items) = v else { return Err(syntax_error()) };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let Value::Object(m) = item else { return Err(syntax_error()) };
        if m.len() != 1 {
            return Err(syntax_error());
        }
        for (name, conf) in m {
            let Value::Object(conf) = conf else { return Err(syntax_error()) };
            out.push(DynamicTemplate::parse(name, conf)?);
        }
    }
    Ok(out)
}

/// Merges put-mapping templates into existing ones: a template replaces the one of the same name
/// in place, new names are appended (OpenSearch's `RootObjectMapper.doMerge`).
pub fn merge_templates(base: &[DynamicTemplate], update: &[DynamicTemplate]) -> Vec<DynamicTemplate> {
    let mut out = base.to_vec();
    for t in update {
        match out.iter_mut().find(|x| x.name == t.name) {
            Some(x) => *x = t.clone(),
            None => out.push(t.clone()),
        }
    }
    out
}

/// The first template for a new field (`None`: none matches).
pub fn find<'t>(templates: &'t [DynamicTemplate], path: &str, name: &str, kind: &str) -> Option<&'t DynamicTemplate> {
    templates.iter().find(|t| t.matches(path, name, kind))
}

#[cfg(test)]
#[path = "dynamic_templates_tests.rs"]
mod tests;
