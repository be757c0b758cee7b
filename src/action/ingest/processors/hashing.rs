//! Processors that hash fields: fingerprint.

use serde_json::{Map, Value};

use super::super::config::Config;
use super::super::digest;
use super::super::doc::{IngestDocument, METADATA};
use super::super::pipeline::{Exec, Flow, Op};
use super::super::template::java_value_of;
use crate::error::{OsError, OsResult};

const METHODS: &[&str] = &["MD5@2.16.0", "SHA-1@2.16.0", "SHA-256@2.16.0", "SHA3-256@2.16.0"];

#[derive(Debug)]
pub struct Fingerprint {
    fields: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
    target: String,
    method: String,
    ignore_missing: bool,
}

fn read_list(c: &mut Config, name: &str) -> OsResult<Option<Vec<Option<String>>>> {
    match c.opt_value(name) {
        None => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a.into_iter().map(|v| v.as_str().map(str::to_string)).collect())),
        Some(v) => {
            Err(c.err(name, &format!("property isn't a list, but of type [{}]", super::super::config::java_type(&v))))
        }
    }
}

impl Fingerprint {
    pub fn new(c: &mut Config) -> OsResult<Fingerprint> {
        let fields = read_list(c, "fields")?.filter(|l| !l.is_empty());
        let exclude = read_list(c, "exclude_fields")?.filter(|l| !l.is_empty());
        let empty = |l: &Vec<Option<String>>| l.iter().any(|f| f.as_deref().is_none_or(str::is_empty));
        if let Some(f) = &fields {
            if empty(f) {
                return Err(c.err("fields", "field name cannot be null nor empty"));
            }
            if exclude.is_some() {
                return Err(c.err("fields", "either fields or exclude_fields can be set"));
            }
        }
        if exclude.as_ref().is_some_and(empty) {
            return Err(c.err("exclude_fields", "field name cannot be null nor empty"));
        }
        let target = c.opt_str("target_field")?.unwrap_or_else(|| "fingerprint".into());
        let method = c.opt_str("hash_method")?.unwrap_or_else(|| "SHA-1@2.16.0".into());
        if !METHODS.contains(&method.to_uppercase().as_str()) {
            return Err(c.err(
                "hash_method",
                "hash method must be MD5@2.16.0, SHA-1@2.16.0, SHA-256@2.16.0 or SHA3-256@2.16.0",
            ));
        }
        let flat = |l: Option<Vec<Option<String>>>| l.map(|v| v.into_iter().flatten().collect());
        Ok(Fingerprint {
            fields: flat(fields),
            exclude: flat(exclude),
            target,
            method,
            ignore_missing: c.bool("ignore_missing", false)?,
        })
    }
}

fn flatten(prefix: &str, m: &Map<String, Value>, out: &mut Vec<(String, String)>) {
    for (k, v) in m {
        let key = format!("{prefix}.{k}");
        match v {
            Value::Object(inner) => flatten(&key, inner, out),
            other => out.push((key, java_value_of(other))),
        }
    }
}

impl Op for Fingerprint {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let not_meta = |f: &String| !METADATA.contains(&f.as_str());
        let mut fields: Vec<String> = match (&self.fields, &self.exclude) {
            (Some(f), _) => f.iter().filter(|f| not_meta(f)).cloned().collect(),
            (None, Some(e)) => doc.sm.keys().filter(|f| not_meta(f) && !e.contains(f)).cloned().collect(),
            (None, None) => doc.sm.keys().filter(|f| not_meta(f)).cloned().collect(),
        };
        fields.sort();
        fields.dedup();
        let mut s = String::new();
        for f in &fields {
            let Some(v) = doc.get_opt(f) else {
                if self.ignore_missing {
                    continue;
                }
                return Err(OsError::illegal(format!("field [{f}] doesn't exist")));
            };
            match v {
                Value::Object(m) => {
                    let mut flat = Vec::new();
                    flatten(f, m, &mut flat);
                    flat.sort();
                    for (k, val) in flat {
                        s.push_str(&format!("|{k}|{}:{val}", val.encode_utf16().count()));
                    }
                }
                other => {
                    let val = java_value_of(other);
                    s.push_str(&format!("|{f}|{}:{val}", val.encode_utf16().count()));
                }
            }
        }
        if s.is_empty() {
            return Ok(Flow::Continue);
        }
        s.push('|');
        let hash = match self.method.to_uppercase().as_str() {
            "MD5@2.16.0" => digest::md5(s.as_bytes()),
            "SHA-256@2.16.0" => digest::sha256(s.as_bytes()),
            "SHA3-256@2.16.0" => digest::sha3_256(s.as_bytes()),
            _ => digest::sha1(s.as_bytes()),
        };
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD.encode(hash);
        doc.set(&self.target, Value::String(format!("{}:{b64}", self.method)))?;
        Ok(Flow::Continue)
    }
}

