//! The document a pipeline works on (OpenSearch's `IngestDocument`): one map holding the source
//! and the metadata fields (`_index`, `_id`, ...) side by side, as scripts see them in `ctx`, and
//! the `_ingest` map (`timestamp`, `pipeline`, `on_failure_*`). Field paths are dotted
//! (`a.b.0.c`), with `_source.` and `_ingest.` prefixes, as `IngestDocument.FieldPath` reads them.

use serde_json::{Map, Value};

use crate::error::{OsError, OsResult};

/// The metadata fields kept beside the source.
pub const METADATA: &[&str] =
    &["_index", "_id", "_routing", "_version", "_version_type", "_if_seq_no", "_if_primary_term", "_op_type"];

/// A document going through a pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct IngestDocument {
    /// Source fields and metadata fields.
    pub sm: Map<String, Value>,
    /// `_ingest.*`.
    pub ingest: Map<String, Value>,
}

/// A resolved path: which map and the parts within it.
struct Path<'a> {
    in_ingest: bool,
    parts: Vec<&'a str>,
}

fn parse_path(path: &str) -> OsResult<Path<'_>> {
    if path.is_empty() {
        return Err(OsError::illegal("path cannot be null nor empty"));
    }
    let (in_ingest, rest) = if let Some(r) = path.strip_prefix("_ingest.") {
        (true, r)
    } else if let Some(r) = path.strip_prefix("_source.") {
        (false, r)
    } else {
        (false, path)
    };
    let parts: Vec<&str> = rest.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) && rest.is_empty() {
        return Err(OsError::illegal(format!("path [{path}] is not valid")));
    }
    Ok(Path { in_ingest, parts })
}

fn type_name(v: &Value) -> &'static str {
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

fn list_index(part: &str, len: usize, path: &str) -> OsResult<usize> {
    let i: usize = part.parse().map_err(|_| {
        OsError::illegal(format!("[{part}] is not an integer, cannot be used as an index as part of path [{path}]"))
    })?;
    if i >= len {
        return Err(OsError::illegal(format!(
            "[{part}] is out of bounds for array with length [{len}] as part of path [{path}]"
        )));
    }
    Ok(i)
}

impl IngestDocument {
    /// A document from its source and metadata; `_ingest.timestamp` is now (ISO-8601 UTC).
    pub fn new(source: Map<String, Value>, meta: &[(&str, Value)]) -> IngestDocument {
        let mut sm = source;
        for (k, v) in meta {
            if !v.is_null() {
                sm.insert((*k).to_string(), v.clone());
            }
        }
        let mut ingest = Map::new();
        ingest.insert("timestamp".into(), Value::String(now_iso()));
        IngestDocument { sm, ingest }
    }

