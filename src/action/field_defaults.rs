//! `include_defaults=true` of `GET _mapping/field/{fields}`: a field's mapping with every
//! parameter Fathom applies at its default value filled in (what `FieldMapper.doXContentBody`
//! prints with `include_defaults`), for the parameters Fathom implements or keeps.

use serde_json::{json, Value};

use crate::engine::schema::date::DEFAULT_FORMAT;
use crate::engine::schema::{FieldKind, FieldType};

/// `f`'s mapping (as `to_json` prints it) with the defaults added.
pub fn with_defaults(f: &FieldType) -> Value {
    let mut v = f.to_json();
    let Some(m) = v.as_object_mut() else { return v };
    let mut put = |k: &str, val: Value| {
        m.entry(k.to_string()).or_insert(val);
    };
    put("index", json!(f.effective_index()));
    put("store", json!(false));
    put("boost", json!(1.0));
    put("meta", json!({}));
    put("copy_to", json!([]));
    match &f.kind {
        // Types whose defaults OpenSearch prints are their own few parameters, already shown.
        FieldKind::ConstantKeyword(_) | FieldKind::FlatObject(_) | FieldKind::Alias { .. } => {}
        FieldKind::TokenCount { .. } => {
            put("doc_values", json!(f.effective_doc_values()));
            put("enable_position_increments", json!(true));
            put("null_value", Value::Null);
        }
        FieldKind::Range { .. } => {
            put("doc_values", json!(f.effective_doc_values()));
            put("coerce", json!(f.effective_coerce()));
        }
        FieldKind::Text(t) => {
            let analyzer = t.analyzer.clone().unwrap_or_else(|| "default".into());
            let search = t.search_analyzer.clone().unwrap_or_else(|| analyzer.clone());
            put("analyzer", json!(analyzer));
            put("search_analyzer", json!(search));
            put("search_quote_analyzer", json!(search));
            put("index_options", json!(if t.match_only { "docs" } else { "positions" }));
            put("norms", json!(!t.match_only));
            put("position_increment_gap", json!(100));
            put("similarity", json!("BM25"));
            put("eager_global_ordinals", json!(false));
            put("fielddata", json!(false));
            put("index_phrases", json!(false));
            put("term_vector", json!("no"));
        }
        FieldKind::Keyword(_) => {
            put("doc_values", json!(f.effective_doc_values()));
            put("ignore_above", json!(2147483647));
            put("normalizer", Value::Null);
            put("null_value", Value::Null);
            put("norms", json!(false));
            put("index_options", json!("docs"));
            put("similarity", json!("BM25"));
            put("eager_global_ordinals", json!(false));
            put("split_queries_on_whitespace", json!(false));
        }
        FieldKind::Number(_) | FieldKind::ScaledFloat { .. } => {
            put("doc_values", json!(f.effective_doc_values()));
            put("coerce", json!(f.effective_coerce()));
            put("ignore_malformed", json!(f.effective_ignore_malformed()));
            put("null_value", Value::Null);
        }
        FieldKind::Date { .. } => {
            put("doc_values", json!(f.effective_doc_values()));
            put("format", json!(DEFAULT_FORMAT));
            put("locale", json!(""));
            put("ignore_malformed", json!(f.effective_ignore_malformed()));
            put("null_value", Value::Null);
        }
        FieldKind::Boolean | FieldKind::Ip => {
            put("doc_values", json!(f.effective_doc_values()));
            put("null_value", Value::Null);
        }
        FieldKind::Binary | FieldKind::GeoPoint { .. } => {
            put("doc_values", json!(f.effective_doc_values()));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::schema::Mapping;

    #[test]
    fn defaults_fill_what_the_mapping_leaves_out() {
        let m = Mapping::from_json(&json!({"properties": {"t": {"type": "text", "search_analyzer": "simple"}, "k": {"type": "keyword", "ignore_above": 5}}})).unwrap();
        let t = with_defaults(m.field_type("t").unwrap());
        assert_eq!(
            (t["type"].clone(), t["analyzer"].clone(), t["search_analyzer"].clone()),
            (json!("text"), json!("default"), json!("simple"))
        );
        assert_eq!(t["norms"], true);
        let k = with_defaults(m.field_type("k").unwrap());
        assert_eq!((k["ignore_above"].clone(), k["doc_values"].clone()), (json!(5), json!(true)));
    }
}
