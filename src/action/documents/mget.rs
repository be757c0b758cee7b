//! `_mget`: the body (`docs` or `ids`) parsed as OpenSearch's `MultiGetRequest.add` does it,
//! with its validation (`no documents to get`, `index is missing for doc N`, ...), and the
//! execution as one get per item (a failed item carries its error, the others still answer).

use serde_json::{json, Value};

use super::{get, parse_version_type, GetRequest};
use crate::action::source_filter::SourceFilter;
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// What the URL gives every item (`/{index}/_mget?stored_fields=&_source=&routing=`).
#[derive(Debug, Clone, Default)]
pub struct MgetDefaults {
    pub index: Option<String>,
    pub stored_fields: Option<Vec<String>>,
    pub source: Option<SourceFilter>,
    pub routing: Option<String>,
    pub refresh: bool,
    pub not_realtime: bool,
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

/// A scalar as `XContentParser.text()` reads it (`None` for null and containers).
fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn parse_error(reason: String) -> OsError {
    OsError::new(ErrorKind::Parse, reason)
}

/// One item of `docs`: `(index, id, request)`; index and id may be missing (reported by the
/// validation with the item's number).
fn parse_doc(d: &Value, defaults: &MgetDefaults) -> OsResult<(Option<String>, Option<String>, GetRequest)> {
    let Some(m) = d.as_object() else {
        return Err(OsError::illegal("docs array element should include an object"));
    };
    let mut index = defaults.index.clone();
    let mut id = None;
    let mut g = GetRequest {
        routing: defaults.routing.clone(),
        refresh: defaults.refresh,
        not_realtime: defaults.not_realtime,
        ..Default::default()
    };
    let mut stored: Option<Vec<String>> = None;
    let mut source: Option<SourceFilter> = None;
    for (k, v) in m {
        match (k.as_str(), v) {
            (_, Value::Null) => {}
            ("fields", _) => {
                return Err(OsError::parsing("Unsupported field [fields] used, expected [stored_fields] instead"))
            }
            ("_index", v) if text(v).is_some() => index = text(v),
            ("_id", v) if text(v).is_some() => id = text(v),
            ("routing", v) if text(v).is_some() => g.routing = text(v),
            ("stored_fields", Value::Array(a)) => stored = Some(a.iter().filter_map(text).collect()),
            ("stored_fields", v) if text(v).is_some() => stored = text(v).map(|s| vec![s]),
            ("version", Value::Number(n)) => g.version = n.as_i64(),
            ("version", Value::String(s)) => {
                g.version = Some(s.parse().map_err(|_| OsError::illegal(format!("For input string: \"{s}\"")))?)
            }
            ("version_type", v) if text(v).is_some() => g.version_type = parse_version_type(text(v).as_deref())?,
            ("_source", v) => {
                let f = match v {
                    Value::Number(_) => return Err(parse_error(format!("illegal type for _source: [{}]", token(v)))),
                    Value::Object(o) => {
                        if let Some(bad) =
                            o.keys().find(|k| !matches!(k.as_str(), "includes" | "include" | "excludes" | "exclude"))
                        {
                            return Err(parse_error(format!("source definition may not contain [{bad}]")));
                        }
                        SourceFilter::from_json(v).map_err(parse_error)?
                    }
                    _ => SourceFilter::from_json(v).map_err(parse_error)?,
                };
                source = Some(f);
            }
            (other, _) => {
                return Err(parse_error(format!("failed to parse multi get request. unknown field [{other}]")))
            }
        }
    }
    g.stored_fields = stored.or_else(|| defaults.stored_fields.clone());
    g.source = source.or_else(|| defaults.source.clone());
    Ok((index, id, g))
}

/// Parses an `_mget` body into get requests, validated as `MultiGetRequest.validate` does.
pub fn parse(body: &Value, defaults: &MgetDefaults) -> OsResult<Vec<GetRequest>> {
    let Some(m) = body.as_object() else {
        return Err(OsError::parsing(format!("unexpected token [{}], expected [START_OBJECT]", token(body))));
    };
    let mut items: Vec<(Option<String>, Option<String>, GetRequest)> = Vec::new();
    for (k, v) in m {
        let Value::Array(list) = v else {
            return Err(OsError::parsing(format!(
                "unexpected token [{}], expected [FIELD_NAME] or [START_ARRAY]",
                token(v)
            )));
        };
        match k.as_str() {
            "docs" => {
                for d in list {
                    items.push(parse_doc(d, defaults)?);
                }
            }
            "ids" => {
                for id in list {
                    let Some(id) = text(id) else {
                        return Err(OsError::illegal("ids array element should only contain ids"));
                    };
                    let g = GetRequest {
                        routing: defaults.routing.clone(),
                        stored_fields: defaults.stored_fields.clone(),
                        source: defaults.source.clone(),
                        refresh: defaults.refresh,
                        not_realtime: defaults.not_realtime,
                        ..Default::default()
                    };
                    items.push((defaults.index.clone(), Some(id), g));
                }
            }
            other => {
                return Err(OsError::parsing(format!(
                    "unknown key [{other}] for a START_ARRAY, expected [docs] or [ids]"
                )))
            }
        }
    }
    let mut errors = Vec::new();
    if items.is_empty() {
        errors.push("no documents to get".to_string());
    }
    for (i, (index, id, _)) in items.iter().enumerate() {
        if index.is_none() {
            errors.push(format!("index is missing for doc {i}"));
        }
        if id.is_none() {
            errors.push(format!("id is missing for doc {i}"));
        }
    }
    if !errors.is_empty() {
        return Err(OsError::validation(&errors));
    }
    Ok(items
        .into_iter()
        .map(|(index, id, mut g)| {
            g.index = index.unwrap_or_default();
            g.id = id.unwrap_or_default();
            g
        })
        .collect())
}

/// Runs the gets; the `docs` of the response.
pub fn mget(cs: &ClusterService, items: &[GetRequest]) -> Value {
    let docs: Vec<Value> = items
        .iter()
        .map(|g| match get(cs, g) {
            Ok((_, body)) => body,
            // `MultiGetResponse.Failure`: the error as a REST error body renders it (`root_cause`).
            Err(e) => json!({"_index": g.index, "_id": g.id, "error": e.to_body()["error"].clone()}),
        })
        .collect();
    json!({ "docs": docs })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(r: OsResult<Vec<GetRequest>>) -> (ErrorKind, String) {
        let e = r.expect_err("an error");
        (e.kind, e.reason)
    }

    #[test]
    fn validation_lists_every_missing_part() {
        let d = MgetDefaults::default();
        assert_eq!(reason(parse(&json!({}), &d)).1, "Validation Failed: 1: no documents to get;");
        assert_eq!(reason(parse(&json!({"docs": []}), &d)).1, "Validation Failed: 1: no documents to get;");
        assert_eq!(
            reason(parse(&json!({"docs": [{"_index": "a"}, {"_id": 1}]}), &d)).1,
            "Validation Failed: 1: id is missing for doc 0;2: index is missing for doc 1;"
        );
    }

    #[test]
    fn removed_and_unknown_item_fields_are_errors() {
        let d = MgetDefaults { index: Some("i".into()), ..Default::default() };
        assert_eq!(
            reason(parse(&json!({"docs": [{"_id": "1", "_routing": "r"}]}), &d)),
            (crate::error::ErrorKind::Parse, "failed to parse multi get request. unknown field [_routing]".into())
        );
        assert_eq!(
            reason(parse(&json!({"docs": [{"_id": "1", "_version": 1}]}), &d)).0,
            crate::error::ErrorKind::Parse
        );
        assert_eq!(
            reason(parse(&json!({"docs": [{"_id": "1", "fields": ["a"]}]}), &d)).0,
            crate::error::ErrorKind::Parsing
        );
        assert_eq!(reason(parse(&json!({"docs": ["1"]}), &d)).1, "docs array element should include an object");
        assert_eq!(reason(parse(&json!({"ids": [null]}), &d)).1, "ids array element should only contain ids");
        assert_eq!(
            reason(parse(&json!({"other": []}), &d)).1,
            "unknown key [other] for a START_ARRAY, expected [docs] or [ids]"
        );
    }

    #[test]
    fn defaults_apply_unless_the_item_overrides_them() {
        let d = MgetDefaults {
            index: Some("i".into()),
            stored_fields: Some(vec!["foo".into()]),
            source: Some(SourceFilter { disabled: true, ..Default::default() }),
            ..Default::default()
        };
        let items = parse(&json!({"docs": [{"_id": 1}, {"_id": "2", "stored_fields": ["foo", "_source"], "_source": true, "routing": 5}]}), &d).unwrap();
        assert_eq!((items[0].index.as_str(), items[0].id.as_str()), ("i", "1"));
        assert_eq!(items[0].stored_fields, Some(vec!["foo".to_string()]));
        assert!(items[0].source.as_ref().unwrap().disabled);
        assert_eq!(items[1].stored_fields, Some(vec!["foo".to_string(), "_source".to_string()]));
        assert!(!items[1].source.as_ref().unwrap().disabled);
        assert_eq!(items[1].routing.as_deref(), Some("5"));
    }
}
