//! Weighted shard routing (`_cluster/routing/awareness/{attribute}/weights`): how much search
//! traffic each value of an awareness attribute takes (OpenSearch's `WeightedRoutingService`
//! with its request parsers). The weights live in [`Metadata::weighted_routing`]; searches read
//! them in `search::copy_choice`.
//!
//! | request | answer |
//! |---|---|
//! | `PUT .../{attribute}/weights` `{"weights": {"a": "1", "b": "0"}, "_version": v}` | `{"acknowledged": true}`; version `v + 1` |
//! | `GET .../{attribute}/weights` | `{"weights": {"a": "1.0"}, "_version": v, "discovered_cluster_manager": true}`, or `{}` |
//! | `DELETE /_cluster/routing/awareness[/{attribute}]/weights` `{"_version": v}` | the deleted form (no weights) at `v + 1` |

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::cluster::allocation::settings::AllocSettings;
use crate::cluster::blocks::Level;
use crate::cluster::metadata::Metadata;
use crate::cluster::operations_metadata::{DecommissionStatus, WeightedRouting};
use crate::cluster::ClusterService;
use crate::engine::schema::geo::java_double_of as java_double;
use crate::error::{ErrorKind, OsError, OsResult};

/// The version a request without `_version` carries (`VERSION_UNSET_VALUE`).
pub const VERSION_UNSET: i64 = -2;
/// The version before any weights were set (`INITIAL_VERSION`).
pub const INITIAL_VERSION: i64 = -1;

/// A parsed `PUT` request: the weights in the order the body gave them (a repeated value keeps
/// its first place and its last weight, as a Java `HashMap` does).
#[derive(Debug, Clone, PartialEq)]
pub struct PutRequest {
    pub attribute: String,
    pub weights: Vec<(String, f64)>,
    pub version: i64,
}

impl PutRequest {
    fn weight(&self, value: &str) -> Option<f64> {
        self.weights.iter().find(|(k, _)| k == value).map(|(_, w)| *w)
    }
}

fn parse_err(reason: impl Into<String>) -> OsError {
    OsError::new(ErrorKind::Parse, reason)
}

fn number_format(s: &str) -> OsError {
    OsError::new(ErrorKind::NumberFormat, format!("For input string: \"{s}\""))
}

/// Java's `Double.parseDouble`: surrounding blanks allowed, a `d`/`f` suffix, `NaN`, `Infinity`.
fn java_parse_double(s: &str) -> OsResult<f64> {
    let t = s.trim();
    if t.is_empty() {
        return Err(OsError::new(ErrorKind::NumberFormat, "empty String"));
    }
    let body = t.strip_suffix(['d', 'D', 'f', 'F']).unwrap_or(t);
    match body.trim_start_matches(['+', '-']) {
        "NaN" => return Ok(f64::NAN),
        "Infinity" => return Ok(if body.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY }),
        _ => {}
    }
    if body.chars().any(|c| c.is_ascii_alphabetic() && c != 'e' && c != 'E') {
        return Err(number_format(s));
    }
    body.parse().map_err(|_| number_format(s))
}

/// Java's `Long.parseLong` (no blanks allowed).
fn java_parse_long(s: &str) -> OsResult<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(number_format(s));
    }
    s.parse().map_err(|_| number_format(s))
}

/// The order a Java `HashMap<String, _>` (or `HashSet`) iterates keys inserted in `keys`' order:
/// by bucket (`String.hashCode` spread, table size from the default 16 up), then insertion.
fn java_hash_order<T: AsRef<str>>(keys: &[T]) -> Vec<usize> {
    let mut cap = 16usize;
    while keys.len() * 4 > cap * 3 {
        cap *= 2;
    }
    let bucket = |k: &str| {
        let h = k.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)));
        let h = h as u32;
        ((h ^ (h >> 16)) as usize) & (cap - 1)
    };
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    idx.sort_by_key(|&i| (bucket(keys[i].as_ref()), i));
    idx
}

