//! Unit tests of the security configuration files (the plugin's demo and static files parse; bad
//! `_meta`, unknown keys and bad types give clear errors; JSON and index forms round-trip).

use std::collections::BTreeMap;

use super::*;

fn demo(name: &str) -> &'static str {
    DEMO_FILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t).unwrap_or_else(|| panic!("no demo file {name}"))
}

fn demo_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text) in DEMO_FILES {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    dir
}

#[test]
fn demo_files_load_with_statics() {
    let dir = demo_dir();
    let cfg = SecurityConfig::load_dir(dir.path()).expect("demo config loads");
    let admin = &cfg.internal_users.entries["admin"];
    assert!(admin.hash.starts_with("$2a$12$"));
    assert!(admin.reserved);
    assert_eq!(admin.backend_roles, vec!["admin"]);
    assert_eq!(cfg.internal_users.entries["kibanaro"].attributes["attribute2"], "value2");
    assert_eq!(cfg.internal_users.entries["anomalyadmin"].opendistro_security_roles, vec!["anomaly_full_access"]);
    // Static entries are merged in and marked static.
    let all = &cfg.roles.entries["all_access"];
    assert!(all.is_static && all.reserved);
    assert_eq!(all.index_permissions[0].index_patterns, vec!["*"]);
    assert_eq!(all.tenant_permissions[0].allowed_actions, vec!["kibana_all_write"]);
    assert!(cfg.tenants.entries["global_tenant"].is_static);
    assert!(cfg.tenants.entries.contains_key("admin_tenant"));
    assert_eq!(cfg.action_groups.entries["kibana_all_write"].kind.as_deref(), Some("kibana"));
    assert_eq!(cfg.roles_mapping.entries["kibana_server"].users, vec!["kibanaserver"]);
    assert_eq!(cfg.allowlist.entries["config"].requests["/_cat/nodes"], vec!["GET"]);
    let d = cfg.dynamic();
    assert!(!d.http.anonymous_auth_enabled);
    let basic = &d.authc["basic_internal_auth_domain"];
    assert_eq!(basic.http_authenticator.kind.as_deref(), Some("basic"));
    assert_eq!(basic.authentication_backend.kind, "intern");
    assert_eq!(basic.order, 4);
    let cc = &d.authc["clientcert_auth_domain"];
    assert_eq!(cc.http_authenticator.config["username_attribute"], "cn");
    // Only http-enabled domains, ordered.
    let names: Vec<_> = d.http_authc_domains().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, vec!["basic_internal_auth_domain"]);
}

#[test]
fn static_entries_win_over_stored_ones() {
    let dir = demo_dir();
    let roles = format!("{}\nall_access:\n  cluster_permissions: [\"nothing\"]\n", demo("roles.yml"));
    std::fs::write(dir.path().join("roles.yml"), roles).expect("write");
    let cfg = SecurityConfig::load_dir(dir.path()).expect("loads");
    assert_eq!(cfg.roles.entries["all_access"].cluster_permissions, vec!["*"]);
    // Stored form leaves the static entries out.
    let stored = cfg.stored();
    assert!(stored["roles"].get("all_access").is_none());
    assert!(stored["roles"].get("kibana_read_only").is_some());
    assert!(stored["tenants"].get("global_tenant").is_none());
}

#[test]
fn missing_optional_files_are_empty_missing_required_are_errors() {
    let dir = demo_dir();
    std::fs::remove_file(dir.path().join("nodes_dn.yml")).expect("rm");
    std::fs::remove_file(dir.path().join("allowlist.yml")).expect("rm");
    let cfg = SecurityConfig::load_dir(dir.path()).expect("loads");
    assert!(cfg.nodes_dn.entries.is_empty());
    std::fs::remove_file(dir.path().join("roles.yml")).expect("rm");
    let err = SecurityConfig::load_dir(dir.path()).unwrap_err();
    assert!(err.contains("roles.yml"), "{err}");
}

#[test]
fn meta_checks_use_the_plugin_messages() {
    let no_meta = "admin:\n  hash: x\n";
    let err = ConfigFile::<InternalUser>::from_yaml(CType::InternalUsers, no_meta).unwrap_err();
    assert_eq!(err, "Config version 1 is not supported; config type: INTERNALUSERS");
    let v1 = "_meta:\n  type: internalusers\n  config_version: 1\n";
    let err = ConfigFile::<InternalUser>::from_yaml(CType::InternalUsers, v1).unwrap_err();
    assert_eq!(err, "Config version 1 is not supported; config type: INTERNALUSERS");
    let wrong_type = "_meta:\n  type: roles\n  config_version: 2\n";
    let err = ConfigFile::<InternalUser>::from_yaml(CType::InternalUsers, wrong_type).unwrap_err();
    assert!(err.contains("[_meta.type] is [roles]"), "{err}");
    let two_keys = "_meta:\n  type: config\n  config_version: 2\nconfig: {}\nother: {}\n";
    let err = ConfigFile::<dynamic::ConfigEntry>::from_yaml(CType::Config, two_keys).unwrap_err();
    assert_eq!(err, "A version of 2 must have a single toplevel key named 'config' for CONFIG");
    let bad_meta = "_meta:\n  type: roles\n  config_version: 2\n  extra: 1\n";
    let err = ConfigFile::<Role>::from_yaml(CType::Roles, bad_meta).unwrap_err();
    assert!(err.starts_with("[_meta]: unknown field `extra`"), "{err}");
}

