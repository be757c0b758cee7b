//! Processors that change a field's type: convert, bytes, json.

use serde_json::{Map, Value};

use super::super::config::Config;
use super::super::doc::IngestDocument;
use super::super::pipeline::{Exec, Flow, Op};
use super::strings::{cast_error, FieldOpts};
use crate::error::{ErrorKind, OsError, OsResult};

#[derive(Debug)]
pub struct Convert {
    f: FieldOpts,
    to: String,
}

impl Convert {
    pub fn new(c: &mut Config) -> OsResult<Convert> {
        let f = FieldOpts::read(c)?;
        let to = c.req_str("type")?;
        if !matches!(to.as_str(), "integer" | "long" | "float" | "double" | "boolean" | "string" | "auto" | "ip") {
            return Err(c.err("type", &format!("type [{to}] not supported, cannot convert field.")));
        }
        Ok(Convert { f, to })
    }

    fn one(&self, v: &Value) -> OsResult<Value> {
        let s = super::super::template::java_string(v);
        let fail = |what: &str| {
            OsError::illegal(format!("unable to convert [{s}] to {what}"))
                .caused_by(OsError::new(ErrorKind::NumberFormat, format!("For input string: \"{s}\"")))
        };
        Ok(match self.to.as_str() {
            "integer" => {
                Value::from(parse_int(&s).filter(|n| i32::try_from(*n).is_ok()).ok_or_else(|| fail("integer"))?)
            }
            "long" => Value::from(parse_int(&s).ok_or_else(|| fail("long"))?),
            "float" | "double" => {
                let x: f64 = s.trim().parse().map_err(|_| fail(&self.to))?;
                serde_json::Number::from_f64(x).map(Value::Number).ok_or_else(|| fail(&self.to))?
            }
            "boolean" => match s.to_ascii_lowercase().as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => return Err(OsError::illegal(format!("[{s}] is not a boolean value, cannot convert to boolean"))),
            },
            "string" => Value::String(s),
            "ip" => {
                if s.parse::<std::net::IpAddr>().is_err() {
                    return Err(OsError::illegal(format!("'{s}' is not an IP string literal.")));
                }
                Value::String(s)
            }
            _ => match v {
                Value::String(t) => {
                    if let Some(n) = parse_int(t) {
                        if i32::try_from(n).is_ok() {
                            Value::from(n)
                        } else {
                            Value::from(n)
                        }
                    } else if let Some(x) = t.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
                        Value::Number(x)
                    } else if t == "true" || t == "false" {
                        Value::Bool(t == "true")
                    } else {
                        v.clone()
                    }
                }
                other => other.clone(),
            },
        })
    }
}

fn parse_int(s: &str) -> Option<i64> {
    let t = s.trim();
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return i64::from_str_radix(h, 16).ok();
    }
    if let Some(h) = t.strip_prefix("-0x").or_else(|| t.strip_prefix("-0X")) {
        return i64::from_str_radix(h, 16).ok().map(|n| -n);
    }
    t.parse().ok()
}

impl Op for Convert {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let Some(v) = self.f.value(doc)? else { return Ok(Flow::Continue) };
        let out = match &v {
            Value::Array(a) => Value::Array(a.iter().map(|x| self.one(x)).collect::<OsResult<_>>()?),
            x => self.one(x)?,
        };
        doc.set(&self.f.target, out)?;
        Ok(Flow::Continue)
    }
}

#[derive(Debug)]
pub struct Bytes {
    f: FieldOpts,
}

impl Bytes {
    pub fn new(c: &mut Config) -> OsResult<Bytes> {
        Ok(Bytes { f: FieldOpts::read(c)? })
    }
}

/// `ByteSizeValue.parseBytesSizeValue`: `1kb` = 1024, ... (no unit: bytes).
fn parse_bytes(s: &str, field: &str) -> OsResult<i64> {
    let t = s.trim().to_ascii_lowercase();
    let units: [(&str, i64); 6] =
        [("pb", 1 << 50), ("tb", 1 << 40), ("gb", 1 << 30), ("mb", 1 << 20), ("kb", 1 << 10), ("b", 1)];
    for (u, mult) in units {
        if let Some(n) = t.strip_suffix(u) {
            let n = n.trim();
            if let Ok(i) = n.parse::<i64>() {
                return Ok(i * mult);
            }
            if let Ok(f) = n.parse::<f64>() {
                return Ok((f * mult as f64) as i64);
            }
            break;
        }
    }
    if t == "0" || t == "-1" {
        return Ok(t.parse().unwrap_or(0));
    }
    Err(OsError::new(
        ErrorKind::Parse,
        format!(
            "failed to parse setting [{field}] with value [{s}] as a size in bytes: unit is missing or unrecognized"
        ),
    ))
}

impl Op for Bytes {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let Some(v) = self.f.value(doc)? else { return Ok(Flow::Continue) };
        let Value::String(s) = &v else { return Err(cast_error(&self.f.field, &v, "java.lang.String")) };
        doc.set(&self.f.target, Value::from(parse_bytes(s, &self.f.field)?))?;
        Ok(Flow::Continue)
    }
}

#[derive(Debug)]
pub struct Json {
    field: String,
    target: Option<String>,
    add_to_root: bool,
}

impl Json {
    pub fn new(c: &mut Config) -> OsResult<Json> {
        let field = c.req_str("field")?;
        let target = c.opt_str("target_field")?;
        let add_to_root = c.bool("add_to_root", false)?;
        if add_to_root && target.is_some() {
            return Err(c.err("add_to_root", "Cannot set a target field while also setting `add_to_root` to true"));
        }
        Ok(Json { field, target, add_to_root })
    }
}

impl Op for Json {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let v = doc.get(&self.field)?.clone();
        let parsed: Value = match &v {
            Value::String(s) => serde_json::from_str(s).map_err(|e| OsError::illegal(e.to_string()))?,
            other => other.clone(),
        };
        if self.add_to_root {
            let Value::Object(m) = parsed else {
                return Err(OsError::illegal("cannot add non-map fields to root of document"));
            };
            let m: Map<String, Value> = m;
            for (k, x) in m {
                doc.sm.insert(k, x);
            }
        } else {
            doc.set(self.target.as_deref().unwrap_or(&self.field), parsed)?;
        }
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_and_ints() {
        assert_eq!(parse_bytes("1kb", "f").ok(), Some(1024));
        assert_eq!(parse_bytes("2mb", "f").ok(), Some(2 << 20));
        assert!(parse_bytes("12", "f").is_err());
        assert_eq!(parse_int("0x1F"), Some(31));
        assert_eq!(parse_int(" 42 "), Some(42));
    }
}