/// A Java `HashMap<String, Double>.toString()`: `{zoneA=1.0, zoneB=0.0}`.
fn java_map_string(weights: &[(String, f64)]) -> String {
    let keys: Vec<&str> = weights.iter().map(|(k, _)| k.as_str()).collect();
    let parts: Vec<String> =
        java_hash_order(&keys).into_iter().map(|i| format!("{}={}", weights[i].0, java_double(weights[i].1))).collect();
    format!("{{{}}}", parts.join(", "))
}

/// Parses a `PUT` body (`ClusterPutWeightedRoutingRequest.setWeightedRouting`); `Null` when
/// the request had none.
pub fn parse_put(attribute: &str, body: &Value) -> OsResult<PutRequest> {
    let mut r = PutRequest { attribute: attribute.to_string(), weights: Vec::new(), version: VERSION_UNSET };
    let obj = match body {
        Value::Null => return Err(OsError::validation(&["Weighted routing request object is null".into()])),
        Value::Object(o) => o,
        _ => return Err(parse_err("Failed to parse content to map")),
    };
    if obj.is_empty() {
        return Err(parse_err("Empty request body"));
    }
    for (field, v) in obj {
        if field == "_version" {
            match v {
                // `parser.longValue()`: a fraction is cut off.
                Value::Number(n) => r.version = n.as_i64().unwrap_or_else(|| n.as_f64().unwrap_or(0.0) as i64),
                _ => {
                    return Err(parse_err(format!(
                        "failed to parse weighted routing request [{attribute}], unknown type"
                    )))
                }
            }
            continue;
        }
        if field != "weights" {
            return Err(parse_err(format!("failed to parse weighted routing request object [{field}]")));
        }
        let Value::Object(w) = v else {
            return Err(parse_err(format!(
                "failed to parse weighted routing request object  [{field}], expected object"
            )));
        };
        let mut last: Option<f64> = None;
        for (value, weight) in w {
            let Value::String(s) = weight else {
                let shown = last.map_or("null".to_string(), java_double);
                return Err(parse_err(format!(
                    "failed to parse weighted routing request attribute [{shown}], unknown type"
                )));
            };
            let d = java_parse_double(s)?;
            last = Some(d);
            match r.weights.iter_mut().find(|(k, _)| k == value) {
                Some(e) => e.1 = d,
                None => r.weights.push((value.clone(), d)),
            }
        }
    }
    Ok(r)
}

/// `ClusterPutWeightedRoutingRequest.validate()`.
pub fn validate_put(r: &PutRequest) -> OsResult<()> {
    let mut errors = Vec::new();
    if r.attribute.is_empty() {
        errors.push("Attribute name is missing".to_string());
    }
    if r.weights.is_empty() {
        errors.push("Weights are missing".to_string());
    }
    if r.version == VERSION_UNSET {
        errors.push("Version is missing".to_string());
    }
    if !errors.is_empty() {
        return Err(OsError::validation(&errors));
    }
    let zeros = r.weights.iter().filter(|(_, w)| *w == 0.0).count();
    let max = r.weights.len() / 2;
    if zeros > max {
        return Err(OsError::validation(&[format!(
            "There are too many attribute values [{}] given zero weight [{zeros}]. Maximum expected number of routing weights having zero weight is [{max}]",
            java_map_string(&r.weights)
        )]));
    }
    Ok(())
}

/// `verifyAwarenessAttribute`: the attribute must be one of the awareness attributes.
fn verify_attribute(settings: &AllocSettings, attribute: &str) -> OsResult<()> {
    if settings.awareness.iter().any(|a| a == attribute) {
        return Ok(());
    }
    Err(OsError::validation(&[format!("invalid awareness attribute {attribute} requested for weighted routing")]))
}

fn unsupported(reason: impl Into<String>) -> OsError {
    OsError::new(ErrorKind::UnsupportedWeightedRoutingState, reason)
}

/// `ensureNoVersionConflict`.
fn check_version(requested: i64, current: Option<&WeightedRouting>) -> OsResult<()> {
    let cur = current.map_or(INITIAL_VERSION, |w| w.version);
    if requested != cur {
        return Err(unsupported(format!(
            "requested version is {requested} but cluster weighted routing metadata is at a different version {cur} "
        )));
    }
    Ok(())
}