#[test]
fn unknown_keys_and_bad_types_name_the_entry() {
    let head = "_meta:\n  type: internalusers\n  config_version: 2\n";
    let err =
        ConfigFile::<InternalUser>::from_yaml(CType::InternalUsers, &format!("{head}bob:\n  hsh: x\n")).unwrap_err();
    assert!(err.starts_with("[bob]: unknown field `hsh`"), "{err}");
    let err = ConfigFile::<InternalUser>::from_yaml(CType::InternalUsers, &format!("{head}bob:\n  reserved: maybe\n"))
        .unwrap_err();
    assert!(err.starts_with("[bob]: invalid type"), "{err}");
    let roles = "_meta:\n  type: roles\n  config_version: 2\nr:\n  index_permissions:\n  - index_patterns: [a]\n    allowed_action: [read]\n";
    let err = ConfigFile::<Role>::from_yaml(CType::Roles, roles).unwrap_err();
    assert!(err.contains("[r]: unknown field `allowed_action`"), "{err}");
    let cfg = "_meta:\n  type: config\n  config_version: 2\nconfig:\n  dynamic:\n    authc:\n      d:\n        http_authenticator:\n          typ: basic\n";
    let err = ConfigFile::<dynamic::ConfigEntry>::from_yaml(CType::Config, cfg).unwrap_err();
    assert!(err.contains("unknown field `typ`"), "{err}");
    let err = ConfigFile::<Role>::from_yaml(CType::Roles, "_meta: [\n").unwrap_err();
    assert!(err.starts_with("invalid YAML"), "{err}");
}

#[test]
fn broken_file_error_names_the_file() {
    let dir = demo_dir();
    std::fs::write(
        dir.path().join("roles_mapping.yml"),
        "_meta:\n  type: rolesmapping\n  config_version: 2\nx:\n  user: [a]\n",
    )
    .expect("write");
    let err = SecurityConfig::load_dir(dir.path()).unwrap_err();
    assert!(err.contains("roles_mapping.yml") && err.contains("[x]: unknown field `user`"), "{err}");
}

#[test]
fn json_and_index_forms_round_trip() {
    let dir = demo_dir();
    let cfg = SecurityConfig::load_dir(dir.path()).expect("loads");
    let mut parts = BTreeMap::new();
    for ctype in CType::ALL {
        let json = cfg.stored()[ctype.name()].clone();
        // Through the index doc form: {"<type>": base64(JSON)}.
        let file = ConfigFile::<serde_json::Value>::from_json(ctype, json.clone()).expect("generic parse");
        let source = file.to_index_source(ctype);
        assert!(source[ctype.name()].is_string());
        let back = ConfigFile::<serde_json::Value>::from_index_source(ctype, &source).expect("index form");
        assert_eq!(back.to_json(), json);
        parts.insert(ctype.name().to_string(), back.to_json());
    }
    let again = SecurityConfig::from_json_parts(&parts).expect("from json");
    assert_eq!(again, cfg);
}

#[test]
fn bad_index_source_is_an_error_not_a_panic() {
    let src = serde_json::json!({"roles": "not base64!!"});
    assert!(ConfigFile::<Role>::from_index_source(CType::Roles, &src).is_err());
    let src = serde_json::json!({"other": "x"});
    assert!(ConfigFile::<Role>::from_index_source(CType::Roles, &src).is_err());
}

#[test]
fn service_reload_swaps_the_snapshot() {
    let conf = tempfile::tempdir().expect("tempdir");
    let dir = conf.path().join(DIR);
    std::fs::create_dir(&dir).expect("mkdir");
    for (name, text) in DEMO_FILES {
        std::fs::write(dir.join(name), text).expect("write");
    }
    let svc = SecurityService::from_conf_dir(conf.path()).expect("loads");
    let before = svc.current();
    let mut next = (*before).clone();
    next.internal_users.entries.remove("logstash");
    svc.reload(next);
    assert!(before.internal_users.entries.contains_key("logstash"));
    assert!(!svc.current().internal_users.entries.contains_key("logstash"));
}
