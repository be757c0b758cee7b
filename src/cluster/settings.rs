//! Index settings as OpenSearch keeps them: a flat map from dotted keys (`index.number_of_shards`)
//! to string values (lists stay lists), parsed from nested or flat JSON, validated against the
//! settings Fathom knows, and printed nested or flat.

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::time::Duration;

use crate::error::{ErrorKind, OsError, OsResult};

/// Flat settings: `index.refresh_interval` → `"1s"`.
pub type FlatSettings = BTreeMap<String, Value>;

/// Flattens `{"index": {"number_of_shards": 1}}`, `{"number_of_shards": 1}` or
/// `{"index.number_of_shards": "1"}` into `index.number_of_shards = "1"`. Every key gets the
/// `index.` prefix when it lacks it (as index-scoped settings do). Scalars become strings.
pub fn flatten_index_settings(v: &Value) -> OsResult<FlatSettings> {
    let mut out = FlatSettings::new();
    match v {
        Value::Null => {}
        Value::Object(m) => flatten_into("", m, &mut out)?,
        other => return Err(OsError::new(ErrorKind::Settings, format!("Failed to load settings from [{other}]"))),
    }
    let mut prefixed = FlatSettings::new();
    for (k, v) in out {
        let key = if k.starts_with("index.") { k } else { format!("index.{k}") };
        prefixed.insert(key, v);
    }
    Ok(prefixed)
}

fn flatten_into(prefix: &str, m: &Map<String, Value>, out: &mut FlatSettings) -> OsResult<()> {
    for (k, v) in m {
        let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        match v {
            Value::Object(inner) => flatten_into(&key, inner, out)?,
            Value::Array(items) => {
                let mut list = Vec::with_capacity(items.len());
                for it in items {
                    list.push(Value::String(scalar_string(it).ok_or_else(|| {
                        OsError::illegal(format!("settings list [{key}] may only hold scalar values"))
                    })?));
                }
                out.insert(key, Value::Array(list));
            }
            Value::Null => {
                out.insert(key, Value::Null);
            }
            other => {
                out.insert(key, Value::String(scalar_string(other).unwrap_or_default()));
            }
        }
    }
    Ok(())
}

fn scalar_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Nests flat settings: `index.a.b = x` → `{"index": {"a": {"b": x}}}`. A key that is both a
/// value and a prefix keeps the value under its flat name.
pub fn nest(flat: &FlatSettings) -> Value {
    let mut root = Map::new();
    for (k, v) in flat {
        let parts: Vec<&str> = k.split('.').collect();
        insert_nested(&mut root, &parts, v.clone(), k);
    }
    Value::Object(root)
}

fn insert_nested(m: &mut Map<String, Value>, parts: &[&str], v: Value, full: &str) {
    match parts {
        [] => {}
        [last] => {
            m.insert((*last).to_string(), v);
        }
        [first, rest @ ..] => {
            let entry = m.entry((*first).to_string()).or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(inner) = entry {
                insert_nested(inner, rest, v, full);
            } else {
                m.insert(full.to_string(), v);
            }
        }
    }
}

