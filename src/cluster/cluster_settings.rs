//! Cluster-level settings (`_cluster/settings`): the settings Fathom knows, how a value is
//! checked, the effective view (node settings < persistent < transient) and applying an update.
//!
//! Only settings Fathom acts on are registered: an update naming any other key is refused with
//! OpenSearch's `not recognized` error rather than stored and ignored.

use serde_json::{Map, Value};

use super::metadata::Metadata;
use crate::error::{OsError, OsResult};

/// How a setting's value is checked.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Bool,
    /// An integer at least this.
    Int(i64),
    /// A float at least this.
    Float(f64),
    /// A float within these bounds (inclusive).
    FloatIn(f64, f64),
    /// A value checked by this function of (key, value text): the error is the 400 reason.
    Check(fn(&str, &str) -> Result<(), String>),
    /// One of these (lower case).
    Enum(&'static [&'static str]),
    /// A byte size (`40mb`).
    Bytes,
    /// A memory size: a percentage of the node's memory (`60%`) or a byte size.
    Memory,
    /// Any string, or a list (comma separated or a JSON array).
    List,
    /// `true`, `false` or index patterns (`action.auto_create_index`).
    AutoCreate,
    /// A log level (`logger.*`).
    LogLevel,
}

/// One registered setting. A key ending in `*` is a group: any key with that prefix (and, for
/// `awareness.force.*.values`, the suffix after the `*`).
#[derive(Debug, Clone, Copy)]
pub struct Def {
    pub key: &'static str,
    pub kind: Kind,
    pub dynamic: bool,
    /// The default as `include_defaults` prints it (`None`: not shown).
    pub default: Option<&'static str>,
}

const fn d(key: &'static str, kind: Kind, default: Option<&'static str>) -> Def {
    Def { key, kind, dynamic: true, default }
}

/// `search_backpressure.mode` (OpenSearch's `SearchBackpressureMode.fromName`).
fn backpressure_mode(_key: &str, v: &str) -> Result<(), String> {
    match v {
        "disabled" | "monitor_only" | "enforced" => Ok(()),
        _ => Err(format!("Invalid SearchBackpressureMode: {v}")),
    }
}

/// A positive double (`cancellation_rate`).
fn positive(key: &str, v: &str) -> Result<(), String> {
    let n: f64 = v.trim().parse().map_err(|_| format!("Failed to parse value [{v}] for setting [{key}]"))?;
    if n <= 0.0 {
        return Err(format!("{key} must be greater than zero"));
    }
    Ok(())
}

/// A double in (0, 1] (`cancellation_ratio`).
fn ratio(key: &str, v: &str) -> Result<(), String> {
    positive(key, v)?;
    if v.trim().parse::<f64>().is_ok_and(|n| n > 1.0) {
        return Err(format!("{key} must be <= 1.0"));
    }
    Ok(())
}

/// The per-task-type search backpressure settings of `search_task` and `search_shard_task`,
/// with OpenSearch's defaults (`SearchTaskSettings`, `SearchShardTaskSettings`).
macro_rules! backpressure_task {
    ($p:literal, $elapsed:literal, $cpu:literal, $heap:literal, $window:literal, $burst:literal) => {
        [
            d(concat!($p, ".cancellation_burst"), Kind::Float(1.0), Some($burst)),
            d(concat!($p, ".cancellation_rate"), Kind::Check(positive), Some("0.003")),
            d(concat!($p, ".cancellation_ratio"), Kind::Check(ratio), Some("0.1")),
            d(concat!($p, ".cpu_time_millis_threshold"), Kind::Int(0), Some($cpu)),
            d(concat!($p, ".elapsed_time_millis_threshold"), Kind::Int(0), Some($elapsed)),
            d(concat!($p, ".heap_moving_average_window_size"), Kind::Int(0), Some($window)),
            d(concat!($p, ".heap_percent_threshold"), Kind::FloatIn(0.0, 1.0), Some($heap)),
            d(concat!($p, ".heap_variance"), Kind::Float(0.0), Some("2.0")),
            d(concat!($p, ".total_heap_percent_threshold"), Kind::FloatIn(0.0, 1.0), Some("0.05")),
        ]
    };
}

const BP_SEARCH_TASK: [Def; 9] =
    backpressure_task!("search_backpressure.search_task", "45000", "30000", "0.02", "10", "5.0");
