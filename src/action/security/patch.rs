//! RFC 6902 JSON patch, as the security REST API applies it (the plugin accepts `add`,
//! `replace` and `remove`; `move`, `copy` and `test` are implemented for completeness and
//! refused by the API before they run). Paths are RFC 6901 JSON pointers.

use serde_json::Value;

/// One operation of a patch document.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Add { path: String, value: Value },
    Remove { path: String },
    Replace { path: String, value: Value },
    Move { from: String, path: String },
    Copy { from: String, path: String },
    Test { path: String, value: Value },
}

impl Op {
    /// The target path.
    pub fn path(&self) -> &str {
        match self {
            Op::Add { path, .. }
            | Op::Remove { path }
            | Op::Replace { path, .. }
            | Op::Move { path, .. }
            | Op::Copy { path, .. }
            | Op::Test { path, .. } => path,
        }
    }
}

/// Parses a patch document (an array of operation objects).
pub fn parse(doc: &Value) -> Result<Vec<Op>, String> {
    let Some(items) = doc.as_array() else { return Err("a JSON patch must be an array".to_string()) };
    items.iter().map(parse_op).collect()
}

fn parse_op(v: &Value) -> Result<Op, String> {
    let field = |k: &str| -> Result<String, String> {
        v.get(k).and_then(Value::as_str).map(str::to_string).ok_or_else(|| format!("missing field \"{k}\""))
    };
    let value = || v.get("value").cloned().ok_or_else(|| "missing field \"value\"".to_string());
    let op = field("op")?;
    Ok(match op.as_str() {
        "add" => Op::Add { path: field("path")?, value: value()? },
        "remove" => Op::Remove { path: field("path")? },
        "replace" => Op::Replace { path: field("path")?, value: value()? },
        "move" => Op::Move { from: field("from")?, path: field("path")? },
        "copy" => Op::Copy { from: field("from")?, path: field("path")? },
        "test" => Op::Test { path: field("path")?, value: value()? },
        other => return Err(format!("invalid operation [{other}]")),
    })
}

/// The reference tokens of a JSON pointer (`~1` → `/`, `~0` → `~`).
pub fn tokens(pointer: &str) -> Result<Vec<String>, String> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(format!("invalid JSON pointer [{pointer}]"));
    };
    Ok(rest.split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).collect())
}

/// Applies `ops` to a copy of `doc`; the first failing operation fails the whole patch.
pub fn apply(doc: &Value, ops: &[Op]) -> Result<Value, String> {
    let mut out = doc.clone();
    for op in ops {
        apply_one(&mut out, op)?;
    }
    Ok(out)
}

fn apply_one(doc: &mut Value, op: &Op) -> Result<(), String> {
    match op {
        Op::Add { path, value } => add(doc, path, value.clone()),
        Op::Remove { path } => remove(doc, path).map(|_| ()),
        Op::Replace { path, value } => {
            let target = get_mut(doc, path)?;
            *target = value.clone();
            Ok(())
        }
        Op::Move { from, path } => {
            if path.starts_with(&format!("{from}/")) {
                return Err(format!("cannot move [{from}] into one of its children [{path}]"));
            }
            let v = remove(doc, from)?;
            add(doc, path, v)
        }
        Op::Copy { from, path } => {
            let v = get_mut(doc, from)?.clone();
            add(doc, path, v)
        }
        Op::Test { path, value } => {
            if get_mut(doc, path)? == value {
                Ok(())
            } else {
                Err(format!("value differs from expectations at [{path}]"))
            }
        }
    }
}

fn get_mut<'a>(doc: &'a mut Value, path: &str) -> Result<&'a mut Value, String> {
    let mut cur = doc;
    for t in tokens(path)? {
        cur = match cur {
            Value::Object(m) => {
                m.get_mut(&t).ok_or_else(|| format!("no such path [{path}] in target JSON document"))?
            }
            Value::Array(a) => {
                let i = index(&t, a.len(), false)
                    .ok_or_else(|| format!("no such path [{path}] in target JSON document"))?;
                &mut a[i]
            }
            _ => return Err(format!("no such path [{path}] in target JSON document")),
        };
    }
    Ok(cur)
}

/// An array index token: digits without leading zeros below `len` (or `len`/`-` to append).
fn index(t: &str, len: usize, append_ok: bool) -> Option<usize> {
    if append_ok && t == "-" {
        return Some(len);
    }
    if t.is_empty() || (t.len() > 1 && t.starts_with('0')) || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let i: usize = t.parse().ok()?;
    if i < len || (append_ok && i == len) {
        Some(i)
    } else {
        None
    }
}

fn parent_and_last(path: &str) -> Result<(String, String), String> {
    let toks = tokens(path)?;
    let Some(last) = toks.last().cloned() else { return Err("the root cannot be the target".to_string()) };
    let cut = path.rfind('/').unwrap_or(0);
    Ok((path[..cut].to_string(), last))
}

