//! The privileges evaluator (the plugin's `PrivilegesEvaluator`): which roles a user has
//! (roles mapping plus the user's own security roles), the roles' action groups expanded once
//! per configuration version, and whether those roles grant a request's
//! [`RequiredPrivileges`](super::actions::RequiredPrivileges) over the cluster's indices.
//!
//! Index expressions are resolved the way the plugin does with `do_not_fail_on_forbidden`
//! off: a wildcard expands to every matching index and alias, and one forbidden name among
//! them denies the whole request. System indices (the security index and its versions, `.tasks`,
//! the notifications indices) are reachable only by the super admin (admin certificate):
//! wildcards skip them, naming one is a 403 whatever the roles say.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::actions::RequiredPrivileges;
use super::patterns::{any_matches, substitute, Pattern};
pub use super::user::User;
use crate::error::{ErrorKind, OsError};

/// One `index_permissions` entry of a role.
#[derive(Debug, Clone, Default)]
pub struct IndexPermission {
    pub index_patterns: Vec<String>,
    pub allowed_actions: Vec<String>,
}

/// A role as this evaluator needs it (converted from the security config's role type).
#[derive(Debug, Clone, Default)]
pub struct RoleSpec {
    pub cluster_permissions: Vec<String>,
    pub index_permissions: Vec<IndexPermission>,
    /// Kept for the tenant slice; the evaluator does not read it.
    pub tenant_permissions: Vec<IndexPermission>,
}

/// Custom action groups: name → allowed actions (other groups or action patterns).
pub type ActionGroups = HashMap<String, Vec<String>>;

/// One `roles_mapping.yml` entry.
#[derive(Debug, Clone, Default)]
pub struct RoleMapping {
    pub role: String,
    pub users: Vec<String>,
    pub backend_roles: Vec<String>,
    pub hosts: Vec<String>,
    pub and_backend_roles: Vec<String>,
}

fn all_match(patterns: &[String], values: &[String]) -> bool {
    patterns.iter().all(|p| {
        let p = Pattern::new(p);
        values.iter().any(|v| p.matches(v))
    })
}

fn one_matches(patterns: &[String], value: &str) -> bool {
    patterns.iter().any(|p| Pattern::new(p).matches(value))
}