/// The `community_id` processor: the Community ID flow hash (version 1) of a network flow.
#[derive(Debug)]
pub struct CommunityId {
    source_ip: String,
    source_port: Option<String>,
    destination_ip: String,
    destination_port: Option<String>,
    iana_number: Option<String>,
    protocol: Option<String>,
    icmp_type: Option<String>,
    icmp_code: Option<String>,
    seed: u16,
    target: String,
    ignore_missing: bool,
}

impl CommunityId {
    pub fn new(c: &mut Config) -> OsResult<CommunityId> {
        let source_ip = c.req_str("source_ip_field")?;
        let source_port = c.opt_str("source_port_field")?;
        let destination_ip = c.req_str("destination_ip_field")?;
        let destination_port = c.opt_str("destination_port_field")?;
        let iana_number = c.opt_str("iana_protocol_number_field")?;
        let protocol = c.opt_str("protocol_field")?;
        let icmp_type = c.opt_str("icmp_type_field")?;
        let icmp_code = c.opt_str("icmp_code_field")?;
        let seed = match c.opt_value("seed") {
            None => 0,
            Some(Value::Number(n)) => n.as_i64().unwrap_or(-1),
            Some(Value::String(s)) => {
                s.parse().map_err(|_| c.err("seed", &format!("property cannot be converted to an int [{s}]")))?
            }
            Some(v) => {
                return Err(c.err(
                    "seed",
                    &format!("property isn't a number, but of type [{}]", super::super::config::java_type(&v)),
                ))
            }
        };
        let seed = u16::try_from(seed).map_err(|_| c.err("seed", "seed must be between 0 and 65535"))?;
        Ok(CommunityId {
            source_ip,
            source_port,
            destination_ip,
            destination_port,
            iana_number,
            protocol,
            icmp_type,
            icmp_code,
            seed,
            target: c.opt_str("target_field")?.unwrap_or_else(|| "community_id".into()),
            ignore_missing: c.bool("ignore_missing", false)?,
        })
    }
}

fn cast(field: &str, v: &Value, to: &str) -> OsError {
    OsError::illegal(format!(
        "field [{field}] of type [{}] cannot be cast to [{to}]",
        super::super::config::java_type(v)
    ))
}

fn int_field(doc: &IngestDocument, field: &str) -> OsResult<Option<i64>> {
    match doc.get_opt(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.as_i64().is_some_and(|x| i32::try_from(x).is_ok()) => Ok(n.as_i64()),
        Some(v) => Err(cast(field, v, "java.lang.Integer")),
    }
}

fn str_field(doc: &IngestDocument, field: &str) -> OsResult<Option<String>> {
    match doc.get_opt(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(cast(field, v, "java.lang.String")),
    }
}

/// ICMP (and ICMPv6) message types that have a reply type: the pair counts as two-way.
fn icmp_equivalent(v6: bool, t: i64) -> Option<i64> {
    const V4: &[(i64, i64)] =
        &[(0, 8), (8, 0), (9, 10), (10, 9), (13, 14), (14, 13), (15, 16), (16, 15), (17, 18), (18, 17)];
    const V6: &[(i64, i64)] = &[
        (128, 129),
        (129, 128),
        (130, 131),
        (131, 130),
        (133, 134),
        (134, 133),
        (135, 136),
        (136, 135),
        (139, 140),
        (140, 139),
        (144, 145),
        (145, 144),
    ];
    (if v6 { V6 } else { V4 }).iter().find(|(a, _)| *a == t).map(|(_, b)| *b)
}