    /// The source without the metadata fields.
    pub fn source(&self) -> Map<String, Value> {
        self.sm.iter().filter(|(k, _)| !METADATA.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// A metadata field as a string (numbers printed).
    pub fn meta_str(&self, key: &str) -> Option<String> {
        match self.sm.get(key)? {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        }
    }

    fn root(&self, in_ingest: bool) -> &Map<String, Value> {
        if in_ingest {
            &self.ingest
        } else {
            &self.sm
        }
    }

    fn root_mut(&mut self, in_ingest: bool) -> &mut Map<String, Value> {
        if in_ingest {
            &mut self.ingest
        } else {
            &mut self.sm
        }
    }

    /// The value at `path`, or OpenSearch's "not present" error.
    pub fn get(&self, path: &str) -> OsResult<&Value> {
        let p = parse_path(path)?;
        let mut cur: Option<&Value> = None;
        let root = self.root(p.in_ingest);
        for part in &p.parts {
            let next = match cur {
                None => root.get(*part),
                Some(Value::Object(m)) => m.get(*part),
                Some(Value::Array(a)) => Some(&a[list_index(part, a.len(), path)?]),
                Some(other) => {
                    return Err(OsError::illegal(format!(
                        "cannot resolve [{part}] from object of type [{}] as part of path [{path}]",
                        type_name(other)
                    )))
                }
            };
            match next {
                Some(v) => cur = Some(v),
                None => return Err(OsError::illegal(format!("field [{part}] not present as part of path [{path}]"))),
            }
        }
        cur.ok_or_else(|| OsError::illegal(format!("path [{path}] is not valid")))
    }

    /// The value at `path` if there is one (null counts as present).
    pub fn get_opt(&self, path: &str) -> Option<&Value> {
        self.get(path).ok()
    }

    /// Whether `path` resolves.
    pub fn has(&self, path: &str) -> bool {
        self.get(path).is_ok()
    }

    /// Runs `f` on the container of the last part of `path` (creating intermediate objects
    /// when `create`).
    fn with_parent<R>(
        &mut self,
        path: &str,
        create: bool,
        f: impl FnOnce(Slot<'_>, &str) -> OsResult<R>,
    ) -> OsResult<R> {
        let p = parse_path(path)?;
        let Some((leaf, parents)) = p.parts.split_last() else {
            return Err(OsError::illegal(format!("path [{path}] is not valid")));
        };
        let mut cur = Slot::Map(self.root_mut(p.in_ingest));
        for part in parents {
            cur = cur.child(part, path, create)?;
        }
        f(cur, leaf)
    }

    /// Sets `path` to `value` (creating intermediate objects; an array element by index).
    pub fn set(&mut self, path: &str, value: Value) -> OsResult<()> {
        self.put(path, value, false)
    }

    /// Appends `value` (or each of its elements) to the list at `path`, turning a scalar into a
    /// list; `allow_duplicates=false` skips values already there.
    pub fn append(&mut self, path: &str, value: Value, allow_duplicates: bool) -> OsResult<()> {
        let mut list = match self.get_opt(path) {
            None => {
                return self.set(
                    path,
                    match value {
                        Value::Array(a) if !allow_duplicates => Value::Array(dedup(a)),
                        other @ Value::Array(_) => other,
                        other => Value::Array(vec![other]),
                    },
                )
            }
            Some(Value::Array(a)) => a.clone(),
            Some(other) => vec![other.clone()],
        };
        let add = match value {
            Value::Array(a) => a,
            v => vec![v],
        };
        for v in add {
            if allow_duplicates || !list.contains(&v) {
                list.push(v);
            }
        }
        self.set(path, Value::Array(list))
    }

    fn put(&mut self, path: &str, value: Value, _append: bool) -> OsResult<()> {
        self.with_parent(path, true, |parent, leaf| match parent {
            Slot::Map(m) => {
                m.insert(leaf.to_string(), value);
                Ok(())
            }
            Slot::List(a) => {
                let i = list_index(leaf, a.len(), path)?;
                a[i] = value;
                Ok(())
            }
            Slot::Other(other) => Err(OsError::illegal(format!(
                "cannot set [{leaf}] with parent object of type [{}] as part of path [{path}]",
                type_name(other)
            ))),
        })
    }

    /// Removes `path`; OpenSearch's error when it is not there.
    pub fn remove(&mut self, path: &str) -> OsResult<Value> {
        self.with_parent(path, false, |parent, leaf| match parent {
            Slot::Map(m) => m
                .shift_remove(leaf)
                .ok_or_else(|| OsError::illegal(format!("field [{leaf}] not present as part of path [{path}]"))),
            Slot::List(a) => list_index(leaf, a.len(), path).map(|i| a.remove(i)),
            Slot::Other(other) => Err(OsError::illegal(format!(
                "cannot remove [{leaf}] from object of type [{}] as part of path [{path}]",
                type_name(other)
            ))),
        })
    }
}

fn dedup(a: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(a.len());
    for v in a {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// A container met while walking a path.
enum Slot<'a> {
    Map(&'a mut Map<String, Value>),
    List(&'a mut Vec<Value>),
    Other(&'a Value),
}

impl<'a> Slot<'a> {
    fn of(v: &'a mut Value, create: bool) -> Slot<'a> {
        if create && v.is_null() {
            *v = Value::Object(Map::new());
        }
        match v {
            Value::Object(m) => Slot::Map(m),
            Value::Array(a) => Slot::List(a),
            other => Slot::Other(other),
        }
    }

    fn child(self, part: &str, path: &str, create: bool) -> OsResult<Slot<'a>> {
        let missing = || OsError::illegal(format!("field [{part}] not present as part of path [{path}]"));
        match self {
            Slot::Map(m) => {
                if !m.contains_key(part) {
                    if !create {
                        return Err(missing());
                    }
                    m.insert(part.to_string(), Value::Object(Map::new()));
                }
                m.get_mut(part).map(|v| Slot::of(v, create)).ok_or_else(missing)
            }
            Slot::List(a) => {
                let i = list_index(part, a.len(), path)?;
                Ok(Slot::of(&mut a[i], create))
            }
            Slot::Other(other) => Err(OsError::illegal(format!(
                "cannot {} [{part}] from object of type [{}] as part of path [{path}]",
                if create { "set" } else { "resolve" },
                type_name(other)
            ))),
        }
    }
}

/// Now as OpenSearch prints `_ingest.timestamp` (ISO-8601 with millis, `Z`).
pub fn now_iso() -> String {
    crate::units::iso_millis(crate::clock::now_millis())
}
