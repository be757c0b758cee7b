//! The `_search` response body, assembled once and rendered two ways: as a [`Value`] (PIT,
//! scroll, `_msearch`, and the generic `pretty` / `filter_path` / `format` path) or straight to
//! compact JSON bytes (`_search`), where hits that need nothing but their metadata, score, sort
//! values and unfiltered `_source` are written without building a JSON tree, the stored
//! `_source` bytes copied as they are (as OpenSearch copies the source of a hit).

use serde_json::{Map, Value};

use super::fetch::f32_json;

/// One hit: a JSON tree, or the compact JSON of a hit object rendered by
/// [`super::fetch::hit_json`].
#[derive(Debug, Clone, PartialEq)]
pub enum HitJson {
    Value(Value),
    Raw(Vec<u8>),
}

impl HitJson {
    fn into_value(self) -> Value {
        match self {
            HitJson::Value(v) => v,
            // Raw hits are rendered from valid parts (`fetch::hit_json` checks the source), so
            // they parse; `Null` is never reached in practice.
            HitJson::Raw(b) => serde_json::from_slice(&b).unwrap_or(Value::Null),
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            HitJson::Value(v) => write_value(out, v),
            HitJson::Raw(b) => out.extend_from_slice(b),
        }
    }
}

/// What a search renders, in OpenSearch's key order: `took`, `timed_out`, `terminated_early`,
/// `_shards`, then `hits` with `total`, `max_score` and the hits.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchBody {
    pub took: u64,
    pub timed_out: bool,
    pub terminated_early: Option<bool>,
    pub shards: Value,
    /// `hits.total` (absent when not tracked).
    pub total: Option<Value>,
    pub max_score: Option<f32>,
    pub hits: Vec<HitJson>,
    /// The `aggregations` object, when the request had aggregations.
    pub aggregations: Option<Value>,
    /// The `profile` object, with `"profile": true`.
    pub profile: Option<Value>,
}

impl SearchBody {
    /// The body as a JSON tree.
    pub fn into_value(self) -> Value {
        let mut body = Map::new();
        body.insert("took".into(), Value::from(self.took));
        body.insert("timed_out".into(), Value::Bool(self.timed_out));
        if let Some(t) = self.terminated_early {
            body.insert("terminated_early".into(), Value::Bool(t));
        }
        body.insert("_shards".into(), self.shards);
        let mut hm = Map::new();
        if let Some(t) = self.total {
            hm.insert("total".into(), t);
        }
        hm.insert("max_score".into(), self.max_score.map_or(Value::Null, f32_json));
        hm.insert("hits".into(), Value::Array(self.hits.into_iter().map(HitJson::into_value).collect()));
        body.insert("hits".into(), Value::Object(hm));
        if let Some(a) = self.aggregations {
            body.insert("aggregations".into(), a);
        }
        if let Some(p) = self.profile {
            body.insert("profile".into(), p);
        }
        Value::Object(body)
    }

    /// The body as compact JSON, the same document [`SearchBody::into_value`] serializes to.
    pub fn to_json(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            256 + self.hits.iter().map(|h| if let HitJson::Raw(b) = h { b.len() + 1 } else { 128 }).sum::<usize>(),
        );
        out.extend_from_slice(b"{\"took\":");
        write_value(&mut out, &Value::from(self.took));
        out.extend_from_slice(if self.timed_out { b",\"timed_out\":true" } else { b",\"timed_out\":false" });
        if let Some(t) = self.terminated_early {
            out.extend_from_slice(if t { b",\"terminated_early\":true" } else { b",\"terminated_early\":false" });
        }
        out.extend_from_slice(b",\"_shards\":");
        write_value(&mut out, &self.shards);
        out.extend_from_slice(b",\"hits\":{");
        if let Some(t) = &self.total {
            out.extend_from_slice(b"\"total\":");
            write_value(&mut out, t);
            out.push(b',');
        }
        out.extend_from_slice(b"\"max_score\":");
        write_value(&mut out, &self.max_score.map_or(Value::Null, f32_json));
        out.extend_from_slice(b",\"hits\":[");
        for (i, h) in self.hits.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            h.write(&mut out);
        }
        out.extend_from_slice(b"]}");
        if let Some(a) = &self.aggregations {
            out.extend_from_slice(b",\"aggregations\":");
            write_value(&mut out, a);
        }
        if let Some(p) = &self.profile {
            out.extend_from_slice(b",\"profile\":");
            write_value(&mut out, p);
        }
        out.push(b'}');
        out
    }
}

/// Appends a value's compact JSON (writing to a `Vec` cannot fail).
pub fn write_value(out: &mut Vec<u8>, v: &Value) {
    let _ = serde_json::to_writer(&mut *out, v);
}

/// Appends a JSON string.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let _ = serde_json::to_writer(&mut *out, s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(hits: Vec<HitJson>) -> SearchBody {
        SearchBody {
            took: 3,
            timed_out: false,
            terminated_early: Some(true),
            shards: json!({"total": 1, "successful": 1, "skipped": 0, "failed": 0}),
            total: Some(json!({"value": 2, "relation": "eq"})),
            max_score: Some(0.2876821),
            hits,
            aggregations: None,
            profile: None,
        }
    }

    #[test]
    fn bytes_and_tree_are_the_same_document() {
        let hits = vec![
            HitJson::Value(json!({"_index": "i", "_id": "1", "_score": 0.2876821, "_source": {"a": [1, 2.5, "x\"y"]}})),
            HitJson::Raw(br#"{"_index":"i","_id":"2","_score":0.1,"_source":{"b" : 1 }}"#.to_vec()),
        ];
        let b = body(hits);
        let bytes = b.to_json();
        let parsed: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(parsed, b.clone().into_value());
        assert_eq!(
            serde_json::to_string(&b.into_value()).unwrap(),
            String::from_utf8(bytes).unwrap().replace("{\"b\" : 1 }", "{\"b\":1}")
        );
    }

    #[test]
    fn untracked_total_and_no_max_score() {
        let mut b = body(Vec::new());
        b.total = None;
        b.max_score = None;
        b.terminated_early = None;
        let bytes = b.to_json();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            r#"{"took":3,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"max_score":null,"hits":[]}}"#
        );
    }
}