impl CommunityId {
    /// `(code, transport)` of the flow's protocol; `None` to skip.
    fn protocol(&self, doc: &IngestDocument) -> OsResult<Option<(u8, bool)>> {
        let by_code = |n: i64| match n {
            1 => Some((1u8, false)),
            6 => Some((6, true)),
            17 => Some((17, true)),
            58 => Some((58, false)),
            132 => Some((132, true)),
            _ => None,
        };
        let number = match &self.iana_number {
            Some(f) if !f.is_empty() => int_field(doc, f)?,
            _ => None,
        };
        let name = match &self.protocol {
            Some(f) if !f.is_empty() => str_field(doc, f)?,
            _ => None,
        };
        if let Some(n) = number {
            return match by_code(n) {
                Some(p) => Ok(Some(p)),
                None => Err(OsError::illegal(format!("unsupported iana protocol number [{n}]"))),
            };
        }
        if let Some(name) = name {
            let p = match name.to_uppercase().as_str() {
                "ICMP" => by_code(1),
                "TCP" => by_code(6),
                "UDP" => by_code(17),
                "IPV6-ICMP" | "ICMP_V6" => by_code(58),
                "SCTP" => by_code(132),
                _ => None,
            };
            return p.map(Some).ok_or_else(|| OsError::illegal(format!("unsupported protocol [{name}]")));
        }
        if self.ignore_missing {
            return Ok(None);
        }
        Err(OsError::illegal(format!(
            "cannot resolve protocol by neither iana protocol number field [{}] nor protocol name field [{}]",
            self.iana_number.as_deref().unwrap_or("null"),
            self.protocol.as_deref().unwrap_or("null")
        )))
    }

    fn ip(&self, doc: &IngestDocument, field: &str) -> OsResult<Option<Vec<u8>>> {
        let Some(s) = str_field(doc, field)?.filter(|s| !s.is_empty()) else {
            if self.ignore_missing {
                return Ok(None);
            }
            return Err(OsError::illegal(format!("ip address in the field [{field}] is null or empty")));
        };
        match s.parse::<std::net::IpAddr>() {
            Ok(std::net::IpAddr::V4(a)) => Ok(Some(a.octets().to_vec())),
            Ok(std::net::IpAddr::V6(a)) => Ok(Some(a.octets().to_vec())),
            Err(_) => Err(OsError::illegal(format!(
                "ip address [{s}] in the field [{field}] is not a valid ipv4/ipv6 address"
            ))),
        }
    }

    fn port(&self, doc: &IngestDocument, field: &Option<String>) -> OsResult<Option<i64>> {
        let Some(f) = field.as_deref().filter(|f| !f.is_empty()) else {
            if self.ignore_missing {
                return Ok(None);
            }
            return Err(OsError::illegal("both source port and destination port field path cannot be null nor empty"));
        };
        match int_field(doc, f)? {
            None if self.ignore_missing => Ok(None),
            None => Err(OsError::illegal(format!(
                "both source port and destination port cannot be null, but port in the field path [{f}] is null"
            ))),
            // OpenSearch's bound is 63335 (its message says 65535).
            Some(p) if !(0..=63335).contains(&p) => Err(OsError::illegal(format!(
                "both source port and destination port must be between 0 and 65535, but port in the field path [{f}] is [{p}]"
            ))),
            Some(p) => Ok(Some(p)),
        }
    }

    fn icmp(&self, doc: &IngestDocument, field: &Option<String>, what: &str) -> OsResult<Option<i64>> {
        let Some(f) = field.as_deref().filter(|f| !f.is_empty()) else {
            if self.ignore_missing {
                return Ok(None);
            }
            return Err(OsError::illegal(format!("icmp message {what} field path cannot be null nor empty")));
        };
        match int_field(doc, f)? {
            None if self.ignore_missing => Ok(None),
            None => Err(OsError::illegal(format!("icmp message {what} cannot be null"))),
            Some(v) if !(0..=255).contains(&v) => Err(OsError::illegal(format!("invalid icmp message {what} [{v}]"))),
            Some(v) => Ok(Some(v)),
        }
    }
}

