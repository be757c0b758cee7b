use super::*;

/// The demo configuration with `config.yml` and `internal_users.yml` replaced.
fn config(config_yml: &str, users_yml: &str) -> Arc<SecurityConfig> {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in crate::security::config::DEMO_FILES {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    std::fs::write(dir.path().join("config.yml"), config_yml).unwrap();
    std::fs::write(dir.path().join("internal_users.yml"), users_yml).unwrap();
    Arc::new(SecurityConfig::load_dir(dir.path()).unwrap())
}

const BASIC: &str = "_meta: {type: config, config_version: 2}
config:
  dynamic:
    http: {anonymous_auth_enabled: ANON}
    authc:
      basic:
        http_enabled: true
        order: 1
        http_authenticator: {type: basic, challenge: true}
        authentication_backend: {type: intern}
      cert:
        http_enabled: true
        order: 0
        http_authenticator: {type: clientcert, challenge: false, config: {username_attribute: cn, roles_attribute: ou}}
        authentication_backend: {type: noop}
    auth_failure_listeners:
      ip_rate_limiting: {type: ip, allowed_tries: 3, time_window_seconds: 3600, block_expiry_seconds: 3600}
      internal_rate_limiting: {type: username, authentication_backend: intern, allowed_tries: 2, time_window_seconds: 3600, block_expiry_seconds: 3600}
";

fn users(password: &str) -> String {
    let hash = bcrypt::hash(password, 4).unwrap();
    format!(
        "_meta: {{type: internalusers, config_version: 2}}\nbob:\n  hash: \"{hash}\"\n  backend_roles: [admin]\n  attributes: {{dept: sales}}\n"
    )
}

fn authn() -> Authenticator {
    Authenticator::new(AuthnSettings {
        admin_dn: vec!["CN=kirk,OU=client,O=client,L=test,C=de".into()],
        nodes_dn: vec![],
        ttl: Duration::from_secs(3600),
    })
    .unwrap()
}

fn basic(user: &str, pw: &str, ip: &str) -> AuthInput {
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pw}"));
    AuthInput {
        authorization: Some(format!("Basic {token}")),
        remote: Some(format!("{ip}:1234").parse().unwrap()),
        ..Default::default()
    }
}

fn user(o: Outcome) -> Arc<User> {
    match o {
        Outcome::User(u) => u,
        other => panic!("expected a user, got {other:?}"),
    }
}

fn reply(o: Outcome) -> Reply {
    match o {
        Outcome::Reply(r) => r,
        other => panic!("expected a reply, got {other:?}"),
    }
}

#[test]
fn basic_login_is_verified_once_then_cached_until_the_config_changes() {
    let a = authn();
    let cfg = config(&BASIC.replace("ANON", "false"), &users("s3cret!"));
    let input = basic("bob", "s3cret!", "10.0.0.1");
    assert!(matches!(a.authenticate(Some(&cfg), &input, false), Outcome::NeedsBlocking));
    let u = user(a.authenticate(Some(&cfg), &input, true));
    assert_eq!(u.name, "bob");
    assert_eq!(u.backend_roles, vec!["admin"]);
    assert_eq!(u.attributes.get("attr.internal.dept").map(String::as_str), Some("sales"));
    assert!(u.roles.contains(&"all_access".to_string()), "{:?}", u.roles);
    assert_eq!(u.auth_type, AuthType::Basic);
    // Cached: no bcrypt needed now; a wrong password is never a cache hit.
    assert_eq!(user(a.authenticate(Some(&cfg), &input, false)).name, "bob");
    assert!(matches!(a.authenticate(Some(&cfg), &basic("bob", "wrong", "10.0.0.1"), false), Outcome::NeedsBlocking));
    // A reloaded configuration (even an equal one) verifies again.
    let cfg2 = Arc::new((*cfg).clone());
    assert!(matches!(a.authenticate(Some(&cfg2), &input, false), Outcome::NeedsBlocking));
    // A changed password: the old one no longer works.
    let cfg3 = config(&BASIC.replace("ANON", "false"), &users("n3w-pass!"));
    let r = reply(a.authenticate(Some(&cfg3), &input, true));
    assert_eq!((r.status, r.body.as_str(), r.challenge), (401, "Unauthorized", true));
}

