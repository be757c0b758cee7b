//! `fathom securityadmin`: the plugin's `securityadmin.sh` over HTTPS with the admin
//! certificate. It uploads the configuration files into the security index (`-cd <dir>` every
//! file, `-f <file> -t <type>` one), or saves the index into files (`-backup <dir>`), and then has
//! every node reload (`PUT /_plugins/_security/configupdate`, which only the admin certificate
//! may call). Messages follow the plugin's tool where they matter.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::ServerName;
use serde_json::Value;

use super::config::{CType, SecurityConfig};

/// The command line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    pub host: String,
    pub port: u16,
    pub cacert: Option<PathBuf>,
    pub cert: Option<PathBuf>,
    pub key: Option<PathBuf>,
    pub config_dir: Option<PathBuf>,
    pub file: Option<PathBuf>,
    pub ctype: Option<String>,
    pub backup: Option<PathBuf>,
    pub index: String,
}

/// Parses the plugin's options (`-h -p -cacert -cert -key -cd -f -t -backup -i`).
pub fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut a = Args {
        host: "localhost".into(),
        port: 9200,
        index: super::config::index_settings::DEFAULT_INDEX.into(),
        ..Args::default()
    };
    let mut it = args.iter();
    while let Some(opt) = it.next() {
        let mut val = || {
            it.next().cloned().ok_or_else(|| format!("Missing argument for option: {}", opt.trim_start_matches('-')))
        };
        match opt.as_str() {
            "-h" | "--hostname" => a.host = val()?,
            "-p" | "--port" => a.port = val()?.parse().map_err(|_| "ERR: invalid port".to_string())?,
            "-cacert" => a.cacert = Some(val()?.into()),
            "-cert" => a.cert = Some(val()?.into()),
            "-key" => a.key = Some(val()?.into()),
            "-cd" | "--configdir" => a.config_dir = Some(val()?.into()),
            "-f" | "--file" => a.file = Some(val()?.into()),
            "-t" | "--type" => a.ctype = Some(val()?),
            "-backup" => a.backup = Some(val()?.into()),
            "-i" | "--index" => a.index = val()?,
            other => return Err(format!("Unrecognized option: {other}")),
        }
    }
    let modes = [a.config_dir.is_some(), a.file.is_some(), a.backup.is_some()].iter().filter(|b| **b).count();
    if modes != 1 {
        return Err("ERR: Specify exactly one of -cd, -f or -backup".into());
    }
    if a.file.is_some() && a.ctype.is_none() {
        return Err("ERR: -f needs -t <type>".into());
    }
    if a.cacert.is_none() || a.cert.is_none() || a.key.is_none() {
        return Err("ERR: -cacert, -cert and -key are required".into());
    }
    Ok(a)
}

/// An HTTPS connection factory with the admin certificate.
struct Client {
    cfg: Arc<rustls::ClientConfig>,
    host: String,
    port: u16,
}

impl Client {
    fn new(a: &Args) -> Result<Client, String> {
        let (Some(ca), Some(cert), Some(key)) = (&a.cacert, &a.cert, &a.key) else {
            return Err("ERR: -cacert, -cert and -key are required".into());
        };
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let cfg = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_root_certificates(super::tls::load_roots(ca)?)
            .with_client_auth_cert(super::tls::load_certs(cert)?, super::tls::load_key(key)?)
            .map_err(|e| format!("ERR: {e}"))?;
        Ok(Client { cfg: Arc::new(cfg), host: a.host.clone(), port: a.port })
    }

    /// One request (Connection: close): status and body.
    fn send(&self, method: &str, path: &str, body: Option<&Value>) -> Result<(u16, String), String> {
        let name = ServerName::try_from(self.host.clone()).map_err(|e| e.to_string())?;
        let conn = rustls::ClientConnection::new(self.cfg.clone(), name).map_err(|e| e.to_string())?;
        let tcp = TcpStream::connect((self.host.as_str(), self.port)).map_err(|e| e.to_string())?;
        tcp.set_read_timeout(Some(Duration::from_secs(60))).map_err(|e| e.to_string())?;
        let mut s = rustls::StreamOwned::new(conn, tcp);
        let payload = body.map(|b| b.to_string()).unwrap_or_default();
        let req = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{payload}",
            self.host,
            payload.len()
        );
        s.write_all(req.as_bytes()).map_err(|e| e.to_string())?;
        let mut raw = Vec::new();
        match s.read_to_end(&mut raw) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !raw.is_empty() => {}
            Err(e) => return Err(e.to_string()),
        }
        let text = String::from_utf8_lossy(&raw).into_owned();
        let (head, rest) = text.split_once("\r\n\r\n").ok_or("no HTTP answer")?;
        let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or("bad status line")?;
        let body = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
            dechunk(rest)
        } else {
            rest.to_string()
        };
        Ok((status, body))
    }
}