impl Op for CommunityId {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let Some((proto, transport)) = self.protocol(doc)? else { return Ok(Flow::Continue) };
        let Some(mut sip) = self.ip(doc, &self.source_ip)? else { return Ok(Flow::Continue) };
        let Some(mut dip) = self.ip(doc, &self.destination_ip)? else { return Ok(Flow::Continue) };
        if sip.len() != dip.len() {
            return Err(OsError::illegal("source ip and destination ip must have same format"));
        }
        let (mut sport, mut dport) = (0i64, 0i64);
        if transport {
            let Some(s) = self.port(doc, &self.source_port)? else { return Ok(Flow::Continue) };
            let Some(d) = self.port(doc, &self.destination_port)? else { return Ok(Flow::Continue) };
            (sport, dport) = (s, d);
        }
        let icmp = proto == 1 || proto == 58;
        let mut one_way = true;
        if icmp {
            let Some(t) = self.icmp(doc, &self.icmp_type, "type")? else { return Ok(Flow::Continue) };
            sport = t;
            match icmp_equivalent(proto == 58, t) {
                Some(code) => {
                    one_way = false;
                    dport = code;
                }
                None => {
                    let Some(c) = self.icmp(doc, &self.icmp_code, "code")? else { return Ok(Flow::Continue) };
                    dport = c;
                }
            }
        }
        let less = sip < dip || (sip == dip && sport < dport);
        if !less && (!icmp || !one_way) {
            std::mem::swap(&mut sip, &mut dip);
            std::mem::swap(&mut sport, &mut dport);
        }
        let mut msg = self.seed.to_be_bytes().to_vec();
        msg.extend_from_slice(&sip);
        msg.extend_from_slice(&dip);
        msg.push(proto);
        msg.push(0);
        msg.extend_from_slice(&(sport as u16).to_be_bytes());
        msg.extend_from_slice(&(dport as u16).to_be_bytes());
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD.encode(digest::sha1(&msg));
        doc.set(&self.target, Value::String(format!("1:{b64}")))?;
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(v: Value) -> IngestDocument {
        IngestDocument::new(v.as_object().cloned().unwrap_or_default(), &[])
    }

    fn run(op: &dyn Op, d: &mut IngestDocument) -> OsResult<Flow> {
        struct NoPipelines;
        impl super::super::super::pipeline::PipelineSource for NoPipelines {
            fn pipeline(&self, _id: &str) -> OsResult<Option<std::sync::Arc<super::super::super::pipeline::Pipeline>>> {
                Ok(None)
            }
        }
        let src = NoPipelines;
        let mut x = Exec::new(&src);
        op.run(d, &mut x)
    }

    fn config(v: Value) -> Config {
        Config { ty: "t".into(), tag: None, map: v.as_object().cloned().unwrap_or_default() }
    }

    #[test]
    fn community_id_matches_the_specification_example() {
        // The Community ID specification's TCP example (seed 0).
        let op = CommunityId::new(&mut config(json!({
            "source_ip_field": "s", "destination_ip_field": "d", "source_port_field": "sp",
            "destination_port_field": "dp", "protocol_field": "p"
        })))
        .unwrap();
        let mut d = doc(json!({"s": "128.232.110.120", "d": "66.35.250.204", "sp": 34855, "dp": 80, "p": "TCP"}));
        run(&op, &mut d).unwrap();
        assert_eq!(d.get("community_id").unwrap(), &json!("1:LQU9qZlK+B5F3KDmev6m5PMibrg="));
        // Direction does not matter.
        let mut r = doc(json!({"d": "128.232.110.120", "s": "66.35.250.204", "dp": 34855, "sp": 80, "p": "tcp"}));
        run(&op, &mut r).unwrap();
        assert_eq!(r.get("community_id").unwrap(), &json!("1:LQU9qZlK+B5F3KDmev6m5PMibrg="));
    }

    #[test]
    fn fingerprint_hashes_sorted_flattened_fields() {
        let op = Fingerprint::new(&mut config(json!({"fields": ["foo", "bar", "zoo"]}))).unwrap();
        let mut d = doc(json!({"foo": [1, 2, 3], "bar": {"field": {"innerField": "inner"}}, "zoo": null}));
        run(&op, &mut d).unwrap();
        assert_eq!(d.get("fingerprint").unwrap(), &json!("SHA-1@2.16.0:KYJ4pc4ouFmAbgZGp7CfNoykZeo="));
        assert!(Fingerprint::new(&mut config(json!({"hash_method": "x"}))).is_err());
        assert!(Fingerprint::new(&mut config(json!({"fields": ["a"], "exclude_fields": ["b"]}))).is_err());
    }
}