/// Flat settings as a JSON object.
pub fn flat_json(flat: &FlatSettings) -> Value {
    Value::Object(flat.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
}

/// Settings that may change on an open index (`PUT _settings`).
const DYNAMIC: &[&str] = &[
    "index.number_of_replicas",
    "index.refresh_interval",
    "index.translog.durability",
    "index.translog.sync_interval",
    "index.max_result_window",
    "index.max_inner_result_window",
    "index.max_rescore_window",
    "index.max_docvalue_fields_search",
    "index.max_script_fields",
    "index.max_terms_count",
    "index.max_regex_length",
    "index.analyze.max_token_count",
    "index.highlight.max_analyzed_offset",
    "index.auto_expand_replicas",
    "index.gc_deletes",
    "index.hidden",
    "index.blocks.read_only",
    "index.blocks.read_only_allow_delete",
    "index.blocks.read",
    "index.blocks.write",
    "index.blocks.metadata",
    "index.mapping.total_fields.limit",
    "index.mapping.depth.limit",
    "index.mapping.nested_fields.limit",
    "index.mapping.field_name_length.limit",
    "index.mapping.nested_objects.limit",
    "index.mapping.total_fields.unmap_fields_beyond_limit",
    "index.default_pipeline",
    "index.final_pipeline",
    "index.search.idle.after",
    "index.search.concurrent_segment_search.mode",
    "index.search.concurrent_segment_search.enabled",
    "index.search.concurrent.max_slice_count",
    "index.max_slices_per_scroll",
    "index.max_ngram_diff",
    "index.max_shingle_diff",
    "index.translog.flush_threshold_size",
    "index.translog.generation_threshold_size",
    "index.translog.retention.age",
    "index.translog.retention.size",
    "index.merge.policy.max_merged_segment",
    "index.merge.policy.segments_per_tier",
    "index.query.default_field",
    "index.priority",
    "index.routing.allocation.enable",
    "index.routing.rebalance.enable",
    "index.unassigned.node_left.delayed_timeout",
    "index.write.wait_for_active_shards",
    "index.requests.cache.enable",
];

/// Settings fixed at creation.
const STATIC: &[&str] = &[
    "index.number_of_shards",
    "index.number_of_routing_shards",
    "index.codec",
    "index.routing_partition_size",
    "index.shard.check_on_startup",
    "index.sort.field",
    "index.sort.order",
    "index.sort.mode",
    "index.sort.missing",
    "index.soft_deletes.enabled",
    "index.soft_deletes.retention_lease.period",
    "index.load_fixed_bitset_filters_eagerly",
    "index.replication.type",
    "index.mapping.coerce",
    "index.mapping.ignore_malformed",
    "index.format",
    "index.queries.cache.enabled",
    "index.queries.cache.everything",
];

/// Private settings set by Fathom (never by users).
pub const PRIVATE: &[&str] =
    &["index.uuid", "index.creation_date", "index.version.created", "index.provided_name", "index.version.upgraded"];

/// Prefixes whose keys are validated by their own subsystem (analysis, routing allocation, ...).
const OPEN_PREFIXES: &[&str] = &[
    "index.analysis.",
    "index.similarity.",
    "index.routing.allocation.",
    "index.blocks.",
    "index.merge.",
    "index.search.slowlog.",
    "index.indexing.slowlog.",
    "index.store.",
    "index.queries.",
    "index.lifecycle.",
    "index.plugins.",
    "index.opendistro.",
    "index.knn",
    "index.translog.",
    "index.mapping.",
    "index.search.",
    "index.query.",
    "index.unassigned.",
    "index.shard.",
];

/// Whether a setting may be changed on an existing index.
pub fn is_dynamic(key: &str) -> bool {
    DYNAMIC.contains(&key)
        || key.starts_with("index.blocks.")
        || key.starts_with("index.routing.allocation.")
        || key.starts_with("index.search.slowlog.")
        || key.starts_with("index.indexing.slowlog.")
}

/// Whether `key` is a setting Fathom knows.
pub fn is_known(key: &str) -> bool {
    DYNAMIC.contains(&key)
        || STATIC.contains(&key)
        || PRIVATE.contains(&key)
        || OPEN_PREFIXES.iter().any(|p| key.starts_with(p))
}

/// The string form of a setting, if set.
pub fn get_str<'a>(flat: &'a FlatSettings, key: &str) -> Option<&'a str> {
    flat.get(key).and_then(Value::as_str)
}

/// Parses an integer setting with OpenSearch's messages.
pub fn get_int(flat: &FlatSettings, key: &str, default: i64, min: i64, max: i64) -> OsResult<i64> {
    let Some(s) = get_str(flat, key) else { return Ok(default) };
    let v: i64 =
        s.trim().parse().map_err(|_| OsError::illegal(format!("Failed to parse value [{s}] for setting [{key}]")))?;
    if v < min {
        return Err(OsError::illegal(format!("Failed to parse value [{s}] for setting [{key}] must be >= {min}")));
    }
    if v > max {
        return Err(OsError::illegal(format!("Failed to parse value [{s}] for setting [{key}] must be <= {max}")));
    }
    Ok(v)
}

/// Parses a boolean setting.
pub fn get_bool(flat: &FlatSettings, key: &str, default: bool) -> OsResult<bool> {
    match get_str(flat, key) {
        None => Ok(default),
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(s) => Err(OsError::illegal(format!("Failed to parse value [{s}] as only [true] or [false] are allowed."))),
    }
}

/// Parses an OpenSearch time value (`1s`, `500ms`, `2m`, `1h`, `1d`, `-1`, `0`). `-1` is `None`.
pub fn parse_time(s: &str, key: &str) -> OsResult<Option<Duration>> {
    let t = s.trim();
    if t == "-1" {
        return Ok(None);
    }
    if t == "0" {
        return Ok(Some(Duration::ZERO));
    }
    let lower = t.to_ascii_lowercase();
    let units: [(&str, f64); 8] = [
        ("nanos", 1e-9),
        ("micros", 1e-6),
        ("ms", 1e-3),
        ("s", 1.0),
        ("m", 60.0),
        ("h", 3600.0),
        ("d", 86400.0),
        ("", 0.0),
    ];
    for (suffix, mult) in units {
        if suffix.is_empty() {
            break;
        }
        if let Some(num) = lower.strip_suffix(suffix) {
            // "ms" must win over "s"; "nanos"/"micros" over "s".
            if suffix == "s" && (num.ends_with('m') || num.ends_with("nano") || num.ends_with("micro")) {
                continue;
            }
            if let Ok(n) = num.trim().parse::<f64>() {
                if n >= 0.0 && n.is_finite() {
                    return Ok(Some(Duration::from_secs_f64(n * mult)));
                }
            }
        }
    }
    Err(OsError::illegal(format!(
        "failed to parse setting [{key}] with value [{s}] as a time value: unit is missing or unrecognized"
    )))
}

