//! Authorization inputs compiled once per configuration version: the evaluator's roles and
//! action groups (static entries included, as the configuration merged them), the role
//! mappings with their patterns compiled, and the tenant permissions. Plus the cluster's
//! indices and aliases as the evaluator resolves index expressions against them.

use std::collections::{BTreeMap, HashMap};

use super::config::SecurityConfig;
use super::patterns::{any_matches, substitute, Pattern};
use super::privileges::{ActionGroups, ClusterIndices, IndexPermission, Privileges, RoleSpec};
use super::user::User;
use crate::cluster::metadata::Metadata;

/// One role mapping with its patterns compiled.
#[derive(Debug)]
struct Mapping {
    role: String,
    users: Vec<Pattern>,
    backend_roles: Vec<Pattern>,
    hosts: Vec<Pattern>,
    and_backend_roles: Vec<Pattern>,
}

/// A role's tenant permissions: tenant patterns (maybe with `${…}`) and expanded actions.
#[derive(Debug)]
struct TenantGrant {
    role: String,
    patterns: Vec<String>,
    actions: Vec<Pattern>,
}

/// Everything authorization needs from one configuration version.
#[derive(Debug)]
pub struct Compiled {
    pub privileges: Privileges,
    mappings: Vec<Mapping>,
    tenant_grants: Vec<TenantGrant>,
    tenants: Vec<String>,
}

fn pats(v: &[String]) -> Vec<Pattern> {
    v.iter().map(|p| Pattern::new(p)).collect()
}

/// The configuration's action groups (static ones included) as the evaluator's input.
pub fn action_groups(cfg: &SecurityConfig) -> ActionGroups {
    cfg.action_groups.entries.iter().map(|(k, g)| (k.clone(), g.allowed_actions.clone())).collect()
}

/// The configuration's roles (static ones included) as the evaluator's input.
pub fn role_specs(cfg: &SecurityConfig) -> HashMap<String, RoleSpec> {
    cfg.roles
        .entries
        .iter()
        .map(|(name, r)| {
            let spec = RoleSpec {
                cluster_permissions: r.cluster_permissions.clone(),
                index_permissions: r
                    .index_permissions
                    .iter()
                    .map(|p| IndexPermission {
                        index_patterns: p.index_patterns.clone(),
                        allowed_actions: p.allowed_actions.clone(),
                    })
                    .collect(),
                tenant_permissions: r
                    .tenant_permissions
                    .iter()
                    .map(|p| IndexPermission {
                        index_patterns: p.tenant_patterns.clone(),
                        allowed_actions: p.allowed_actions.clone(),
                    })
                    .collect(),
            };
            (name.clone(), spec)
        })
        .collect()
}

impl Compiled {
    /// Compiles `cfg`; `version` names it in logs.
    pub fn new(version: u64, cfg: &SecurityConfig) -> Compiled {
        let groups = action_groups(cfg);
        let specs = role_specs(cfg);
        let privileges = Privileges::new(version, &specs, &groups);
        let mappings = cfg
            .roles_mapping
            .entries
            .iter()
            .map(|(role, m)| Mapping {
                role: role.clone(),
                users: pats(&m.users),
                backend_roles: pats(&m.backend_roles),
                hosts: pats(&m.hosts),
                and_backend_roles: pats(&m.and_backend_roles),
            })
            .collect();
        let mut tenant_grants = Vec::new();
        for (role, spec) in &specs {
            for t in &spec.tenant_permissions {
                let mut actions = Vec::new();
                expand_into(&t.allowed_actions, &groups, &mut actions, &mut Vec::new());
                tenant_grants.push(TenantGrant { role: role.clone(), patterns: t.index_patterns.clone(), actions });
            }
        }
        let tenants = cfg.tenants.entries.keys().cloned().collect();
        Compiled { privileges, mappings, tenant_grants, tenants }
    }

