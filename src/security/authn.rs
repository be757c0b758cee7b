//! Authentication of a REST request, as the plugin's `BackendRegistry.authenticate`:
//! a blocked client address first (401 `Authentication finally failed`), then an admin
//! certificate (`plugins.security.authcz.admin_dn`: the super admin), then "not initialized"
//! (503), then the `config.dynamic.authc` domains with `http_enabled` in `order`: `basic`
//! against the internal users and `clientcert` (a certificate DN's `username_attribute` and
//! `roles_attribute`), then anonymous authentication when `http.anonymous_auth_enabled`.
//! Without credentials a challenging domain answers 401 with
//! `WWW-Authenticate: Basic realm="OpenSearch Security"` and the body `Unauthorized`.
//!
//! Verified logins are cached per user name for `plugins.security.cache.ttl_minutes` (60): the
//! entry holds an HMAC-SHA256 of the password under a random per-process key (never the
//! password) and the bcrypt hash it was checked against, compared in constant time; a changed
//! hash or any configuration reload (which rebuilds the whole per-configuration state, as the
//! plugin invalidates its caches) makes the next login verify again.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::Value;

use super::authn_limits::{backend_key, Limiter, LimiterKind};
use super::authz::Compiled;
use super::config::SecurityConfig;
use super::privileges::ClusterIndices;
use super::user::{AuthType, User, ANONYMOUS_BACKEND_ROLE, ANONYMOUS_NAME};

/// Node settings authentication reads.
#[derive(Debug, Clone)]
pub struct AuthnSettings {
    pub admin_dn: Vec<String>,
    pub nodes_dn: Vec<String>,
    /// `plugins.security.cache.ttl_minutes`.
    pub ttl: Duration,
}

/// What authentication looks at in a request.
#[derive(Debug, Clone, Default)]
pub struct AuthInput {
    pub authorization: Option<String>,
    /// `securitytenant` (or `security_tenant`) header.
    pub tenant: Option<String>,
    pub peer_dn: Option<Arc<str>>,
    pub remote: Option<SocketAddr>,
    /// The `auth_type` query parameter.
    pub auth_type: Option<String>,
    /// `force_login=true`: basic ignores the header.
    pub force_login: bool,
}

/// A response authentication answers instead of running the request (plain text, as the
/// plugin's `SecurityResponse`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub status: u16,
    pub body: String,
    /// Adds `WWW-Authenticate: Basic realm="OpenSearch Security"`.
    pub challenge: bool,
}

impl Reply {
    fn text(status: u16, body: &str) -> Reply {
        Reply { status, body: body.to_string(), challenge: false }
    }
    fn challenge() -> Reply {
        Reply { status: 401, body: "Unauthorized".to_string(), challenge: true }
    }
}

/// The outcome: a user, a reply, or "this needs a bcrypt verification" (call again on a
/// thread that may block).
#[derive(Debug, Clone)]
pub enum Outcome {
    User(Arc<User>),
    Reply(Reply),
    NeedsBlocking,
}

#[derive(Debug)]
enum Kind {
    Basic,
    ClientCert { username_attribute: Option<String>, roles_attribute: Option<String>, skip_users: Vec<String> },
}

#[derive(Debug)]
struct Domain {
    kind: Kind,
    challenge: bool,
    /// `intern` or `noop`.
    backend: String,
}

#[derive(Debug)]
struct CachedLogin {
    tag: ring::hmac::Tag,
    hash: String,
    user: User,
    at: Instant,
}

/// The state of one configuration version: compiled authorization, domains, limiters, cache.
#[derive(Debug)]
pub struct State {
    pub config: Arc<SecurityConfig>,
    pub compiled: Compiled,
    domains: Vec<Domain>,
    anonymous: bool,
    limiters: Mutex<Vec<Limiter>>,
    cache: Mutex<HashMap<String, CachedLogin>>,
}

/// Credentials a domain found.
struct Creds {
    name: String,
    password: Option<String>,
    roles: Vec<String>,
}

/// The node's authenticator.
#[derive(Debug)]
pub struct Authenticator {
    pub settings: AuthnSettings,
    key: ring::hmac::Key,
    state: Mutex<Option<Arc<State>>>,
    cluster: Mutex<Option<(Arc<crate::cluster::metadata::Metadata>, Arc<ClusterIndices>)>>,
    versions: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect(),
        _ => Vec::new(),
    }
}