const BP_SEARCH_SHARD_TASK: [Def; 9] =
    backpressure_task!("search_backpressure.search_shard_task", "30000", "15000", "0.005", "100", "10.0");

/// The cluster settings Fathom reads, with OpenSearch's defaults.
pub const REGISTRY: &[Def] = &[
    d("action.auto_create_index", Kind::AutoCreate, Some("true")),
    d("cluster.blocks.read_only", Kind::Bool, Some("false")),
    d("cluster.blocks.read_only_allow_delete", Kind::Bool, Some("false")),
    d("cluster.auto_shrink_voting_configuration", Kind::Bool, Some("true")),
    d("cluster.max_voting_config_exclusions", Kind::Int(1), Some("10")),
    d(
        "cluster.routing.allocation.allow_rebalance",
        Kind::Enum(&["always", "indices_primaries_active", "indices_all_active"]),
        Some("indices_all_active"),
    ),
    d("cluster.routing.allocation.awareness.attributes", Kind::List, Some("[]")),
    d("cluster.routing.allocation.awareness.balance", Kind::Bool, Some("false")),
    d("cluster.routing.allocation.awareness.force.*.values", Kind::List, None),
    d("cluster.routing.allocation.balance.index", Kind::Float(0.0), Some("0.55")),
    d("cluster.routing.allocation.balance.shard", Kind::Float(0.0), Some("0.45")),
    d("cluster.routing.allocation.balance.threshold", Kind::Float(0.0), Some("1.0")),
    d("cluster.routing.allocation.cluster_concurrent_rebalance", Kind::Int(-1), Some("2")),
    d("cluster.routing.allocation.enable", Kind::Enum(&["all", "primaries", "new_primaries", "none"]), Some("all")),
    d("cluster.routing.allocation.exclude.*", Kind::List, None),
    d("cluster.routing.allocation.include.*", Kind::List, None),
    d("cluster.routing.allocation.node_concurrent_incoming_recoveries", Kind::Int(0), Some("2")),
    d("cluster.routing.allocation.node_concurrent_outgoing_recoveries", Kind::Int(0), Some("2")),
    d("cluster.routing.allocation.node_concurrent_recoveries", Kind::Int(0), Some("2")),
    d("cluster.routing.allocation.node_initial_primaries_recoveries", Kind::Int(0), Some("4")),
    d("cluster.routing.allocation.node_initial_replicas_recoveries", Kind::Int(0), Some("4")),
    d("cluster.routing.allocation.require.*", Kind::List, None),
    d("cluster.routing.allocation.same_shard.host", Kind::Bool, Some("false")),
    d("cluster.routing.allocation.total_shards_per_node", Kind::Int(-1), Some("-1")),
    d("cluster.routing.rebalance.enable", Kind::Enum(&["all", "primaries", "replicas", "none"]), Some("all")),
    d("cluster.routing.weighted.default_weight", Kind::Float(1.0), Some("1.0")),
    d("cluster.routing.weighted.fail_open", Kind::Bool, Some("true")),
    d("cluster.routing.weighted.strict", Kind::Bool, Some("true")),
    d("indices.breaker.fielddata.limit", Kind::Memory, Some("40%")),
    d("indices.breaker.fielddata.overhead", Kind::Float(0.0), Some("1.03")),
    d("indices.breaker.request.limit", Kind::Memory, Some("60%")),
    d("indices.breaker.request.overhead", Kind::Float(0.0), Some("1.0")),
    d("indices.breaker.total.limit", Kind::Memory, Some("70%")),
    d("indices.recovery.max_bytes_per_sec", Kind::Bytes, Some("40mb")),
    d("indices.recovery.max_concurrent_file_chunks", Kind::Int(1), Some("2")),
    d("logger.*", Kind::LogLevel, None),
    d("network.breaker.inflight_requests.limit", Kind::Memory, Some("100%")),
    d("network.breaker.inflight_requests.overhead", Kind::Float(0.0), Some("2.0")),
    d("search.allow_expensive_queries", Kind::Bool, Some("true")),
    d("search.max_buckets", Kind::Int(0), Some("65535")),
    d("search.max_open_pit_context", Kind::Int(0), Some("300")),
    // Node scope only: read once when the node starts.
    Def { key: "search_backpressure.interval_millis", kind: Kind::Int(1), dynamic: false, default: Some("1000") },
    d("search_backpressure.mode", Kind::Check(backpressure_mode), Some("monitor_only")),
    d("search_backpressure.node_duress.cpu_threshold", Kind::FloatIn(0.0, 1.0), Some("0.9")),
    d("search_backpressure.node_duress.heap_threshold", Kind::FloatIn(0.0, 1.0), Some("0.7")),
    d("search_backpressure.node_duress.num_successive_breaches", Kind::Int(1), Some("3")),
    BP_SEARCH_SHARD_TASK[0],
    BP_SEARCH_SHARD_TASK[1],
    BP_SEARCH_SHARD_TASK[2],
    BP_SEARCH_SHARD_TASK[3],
    BP_SEARCH_SHARD_TASK[4],
    BP_SEARCH_SHARD_TASK[5],
    BP_SEARCH_SHARD_TASK[6],
    BP_SEARCH_SHARD_TASK[7],
    BP_SEARCH_SHARD_TASK[8],
    BP_SEARCH_TASK[0],
    BP_SEARCH_TASK[1],
    BP_SEARCH_TASK[2],
    BP_SEARCH_TASK[3],
    BP_SEARCH_TASK[4],
    BP_SEARCH_TASK[5],
    BP_SEARCH_TASK[6],
    BP_SEARCH_TASK[7],
    BP_SEARCH_TASK[8],
];