    /// The user's security roles: every mapping matching the user's name, one of its backend
    /// roles, the client host, or all of `and_backend_roles`; plus the user's own security
    /// roles. Sorted, deduplicated (the plugin's `mapRoles` with `multi_rolespan_enabled`).
    pub fn mapped_roles(&self, user: &User, host: Option<&str>) -> Vec<String> {
        let mut out = user.security_roles.clone();
        for m in &self.mappings {
            let hit = any_matches(&m.users, &user.name)
                || user.backend_roles.iter().any(|b| any_matches(&m.backend_roles, b))
                || host.is_some_and(|h| any_matches(&m.hosts, h))
                || (!m.and_backend_roles.is_empty()
                    && m.and_backend_roles.iter().all(|p| user.backend_roles.iter().any(|b| p.matches(b))));
            if hit {
                out.push(m.role.clone());
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// `authinfo`'s `tenants`: tenant → true (read/write) or false (read only) for every
    /// tenant the user's roles reach, plus the user's private tenant under its name.
    pub fn tenants(&self, user: &User) -> BTreeMap<String, bool> {
        let mut out = BTreeMap::new();
        for g in self.tenant_grants.iter().filter(|g| user.roles.contains(&g.role)) {
            let write = any_matches(&g.actions, "kibana:saved_objects/_/write");
            let read = write || any_matches(&g.actions, "kibana:saved_objects/_/read");
            if !read {
                continue;
            }
            let patterns: Vec<Pattern> = g.patterns.iter().map(|p| Pattern::new(&substitute(p, user))).collect();
            for t in self.tenants.iter().filter(|t| any_matches(&patterns, t)) {
                let e = out.entry(t.clone()).or_insert(false);
                *e |= write;
            }
        }
        if !user.is_anonymous {
            out.insert(user.name.clone(), true);
        }
        out
    }
}

fn expand_into(actions: &[String], groups: &ActionGroups, out: &mut Vec<Pattern>, seen: &mut Vec<String>) {
    for a in actions {
        match groups.get(a) {
            Some(members) if !seen.contains(a) => {
                seen.push(a.clone());
                expand_into(members, groups, out, seen);
            }
            Some(_) => {}
            None => out.push(Pattern::new(a)),
        }
    }
}

/// The cluster's open and closed indices and its aliases, as the evaluator resolves against.
pub fn cluster_indices(meta: &Metadata) -> ClusterIndices {
    let mut aliases: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, im) in &meta.indices {
        for alias in im.aliases.keys() {
            aliases.entry(alias.clone()).or_default().push(name.clone());
        }
    }
    ClusterIndices { indices: meta.indices.keys().cloned().collect(), aliases }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::config::{CType, ConfigFile, RoleMapping};

    fn demo() -> SecurityConfig {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in crate::security::config::DEMO_FILES {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        SecurityConfig::load_dir(dir.path()).unwrap()
    }

    #[test]
    fn demo_admin_maps_to_all_access_and_reaches_every_tenant() {
        let cfg = demo();
        let c = Compiled::new(1, &cfg);
        let mut u = User::named("admin");
        u.backend_roles = vec!["admin".into()];
        u.roles = c.mapped_roles(&u, Some("127.0.0.1"));
        assert!(u.roles.contains(&"all_access".to_string()), "{:?}", u.roles);
        let t = c.tenants(&u);
        assert_eq!(t.get("global_tenant"), Some(&true));
        assert_eq!(t.get("admin_tenant"), Some(&true));
        assert_eq!(t.get("admin"), Some(&true));
    }

    #[test]
    fn mappings_by_user_host_and_all_backend_roles() {
        let mut cfg = demo();
        cfg.roles_mapping = ConfigFile::empty(CType::RolesMapping);
        let m = |users: &[&str], hosts: &[&str], and: &[&str]| RoleMapping {
            users: users.iter().map(|s| s.to_string()).collect(),
            hosts: hosts.iter().map(|s| s.to_string()).collect(),
            and_backend_roles: and.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        cfg.roles_mapping.entries.insert("r_user".into(), m(&["bo*"], &[], &[]));
        cfg.roles_mapping.entries.insert("r_host".into(), m(&[], &["10.*"], &[]));
        cfg.roles_mapping.entries.insert("r_and".into(), m(&[], &[], &["a", "b"]));
        let c = Compiled::new(2, &cfg);
        let mut u = User::named("bob");
        u.backend_roles = vec!["a".into()];
        assert_eq!(c.mapped_roles(&u, Some("127.0.0.1")), vec!["r_user"]);
        u.backend_roles.push("b".into());
        u.security_roles = vec!["own".into()];
        assert_eq!(c.mapped_roles(&u, Some("10.0.0.1")), vec!["own", "r_and", "r_host", "r_user"]);
    }
}