/// The roles a user has: every mapping matching by user name, any backend role, the remote
/// host, or all of `and_backend_roles`; plus the user's own security roles. Sorted, deduplicated.
pub fn mapped_roles(mappings: &[RoleMapping], user: &User, remote_host: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = user.security_roles.clone();
    for m in mappings {
        let hit = one_matches(&m.users, &user.name)
            || user.backend_roles.iter().any(|b| one_matches(&m.backend_roles, b))
            || remote_host.is_some_and(|h| one_matches(&m.hosts, h))
            || (!m.and_backend_roles.is_empty() && all_match(&m.and_backend_roles, &user.backend_roles));
        if hit {
            out.push(m.role.clone());
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Indices the plugin protects as system indices (plus `.opendistro_security` by name).
pub const SYSTEM_INDEX_PATTERNS: &[&str] =
    &[".opendistro_security", ".opensearch_security_config_versions", ".tasks", ".opensearch-notifications-*"];

/// Whether `name` is a protected system index.
pub fn is_system_index(name: &str) -> bool {
    SYSTEM_INDEX_PATTERNS.iter().any(|p| Pattern::new(p).matches(name))
}

/// The cluster's indices and aliases an index expression resolves against.
#[derive(Debug, Clone, Default)]
pub struct ClusterIndices {
    pub indices: Vec<String>,
    /// alias → its indices.
    pub aliases: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Clone)]
enum IndexPat {
    Static(Pattern),
    /// Holds `${…}`: substituted per user, then compiled.
    Dynamic(String),
}

#[derive(Debug, Clone)]
struct CompiledIndexPerm {
    patterns: Vec<IndexPat>,
    actions: Vec<Pattern>,
}

#[derive(Debug, Clone, Default)]
struct CompiledRole {
    cluster: Vec<Pattern>,
    index: Vec<CompiledIndexPerm>,
}

/// A denial: the missing privileges and the plugin's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denied {
    pub missing: Vec<String>,
    pub message: String,
}

impl Denied {
    fn new(mut missing: Vec<String>, user: &User) -> Denied {
        missing.sort();
        missing.dedup();
        let message = format!("no permissions for [{}] and {}", missing.join(", "), user);
        Denied { missing, message }
    }

    /// The 403 `security_exception` the plugin answers with.
    pub fn to_error(&self) -> OsError {
        OsError::new(ErrorKind::Security, self.message.clone())
    }
}

/// The roles of one configuration version with their action groups expanded (built once per
/// version and shared by every request).
#[derive(Debug, Clone, Default)]
pub struct Privileges {
    pub version: u64,
    roles: HashMap<String, CompiledRole>,
}

/// Expands action groups recursively (cycles stop at the first repeat) into patterns. `groups`
/// holds every group, the static ones included (the configuration merges them in).
fn expand(actions: &[String], groups: &ActionGroups, out: &mut Vec<Pattern>, seen: &mut HashSet<String>) {
    for a in actions {
        let Some(members) = groups.get(a) else {
            out.push(Pattern::new(a));
            continue;
        };
        if !seen.insert(a.clone()) {
            continue;
        }
        expand(members, groups, out, seen);
    }
}

fn expand_all(actions: &[String], groups: &ActionGroups) -> Vec<Pattern> {
    let mut out = Vec::new();
    expand(actions, groups, &mut out, &mut HashSet::new());
    out
}

impl Privileges {
    /// Compiles a configuration version's roles and custom action groups.
    pub fn new(version: u64, roles: &HashMap<String, RoleSpec>, groups: &ActionGroups) -> Privileges {
        let roles = roles
            .iter()
            .map(|(name, r)| {
                let index = r
                    .index_permissions
                    .iter()
                    .map(|p| CompiledIndexPerm {
                        patterns: p
                            .index_patterns
                            .iter()
                            .map(|ip| {
                                if ip.contains("${") {
                                    IndexPat::Dynamic(ip.clone())
                                } else {
                                    IndexPat::Static(Pattern::new(ip))
                                }
                            })
                            .collect(),
                        actions: expand_all(&p.allowed_actions, groups),
                    })
                    .collect();
                (name.clone(), CompiledRole { cluster: expand_all(&r.cluster_permissions, groups), index })
            })
            .collect();
        Privileges { version, roles }
    }

    /// Decides a request. `super_admin` (an admin certificate) bypasses every check.
    pub fn evaluate(
        &self,
        user: &User,
        roles: &[String],
        req: &RequiredPrivileges,
        cluster: &ClusterIndices,
        super_admin: bool,
    ) -> Result<(), Denied> {
        if super_admin {
            return Ok(());
        }
        let roles: Vec<&CompiledRole> = roles.iter().filter_map(|r| self.roles.get(r)).collect();
        let grants = UserGrants::new(&roles, user);
        let mut missing = Vec::new();
        for a in &req.cluster {
            if !roles.iter().any(|r| any_matches(&r.cluster, a)) {
                missing.push(a.to_string());
            }
        }
        for a in &req.every_index {
            if !grants.on_every_index(a) {
                missing.push(a.to_string());
            }
        }
        for (exprs, actions) in &req.indices {
            let names = resolve(exprs, cluster);
            for a in actions {
                let ok = match &names {
                    Resolved::Names(names) if names.is_empty() => grants.anywhere(a),
                    Resolved::Names(names) => names.iter().all(|n| grants.allows_name(n, a, cluster)),
                    Resolved::System => false,
                };
                if !ok {
                    missing.push(a.to_string());
                }
            }
        }
        if missing.is_empty() {
            Ok(())
        } else {
            Err(Denied::new(missing, user))
        }
    }
}

impl Privileges {
    /// `do_not_fail_on_forbidden`: the names index expressions resolve to on which the user
    /// may run every one of `actions` (empty when the expressions name a system index).
    pub fn allowed_names(
        &self,
        user: &User,
        roles: &[String],
        exprs: &[String],
        actions: &[&str],
        cluster: &ClusterIndices,
    ) -> Vec<String> {
        let roles: Vec<&CompiledRole> = roles.iter().filter_map(|r| self.roles.get(r)).collect();
        let grants = UserGrants::new(&roles, user);
        match resolve(exprs, cluster) {
            Resolved::Names(names) => {
                names.into_iter().filter(|n| actions.iter().all(|a| grants.allows_name(n, a, cluster))).collect()
            }
            Resolved::System => Vec::new(),
        }
    }
}

/// The actions `do_not_fail_on_forbidden` may narrow instead of failing (the plugin's
/// `DNFOF_MATCHER`).
pub fn dnfof_action(action: &str) -> bool {
    const DNFOF: [&str; 7] = [
        "indices:data/read/*",
        "indices:admin/mappings/fields/get*",
        "indices:admin/shards/search_shards",
        "indices:admin/resolve/index",
        "indices:monitor/settings/get",
        "indices:monitor/stats",
        "indices:admin/aliases/get",
    ];
    DNFOF.iter().any(|p| Pattern::new(p).matches(action))
}

/// A user's index permissions with the placeholders substituted.
struct UserGrants {
    perms: Vec<(Vec<Pattern>, Vec<Pattern>)>,
}

impl UserGrants {
    fn new(roles: &[&CompiledRole], user: &User) -> UserGrants {
        let perms = roles
            .iter()
            .flat_map(|r| r.index.iter())
            .map(|p| {
                let pats = p
                    .patterns
                    .iter()
                    .map(|ip| match ip {
                        IndexPat::Static(p) => p.clone(),
                        IndexPat::Dynamic(s) => Pattern::new(&substitute(s, user)),
                    })
                    .collect();
                (pats, p.actions.clone())
            })
            .collect();
        UserGrants { perms }
    }

    fn allows(&self, index: &str, action: &str) -> bool {
        self.perms.iter().any(|(pats, acts)| any_matches(acts, action) && any_matches(pats, index))
    }

    /// A name from a request: an alias is allowed by its own name or by all of its indices.
    fn allows_name(&self, name: &str, action: &str, cluster: &ClusterIndices) -> bool {
        if self.allows(name, action) {
            return true;
        }
        match cluster.aliases.get(name) {
            Some(members) => {
                !members.is_empty() && members.iter().all(|m| !is_system_index(m) && self.allows(m, action))
            }
            None => false,
        }
    }

    fn anywhere(&self, action: &str) -> bool {
        self.perms.iter().any(|(pats, acts)| !pats.is_empty() && any_matches(acts, action))
    }

    fn on_every_index(&self, action: &str) -> bool {
        self.perms.iter().any(|(pats, acts)| any_matches(acts, action) && pats.iter().any(Pattern::is_any))
    }
}

enum Resolved {
    Names(Vec<String>),
    /// The expression names a system index.
    System,
}

/// Resolves index expressions: `_all`/`*`/none → every index; wildcards → matching indices
/// and aliases (never system indices); `-x` removes matches so far; plain names stay as named.
fn resolve(exprs: &[String], cluster: &ClusterIndices) -> Resolved {
    let mut out: Vec<String> = Vec::new();
    let parts: Vec<&str> = exprs.iter().flat_map(|e| e.split(',')).map(str::trim).filter(|s| !s.is_empty()).collect();
    let everything = parts.is_empty() || parts.contains(&"_all");
    let candidates = || cluster.indices.iter().chain(cluster.aliases.keys()).filter(|n| !is_system_index(n));
    if everything {
        out.extend(cluster.indices.iter().filter(|n| !is_system_index(n)).cloned());
    }
    for p in parts {
        if p == "_all" {
            continue;
        }
        if let Some(ex) = p.strip_prefix('-') {
            let pat = Pattern::new(ex);
            out.retain(|n| !pat.matches(n));
            continue;
        }
        if p.contains(['*', '?']) {
            let pat = Pattern::new(p);
            out.extend(candidates().filter(|n| pat.matches(n)).cloned());
        } else if is_system_index(p) {
            return Resolved::System;
        } else {
            out.push(p.to_string());
        }
    }
    out.sort();
    out.dedup();
    Resolved::Names(out)
}

#[cfg(test)]
mod tests;