/// Validates user-provided settings at index creation.
pub fn validate_new(flat: &FlatSettings) -> OsResult<()> {
    for k in flat.keys() {
        if PRIVATE.contains(&k.as_str()) && k != "index.provided_name" {
            return Err(OsError::illegal(format!("private index setting [{k}] can not be set explicitly")));
        }
        if !is_known(k) {
            return Err(unknown_setting(k));
        }
    }
    validate_values(flat)
}

/// `unknown setting [...]` with OpenSearch's hint.
pub fn unknown_setting(k: &str) -> OsError {
    OsError::illegal(format!(
        "unknown setting [{k}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings"
    ))
}

/// Checks the values of the settings Fathom interprets.
pub fn validate_values(flat: &FlatSettings) -> OsResult<()> {
    get_int(flat, "index.number_of_shards", 1, 1, 1024)?;
    get_int(flat, "index.number_of_replicas", 1, 0, i32::MAX as i64)?;
    get_int(flat, "index.max_result_window", 10_000, 1, i32::MAX as i64)?;
    get_int(flat, "index.analyze.max_token_count", 10_000, 1, i32::MAX as i64)?;
    if let Some(s) = get_str(flat, "index.refresh_interval") {
        parse_time(s, "index.refresh_interval")?;
    }
    if let Some(s) = get_str(flat, "index.translog.sync_interval") {
        parse_time(s, "index.translog.sync_interval")?;
    }
    if let Some(s) = get_str(flat, "index.translog.durability") {
        if !s.eq_ignore_ascii_case("request") && !s.eq_ignore_ascii_case("async") {
            return Err(OsError::illegal(format!(
                "No enum constant org.opensearch.index.translog.Translog.Durability.{}",
                s.to_ascii_uppercase()
            )));
        }
    }
    get_bool(flat, "index.hidden", false)?;
    get_bool(flat, "index.requests.cache.enable", true)?;
    get_bool(flat, "index.queries.cache.enabled", true)?;
    get_bool(flat, "index.queries.cache.everything", false)?;
    // Concurrent segment search: how a shard's segments are searched (in slices, in parallel);
    // the results are the same either way, and Fathom searches a shard's segments in turn.
    if let Some(s) = get_str(flat, "index.search.concurrent_segment_search.mode") {
        if !matches!(s, "all" | "none" | "auto") {
            return Err(OsError::illegal("Setting value must be one of [all, none, auto]"));
        }
    }
    get_bool(flat, "index.search.concurrent_segment_search.enabled", false)?;
    get_int(flat, "index.search.concurrent.max_slice_count", 0, 0, i32::MAX as i64)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flattens_every_form() {
        let a = flatten_index_settings(
            &json!({"index": {"number_of_shards": 2, "analysis": {"analyzer": {"a": {"type": "standard"}}}}}),
        )
        .unwrap();
        let b = flatten_index_settings(&json!({"number_of_shards": "2", "index.analysis.analyzer.a.type": "standard"}))
            .unwrap();
        assert_eq!(a, b);
        assert_eq!(a["index.number_of_shards"], json!("2"));
    }

    #[test]
    fn nests_back() {
        let f = flatten_index_settings(&json!({"index.number_of_shards": 1, "index.version.created": "1"})).unwrap();
        assert_eq!(nest(&f), json!({"index": {"number_of_shards": "1", "version": {"created": "1"}}}));
    }

    #[test]
    fn time_values() {
        assert_eq!(parse_time("1s", "k").unwrap(), Some(Duration::from_secs(1)));
        assert_eq!(parse_time("500ms", "k").unwrap(), Some(Duration::from_millis(500)));
        assert_eq!(parse_time("2m", "k").unwrap(), Some(Duration::from_secs(120)));
        assert_eq!(parse_time("-1", "k").unwrap(), None);
        assert!(parse_time("abc", "k").is_err());
        assert!(parse_time("10", "k").is_err());
    }

    #[test]
    fn rejects_bad_values() {
        let f = flatten_index_settings(&json!({"number_of_shards": 0})).unwrap();
        let e = validate_new(&f).unwrap_err();
        assert!(e.reason.contains("must be >= 1"), "{}", e.reason);
        let f = flatten_index_settings(&json!({"foo": 1})).unwrap();
        assert!(validate_new(&f).unwrap_err().reason.starts_with("unknown setting [index.foo]"));
        let f = flatten_index_settings(&json!({"index.search.concurrent_segment_search.mode": "some"})).unwrap();
        assert_eq!(validate_new(&f).unwrap_err().reason, "Setting value must be one of [all, none, auto]");
        let f = flatten_index_settings(&json!({"index.search.concurrent_segment_search.mode": "all"})).unwrap();
        assert!(validate_new(&f).is_ok() && is_dynamic("index.search.concurrent_segment_search.mode"));
    }
}