/// The checks `registerWeightedRoutingMetadata` makes against the cluster state: a weight for
/// every forced value and every value a data node has (`data_values`), not too many of them at
/// zero, a decommissioned value at zero, the version.
pub fn check_put(r: &PutRequest, md: &Metadata, settings: &AllocSettings, data_values: &[String]) -> OsResult<()> {
    // ensureWeightsSetForAllDiscoveredAndForcedAwarenessValues
    let mut all: Vec<String> = Vec::new();
    let forced = settings.forced_awareness.iter().find(|(a, _)| *a == r.attribute);
    for v in forced.map(|(_, v)| v.as_slice()).unwrap_or_default().iter().chain(data_values) {
        if !all.contains(v) {
            all.push(v.clone());
        }
    }
    let mut zeros = 0;
    for i in java_hash_order(&all) {
        match r.weight(&all[i]) {
            None => {
                return Err(unsupported(format!(
                    "weight for [{}] is not set and it is part of forced awareness value or a routing node has this attribute.",
                    all[i]
                )))
            }
            Some(w) => zeros += usize::from(w == 0.0),
        }
    }
    if zeros > all.len() / 2 {
        return Err(OsError::validation(&[format!(
            "There are too many discovered attribute values [{}] given zero weight [{zeros}]. Maximum expected number of routing weights having zero weight is [{}]",
            java_map_string(&r.weights),
            all.len() / 2
        )]));
    }
    // ensureDecommissionedAttributeHasZeroWeight
    if let Some(d) = md.decommission.as_ref().filter(|d| d.status != DecommissionStatus::Failed) {
        if d.attribute != r.attribute {
            return Err(unsupported(format!(
                "decommission action ongoing for attribute [{}], cannot update weight for [{}]",
                d.attribute, r.attribute
            )));
        }
        match r.weight(&d.value) {
            None => {
                return Err(unsupported(format!(
                    "weight for [{}] is not specified. Please specify its weight to [0.0] as it is under decommission action",
                    d.value
                )))
            }
            Some(w) if w != 0.0 => {
                return Err(unsupported(format!(
                    "weight for [{}] must be set to [0.0] as it is under decommission action",
                    d.value
                )))
            }
            Some(_) => {}
        }
    }
    check_version(r.version, md.weighted_routing.as_ref())
}

/// What a `PUT` makes of the metadata: `None` when the same weights are set already.
pub fn next_weights(r: &PutRequest, current: Option<&WeightedRouting>) -> Option<WeightedRouting> {
    let weights: BTreeMap<String, f64> = r.weights.iter().cloned().collect();
    if current.is_some_and(|c| c.attribute == r.attribute && c.weights == weights) {
        return None;
    }
    Some(WeightedRouting { attribute: r.attribute.clone(), weights, version: r.version + 1 })
}

/// The attribute values of the cluster's data nodes (`RoutingNodes.nodesPerAttributesCounts`).
fn data_node_values(cs: &ClusterService, attribute: &str) -> Vec<String> {
    let st = cs.state();
    let mut out: Vec<String> = Vec::new();
    for n in st.nodes.iter().filter(|n| n.roles.iter().any(|r| r == "data")) {
        if let Some((_, v)) = n.attributes.iter().find(|(k, _)| k == attribute) {
            if !out.contains(v) {
                out.push(v.clone());
            }
        }
    }
    out
}

/// `PUT /_cluster/routing/awareness/{attribute}/weights`.
pub fn put(cs: &ClusterService, r: &PutRequest) -> OsResult<Value> {
    validate_put(r)?;
    verify_attribute(&AllocSettings::parse(&cs.cluster_settings(&cs.metadata())), &r.attribute)?;
    cs.check_cluster_manager_blocks(Level::MetadataWrite)?;
    cs.update(|md| {
        let settings = AllocSettings::parse(&cs.cluster_settings(md));
        check_put(r, md, &settings, &data_node_values(cs, &r.attribute))?;
        match next_weights(r, md.weighted_routing.as_ref()) {
            Some(w) => {
                md.weighted_routing = Some(w);
                Ok((true, ()))
            }
            None => Ok((false, ())),
        }
    })?;
    Ok(json!({"acknowledged": true}))
}