fn dechunk(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else { break };
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}

/// Runs the tool, printing as it goes; the exit status (0 success, -1 as 255 on failure).
pub fn run(a: &Args, out: &mut dyn Write) -> u8 {
    match run_inner(a, out) {
        Ok(()) => {
            let _ = writeln!(out, "Done with success");
            0
        }
        Err(e) => {
            let _ = writeln!(out, "{e}");
            255
        }
    }
}

fn run_inner(a: &Args, out: &mut dyn Write) -> Result<(), String> {
    let p = |out: &mut dyn Write, s: String| {
        let _ = writeln!(out, "{s}");
    };
    p(out, "Security Admin v7".into());
    let client = Client::new(a)?;
    let _ = write!(out, "Will connect to {}:{}", a.host, a.port);
    if let Err(e) = client.send("GET", "/", None) {
        p(out, String::new());
        return Err(format!("ERR: Seems there is no OpenSearch running on {}:{} - Will exit ({e})", a.host, a.port));
    }
    p(out, " ... done".into());
    let dn = a
        .cert
        .as_deref()
        .and_then(|c| super::tls::load_certs(c).ok())
        .and_then(|c| c.first().and_then(|d| super::dn::subject_dn(d)))
        .unwrap_or_default();
    p(out, format!("Connected as \"{dn}\""));
    // Only the admin certificate may have the nodes reload: the admin check of the plugin's tool.
    let (status, _) = client.send("PUT", "/_plugins/_security/configupdate", None)?;
    if status == 403 || status == 401 {
        return Err(format!(
            "ERR: \"{dn}\" is not an admin user\nSeems you use a client certificate but this one is not registered as admin_dn\nMake sure fathom.yml on all nodes contains:\nplugins.security.authcz.admin_dn:\n  - \"{dn}\""
        ));
    }
    let (_, health) = client.send("GET", "/_cluster/health", None)?;
    let h: Value = serde_json::from_str(&health).unwrap_or(Value::Null);
    p(out, format!("Clustername: {}", h["cluster_name"].as_str().unwrap_or("")));
    p(out, format!("Clusterstate: {}", h["status"].as_str().unwrap_or("").to_ascii_uppercase()));
    p(out, format!("Number of nodes: {}", h["number_of_nodes"]));
    p(out, format!("Number of data nodes: {}", h["number_of_data_nodes"]));
    if let Some(dir) = &a.backup {
        return backup(&client, a, dir, out);
    }
    let (status, _) = client.send("GET", &format!("/{}/_settings", a.index), None)?;
    if status == 404 {
        let _ = write!(out, "{} index does not exists, attempt to create it ... ", a.index);
        let body = serde_json::json!({"settings": {"index.number_of_shards": 1, "index.auto_expand_replicas": "0-all", "index.hidden": true}});
        let (status, text) = client.send("PUT", &format!("/{}", a.index), Some(&body))?;
        if status != 200 {
            return Err(format!("ERR: cannot create the {} index: {text}", a.index));
        }
        p(out, "done (0-all replicas)".into());
    } else {
        p(out, format!("{} index already exists, so we do not need to create one.", a.index));
    }
    let uploads = if let Some(dir) = &a.config_dir {
        p(out, format!("Populate config from {}", dir.display()));
        let cfg = SecurityConfig::load_dir(dir).map_err(|e| format!("ERR: {e}"))?;
        cfg.stored()
            .into_iter()
            .filter_map(|(name, v)| CType::from_name(name).map(|c| (c, dir.join(c.file_name()), v)))
            .filter(|(c, path, _)| !c.optional() || path.exists())
            .collect::<Vec<_>>()
    } else {
        let (Some(file), Some(t)) = (&a.file, &a.ctype) else { return Err("ERR: -f needs -t <type>".into()) };
        p(out, format!("Force type: {t}"));
        let ctype = CType::from_name(t).ok_or_else(|| format!("ERR: Invalid type '{t}'"))?;
        let text = std::fs::read_to_string(file).map_err(|e| format!("ERR: {}: {e}", file.display()))?;
        let json = one_file_json(ctype, &text).map_err(|e| format!("ERR: {}: {e}", file.display()))?;
        vec![(ctype, file.clone(), json)]
    };
    let mut types = Vec::new();
    for (ctype, path, json) in uploads {
        p(out, format!("Will update '/{}' with {}", ctype.name(), path.display()));
        let body = super::config::index_doc::encode_source(ctype, &json);
        let (status, text) =
            client.send("PUT", &format!("/{}/_doc/{}?refresh=true", a.index, ctype.name()), Some(&body))?;
        if status != 200 && status != 201 {
            return Err(format!("   FAIL: Configuration for '{}' failed because of {text}", ctype.name()));
        }
        p(out, format!("   SUCC: Configuration for '{}' created or updated", ctype.name()));
        types.push(ctype.name());
    }
    let (status, text) =
        client.send("PUT", &format!("/_plugins/_security/configupdate?config_types={}", types.join(",")), None)?;
    let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    if status != 200 || v["configupdate_response"]["has_failures"] == true {
        return Err(format!("ERR: Unable to reload config due to {text}"));
    }
    p(out, format!("SUCC: Expected {} config types for node(s), all reloaded", types.len()));
    Ok(())
}

