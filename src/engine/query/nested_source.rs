//! The source of a nested document: the slice of its root's `_source` it was parsed from,
//! found by its place in the block (its offset among its siblings at each nested level), as
//! OpenSearch's inner hits and source-checked queries (`match_only_text` phrases) read it.

use serde_json::{json, Value};

use super::block_join::{path_docs, Bits};
use super::view::SegmentView;
use crate::engine::index::builder::meta;
use crate::engine::segment::DocId;
use crate::engine::Result;

/// The offset of `c` (a doc of the last level) and of each of its ancestors among their
/// siblings, top level first: siblings are the docs of the same level after the previous doc
/// of the level above (or the block start).
pub fn offsets(all: &dyn SegmentView, level_docs: &[Bits], c: DocId) -> Vec<usize> {
    let n = level_docs.len();
    let mut docs = vec![c; n];
    // Ancestors: the next doc of each level above.
    for i in (0..n.saturating_sub(1)).rev() {
        docs[i] = level_docs[i].next_set(docs[i + 1]);
    }
    let mut out = vec![0; n];
    for i in 0..n {
        let x = docs[i];
        let mut count = 0;
        let mut d = x;
        while d > 0 && all.is_nested(d - 1) {
            d -= 1;
            if i > 0 && level_docs[i - 1].get(d) {
                break;
            }
            if level_docs[i].get(d) {
                count += 1;
            }
        }
        out[i] = count;
    }
    out
}

/// The value at a dotted `rel` path of an object (through objects; a dotted key also matches).
fn at<'v>(v: &'v Value, rel: &str) -> Option<&'v Value> {
    let m = v.as_object()?;
    if let Some(x) = m.get(rel) {
        return Some(x);
    }
    let (first, rest) = rel.split_once('.')?;
    at(m.get(first)?, rest)
}

/// The nested object a doc stands for, from the root's source.
pub fn slice(src: &Value, levels: &[String], offsets: &[usize]) -> Option<Value> {
    let mut cur = src;
    for (i, l) in levels.iter().enumerate() {
        let rel = if i == 0 { l.as_str() } else { l.strip_prefix(&format!("{}.", levels[i - 1])).unwrap_or(l) };
        let v = at(cur, rel)?;
        cur = match v {
            Value::Array(a) => a.iter().filter(|x| x.is_object()).nth(offsets[i])?,
            Value::Object(_) if offsets[i] == 0 => v,
            _ => return None,
        };
    }
    Some(cur.clone())
}

/// The nested object under its full path (what the highlighter reads values from).
pub fn wrap(path: &str, ns: Value) -> Value {
    let mut v = ns;
    for part in path.rsplit('.') {
        v = json!({ part: v });
    }
    v
}

/// The nested path of `doc` and the nested levels above it (from `_nested_path`), top first;
/// `None` for a root document.
pub fn levels_of(all: &dyn SegmentView, doc: DocId) -> Result<Option<Vec<String>>> {
    if !all.is_nested(doc) {
        return Ok(None);
    }
    let mut paths: Vec<Vec<u8>> = Vec::new();
    all.visit_terms(meta::NESTED_PATH, b"", &mut |t| {
        paths.push(t.to_vec());
        true
    })?;
    let mut own = None;
    for p in &paths {
        let path = String::from_utf8_lossy(p).into_owned();
        if path_docs(all, &path)?.get(doc) {
            own = Some(path);
            break;
        }
    }
    let Some(own) = own else { return Ok(None) };
    let mut levels: Vec<String> = paths
        .into_iter()
        .map(|p| String::from_utf8_lossy(&p).into_owned())
        .filter(|p| own.starts_with(p.as_str()) && (p.len() == own.len() || own.as_bytes()[p.len()] == b'.'))
        .collect();
    levels.sort_by_key(String::len);
    Ok(Some(levels))
}

/// The source of nested document `doc` wrapped under its full path (`{"a": {"b": {...}}}`), from
/// its root's source; `None` for a root document or when the source has no such object.
pub fn nested_source(all: &dyn SegmentView, doc: DocId, root_source: &Value) -> Result<Option<Value>> {
    let Some(levels) = levels_of(all, doc)? else { return Ok(None) };
    let level_docs: Vec<Bits> = levels.iter().map(|l| path_docs(all, l)).collect::<Result<_>>()?;
    let offs = offsets(all, &level_docs, doc);
    let Some(own) = levels.last() else { return Ok(None) };
    Ok(slice(root_source, &levels, &offs).map(|v| wrap(own, v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_and_wraps() {
        let src = json!({"a": [{"b": [{"y": 0}, {"y": 1}]}, {"b": {"y": 2}}], "k": 1});
        let levels = vec!["a".to_string(), "a.b".to_string()];
        assert_eq!(slice(&src, &levels, &[0, 1]), Some(json!({"y": 1})));
        assert_eq!(slice(&src, &levels, &[1, 0]), Some(json!({"y": 2})));
        assert_eq!(slice(&src, &levels, &[1, 1]), None);
        assert_eq!(wrap("a.b", json!({"y": 2})), json!({"a": {"b": {"y": 2}}}));
    }
}