#[test]
fn no_credentials_challenge_and_blocked_clients() {
    let a = authn();
    let cfg = config(&BASIC.replace("ANON", "false"), &users("s3cret!"));
    let none = AuthInput { remote: Some("10.0.0.2:1".parse().unwrap()), ..Default::default() };
    let r = reply(a.authenticate(Some(&cfg), &none, true));
    assert_eq!((r.status, r.body.as_str(), r.challenge), (401, "Unauthorized", true));
    // The username limiter blocks bob after 2 failures: then even the right password fails.
    for _ in 0..2 {
        reply(a.authenticate(Some(&cfg), &basic("bob", "bad", "10.0.0.3"), true));
    }
    let r = reply(a.authenticate(Some(&cfg), &basic("bob", "s3cret!", "10.0.0.4"), true));
    assert_eq!(r.status, 401);
    // The ip limiter counted 10.0.0.2 once and 10.0.0.3 twice: one more and it is blocked.
    reply(a.authenticate(Some(&cfg), &basic("x", "bad", "10.0.0.3"), true));
    let r = reply(a.authenticate(Some(&cfg), &basic("x", "bad", "10.0.0.3"), false));
    assert_eq!((r.status, r.body.as_str(), r.challenge), (401, "Authentication finally failed", false));
}

#[test]
fn admin_cert_clientcert_anonymous_and_uninitialized() {
    let a = authn();
    let cfg = config(&BASIC.replace("ANON", "true"), &users("s3cret!"));
    let admin = AuthInput { peer_dn: Some("CN=kirk,OU=client,O=client,L=test,C=de".into()), ..Default::default() };
    let u = user(a.authenticate(Some(&cfg), &admin, false));
    assert!(u.is_admin && u.auth_type == AuthType::AdminCert);
    // Even without a configuration, the admin certificate works; others get 503.
    assert!(user(a.authenticate(None, &admin, false)).is_admin);
    let r = reply(a.authenticate(None, &AuthInput::default(), false));
    assert_eq!((r.status, r.body.as_str()), (503, "OpenSearch Security not initialized."));
    let cert = AuthInput { peer_dn: Some("CN=alice,OU=ops,O=client,C=de".into()), ..Default::default() };
    let u = user(a.authenticate(Some(&cfg), &cert, false));
    assert_eq!(
        (u.name.as_str(), u.backend_roles.clone(), u.auth_type),
        ("alice", vec!["ops".to_string()], AuthType::ClientCert)
    );
    let u = user(a.authenticate(Some(&cfg), &AuthInput::default(), false));
    assert!(u.is_anonymous);
    assert_eq!(u.name, ANONYMOUS_NAME);
    assert_eq!(u.backend_roles, vec![ANONYMOUS_BACKEND_ROLE]);
    // Asking for basic (`auth_type=basic`) without credentials is challenged.
    let ask = AuthInput { auth_type: Some("basic".into()), ..Default::default() };
    assert_eq!(reply(a.authenticate(Some(&cfg), &ask, false)).status, 401);
}

#[test]
fn basic_header_parsing_as_the_plugin() {
    let enc = |s: &str| format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(s));
    assert_eq!(basic_credentials(Some(&enc("a:b:c"))), Ok(Some(("a".into(), "b:c".into()))));
    assert_eq!(basic_credentials(Some(&enc("a:"))), Ok(Some(("a".into(), "".into()))));
    assert_eq!(basic_credentials(Some(&enc(":b"))), Ok(None));
    assert_eq!(basic_credentials(Some("Bearer x")), Ok(None));
    assert_eq!(basic_credentials(Some("Basic !!!")), Err(()));
    assert_eq!(basic_credentials(None), Ok(None));
    assert!(ct_eq(b"abc", b"abc") && !ct_eq(b"abc", b"abd") && !ct_eq(b"abc", b"ab"));
    assert_eq!(dn_attribute("CN=a,OU=x,OU=y,C=de", "ou"), vec!["y", "x"]);
}
