//! Security, TLS slice: transport TLS between nodes. Transports with node certificates of the
//! cluster's CA whose DN is in `plugins.security.nodes_dn` talk; a node whose certificate has
//! another DN, or comes from another CA, or speaks plain TCP cannot; and a 3-node cluster of
//! real processes with transport TLS forms, goes green, indexes and searches.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::cluster::{free_port, start_with_env, wait_agreement, Proc};
use common::http::{get, post, put, send};
use fathom::node::NodeSettings;
use fathom::security::demo::{Ca, NODE_DN};
use fathom::transport::{Transport, TransportConfig, TransportTls};

const T: Duration = Duration::from_secs(10);

/// Writes `name.pem`/`name-key.pem` issued by `ca` for `dn` into `dir`.
fn issue(dir: &Path, ca: &Ca, name: &str, dn: &str) {
    let c = ca.issue(dn, &["localhost", "127.0.0.1"], None).unwrap();
    std::fs::write(dir.join(format!("{name}.pem")), c.cert_pem).unwrap();
    std::fs::write(dir.join(format!("{name}-key.pem")), c.key_pem).unwrap();
}

/// The `-E` settings of security on with transport TLS from `dir` (`name.pem`, `ca.pem`).
fn settings(dir: &Path, name: &str, ca_file: &str) -> Vec<(String, String)> {
    let p = |f: String| dir.join(f).display().to_string();
    vec![
        ("plugins.security.disabled".into(), "false".into()),
        ("plugins.security.ssl.transport.pemcert_filepath".into(), p(format!("{name}.pem"))),
        ("plugins.security.ssl.transport.pemkey_filepath".into(), p(format!("{name}-key.pem"))),
        ("plugins.security.ssl.transport.pemtrustedcas_filepath".into(), p(ca_file.to_string())),
        ("plugins.security.ssl.transport.enforce_hostname_verification".into(), "false".into()),
        ("plugins.security.nodes_dn".into(), "CN=node-*.example.com,OU=node,O=node,L=test,DC=de".into()),
    ]
}

fn tls(pairs: &[(String, String)]) -> TransportTls {
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let sec = fathom::security::SecuritySettings::from_node(&NodeSettings::from_pairs(&pairs)).unwrap().unwrap();
    let t = fathom::security::node_tls::node_tls(&sec).unwrap();
    TransportTls {
        acceptor: tokio_rustls::TlsAcceptor::from(t.server),
        connector: tokio_rustls::TlsConnector::from(t.client),
    }
}

async fn node(id: &str, tls: Option<TransportTls>) -> Arc<Transport> {
    let t = Transport::bind(TransportConfig {
        cluster_name: "c".into(),
        node_id: id.into(),
        node_name: id.into(),
        host: "127.0.0.1".into(),
        port_spec: "0".into(),
        compress: true,
        tls,
    })
    .await
    .unwrap();
    t.register_fn("echo", |req| async move { Ok(req.payload) });
    t
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_nodes_of_the_ca_with_a_node_dn_connect() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::generate("CN=Cluster CA,O=test").unwrap();
    std::fs::write(dir.path().join("ca.pem"), ca.cert.pem()).unwrap();
    issue(dir.path(), &ca, "n0", NODE_DN);
    issue(dir.path(), &ca, "n1", "CN=node-1.example.com,OU=node,O=node,L=test,DC=de");
    issue(dir.path(), &ca, "intruder", "CN=intruder.example.com,OU=node,O=node,L=test,DC=de");
    let other = Ca::generate("CN=Other CA,O=elsewhere").unwrap();
    issue(dir.path(), &other, "foreign", NODE_DN);
    // A node DN of our CA whose certificate expired (at the end of 2020).
    let c = ca.issue(NODE_DN, &["localhost", "127.0.0.1"], Some(2020)).unwrap();
    std::fs::write(dir.path().join("expired.pem"), c.cert_pem).unwrap();
    std::fs::write(dir.path().join("expired-key.pem"), c.key_pem).unwrap();

    let a = node("a", Some(tls(&settings(dir.path(), "n0", "ca.pem")))).await;
    let b = node("b", Some(tls(&settings(dir.path(), "n1", "ca.pem")))).await;
    let got = a.request(b.local_address(), "echo", Bytes::from_static(b"hi"), T).await.unwrap();
    assert_eq!(&got[..], b"hi");
    let got = b.request(a.local_address(), "echo", Bytes::from_static(b"back"), T).await.unwrap();
    assert_eq!(&got[..], b"back");

    // A certificate of the CA whose DN is not a node DN: refused by the server (its client
    // certificate) and refused as a server (a node dialling it).
    let intruder = node("x", Some(tls(&settings(dir.path(), "intruder", "ca.pem")))).await;
    assert!(intruder.handshake(a.local_address(), T).await.is_err());
    assert!(a.handshake(intruder.local_address(), T).await.is_err());
    // A node DN from another CA (trusting its own CA and ours) is refused too.
    let foreign = node("f", Some(tls(&settings(dir.path(), "foreign", "ca.pem")))).await;
    assert!(foreign.handshake(a.local_address(), T).await.is_err());
    // An expired certificate, whatever its DN and CA: refused both ways.
    let expired = node("e", Some(tls(&settings(dir.path(), "expired", "ca.pem")))).await;
    assert!(expired.handshake(a.local_address(), T).await.is_err());
    assert!(a.handshake(expired.local_address(), T).await.is_err());
    // Plain TCP against TLS, both ways.
    let plain = node("p", None).await;
    assert!(plain.handshake(a.local_address(), T).await.is_err());
    assert!(a.handshake(plain.local_address(), T).await.is_err());
    // The good pair still talks.
    assert!(a.handshake(b.local_address(), T).await.is_ok());
}

