//! Circuit breakers (OpenSearch's `HierarchyCircuitBreakerService`): the node estimates the
//! memory its big allocations take (aggregation state under `request`, uninverted text under
//! `fielddata`, request bodies being handled under `in_flight_requests`) and refuses work that
//! would take it past a limit with a 429 `circuit_breaking_exception`, instead of running out of
//! memory. Each child breaker has its own limit and overhead; the `parent` limit bounds their
//! sum (OpenSearch's `indices.breaker.total.use_real_memory: false` accounting: the estimates,
//! not a JVM heap reading). Limits are fractions of the machine's memory, the pool a Rust
//! process allocates from (OpenSearch's are fractions of the JVM heap), and follow the
//! `indices.breaker.*` / `network.breaker.*` cluster settings as they change.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use serde_json::{json, Map, Value};

use crate::error::{ErrorKind, OsError, OsResult};
use crate::units::human_bytes;

/// The child breakers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Request = 0,
    Fielddata = 1,
    InFlight = 2,
}

const NAMES: [&str; 3] = ["request", "fielddata", "in_flight_requests"];

/// The limit settings: (key, default) of each child's limit and overhead, then the parent's.
const LIMIT_KEYS: [(&str, &str, &str, &str); 3] = [
    ("indices.breaker.request.limit", "60%", "indices.breaker.request.overhead", "1.0"),
    ("indices.breaker.fielddata.limit", "40%", "indices.breaker.fielddata.overhead", "1.03"),
    ("network.breaker.inflight_requests.limit", "100%", "network.breaker.inflight_requests.overhead", "2.0"),
];
/// The parent's limit and its default without real-memory accounting (OpenSearch's 70%).
pub const TOTAL_LIMIT: (&str, &str) = ("indices.breaker.total.limit", "70%");

/// The limits in force.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    pub child: [u64; 3],
    pub overhead: [f64; 3],
    pub total: u64,
}

#[derive(Debug, Default)]
struct Child {
    used: AtomicU64,
    tripped: AtomicU64,
}

/// The node's breakers.
#[derive(Debug)]
pub struct Breakers {
    children: [Child; 3],
    parent_tripped: AtomicU64,
    /// The limits and the cluster-state version they were read from.
    limits: RwLock<(u64, Limits)>,
    /// The memory the percentages are of.
    memory: u64,
}

impl Default for Breakers {
    fn default() -> Self {
        Breakers::new(physical_memory())
    }
}

/// The machine's memory in bytes (`MemTotal`), 1 GiB when it cannot be read.
pub fn physical_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|k| k.parse::<u64>().ok()))
        })
        .map_or(1 << 30, |kb| kb * 1024)
}

/// A memory size setting: a percentage of `memory` or a byte size.
pub fn parse_memory(s: &str, memory: u64) -> Option<u64> {
    let t = s.trim();
    match t.strip_suffix('%') {
        Some(p) => {
            let p: f64 = p.trim().parse().ok().filter(|p: &f64| (0.0..=100.0).contains(p))?;
            Some((memory as f64 * p / 100.0) as u64)
        }
        None => super::peer_recovery::parse_byte_size(t),
    }
}

impl Breakers {
    pub fn new(memory: u64) -> Breakers {
        let limits = Limits::from_settings(&Map::new(), memory);
        Breakers {
            children: Default::default(),
            parent_tripped: AtomicU64::new(0),
            limits: RwLock::new((0, limits)),
            memory,
        }
    }

    /// The limits, re-read from `settings` when the cluster state `version` is newer than the
    /// one they were read from (a settings update takes effect with the next reservation).
    pub fn refresh_limits(&self, version: u64, settings: impl FnOnce() -> Map<String, Value>) {
        if self.limits.read().unwrap_or_else(|e| e.into_inner()).0 == version {
            return;
        }
        let l = Limits::from_settings(&settings(), self.memory);
        *self.limits.write().unwrap_or_else(|e| e.into_inner()) = (version, l);
    }

    pub fn limits(&self) -> Limits {
        self.limits.read().unwrap_or_else(|e| e.into_inner()).1
    }