/// `GET /_cluster/routing/awareness/{attribute}/weights`.
pub fn get(cs: &ClusterService, attribute: &str) -> OsResult<Value> {
    let md = cs.metadata();
    verify_attribute(&AllocSettings::parse(&cs.cluster_settings(&md)), attribute)?;
    cs.check_blocks(Level::MetadataRead, &[])?;
    let Some(w) = &md.weighted_routing else { return Ok(json!({})) };
    let weights: Map<String, Value> = w.weights.iter().map(|(k, v)| (k.clone(), json!(java_double(*v)))).collect();
    let discovered = cs.has_cluster_manager();
    Ok(json!({"weights": weights, "_version": w.version, "discovered_cluster_manager": discovered}))
}

/// The `_version` of a `DELETE` body (`ClusterDeleteWeightedRoutingRequest.source`, whose REST
/// handler reads the body as strings); `Null` (no body) is [`VERSION_UNSET`].
pub fn parse_delete(body: &Value) -> OsResult<i64> {
    let obj = match body {
        Value::Null => return Ok(VERSION_UNSET),
        Value::Object(o) => o,
        _ => return Err(parse_err("Failed to parse content to map")),
    };
    if obj.is_empty() {
        return Err(parse_err("Empty request body"));
    }
    let mut version = VERSION_UNSET;
    for (field, v) in obj {
        if field != "_version" {
            return Err(parse_err(format!(
                "failed to parse delete weighted routing request body [{field}], unknown type"
            )));
        }
        let s = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => return Err(parse_err("failed to parse delete weighted routing request body")),
        };
        version = java_parse_long(&s)?;
    }
    Ok(version)
}

/// What a `DELETE` makes of the weights: the deleted form one version up.
pub fn deleted_weights(
    attribute: Option<&str>,
    version: i64,
    current: Option<&WeightedRouting>,
) -> OsResult<WeightedRouting> {
    check_version(version, current)?;
    match current {
        Some(c) if attribute.is_none_or(|a| a == c.attribute) => {
            Ok(WeightedRouting { attribute: String::new(), weights: BTreeMap::new(), version: c.version + 1 })
        }
        _ => Err(OsError::new(
            ErrorKind::ResourceNotFound,
            format!(
                "weighted routing metadata does not have weights set for awareness attribute {}",
                attribute.unwrap_or("null")
            ),
        )),
    }
}

