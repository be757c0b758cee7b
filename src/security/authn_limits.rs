//! `config.dynamic.auth_failure_listeners`: the plugin's rate limiters of failed logins.
//! An `ip` listener (no `authentication_backend`) counts the failures of a client address and
//! blocks the address (every request then gets 401 `Authentication finally failed`); a
//! `username` listener with an `authentication_backend` counts a user name's failed logins
//! against that backend and blocks the name there (its domain is skipped for that user).
//!
//! Counting follows the plugin's `HeapBasedRateTracker`: the `allowed_tries`-th failure within
//! `time_window_seconds` of each other blocks the client for `block_expiry_seconds`; a failure
//! more than a window after the previous one starts over. At most `max_tracked_clients` are
//! counted and `max_blocked_clients` blocked (the oldest entries make room).

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

/// What a limiter counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimiterKind {
    Ip,
    Username,
}

/// One listener of `auth_failure_listeners`.
#[derive(Debug)]
pub struct Limiter {
    pub name: String,
    pub kind: LimiterKind,
    /// The backend (`intern`, `noop`, ...) a username limiter watches; `None` for an ip limiter.
    pub backend: Option<String>,
    ignore_hosts: Vec<String>,
    allowed_tries: u32,
    window: Duration,
    expiry: Duration,
    max_blocked: usize,
    max_tracked: usize,
    tracked: HashMap<String, VecDeque<Instant>>,
    blocked: HashMap<String, Instant>,
}

/// The plugin's short backend names: `intern` and `internal` are the internal users.
pub fn backend_key(kind: &str) -> String {
    match kind {
        "intern" | "internal" => "intern".to_string(),
        other => other.to_ascii_lowercase(),
    }
}

fn int(o: &Map<String, Value>, key: &str, default: u64) -> Result<u64, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .ok_or_else(|| format!("[{key}] must be a non-negative integer, got [{v}]")),
    }
}

impl Limiter {
    /// Parses one listener; `Ok(None)` for combinations the plugin accepts but never enforces
    /// (a `username` listener without a backend, an `ip` listener with one).
    pub fn parse(name: &str, v: &Value) -> Result<Option<Limiter>, String> {
        let o = v.as_object().ok_or_else(|| format!("auth_failure_listeners.{name} must be an object"))?;
        const KEYS: [&str; 8] = [
            "type",
            "authentication_backend",
            "ignore_hosts",
            "allowed_tries",
            "time_window_seconds",
            "block_expiry_seconds",
            "max_blocked_clients",
            "max_tracked_clients",
        ];
        if let Some(k) = o.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(format!("auth_failure_listeners.{name}: unknown key [{k}]"));
        }
        let kind = match o.get("type").and_then(Value::as_str) {
            Some("ip") => LimiterKind::Ip,
            Some("username") => LimiterKind::Username,
            other => return Err(format!("auth_failure_listeners.{name}: unsupported type [{}]", other.unwrap_or(""))),
        };
        let backend =
            o.get("authentication_backend").and_then(Value::as_str).filter(|s| !s.is_empty()).map(backend_key);
        let allowed_tries = int(o, "allowed_tries", 10)?;
        if allowed_tries == 0 {
            return Err(format!("auth_failure_listeners.{name}: allowedTries must be > 0: 0"));
        }
        let ignore_hosts = match o.get("ignore_hosts") {
            Some(Value::Array(a)) => a.iter().filter_map(|h| h.as_str().map(str::to_string)).collect(),
            _ => Vec::new(),
        };
        let limiter = Limiter {
            name: name.to_string(),
            kind,
            backend: backend.clone(),
            ignore_hosts,
            allowed_tries: allowed_tries.min(u32::MAX as u64) as u32,
            window: Duration::from_secs(int(o, "time_window_seconds", 3600)?),
            expiry: Duration::from_secs(int(o, "block_expiry_seconds", 600)?),
            max_blocked: int(o, "max_blocked_clients", 100_000)? as usize,
            max_tracked: int(o, "max_tracked_clients", 100_000)? as usize,
            tracked: HashMap::new(),
            blocked: HashMap::new(),
        };
        match (kind, backend) {
            (LimiterKind::Ip, None) | (LimiterKind::Username, Some(_)) => Ok(Some(limiter)),
            _ => {
                tracing::error!(listener = name, "auth failure listener ignored: an ip listener takes no authentication_backend, a username listener needs one");
                Ok(None)
            }
        }
    }

    /// Whether an address is in `ignore_hosts` (exact IPs, `*` globs, CIDR ranges).
    pub fn ignores(&self, ip: IpAddr) -> bool {
        let s = ip.to_string();
        self.ignore_hosts.iter().any(|h| match h.split_once('/') {
            Some((net, bits)) => in_cidr(ip, net, bits),
            None => super::patterns::Pattern::new(h).matches(&s),
        })
    }

    /// Whether `client` is blocked now.
    pub fn is_blocked(&mut self, client: &str, now: Instant) -> bool {
        match self.blocked.get(client) {
            Some(at) if now.duration_since(*at) < self.expiry => true,
            Some(_) => {
                self.blocked.remove(client);
                false
            }
            None => false,
        }
    }

    /// Counts one failure of `client`; blocks it on the `allowed_tries`-th within the window.
    pub fn on_failure(&mut self, client: &str, now: Instant) {
        if self.allowed_tries == 1 {
            self.block(client, now);
            return;
        }
        if !self.tracked.contains_key(client) && self.tracked.len() >= self.max_tracked.max(1) {
            let oldest = self.tracked.iter().min_by_key(|(_, d)| d.back().copied()).map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                self.tracked.remove(&k);
            }
        }
        let window = self.window;
        let times = self.tracked.entry(client.to_string()).or_default();
        if times.back().is_some_and(|last| now.duration_since(*last) >= window) {
            times.clear();
        }
        while times.front().is_some_and(|first| now.duration_since(*first) >= window) {
            times.pop_front();
        }
        times.push_back(now);
        if times.len() as u64 >= self.allowed_tries as u64 {
            self.block(client, now);
        }
    }

    fn block(&mut self, client: &str, now: Instant) {
        tracing::info!(listener = %self.name, client, "Blocking {client}");
        self.tracked.remove(client);
        if !self.blocked.contains_key(client) && self.blocked.len() >= self.max_blocked.max(1) {
            let oldest = self.blocked.iter().min_by_key(|(_, t)| **t).map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                self.blocked.remove(&k);
            }
        }
        self.blocked.insert(client.to_string(), now);
    }
}