    /// Adds `bytes` to `kind` for `label` (what it is for, as the error names it), or refuses
    /// with a `circuit_breaking_exception` when the child or the parent limit would be passed;
    /// a refused addition is not kept.
    pub fn add(&self, kind: Kind, bytes: u64, label: &str) -> OsResult<()> {
        if bytes == 0 {
            return Ok(());
        }
        let l = self.limits();
        let i = kind as usize;
        let c = &self.children[i];
        let with_overhead = (bytes as f64 * l.overhead[i]) as u64;
        let new_used = c.used.fetch_add(with_overhead, Ordering::Relaxed) + with_overhead;
        if l.child[i] > 0 && new_used > l.child[i] {
            c.used.fetch_sub(with_overhead, Ordering::Relaxed);
            c.tripped.fetch_add(1, Ordering::Relaxed);
            return Err(breaking(
                format!(
                    "[{}] Data too large, data for [{label}] would be [{new_used}/{}], which is larger than the limit of [{}/{}]",
                    NAMES[i],
                    human_bytes(new_used),
                    l.child[i],
                    human_bytes(l.child[i])
                ),
                new_used,
                l.child[i],
            ));
        }
        let total: u64 = self.children.iter().map(|c| c.used.load(Ordering::Relaxed)).sum();
        if total > l.total {
            // The usages as they would be (the child holds the new bytes while the message is
            // made, as OpenSearch's does), then the addition is undone.
            let usages: Vec<String> = self
                .children
                .iter()
                .zip(NAMES)
                .map(|(c, n)| {
                    let u = c.used.load(Ordering::Relaxed);
                    format!("{n}={u}/{}", human_bytes(u))
                })
                .collect();
            c.used.fetch_sub(with_overhead, Ordering::Relaxed);
            self.parent_tripped.fetch_add(1, Ordering::Relaxed);
            return Err(breaking(
                format!(
                    "[parent] Data too large, data for [{label}] would be [{total}/{}], which is larger than the limit of [{}/{}], usages [{}]",
                    human_bytes(total),
                    l.total,
                    human_bytes(l.total),
                    usages.join(", ")
                ),
                total,
                l.total,
            ));
        }
        Ok(())
    }

    /// Gives back `bytes` added to `kind` (with the overhead in force now: a limit change in
    /// between can leave a small difference, never below zero).
    pub fn release(&self, kind: Kind, bytes: u64) {
        if bytes == 0 {
            return;
        }
        let i = kind as usize;
        let with_overhead = (bytes as f64 * self.limits().overhead[i]) as u64;
        let c = &self.children[i];
        let _ = c.used.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| Some(u.saturating_sub(with_overhead)));
    }

    /// A reservation of `bytes` under `kind`, given back when dropped.
    pub fn reserve(self: &Arc<Self>, kind: Kind, bytes: u64, label: &str) -> OsResult<Reservation> {
        self.add(kind, bytes, label)?;
        Ok(Reservation { breakers: self.clone(), kind, bytes, label: label.to_string() })
    }

    /// Bytes estimated under `kind` now (with overhead).
    pub fn used(&self, kind: Kind) -> u64 {
        self.children[kind as usize].used.load(Ordering::Relaxed)
    }

    /// `_nodes/stats`' `breakers` section.
    pub fn stats(&self) -> Value {
        let l = self.limits();
        let mut m = Map::new();
        let mut total = 0;
        for (i, name) in NAMES.iter().enumerate() {
            let used = self.children[i].used.load(Ordering::Relaxed);
            total += used;
            m.insert(
                name.to_string(),
                json!({
                    "limit_size_in_bytes": l.child[i],
                    "limit_size": human_bytes(l.child[i]),
                    "estimated_size_in_bytes": used,
                    "estimated_size": human_bytes(used),
                    "overhead": l.overhead[i],
                    "tripped": self.children[i].tripped.load(Ordering::Relaxed),
                }),
            );
        }
        m.insert(
            "parent".into(),
            json!({
                "limit_size_in_bytes": l.total,
                "limit_size": human_bytes(l.total),
                "estimated_size_in_bytes": total,
                "estimated_size": human_bytes(total),
                "overhead": 1.0,
                "tripped": self.parent_tripped.load(Ordering::Relaxed),
            }),
        );
        Value::Object(m)
    }
}