impl State {
    fn new(version: u64, config: Arc<SecurityConfig>) -> State {
        let dynamic = config.dynamic();
        let mut domains = Vec::new();
        for (name, d) in dynamic.http_authc_domains() {
            let kind = match d.http_authenticator.kind.as_deref().unwrap_or("basic") {
                "basic" => Kind::Basic,
                "clientcert" => {
                    let c = &d.http_authenticator.config;
                    let attr = |k: &str| c.get(k).and_then(Value::as_str).map(str::to_string);
                    Kind::ClientCert {
                        username_attribute: attr("username_attribute"),
                        roles_attribute: attr("roles_attribute"),
                        skip_users: string_list(c.get("skip_users")),
                    }
                }
                other => {
                    tracing::warn!(
                        domain = name,
                        kind = other,
                        "authentication domain type not supported by Fathom: skipped"
                    );
                    continue;
                }
            };
            let backend = backend_key(&d.authentication_backend.kind);
            if backend != "intern" && backend != "noop" {
                tracing::warn!(domain = name, backend = %backend, "authentication backend not supported by Fathom: domain skipped");
                continue;
            }
            domains.push(Domain { kind, challenge: d.http_authenticator.challenge, backend });
        }
        let limiters = super::authn_limits::parse_all(&dynamic.auth_failure_listeners).unwrap_or_else(|e| {
            tracing::error!(error = %e, "auth_failure_listeners ignored");
            Vec::new()
        });
        State {
            compiled: Compiled::new(version, &config),
            anonymous: dynamic.http.anonymous_auth_enabled,
            config,
            domains,
            limiters: Mutex::new(limiters),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The plugin's `isInitialized`: some domain, or anonymous authentication.
    pub fn initialized(&self) -> bool {
        !self.domains.is_empty() || self.anonymous
    }
}

/// Constant-time equality of two byte strings (length leaks, contents do not).
pub fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The plugin's `HTTPHelper.extractCredentials`: `Basic base64(user:password)`; `Err` when the
/// base64 does not decode (the domain is skipped), `Ok(None)` without usable credentials.
fn basic_credentials(header: Option<&str>) -> Result<Option<(String, String)>, ()> {
    let Some(h) = header else { return Ok(None) };
    if !h.trim().to_ascii_lowercase().starts_with("basic ") {
        return Ok(None);
    }
    let encoded = h.split(' ').nth(1).unwrap_or("");
    let decoded = base64::engine::general_purpose::STANDARD.decode(encoded).map_err(|_| ())?;
    let decoded = String::from_utf8_lossy(&decoded).into_owned();
    match decoded.find(':') {
        Some(i) if i > 0 => Ok(Some((decoded[..i].to_string(), decoded[i + 1..].to_string()))),
        _ => {
            tracing::warn!("Invalid 'Authorization' header for HTTP Basic auth");
            Ok(None)
        }
    }
}

/// The values of attribute `attr` in an RFC 2253 DN, least specific first (as the plugin
/// walks the RDNs reversed).
fn dn_attribute(dn: &str, attr: &str) -> Vec<String> {
    let mut out: Vec<String> = split_dn(dn)
        .into_iter()
        .filter_map(|rdn| {
            let (k, v) = rdn.split_once('=')?;
            k.trim().eq_ignore_ascii_case(attr).then(|| v.trim().replace('\\', ""))
        })
        .collect();
    out.reverse();
    out
}

fn split_dn(dn: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut escaped = false;
    for c in dn.chars() {
        if escaped {
            cur.push(c);
            escaped = false;
        } else if c == '\\' {
            cur.push(c);
            escaped = true;
        } else if c == ',' || c == '+' {
            parts.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    parts.push(cur);
    parts
}

/// The bcrypt hash the plugin verifies against for unknown users, so that an unknown name
/// costs the same as a wrong password.
const UNKNOWN_USER_HASH: &str = "$2y$12$NmKhjNssNgSIj8iXT7SYxeXvMA1E95a9tCt4cySY9FrQ4fB18xEc2";

impl Authenticator {
    pub fn new(settings: AuthnSettings) -> Result<Authenticator, String> {
        let rng = ring::rand::SystemRandom::new();
        let key = ring::hmac::Key::generate(ring::hmac::HMAC_SHA256, &rng)
            .map_err(|_| "failed to generate the authentication cache key".to_string())?;
        Ok(Authenticator {
            settings,
            key,
            state: Mutex::new(None),
            cluster: Mutex::new(None),
            versions: AtomicU64::new(0),
        })
    }

    /// The state for `config`, rebuilt when the configuration in force changed (a reload swaps
    /// the `Arc`): the compiled roles are built once per version, never per request.
    pub fn state(&self, config: &Arc<SecurityConfig>) -> Arc<State> {
        let mut g = lock(&self.state);
        if let Some(s) = g.as_ref().filter(|s| Arc::ptr_eq(&s.config, config)) {
            return s.clone();
        }
        let version = self.versions.fetch_add(1, Ordering::Relaxed) + 1;
        let s = Arc::new(State::new(version, config.clone()));
        *g = Some(s.clone());
        s
    }

    /// The cluster's indices and aliases for `meta`, rebuilt when the metadata changed.
    pub fn cluster_indices(&self, meta: &Arc<crate::cluster::metadata::Metadata>) -> Arc<ClusterIndices> {
        let mut g = lock(&self.cluster);
        if let Some((m, c)) = g.as_ref() {
            if Arc::ptr_eq(m, meta) {
                return c.clone();
            }
        }
        let c = Arc::new(super::authz::cluster_indices(meta));
        *g = Some((meta.clone(), c.clone()));
        c
    }

    fn is_admin_dn(&self, dn: &str) -> bool {
        self.settings.admin_dn.iter().any(|p| super::dn::matches(p, dn))
    }

    /// Authenticates `input` against `config` (`None`: security on without a configuration,
    /// 503). With `may_block` false a login that needs bcrypt answers `NeedsBlocking`.
    pub fn authenticate(&self, config: Option<&Arc<SecurityConfig>>, input: &AuthInput, may_block: bool) -> Outcome {
        let state = config.map(|c| self.state(c));
        let now = Instant::now();
        let ip = input.remote.map(|a| a.ip());
        if let (Some(state), Some(ip)) = (&state, ip) {
            let mut limiters = lock(&state.limiters);
            let key = ip.to_string();
            for l in limiters.iter_mut().filter(|l| l.kind == LimiterKind::Ip) {
                if l.ignores(ip) {
                    break;
                }
                if l.is_blocked(&key, now) {
                    return Outcome::Reply(Reply::text(401, "Authentication finally failed"));
                }
            }
        }
        if let Some(dn) = input.peer_dn.as_deref().filter(|dn| self.is_admin_dn(dn)) {
            let mut u = User::named(dn);
            u.auth_type = AuthType::AdminCert;
            u.is_admin = true;
            u.remote_address = input.remote;
            if let Some(s) = &state {
                u.roles = s.compiled.mapped_roles(&u, ip.map(|i| i.to_string()).as_deref());
            }
            return Outcome::User(Arc::new(u));
        }
        let Some(state) = state.filter(|s| s.initialized()) else {
            tracing::error!("OpenSearch Security not initialized. (you may need to run securityadmin)");
            return Outcome::Reply(Reply::text(503, "OpenSearch Security not initialized."));
        };
        let anonymous_request = match &input.auth_type {
            Some(t) => t == "anonymous",
            None => input.authorization.is_none(),
        };
        let mut first_challenge = false;
        let mut last_creds: Option<String> = None;
        for domain in &state.domains {
            first_challenge |= domain.challenge;
            let creds = match self.extract(domain, input) {
                Ok(c) => c,
                Err(()) => continue,
            };
            if let Some(c) = &creds {
                if self.user_blocked(&state, &domain.backend, &c.name, now) {
                    tracing::debug!(user = %c.name, "Rejecting request because of blocked user");
                    continue;
                }
            }
            last_creds = creds.as_ref().map(|c| c.name.clone());
            let Some(creds) = creds else {
                if state.anonymous && anonymous_request {
                    continue;
                }
                if domain.challenge {
                    tracing::debug!("No 'Authorization' header, send 401 and 'WWW-Authenticate Basic'");
                    self.ip_failure(&state, input, now);
                    return Outcome::Reply(Reply::challenge());
                }
                continue;
            };
            let user = match self.backend(&state, domain, &creds, may_block, now) {
                Some(Ok(u)) => u,
                Some(Err(())) => {
                    let mut limiters = lock(&state.limiters);
                    for l in limiters.iter_mut().filter(|l| l.backend.as_deref() == Some(domain.backend.as_str())) {
                        l.on_failure(&creds.name, now);
                    }
                    continue;
                }
                None => return Outcome::NeedsBlocking,
            };
            if self.is_admin_dn(&user.name) {
                tracing::error!("Cannot authenticate user because admin user is not permitted to login via HTTP");
                return Outcome::Reply(Reply::text(
                    403,
                    "Cannot authenticate user because admin user is not permitted to login via HTTP",
                ));
            }
            return Outcome::User(Arc::new(self.finish(&state, user, input)));
        }
        if last_creds.is_none() && state.anonymous && anonymous_request {
            let mut u = User::named(ANONYMOUS_NAME);
            u.backend_roles = vec![ANONYMOUS_BACKEND_ROLE.to_string()];
            u.auth_type = AuthType::Anonymous;
            u.is_anonymous = true;
            return Outcome::User(Arc::new(self.finish(&state, u, input)));
        }
        tracing::warn!(user = ?last_creds, remote = ?input.remote, "Authentication finally failed");
        self.ip_failure(&state, input, now);
        if first_challenge {
            Outcome::Reply(Reply::challenge())
        } else {
            Outcome::Reply(Reply::text(401, "Authentication finally failed"))
        }
    }

    fn finish(&self, state: &State, mut u: User, input: &AuthInput) -> User {
        u.requested_tenant = input.tenant.clone();
        u.remote_address = input.remote;
        let host = input.remote.map(|a| a.ip().to_string());
        u.roles = state.compiled.mapped_roles(&u, host.as_deref());
        u
    }

    fn ip_failure(&self, state: &State, input: &AuthInput, now: Instant) {
        let Some(ip) = input.remote.map(|a| a.ip()) else { return };
        let key = ip.to_string();
        let mut limiters = lock(&state.limiters);
        for l in limiters.iter_mut().filter(|l| l.kind == LimiterKind::Ip && !l.ignores(ip)) {
            l.on_failure(&key, now);
        }
    }

    fn user_blocked(&self, state: &State, backend: &str, name: &str, now: Instant) -> bool {
        let mut limiters = lock(&state.limiters);
        limiters.iter_mut().filter(|l| l.backend.as_deref() == Some(backend)).any(|l| l.is_blocked(name, now))
    }

    fn extract(&self, domain: &Domain, input: &AuthInput) -> Result<Option<Creds>, ()> {
        match &domain.kind {
            Kind::Basic => {
                if input.force_login {
                    return Ok(None);
                }
                Ok(basic_credentials(input.authorization.as_deref())?.map(|(name, password)| Creds {
                    name,
                    password: Some(password),
                    roles: Vec::new(),
                }))
            }
            Kind::ClientCert { username_attribute, roles_attribute, skip_users } => {
                let Some(dn) = input.peer_dn.as_deref().filter(|d| !d.is_empty()) else { return Ok(None) };
                if skip_users.iter().any(|p| super::dn::matches(p, dn)) {
                    return Ok(None);
                }
                let attr = |a: &Option<String>| a.as_deref().map(|a| a.strip_prefix("dn:").unwrap_or(a).to_string());
                let name = match attr(username_attribute) {
                    Some(a) => dn_attribute(dn, &a).into_iter().next().unwrap_or_else(|| dn.to_string()),
                    None => dn.to_string(),
                };
                let roles = attr(roles_attribute).map(|a| dn_attribute(dn, &a)).unwrap_or_default();
                Ok(Some(Creds { name, password: None, roles }))
            }
        }
    }

    /// The domain's backend: `Some(Ok(user))`, `Some(Err(()))` for a failed login, `None` when
    /// bcrypt is needed and `may_block` is false.
    fn backend(
        &self,
        state: &State,
        domain: &Domain,
        creds: &Creds,
        may_block: bool,
        now: Instant,
    ) -> Option<Result<User, ()>> {
        if domain.backend == "noop" {
            let mut u = User::named(&creds.name);
            u.backend_roles = creds.roles.clone();
            u.auth_type =
                if matches!(domain.kind, Kind::ClientCert { .. }) { AuthType::ClientCert } else { AuthType::Basic };
            return Some(Ok(u));
        }
        // The internal users.
        let Some(password) = creds.password.as_deref().filter(|p| !p.is_empty()) else {
            return Some(Err(()));
        };
        let stored = state.config.internal_users.entries.get(&creds.name);
        if let Some(entry) = stored {
            let cache = lock(&state.cache);
            if let Some(c) = cache.get(&creds.name) {
                let fresh = now.duration_since(c.at) < self.settings.ttl;
                if fresh
                    && ct_eq(c.hash.as_bytes(), entry.hash.as_bytes())
                    && ring::hmac::verify(&self.key, password.as_bytes(), c.tag.as_ref()).is_ok()
                {
                    return Some(Ok(c.user.clone()));
                }
            }
        }
        if !may_block {
            return None;
        }
        let hash = stored.map(|e| e.hash.as_str()).unwrap_or(UNKNOWN_USER_HASH);
        let ok = super::password::verify(password, hash) && stored.is_some();
        let Some(entry) = stored.filter(|_| ok) else { return Some(Err(())) };
        let mut u = User::named(&creds.name);
        u.backend_roles = entry.backend_roles.clone();
        u.security_roles = entry.opendistro_security_roles.clone();
        u.attributes = entry.attributes.iter().map(|(k, v)| (format!("attr.internal.{k}"), v.clone())).collect();
        u.auth_type = AuthType::Basic;
        let tag = ring::hmac::sign(&self.key, password.as_bytes());
        lock(&state.cache).insert(
            creds.name.clone(),
            CachedLogin { tag, hash: entry.hash.clone(), user: u.clone(), at: Instant::now() },
        );
        Some(Ok(u))
    }
}

#[cfg(test)]
#[path = "authn_tests.rs"]
mod tests;