fn wait_green(p: &Proc, index: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let s = get(p.http, &format!("/_cluster/health/{index}")).json()["status"].clone();
        if s == "green" {
            return;
        }
        assert!(Instant::now() < deadline, "{index} not green: {s}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn three_nodes_with_transport_tls_form_a_green_cluster() {
    let _turn = common::cluster::one_cluster_at_a_time();
    let conf = tempfile::tempdir().unwrap();
    let ca = Ca::generate("CN=Cluster CA,O=test").unwrap();
    std::fs::write(conf.path().join("ca.pem"), ca.cert.pem()).unwrap();
    issue(conf.path(), &ca, "node", NODE_DN);
    let extra = settings(conf.path(), "node", "ca.pem");
    let extra: Vec<(&str, &str)> = extra.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names = ["t0", "t1", "t2"];
    let initial = names.join(",");
    // Requests are authenticated: the demo configuration with anonymous authentication mapped
    // to `all_access`, so that the plain-HTTP helpers below need no credentials.
    let sec = conf.path().join("opensearch-security");
    std::fs::create_dir_all(&sec).unwrap();
    for (name, text) in fathom::security::config::DEMO_FILES {
        let text = match name {
            "config.yml" => text.replace("anonymous_auth_enabled: false", "anonymous_auth_enabled: true"),
            "roles_mapping.yml" => text.replace(
                "  - \"admin\"\n  description: \"Maps admin to all_access\"",
                "  - \"admin\"\n  - \"opendistro_security_anonymous_backendrole\"\n  description: \"Maps admin to all_access\"",
            ),
            _ => text.to_string(),
        };
        std::fs::write(sec.join(name), text).unwrap();
    }
    let conf_dir = conf.path().display().to_string();
    let env = [("FATHOM_PATH_CONF", conf_dir.as_str())];
    let procs: Vec<Proc> =
        (0..3).map(|i| start_with_env(dirs[i].path(), names[i], ports[i], &seeds, &initial, &extra, &env)).collect();
    let all: Vec<&Proc> = procs.iter().collect();
    wait_agreement(&all, 3, Duration::from_secs(60));
    let r = put(all[0].http, "/tls", r#"{"settings":{"number_of_shards":2,"number_of_replicas":1}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    wait_green(all[0], "tls");
    let mut bulk = String::new();
    for i in 0..20 {
        bulk.push_str(&format!("{{\"index\":{{\"_id\":\"{i}\"}}}}\n{{\"n\":{i},\"t\":\"over tls\"}}\n"));
    }
    let ndjson = [("content-type", "application/x-ndjson")];
    let r = send(all[1].http, "POST", "/tls/_bulk?refresh=true", Some(bulk.as_bytes()), &ndjson);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], false, "{}", r.text());
    for p in &all {
        let r = post(p.http, "/tls/_search", r#"{"query":{"match":{"t":"tls"}},"size":0}"#);
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["hits"]["total"]["value"], 20, "{}", r.text());
    }
}
