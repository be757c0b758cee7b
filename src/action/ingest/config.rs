//! Reading a processor's options as OpenSearch's `ConfigurationUtils` does: each option is taken
//! out of the map as it is read, whatever is left over is an error, and errors are
//! `parse_exception`s naming the processor type, its tag and the property.

use serde_json::{Map, Value};

use super::doc::IngestDocument;
use super::template::Template;
use crate::error::{ErrorKind, OsError, OsResult};

/// A processor's configuration being read.
#[derive(Debug)]
pub struct Config {
    pub ty: String,
    pub tag: Option<String>,
    pub map: Map<String, Value>,
}

/// The Java class name OpenSearch prints for a wrong-typed option.
pub fn java_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "java.lang.Boolean",
        Value::Number(n) if n.is_f64() => "java.lang.Double",
        Value::Number(n) if n.as_i64().is_some_and(|x| i32::try_from(x).is_ok()) => "java.lang.Integer",
        Value::Number(_) => "java.lang.Long",
        Value::String(_) => "java.lang.String",
        Value::Array(_) => "java.util.ArrayList",
        Value::Object(_) => "java.util.LinkedHashMap",
    }
}

/// OpenSearch's `newConfigurationException`.
pub fn config_error(ty: &str, tag: Option<&str>, property: Option<&str>, msg: &str) -> OsError {
    let reason = match property {
        Some(p) => format!("[{p}] {msg}"),
        None => msg.to_string(),
    };
    let mut e = OsError::new(ErrorKind::Parse, reason).with("processor_type", ty);
    if let Some(t) = tag {
        e = e.with("processor_tag", t);
    }
    if let Some(p) = property {
        e = e.with("property_name", p);
    }
    e
}

impl Config {
    /// An error about `property`.
    pub fn err(&self, property: &str, msg: &str) -> OsError {
        config_error(&self.ty, self.tag.as_deref(), Some(property), msg)
    }

    /// An error about the processor as a whole.
    pub fn err_plain(&self, msg: &str) -> OsError {
        config_error(&self.ty, self.tag.as_deref(), None, msg)
    }

    /// A required string option.
    pub fn req_str(&mut self, name: &str) -> OsResult<String> {
        match self.opt_str(name)? {
            Some(s) => Ok(s),
            None => Err(self.err(name, "required property is missing")),
        }
    }

    /// An optional string option.
    pub fn opt_str(&mut self, name: &str) -> OsResult<Option<String>> {
        match self.map.shift_remove(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.err(name, &format!("property isn't a string, but of type [{}]", java_type(&v)))),
        }
    }

    /// A boolean option with its default (`"true"`/`"false"` strings accepted).
    pub fn bool(&mut self, name: &str, default: bool) -> OsResult<bool> {
        match self.map.shift_remove(name) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(b),
            Some(Value::String(s)) if s == "true" || s == "false" => Ok(s == "true"),
            Some(v) => Err(self.err(name, &format!("property isn't a boolean, but of type [{}]", java_type(&v)))),
        }
    }

    /// A required option of any type.
    pub fn req_value(&mut self, name: &str) -> OsResult<Value> {
        match self.map.shift_remove(name) {
            None | Some(Value::Null) => Err(self.err(name, "required property is missing")),
            Some(v) => Ok(v),
        }
    }

    /// An optional option of any type.
    pub fn opt_value(&mut self, name: &str) -> Option<Value> {
        self.map.shift_remove(name).filter(|v| !v.is_null())
    }

    /// An optional list of strings.
    pub fn opt_str_list(&mut self, name: &str) -> OsResult<Option<Vec<String>>> {
        match self.map.shift_remove(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(a)) => {
                let mut out = Vec::with_capacity(a.len());
                for v in a {
                    match v {
                        Value::String(s) => out.push(s),
                        other => out.push(other.to_string()),
                    }
                }
                Ok(Some(out))
            }
            Some(v) => Err(self.err(name, &format!("property isn't a list, but of type [{}]", java_type(&v)))),
        }
    }

    /// A required list of strings.
    pub fn req_str_list(&mut self, name: &str) -> OsResult<Vec<String>> {
        match self.opt_str_list(name)? {
            Some(l) => Ok(l),
            None => Err(self.err(name, "required property is missing")),
        }
    }

    /// An optional object option.
    pub fn opt_map(&mut self, name: &str) -> OsResult<Option<Map<String, Value>>> {
        match self.map.shift_remove(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m)),
            Some(v) => Err(self.err(name, &format!("property isn't a map, but of type [{}]", java_type(&v)))),
        }
    }

    /// A template option (`field`, `target_field`, ...), required.
    pub fn req_template(&mut self, name: &str) -> OsResult<Template> {
        Ok(Template::new(&self.req_str(name)?))
    }

    /// A template option, optional.
    pub fn opt_template(&mut self, name: &str) -> OsResult<Option<Template>> {
        Ok(self.opt_str(name)?.map(|s| Template::new(&s)))
    }

    /// Fails when options are left that the processor did not read.
    pub fn finish(self) -> OsResult<()> {
        if self.map.is_empty() {
            return Ok(());
        }
        let keys: Vec<&str> = self.map.keys().map(String::as_str).collect();
        Err(self.err_plain(&format!(
            "processor [{}] doesn't support one or more provided configuration parameters [{}]",
            self.ty,
            keys.join(", ")
        )))
    }
}

/// A field option rendered for a document; an empty result is OpenSearch's
/// "field path cannot be null nor empty" (with `what` before it, e.g. "source field").
pub fn render_path(t: &Template, doc: &IngestDocument, what: &str) -> OsResult<String> {
    let s = t.render(doc);
    if s.is_empty() {
        return Err(OsError::illegal(format!("{what} path cannot be null nor empty")));
    }
    Ok(s)
}