/// The registered definition of `key`.
pub fn lookup(key: &str) -> Option<&'static Def> {
    REGISTRY.iter().find(|d| match d.key.split_once('*') {
        Some((pre, post)) => {
            key.len() > pre.len() + post.len()
                && key.starts_with(pre)
                && key.ends_with(post)
                && !key[pre.len()..key.len() - post.len()].is_empty()
        }
        None => d.key == key,
    })
}

/// A setting value as the string OpenSearch stores (arrays keep their JSON form).
fn stored(v: &Value) -> Value {
    match v {
        Value::Number(n) => Value::String(n.to_string()),
        Value::Bool(b) => Value::String(b.to_string()),
        other => other.clone(),
    }
}

/// A setting value as text (scalars as they print, arrays joined with commas).
pub fn text(v: &Value) -> Option<String> {
    as_text(v)
}

fn as_text(v: &Value) -> Option<String> {
    super::allocation::settings::value_str(v)
}

/// Checks `value` for `key` as OpenSearch's setting parsers do; the error is the 400 reason.
pub fn validate(def: &Def, key: &str, value: &Value) -> Result<(), String> {
    let text = as_text(value).ok_or_else(|| format!("Failed to parse value [{value}] for setting [{key}]"))?;
    let bad = || format!("Failed to parse value [{text}] for setting [{key}]");
    match def.kind {
        Kind::Bool => match text.as_str() {
            "true" | "false" => Ok(()),
            _ => Err(format!("Failed to parse value [{text}] as only [true] or [false] are allowed.")),
        },
        Kind::Int(min) => {
            let n: i64 = text.trim().parse().map_err(|_| bad())?;
            if n < min {
                return Err(format!("Failed to parse value [{text}] for setting [{key}] must be >= {min}"));
            }
            Ok(())
        }
        Kind::Float(min) => {
            let n: f64 = text.trim().parse().map_err(|_| bad())?;
            if n < min {
                return Err(format!("Failed to parse value [{text}] for setting [{key}] must be >= {min:?}"));
            }
            Ok(())
        }
        Kind::FloatIn(min, max) => {
            let n: f64 = text.trim().parse().map_err(|_| bad())?;
            if n < min {
                return Err(format!("Failed to parse value [{text}] for setting [{key}] must be >= {min:?}"));
            }
            if n > max {
                return Err(format!("Failed to parse value [{text}] for setting [{key}] must be <= {max:?}"));
            }
            Ok(())
        }
        Kind::Check(f) => f(key, &text),
        Kind::Enum(allowed) => {
            if allowed.contains(&text.to_ascii_lowercase().as_str()) {
                Ok(())
            } else {
                Err(format!("Illegal value [{text}] for setting [{key}], expected one of {allowed:?}"))
            }
        }
        Kind::Bytes => super::peer_recovery::parse_byte_size(&text).map(|_| ()).ok_or_else(|| {
            format!("failed to parse setting [{key}] with value [{text}] as a size in bytes: unit is missing or unrecognized")
        }),
        Kind::Memory => {
            if let Some(p) = text.trim().strip_suffix('%') {
                return match p.trim().parse::<f64>() {
                    Ok(v) if (0.0..=100.0).contains(&v) => Ok(()),
                    Ok(_) => Err(format!("percentage should be in [0-100], got [{text}]")),
                    Err(_) => Err(format!("failed to parse [{text}] as a double")),
                };
            }
            super::peer_recovery::parse_byte_size(&text).map(|_| ()).ok_or_else(|| {
                format!("failed to parse setting [{key}] with value [{text}] as a size in bytes: unit is missing or unrecognized")
            })
        }
        Kind::LogLevel => super::logging::level(&text).map(|_| ()),
        Kind::List | Kind::AutoCreate => Ok(()),
    }
}

