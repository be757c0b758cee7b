//! `indices_boost`: a per-index factor on every score, as OpenSearch's `SearchSourceBuilder`
//! reads it (an array of one-key objects; the object form was removed) and applies it: each
//! entry's index expression resolves to concrete indices (the first entry naming an index wins,
//! one that names nothing is an `index_not_found_exception`), and a shard of a boosted index
//! runs its query as a `BoostQuery`.

use serde_json::Value;

use super::request::SearchRequest;
use crate::cluster::resolve::{resolve, IndicesOptions};
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

fn perr(reason: String) -> OsError {
    OsError::parsing(reason)
}

fn token(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "START_OBJECT",
        Value::Array(_) => "START_ARRAY",
        Value::String(_) => "VALUE_STRING",
        Value::Number(_) => "VALUE_NUMBER",
        Value::Bool(_) => "VALUE_BOOLEAN",
        Value::Null => "VALUE_NULL",
    }
}

/// Parses the array form `[{"index": boost}, ...]` (`IndexBoost(XContentParser)`).
pub fn parse(list: &[Value]) -> OsResult<Vec<(String, f32)>> {
    let mut out = Vec::with_capacity(list.len());
    for v in list {
        let Value::Object(m) = v else {
            return Err(perr(format!("Expected [START_OBJECT] in [indices_boost] but found [{}]", token(v))));
        };
        let mut it = m.iter();
        let Some((index, boost)) = it.next() else {
            return Err(perr("Expected [FIELD_NAME] in [indices_boost] but found [END_OBJECT]".into()));
        };
        let Value::Number(n) = boost else {
            return Err(perr(format!("Expected [VALUE_NUMBER] in [indices_boost] but found [{}]", token(boost))));
        };
        if it.next().is_some() {
            return Err(perr("Expected [END_OBJECT] in [indices_boost] but found [FIELD_NAME]".into()));
        }
        out.push((index.clone(), n.as_f64().unwrap_or(1.0) as f32));
    }
    Ok(out)
}

/// Resolves the request's `indices_boost` expressions to concrete indices (once, on the node
/// that coordinates the search), as `TransportSearchAction.resolveIndexBoosts`.
pub fn resolve_request(cs: &ClusterService, req: &mut SearchRequest, opts: IndicesOptions) -> OsResult<()> {
    if req.indices_boost.is_empty() || req.resolved_boosts.is_some() {
        return Ok(());
    }
    let md = cs.metadata();
    let mut resolved: Vec<(String, f32)> = Vec::new();
    for (expr, boost) in &req.indices_boost {
        let names = resolve(&md, expr, opts)?;
        if names.is_empty() {
            return Err(OsError::index_not_found(expr));
        }
        for n in names {
            if !resolved.iter().any(|(r, _)| *r == n) {
                resolved.push((n, *boost));
            }
        }
    }
    req.resolved_boosts = Some(resolved);
    Ok(())
}

/// The boost of `index` (1 when the request names none for it).
pub fn boost_of(req: &SearchRequest, index: &str) -> f32 {
    match &req.resolved_boosts {
        Some(list) => list.iter().find(|(n, _)| n == index).map_or(1.0, |(_, b)| *b),
        // Not resolved against the cluster (a caller without metadata): exact names only.
        None => req.indices_boost.iter().find(|(n, _)| n == index).map_or(1.0, |(_, b)| *b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_the_array_form_with_opensearch_s_errors() {
        assert_eq!(parse(&[json!({"a": 2}), json!({"b*": 0.5})]).unwrap(), vec![("a".into(), 2.0), ("b*".into(), 0.5)]);
        let e = |v: Value| parse(&[v]).unwrap_err().reason;
        assert_eq!(e(json!("a")), "Expected [START_OBJECT] in [indices_boost] but found [VALUE_STRING]");
        assert_eq!(e(json!({})), "Expected [FIELD_NAME] in [indices_boost] but found [END_OBJECT]");
        assert_eq!(e(json!({"a": "x"})), "Expected [VALUE_NUMBER] in [indices_boost] but found [VALUE_STRING]");
        assert_eq!(e(json!({"a": 1, "b": 2})), "Expected [END_OBJECT] in [indices_boost] but found [FIELD_NAME]");
    }
}