/// `DELETE /_cluster/routing/awareness[/{attribute}]/weights`.
pub fn delete(cs: &ClusterService, attribute: Option<&str>, version: i64) -> OsResult<Value> {
    cs.check_cluster_manager_blocks(Level::MetadataWrite)?;
    cs.update(|md| {
        md.weighted_routing = Some(deleted_weights(attribute, version, md.weighted_routing.as_ref())?);
        Ok((true, ()))
    })?;
    Ok(json!({"acknowledged": true}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::operations_metadata::DecommissionMetadata;

    fn put_req(body: Value) -> OsResult<PutRequest> {
        parse_put("zone", &body)
    }

    fn reason(r: OsResult<impl std::fmt::Debug>) -> (ErrorKind, String) {
        let e = r.unwrap_err();
        (e.kind, e.reason)
    }

    fn settings(v: Value) -> AllocSettings {
        AllocSettings::parse(v.as_object().unwrap())
    }

    #[test]
    fn parses_put_bodies_with_opensearch_messages() {
        let r = put_req(json!({"weights": {"a": "1", "b": " 0.5 ", "c": "0"}, "_version": 3})).unwrap();
        assert_eq!(r.weights, vec![("a".into(), 1.0), ("b".into(), 0.5), ("c".into(), 0.0)]);
        assert_eq!(r.version, 3);
        assert_eq!(put_req(json!({"weights": {"a": "1"}})).unwrap().version, VERSION_UNSET);
        let p = ErrorKind::Parse;
        assert_eq!(reason(put_req(json!({}))), (p, "Empty request body".into()));
        assert_eq!(
            reason(put_req(json!({"weights": {"a": "1"}, "x": 1}))),
            (p, "failed to parse weighted routing request object [x]".into())
        );
        assert_eq!(
            reason(put_req(json!({"weights": [1]}))),
            (p, "failed to parse weighted routing request object  [weights], expected object".into())
        );
        assert_eq!(
            reason(put_req(json!({"weights": {"a": "2", "b": 1}}))),
            (p, "failed to parse weighted routing request attribute [2.0], unknown type".into())
        );
        assert_eq!(
            reason(put_req(json!({"weights": {"b": 1}}))),
            (p, "failed to parse weighted routing request attribute [null], unknown type".into())
        );
        assert_eq!(
            reason(put_req(json!({"weights": {"a": "1"}, "_version": "3"}))),
            (p, "failed to parse weighted routing request [zone], unknown type".into())
        );
        assert_eq!(
            reason(put_req(json!({"weights": {"a": "abc"}}))),
            (ErrorKind::NumberFormat, "For input string: \"abc\"".into())
        );
        assert_eq!(reason(put_req(Value::Null)).1, "Validation Failed: 1: Weighted routing request object is null;");
    }

    #[test]
    fn validates_put_requests() {
        let r = put_req(json!({"weights": {"a": "1"}})).unwrap();
        assert_eq!(
            reason(validate_put(&r)),
            (ErrorKind::ActionRequestValidation, "Validation Failed: 1: Version is missing;".into())
        );
        let r = PutRequest { attribute: "zone".into(), weights: vec![], version: VERSION_UNSET };
        assert_eq!(reason(validate_put(&r)).1, "Validation Failed: 1: Weights are missing;2: Version is missing;");
        let r = put_req(json!({"weights": {"zoneA": "1", "zoneB": "0", "zoneC": "0"}, "_version": -1})).unwrap();
        assert_eq!(
            reason(validate_put(&r)).1,
            "Validation Failed: 1: There are too many attribute values [{zoneC=0.0, zoneB=0.0, zoneA=1.0}] given zero weight [2]. Maximum expected number of routing weights having zero weight is [1];"
        );
        let r = put_req(json!({"weights": {"zoneA": "1", "zoneB": "0"}, "_version": -1})).unwrap();
        assert!(validate_put(&r).is_ok());
    }

    #[test]
    fn java_hash_map_order() {
        // "a" = 97, "b" = 98: buckets 1 and 2 of 16.
        let w = vec![("b".to_string(), 1.0), ("a".to_string(), 0.0)];
        assert_eq!(java_map_string(&w), "{a=0.0, b=1.0}");
        // zoneA..zoneC hash to 15, 0, 1 ... in some order; pinned by `validates_put_requests`.
    }

    #[test]
    fn put_checks_against_the_cluster() {
        let s = settings(
            json!({"cluster.routing.allocation.awareness.attributes": "zone", "cluster.routing.allocation.awareness.force.zone.values": "zoneA,zoneB"}),
        );
        assert!(verify_attribute(&s, "zone").is_ok());
        assert_eq!(
            reason(verify_attribute(&s, "rack")).1,
            "Validation Failed: 1: invalid awareness attribute rack requested for weighted routing;"
        );
        let md = Metadata::default();
        let r = put_req(json!({"weights": {"zoneA": "1"}, "_version": -1})).unwrap();
        assert_eq!(
            reason(check_put(&r, &md, &s, &[])),
            (
                ErrorKind::UnsupportedWeightedRoutingState,
                "weight for [zoneB] is not set and it is part of forced awareness value or a routing node has this attribute.".into()
            )
        );
        // A discovered value needs a weight too.
        let r = put_req(json!({"weights": {"zoneA": "1", "zoneB": "0"}, "_version": -1})).unwrap();
        assert!(check_put(&r, &md, &s, &["zoneA".into()]).is_ok());
        assert!(check_put(&r, &md, &s, &["zoneC".into()]).unwrap_err().reason.contains("[zoneC]"));
        // More than half of the known values at zero.
        let s1 = settings(json!({"cluster.routing.allocation.awareness.attributes": "zone"}));
        let r = put_req(json!({"weights": {"zoneA": "1", "zoneB": "0", "zoneC": "1"}, "_version": -1})).unwrap();
        assert_eq!(
            reason(check_put(&r, &md, &s1, &["zoneB".into()])).1,
            "Validation Failed: 1: There are too many discovered attribute values [{zoneC=1.0, zoneB=0.0, zoneA=1.0}] given zero weight [1]. Maximum expected number of routing weights having zero weight is [0];"
        );
        // Versions.
        let r = put_req(json!({"weights": {"zoneA": "1", "zoneB": "0"}, "_version": 4})).unwrap();
        assert_eq!(
            reason(check_put(&r, &md, &s, &[])),
            (
                ErrorKind::UnsupportedWeightedRoutingState,
                "requested version is 4 but cluster weighted routing metadata is at a different version -1 ".into()
            )
        );
        let set = put_req(json!({"weights": {"zoneA": "1", "zoneB": "0"}, "_version": 3})).unwrap();
        let mut md2 = Metadata { weighted_routing: next_weights(&set, None), ..Default::default() };
        assert_eq!(md2.weighted_routing.as_ref().unwrap().version, 4);
        assert!(check_put(&r, &md2, &s, &[]).is_ok());
        assert_eq!(next_weights(&r, md2.weighted_routing.as_ref()), None, "same weights: no change");
        // A decommission in flight.
        md2.decommission = Some(DecommissionMetadata {
            attribute: "zone".into(),
            value: "zoneB".into(),
            status: DecommissionStatus::Draining,
            request_id: "r".into(),
            started_millis: 0,
            delay_timeout_millis: 0,
            no_delay: false,
            draining_until_millis: None,
            in_progress_since_millis: None,
        });
        assert!(check_put(&r, &md2, &s, &[]).is_ok());
        let r2 = put_req(json!({"weights": {"zoneA": "0", "zoneB": "1"}, "_version": 4})).unwrap();
        assert_eq!(
            reason(check_put(&r2, &md2, &s, &[])).1,
            "weight for [zoneB] must be set to [0.0] as it is under decommission action"
        );
        let r3 = PutRequest { attribute: "rack".into(), weights: vec![("r1".into(), 1.0)], version: 4 };
        assert_eq!(
            reason(check_put(&r3, &md2, &s1, &[])).1,
            "decommission action ongoing for attribute [zone], cannot update weight for [rack]"
        );
        let s2 = settings(json!({"cluster.routing.allocation.awareness.attributes": "zone"}));
        let r4 = put_req(json!({"weights": {"zoneA": "1"}, "_version": 4})).unwrap();
        assert_eq!(
            reason(check_put(&r4, &md2, &s2, &[])).1,
            "weight for [zoneB] is not specified. Please specify its weight to [0.0] as it is under decommission action"
        );
    }

    #[test]
    fn delete_bodies_and_versions() {
        assert_eq!(parse_delete(&Value::Null).unwrap(), VERSION_UNSET);
        assert_eq!(parse_delete(&json!({"_version": "3"})).unwrap(), 3);
        assert_eq!(parse_delete(&json!({"_version": 3})).unwrap(), 3);
        assert_eq!(reason(parse_delete(&json!({}))).1, "Empty request body");
        assert_eq!(
            reason(parse_delete(&json!({"v": 1}))).1,
            "failed to parse delete weighted routing request body [v], unknown type"
        );
        assert_eq!(
            reason(parse_delete(&json!({"_version": "x"}))),
            (ErrorKind::NumberFormat, "For input string: \"x\"".into())
        );
        let cur = WeightedRouting { attribute: "zone".into(), weights: [("a".into(), 1.0)].into(), version: 3 };
        let d = deleted_weights(None, 3, Some(&cur)).unwrap();
        assert_eq!((d.is_set(), d.version), (false, 4));
        assert!(deleted_weights(Some("zone"), 3, Some(&cur)).is_ok());
        assert_eq!(
            reason(deleted_weights(Some("rack"), 3, Some(&cur))),
            (
                ErrorKind::ResourceNotFound,
                "weighted routing metadata does not have weights set for awareness attribute rack".into()
            )
        );
        assert_eq!(
            reason(deleted_weights(None, VERSION_UNSET, Some(&cur))).1,
            "requested version is -2 but cluster weighted routing metadata is at a different version 3 "
        );
        assert_eq!(
            reason(deleted_weights(None, -1, None)).1,
            "weighted routing metadata does not have weights set for awareness attribute null"
        );
    }
}