impl Limits {
    /// The limits the effective cluster `settings` give (defaults for what they do not set).
    pub fn from_settings(settings: &Map<String, Value>, memory: u64) -> Limits {
        let text = |k: &str, d: &str| {
            settings
                .get(k)
                .and_then(|v| v.as_str().map(str::to_string).or_else(|| Some(v.to_string())))
                .unwrap_or(d.into())
        };
        let mut l = Limits { child: [0; 3], overhead: [1.0; 3], total: 0 };
        for (i, (lk, ld, ok, od)) in LIMIT_KEYS.iter().enumerate() {
            l.child[i] = parse_memory(&text(lk, ld), memory).or_else(|| parse_memory(ld, memory)).unwrap_or(0);
            l.overhead[i] = text(ok, od).parse().ok().filter(|o: &f64| *o >= 0.0).unwrap_or(1.0);
        }
        l.total = parse_memory(&text(TOTAL_LIMIT.0, TOTAL_LIMIT.1), memory)
            .or_else(|| parse_memory(TOTAL_LIMIT.1, memory))
            .unwrap_or(memory);
        l
    }
}

fn breaking(reason: String, wanted: u64, limit: u64) -> OsError {
    OsError::new(ErrorKind::CircuitBreaking, reason)
        .with("bytes_wanted", wanted)
        .with("bytes_limit", limit)
        .with("durability", "TRANSIENT")
}

/// Bytes held under a breaker for as long as the reservation lives.
#[derive(Debug)]
pub struct Reservation {
    breakers: Arc<Breakers>,
    kind: Kind,
    bytes: u64,
    label: String,
}

impl Reservation {
    /// Moves the reservation to `bytes` (growing may trip the breaker; the reservation then
    /// keeps what it held).
    pub fn set(&mut self, bytes: u64) -> OsResult<()> {
        if bytes > self.bytes {
            self.breakers.add(self.kind, bytes - self.bytes, &self.label)?;
        } else {
            self.breakers.release(self.kind, self.bytes - bytes);
        }
        self.bytes = bytes;
        Ok(())
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.breakers.release(self.kind, self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(settings: Value) -> Arc<Breakers> {
        let b = Arc::new(Breakers::new(1000));
        let m = settings.as_object().cloned().unwrap_or_default();
        b.refresh_limits(1, || m);
        b
    }

    #[test]
    fn defaults_are_fractions_of_memory() {
        let l = Breakers::new(1000).limits();
        assert_eq!(l.child, [600, 400, 1000]);
        assert_eq!(l.overhead, [1.0, 1.03, 2.0]);
        assert_eq!(l.total, 700);
        assert_eq!(parse_memory("512mb", 1), Some(512 << 20));
        assert_eq!(parse_memory("101%", 1), None);
    }

    #[test]
    fn child_limit_trips_and_keeps_nothing() {
        let b = with(json!({"indices.breaker.request.limit": "100b"}));
        let mut r = b.reserve(Kind::Request, 60, "<agg [a]>").unwrap();
        let e = b.add(Kind::Request, 50, "<agg [b]>").unwrap_err();
        assert_eq!(e.status, 429);
        assert_eq!(
            e.reason,
            "[request] Data too large, data for [<agg [b]>] would be [110/110b], which is larger than the limit of [100/100b]"
        );
        assert_eq!(b.used(Kind::Request), 60);
        assert!(r.set(120).is_err());
        assert_eq!(b.used(Kind::Request), 60, "a refused growth keeps what was held");
        r.set(10).unwrap();
        assert_eq!(b.used(Kind::Request), 10);
        drop(r);
        assert_eq!(b.used(Kind::Request), 0);
        assert_eq!(b.stats()["request"]["tripped"], json!(2));
    }

    #[test]
    fn parent_limit_bounds_the_sum() {
        let b = with(json!({"indices.breaker.total.limit": "100b", "network.breaker.inflight_requests.overhead": 1}));
        let _a = b.reserve(Kind::InFlight, 70, "<http_request>").unwrap();
        let e = b.add(Kind::Request, 40, "<agg [x]>").unwrap_err();
        assert!(e.reason.starts_with("[parent] Data too large, data for [<agg [x]>] would be [110/110b], which is larger than the limit of [100/100b], usages [request=40/40b, fielddata=0/0b, in_flight_requests=70/70b]"), "{}", e.reason);
        assert_eq!(b.used(Kind::Request), 0);
        assert_eq!(b.stats()["parent"]["tripped"], json!(1));
    }

    #[test]
    fn limits_follow_settings_by_version() {
        let b = Breakers::new(1000);
        b.refresh_limits(3, || json!({"indices.breaker.request.limit": "10%"}).as_object().cloned().unwrap());
        assert_eq!(b.limits().child[0], 100);
        b.refresh_limits(3, || panic!("same version: not re-read"));
        b.refresh_limits(4, Map::new);
        assert_eq!(b.limits().child[0], 600);
    }
}