/// The JSON of one file of `ctype` (checked as the node checks it).
fn one_file_json(ctype: CType, text: &str) -> Result<Value, String> {
    use super::config::{
        dynamic::ConfigEntry, ActionGroup, Allowlist, ConfigFile, InternalUser, NodesDn, Role, RoleMapping, Tenant,
    };
    Ok(match ctype {
        CType::Config => ConfigFile::<ConfigEntry>::from_yaml(ctype, text)?.to_json(),
        CType::InternalUsers => ConfigFile::<InternalUser>::from_yaml(ctype, text)?.to_json(),
        CType::Roles => ConfigFile::<Role>::from_yaml(ctype, text)?.to_json(),
        CType::RolesMapping => ConfigFile::<RoleMapping>::from_yaml(ctype, text)?.to_json(),
        CType::ActionGroups => ConfigFile::<ActionGroup>::from_yaml(ctype, text)?.to_json(),
        CType::Tenants => ConfigFile::<Tenant>::from_yaml(ctype, text)?.to_json(),
        CType::NodesDn => ConfigFile::<NodesDn>::from_yaml(ctype, text)?.to_json(),
        CType::Allowlist => ConfigFile::<Allowlist>::from_yaml(ctype, text)?.to_json(),
    })
}

/// `-backup <dir>`: every type's doc into `<dir>/<file>.yml`.
fn backup(client: &Client, a: &Args, dir: &Path, out: &mut dyn Write) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("ERR: {}: {e}", dir.display()))?;
    for ctype in CType::ALL {
        let file = dir.join(ctype.file_name());
        let _ = writeln!(out, "Will retrieve '/{}' into {}", ctype.name(), file.display());
        let (status, text) = client.send("GET", &format!("/{}/_doc/{}", a.index, ctype.name()), None)?;
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        if status != 200 || v["found"] != true {
            let _ = writeln!(out, "   FAIL: Configuration for '{}' failed because of {}", ctype.name(), status);
            continue;
        }
        let json = super::config::index_doc::decode_source(ctype, &v["_source"]).map_err(|e| format!("ERR: {e}"))?;
        let yaml = serde_norway::to_string(&json).map_err(|e| format!("ERR: {e}"))?;
        std::fs::write(&file, yaml).map_err(|e| format!("ERR: {}: {e}", file.display()))?;
        let _ = writeln!(out, "   SUCC: Configuration for '{}' stored in {}", ctype.name(), file.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn options_are_parsed_and_checked() {
        let a = parse_args(&args("-cd /c -cacert ca.pem -cert kirk.pem -key kirk-key.pem -h h -p 9201")).unwrap();
        assert_eq!((a.host.as_str(), a.port, a.config_dir.as_deref()), ("h", 9201, Some(Path::new("/c"))));
        assert_eq!(a.index, ".opendistro_security");
        assert!(parse_args(&args("-cacert a -cert b -key c")).unwrap_err().contains("exactly one"));
        assert!(parse_args(&args("-f x.yml -cacert a -cert b -key c")).unwrap_err().contains("-t"));
        assert!(parse_args(&args("-cd /c")).unwrap_err().contains("-cacert"));
        assert!(parse_args(&args("-cd")).unwrap_err().contains("Missing argument"));
        assert!(parse_args(&args("-zz")).unwrap_err().contains("Unrecognized option"));
    }

    #[test]
    fn chunked_bodies_are_joined() {
        assert_eq!(dechunk("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"), "hello world");
    }
}