/// The effective settings: the node's cluster-level settings overridden by the persistent and
/// then the transient ones.
pub fn effective(node: &Map<String, Value>, md: &Metadata) -> Map<String, Value> {
    let mut m = node.clone();
    for (k, v) in md.persistent_settings.iter().chain(md.transient_settings.iter()) {
        m.insert(k.clone(), v.clone());
    }
    m
}

/// The node settings that are registered cluster settings (their node-level defaults).
pub fn node_level<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> Map<String, Value> {
    pairs.filter(|(k, _)| lookup(k).is_some()).map(|(k, v)| (k.to_string(), Value::String(v.to_string()))).collect()
}

/// Flattens `{"a": {"b": 1}}` to `{"a.b": 1}` (arrays and nulls are leaves).
pub fn flatten(prefix: &str, v: &Value, out: &mut Map<String, Value>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&key, x, out);
            }
        }
        other => {
            out.insert(prefix.to_string(), other.clone());
        }
    }
}

/// Nests flat keys: `{"a.b": 1}` → `{"a": {"b": 1}}` (OpenSearch's settings without
/// `flat_settings`).
pub fn nest(flat: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in flat {
        let mut cur = &mut out;
        let parts: Vec<&str> = k.split('.').collect();
        for p in &parts[..parts.len() - 1] {
            let e = cur.entry(p.to_string()).or_insert_with(|| Value::Object(Map::new()));
            if !e.is_object() {
                *e = Value::Object(Map::new());
            }
            cur = match e {
                Value::Object(m) => m,
                _ => unreachable!("made an object above"),
            };
        }
        cur.insert(parts[parts.len() - 1].to_string(), v.clone());
    }
    out
}

/// Applies `updates` (flat keys; `null` resets, a key ending in `*` resets its matches) of
/// `scope` (`persistent` or `transient`) to `target`. Returns what was set (for the answer).
pub fn apply_update(
    scope: &str,
    target: &mut Map<String, Value>,
    updates: &Map<String, Value>,
) -> OsResult<Map<String, Value>> {
    let mut applied = Map::new();
    let mut deletes = Vec::new();
    for (key, value) in updates {
        if value.is_null() && (key.ends_with('*') || lookup(key).is_some()) {
            deletes.push(key.clone());
            continue;
        }
        let Some(def) = lookup(key) else {
            return Err(OsError::illegal(format!("{scope} setting [{key}], not recognized")));
        };
        if value.is_null() {
            deletes.push(key.clone());
            continue;
        }
        if !def.dynamic {
            return Err(OsError::illegal(format!("{scope} setting [{key}], not dynamically updateable")));
        }
        validate(def, key, value).map_err(OsError::illegal)?;
        applied.insert(key.clone(), stored(value));
    }
    for pattern in &deletes {
        let matches: Vec<String> = target.keys().filter(|k| simple_match(pattern, k)).cloned().collect();
        for k in matches {
            target.remove(&k);
        }
    }
    for (k, v) in &applied {
        target.insert(k.clone(), v.clone());
    }
    Ok(applied)
}