fn in_cidr(ip: IpAddr, net: &str, bits: &str) -> bool {
    let (Ok(net), Ok(bits)) = (net.parse::<IpAddr>(), bits.parse::<u32>()) else { return false };
    match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) if bits <= 32 => {
            let mask = if bits == 0 { 0 } else { u32::MAX << (32 - bits) };
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) if bits <= 128 => {
            let mask = if bits == 0 { 0 } else { u128::MAX << (128 - bits) };
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

/// Every limiter of a configuration.
pub fn parse_all(listeners: &Map<String, Value>) -> Result<Vec<Limiter>, String> {
    let mut out = Vec::new();
    for (name, v) in listeners {
        if let Some(l) = Limiter::parse(name, v)? {
            out.push(l);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn limiter(v: Value) -> Limiter {
        Limiter::parse("l", &v).unwrap().unwrap()
    }

    #[test]
    fn the_nth_failure_in_the_window_blocks() {
        let mut l = limiter(json!({"type": "ip", "allowed_tries": 3, "time_window_seconds": 60}));
        let t = Instant::now();
        l.on_failure("1.2.3.4", t);
        l.on_failure("1.2.3.4", t + Duration::from_secs(1));
        assert!(!l.is_blocked("1.2.3.4", t + Duration::from_secs(2)));
        l.on_failure("1.2.3.4", t + Duration::from_secs(2));
        assert!(l.is_blocked("1.2.3.4", t + Duration::from_secs(3)));
        assert!(!l.is_blocked("5.6.7.8", t + Duration::from_secs(3)));
        // The block expires after block_expiry_seconds (600 by default).
        assert!(!l.is_blocked("1.2.3.4", t + Duration::from_secs(603)));
    }

    #[test]
    fn failures_further_apart_than_the_window_start_over() {
        let mut l = limiter(json!({"type": "ip", "allowed_tries": 2, "time_window_seconds": 10}));
        let t = Instant::now();
        l.on_failure("a", t);
        l.on_failure("a", t + Duration::from_secs(11));
        assert!(!l.is_blocked("a", t + Duration::from_secs(12)));
        l.on_failure("a", t + Duration::from_secs(12));
        assert!(l.is_blocked("a", t + Duration::from_secs(12)));
    }

    #[test]
    fn one_try_blocks_at_once_and_limits_are_bounded() {
        let mut l = limiter(
            json!({"type": "username", "authentication_backend": "internal", "allowed_tries": 1, "max_blocked_clients": 2}),
        );
        assert_eq!(l.backend.as_deref(), Some("intern"));
        let t = Instant::now();
        for (i, u) in ["a", "b", "c"].iter().enumerate() {
            l.on_failure(u, t + Duration::from_secs(i as u64));
        }
        assert!(!l.is_blocked("a", t + Duration::from_secs(3)), "the oldest block made room");
        assert!(l.is_blocked("b", t + Duration::from_secs(3)) && l.is_blocked("c", t + Duration::from_secs(3)));
    }

    #[test]
    fn parsing() {
        assert!(Limiter::parse("x", &json!({"type": "ip", "authentication_backend": "intern"})).unwrap().is_none());
        assert!(Limiter::parse("x", &json!({"type": "username"})).unwrap().is_none());
        assert!(Limiter::parse("x", &json!({"type": "nope"})).is_err());
        assert!(Limiter::parse("x", &json!({"type": "ip", "bogus": 1})).is_err());
        assert!(Limiter::parse("x", &json!({"type": "ip", "allowed_tries": 0})).is_err());
        let l = limiter(json!({"type": "ip", "ignore_hosts": ["10.0.0.0/8", "127.0.0.*"]}));
        assert!(l.ignores("10.1.2.3".parse().unwrap()));
        assert!(l.ignores("127.0.0.1".parse().unwrap()));
        assert!(!l.ignores("11.0.0.1".parse().unwrap()));
    }
}