fn add(doc: &mut Value, path: &str, value: Value) -> Result<(), String> {
    if path.is_empty() {
        *doc = value;
        return Ok(());
    }
    let (parent, last) = parent_and_last(path)?;
    match get_mut(doc, &parent)? {
        Value::Object(m) => {
            m.insert(last, value);
            Ok(())
        }
        Value::Array(a) => {
            let i = index(&last, a.len(), true).ok_or_else(|| format!("invalid array index [{last}] in [{path}]"))?;
            a.insert(i, value);
            Ok(())
        }
        _ => Err(format!("parent of node to add [{path}] is not a container")),
    }
}

fn remove(doc: &mut Value, path: &str) -> Result<Value, String> {
    let (parent, last) = parent_and_last(path)?;
    let missing = || format!("no such path [{path}] in target JSON document");
    match get_mut(doc, &parent)? {
        Value::Object(m) => m.remove(&last).ok_or_else(missing),
        Value::Array(a) => {
            let i = index(&last, a.len(), false).ok_or_else(missing)?;
            Ok(a.remove(i))
        }
        _ => Err(missing()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(doc: Value, patch: Value) -> Result<Value, String> {
        apply(&doc, &parse(&patch)?)
    }

    #[test]
    fn rfc6902_appendix_examples() {
        assert_eq!(
            run(json!({"foo": "bar"}), json!([{"op": "add", "path": "/baz", "value": "qux"}])).unwrap(),
            json!({"foo": "bar", "baz": "qux"})
        );
        assert_eq!(
            run(json!({"foo": ["bar", "baz"]}), json!([{"op": "add", "path": "/foo/1", "value": "qux"}])).unwrap(),
            json!({"foo": ["bar", "qux", "baz"]})
        );
        assert_eq!(
            run(json!({"baz": "qux", "foo": "bar"}), json!([{"op": "remove", "path": "/baz"}])).unwrap(),
            json!({"foo": "bar"})
        );
        assert_eq!(
            run(json!({"foo": ["bar", "qux", "baz"]}), json!([{"op": "remove", "path": "/foo/1"}])).unwrap(),
            json!({"foo": ["bar", "baz"]})
        );
        assert_eq!(
            run(json!({"baz": "qux", "foo": "bar"}), json!([{"op": "replace", "path": "/baz", "value": "boo"}]))
                .unwrap(),
            json!({"baz": "boo", "foo": "bar"})
        );
        assert_eq!(
            run(
                json!({"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}}),
                json!([{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}])
            )
            .unwrap(),
            json!({"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}})
        );
        assert_eq!(
            run(json!({"foo": ["bar"]}), json!([{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}])).unwrap(),
            json!({"foo": ["bar", ["abc", "def"]]})
        );
        assert_eq!(
            run(
                json!({"a/b": 1, "m~n": 2}),
                json!([{"op": "remove", "path": "/a~1b"}, {"op": "copy", "from": "/m~0n", "path": "/c"}])
            )
            .unwrap(),
            json!({"m~n": 2, "c": 2})
        );
        assert!(run(json!({"baz": "qux"}), json!([{"op": "test", "path": "/baz", "value": "bar"}])).is_err());
        assert!(run(json!({"baz": "qux"}), json!([{"op": "test", "path": "/baz", "value": "qux"}])).is_ok());
    }

    #[test]
    fn errors_leave_the_document_alone() {
        let doc = json!({"foo": "bar"});
        assert!(run(doc.clone(), json!([{"op": "add", "path": "/baz/bat", "value": "qux"}]))
            .unwrap_err()
            .contains("no such path"));
        assert!(run(doc.clone(), json!([{"op": "remove", "path": "/nope"}])).is_err());
        assert!(run(doc.clone(), json!([{"op": "replace", "path": "/nope", "value": 1}])).is_err());
        assert!(run(doc.clone(), json!([{"op": "add", "path": "nope", "value": 1}])).unwrap_err().contains("pointer"));
        assert!(run(json!({"a": [1]}), json!([{"op": "add", "path": "/a/01", "value": 1}])).is_err());
        assert!(run(json!({"a": [1]}), json!([{"op": "add", "path": "/a/5", "value": 1}])).is_err());
        assert!(parse(&json!([{"op": "frobnicate", "path": "/a"}])).unwrap_err().contains("frobnicate"));
        assert!(parse(&json!([{"op": "add", "path": "/a"}])).unwrap_err().contains("value"));
        assert!(parse(&json!({"op": "add"})).is_err());
        assert!(run(json!({"a": {"b": 1}}), json!([{"op": "move", "from": "/a", "path": "/a/b/c"}])).is_err());
    }
}