/// OpenSearch's `Regex.simpleMatch` for `*` wildcards.
fn simple_match(pattern: &str, s: &str) -> bool {
    crate::engine::schema::dynamic_templates::simple_match(pattern, s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn lookup_groups() {
        assert!(lookup("cluster.routing.allocation.awareness.force.zone.values").is_some());
        assert!(lookup("cluster.routing.allocation.awareness.force..values").is_none());
        assert!(lookup("cluster.routing.allocation.include._name").is_some());
        assert!(lookup("cluster.routing.allocation.enable").is_some());
        assert!(lookup("cluster.routing.allocation.enablex").is_none());
        assert!(lookup("no_idea").is_none());
    }

    #[test]
    fn update_sets_resets_and_refuses() {
        let mut t = Map::new();
        let a = apply_update(
            "persistent",
            &mut t,
            &obj(json!({"cluster.routing.allocation.enable": "none", "cluster.max_voting_config_exclusions": 3})),
        )
        .unwrap();
        assert_eq!(
            a,
            obj(json!({"cluster.routing.allocation.enable": "none", "cluster.max_voting_config_exclusions": "3"}))
        );
        assert_eq!(t.len(), 2);
        apply_update("persistent", &mut t, &obj(json!({"cluster.routing.allocation.enable": null}))).unwrap();
        assert_eq!(t.len(), 1);
        apply_update("persistent", &mut t, &obj(json!({"cluster.*": null}))).unwrap();
        assert!(t.is_empty());
        let e = apply_update("transient", &mut t, &obj(json!({"no_idea": 1}))).unwrap_err();
        assert_eq!(e.reason, "transient setting [no_idea], not recognized");
        let e =
            apply_update("transient", &mut t, &obj(json!({"cluster.max_voting_config_exclusions": 0}))).unwrap_err();
        assert_eq!(
            e.reason,
            "Failed to parse value [0] for setting [cluster.max_voting_config_exclusions] must be >= 1"
        );
        let e = apply_update("transient", &mut t, &obj(json!({"cluster.routing.allocation.enable": "sometimes"})))
            .unwrap_err();
        assert!(
            e.reason.starts_with("Illegal value [sometimes] for setting [cluster.routing.allocation.enable]"),
            "{}",
            e.reason
        );
        assert!(t.is_empty(), "a refused update changes nothing");
    }

    #[test]
    fn search_backpressure_settings_check_as_opensearch() {
        let mut t = Map::new();
        let e = |t: &mut Map<String, Value>, k: &str, v: Value| {
            apply_update("transient", t, &obj(json!({ k: v }))).unwrap_err().reason
        };
        assert_eq!(
            e(&mut t, "search_backpressure.mode", json!("monitor-only")),
            "Invalid SearchBackpressureMode: monitor-only"
        );
        assert_eq!(
            e(&mut t, "search_backpressure.search_task.cancellation_rate", json!(0.0)),
            "search_backpressure.search_task.cancellation_rate must be greater than zero"
        );
        assert_eq!(
            e(&mut t, "search_backpressure.search_shard_task.cancellation_ratio", json!(0.0)),
            "search_backpressure.search_shard_task.cancellation_ratio must be greater than zero"
        );
        assert_eq!(
            e(&mut t, "search_backpressure.node_duress.cpu_threshold", json!(1.5)),
            "Failed to parse value [1.5] for setting [search_backpressure.node_duress.cpu_threshold] must be <= 1.0"
        );
        assert_eq!(
            e(&mut t, "search_backpressure.interval_millis", json!(5)),
            "transient setting [search_backpressure.interval_millis], not dynamically updateable"
        );
        let ok = obj(json!({"search_backpressure.mode": "enforced",
            "search_backpressure.search_shard_task.cancellation_burst": 12,
            "search_backpressure.search_task.heap_moving_average_window_size": 0}));
        assert_eq!(apply_update("transient", &mut t, &ok).unwrap().len(), 3);
        assert_eq!(t["search_backpressure.search_shard_task.cancellation_burst"], "12");
    }

    #[test]
    fn effective_layers() {
        let node = obj(
            json!({"cluster.routing.allocation.enable": "primaries", "cluster.routing.allocation.awareness.attributes": "zone"}),
        );
        let mut md = Metadata::default();
        md.persistent_settings.insert("cluster.routing.allocation.enable".into(), json!("none"));
        md.transient_settings.insert("cluster.routing.allocation.awareness.attributes".into(), json!("rack"));
        let e = effective(&node, &md);
        assert_eq!(e["cluster.routing.allocation.enable"], "none");
        assert_eq!(e["cluster.routing.allocation.awareness.attributes"], "rack");
    }

    #[test]
    fn nest_and_flatten() {
        let flat = obj(json!({"a.b.c": "1", "a.d": ["x"], "e": "2"}));
        let nested = nest(&flat);
        assert_eq!(Value::Object(nested.clone()), json!({"a": {"b": {"c": "1"}, "d": ["x"]}, "e": "2"}));
        let mut back = Map::new();
        flatten("", &Value::Object(nested), &mut back);
        assert_eq!(back, flat);
    }
}
