//! Tests of the nested identity and source slices of inner hits.

use serde_json::json;

use super::*;
use crate::engine::segment::nested::NestedDocs;

/// A view over per-doc nested flags only (what `offsets` reads).
struct Flags(NestedDocs, u32);

impl SegmentView for Flags {
    fn max_doc(&self) -> u32 {
        self.1
    }
    fn is_live(&self, _doc: DocId) -> bool {
        true
    }
    fn has_deletions(&self) -> bool {
        false
    }
    fn is_nested(&self, doc: DocId) -> bool {
        self.0.is_nested(doc)
    }
    fn field_stats(&self, _field: &str) -> Option<crate::engine::query::FieldStats> {
        None
    }
    fn term_stats(&self, _f: &str, _t: &[u8]) -> crate::engine::Result<Option<crate::engine::query::TermStats>> {
        Ok(None)
    }
    fn postings(
        &self,
        _f: &str,
        _t: &[u8],
        _p: bool,
    ) -> crate::engine::Result<Option<Box<dyn crate::engine::segment::Postings + '_>>> {
        Ok(None)
    }
    fn visit_terms(&self, _f: &str, _from: &[u8], _v: &mut dyn FnMut(&[u8]) -> bool) -> crate::engine::Result<()> {
        Ok(())
    }
    fn norms(&self, _field: &str) -> Option<&[u8]> {
        None
    }
    fn points_docs(&self, _f: &str, _lo: &[u8], _hi: &[u8]) -> crate::engine::Result<Option<Vec<DocId>>> {
        Ok(None)
    }
    fn numeric_values(&self, _f: &str, _d: DocId, _out: &mut Vec<i64>) -> bool {
        false
    }
    fn sorted_set_ords(&self, _f: &str, _d: DocId, _out: &mut Vec<u64>) -> bool {
        false
    }
    fn sorted_set_term(&self, _f: &str, _o: u64) -> crate::engine::Result<Vec<u8>> {
        Ok(Vec::new())
    }
    fn has_value(&self, _f: &str, _d: DocId) -> bool {
        false
    }
}

fn bits(docs: &[DocId], n: u32) -> Bits {
    let mut flags = vec![false; n as usize];
    for &d in docs {
        flags[d as usize] = true;
    }
    Bits::from_flags(&flags)
}

#[test]
fn offsets_and_slices_follow_the_block_layout() {
    // {"a": [{"b": [b0, b1]}, {"b": [b2]}]}: b0 b1 a0 b2 a1 root, then a second root block.
    let src = json!({"a": [{"x": 0, "b": [{"y": 0}, {"y": 1}]}, {"x": 1, "b": {"y": 2}}]});
    let flags = [true, true, true, true, true, false, true, false];
    let view = Flags(NestedDocs::from_flags(&flags), 8);
    let a = bits(&[2, 4, 6], 8);
    let ab = bits(&[0, 1, 3], 8);
    let levels = vec!["a".to_string(), "a.b".to_string()];
    let level_docs = vec![a.clone(), ab];
    let want = [(0, vec![0, 0], 0), (1, vec![0, 1], 1), (3, vec![1, 0], 2)];
    for (doc, offs, y) in want {
        let o = offsets(&view, &level_docs, doc);
        assert_eq!(o, offs, "doc {doc}");
        assert_eq!(slice(&src, &levels, &o), Some(json!({"y": y})));
    }
    assert_eq!(identity(&levels, &[1, 0]), json!({"field": "a", "offset": 1, "_nested": {"field": "b", "offset": 0}}));
    // The first level alone: a1 is the second `a` of its block, the next block's a starts at 0.
    let top = vec![a];
    assert_eq!(offsets(&view, &top, 4), vec![1]);
    assert_eq!(offsets(&view, &top, 6), vec![0]);
    assert_eq!(slice(&src, &levels[..1], &[1]).and_then(|v| v.get("x").cloned()), Some(json!(1)));
}

#[test]
fn definitions_check_options_and_window() {
    let m = |v: serde_json::Value| v.as_object().cloned().unwrap();
    let d =
        definition(&m(json!({"name": "n", "from": 1, "size": 2})), "p", None, Query::MatchNone, vec![], 100).unwrap();
    assert_eq!((d.name.as_str(), d.from, d.size), ("n", 1, 2));
    let e = definition(&m(json!({"size": 101})), "p", None, Query::MatchNone, vec![], 100).unwrap_err();
    assert!(e.reason.starts_with("Inner result window is too large, the inner hit definition's [p]'s"), "{e:?}");
    assert!(definition(&m(json!({"bogus": 1})), "p", None, Query::MatchNone, vec![], 100).is_err());
    assert!(definition(&m(json!({"fields": []})), "p", None, Query::MatchNone, vec![], 100).is_err());
}
