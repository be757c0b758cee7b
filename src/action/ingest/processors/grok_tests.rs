use std::collections::HashMap;

use serde_json::{json, Value};

use super::super::grok_bank::PATTERNS;
use super::*;

fn fields(pattern: &str, text: &str, all: bool) -> Option<Vec<(String, Value)>> {
    let g = Grok::compile(pattern, &HashMap::new(), 0).expect("compiles");
    g.captures(text, all).expect("runs").map(|m| m.fields)
}

fn get<'a>(f: &'a [(String, Value)], name: &str) -> Option<&'a Value> {
    f.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

#[test]
fn every_builtin_pattern_compiles() {
    for (name, _) in PATTERNS {
        let r = Grok::compile(&format!("%{{{name}}}"), &HashMap::new(), 0);
        assert!(r.is_ok(), "{name}: {:?}", r.err());
    }
}

#[test]
fn ip_word_and_first_match_wins() {
    let f = fields("%{IP:a} %{IP:a} %{IP:a}", "192.168.1.1 10.0.0.1 172.16.0.1", false).unwrap();
    assert_eq!(get(&f, "a"), Some(&json!("192.168.1.1")));
    let f = fields("%{IP:a} %{IP:a} %{IP:a}", "192.168.1.1 10.0.0.1 172.16.0.1", true).unwrap();
    assert_eq!(get(&f, "a"), Some(&json!(["192.168.1.1", "10.0.0.1", "172.16.0.1"])));
    let f = fields("%{IPV6:v6}", "fe80::1", false).unwrap();
    assert_eq!(get(&f, "v6"), Some(&json!("fe80::1")));
    assert!(fields("%{WORD:w}", "   ", false).is_none());
}

#[test]
fn conversions() {
    let f = fields(
        "%{NUMBER:i:int} %{NUMBER:l:long} %{NUMBER:f:float} %{NUMBER:d:double} %{WORD:b:boolean}",
        "3 9000000000 1.5 2.25 TRUE",
        false,
    )
    .unwrap();
    assert_eq!(get(&f, "i"), Some(&json!(3)));
    assert_eq!(get(&f, "l"), Some(&json!(9_000_000_000i64)));
    assert_eq!(get(&f, "f"), Some(&json!(1.5)));
    assert_eq!(get(&f, "d"), Some(&json!(2.25)));
    assert_eq!(get(&f, "b"), Some(&json!(true)));
    let g = Grok::compile("%{NUMBER:i:int}", &HashMap::new(), 0).unwrap();
    assert!(g.captures("1.5", false).is_err(), "1.5 is not an int");
}

#[test]
fn apache_and_syslog_logs() {
    let line = r#"127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://example.com/" "Mozilla/4.08""#;
    let f = fields("%{COMBINEDAPACHELOG}", line, false).unwrap();
    assert_eq!(get(&f, "clientip"), Some(&json!("127.0.0.1")));
    assert_eq!(get(&f, "auth"), Some(&json!("frank")));
    assert_eq!(get(&f, "timestamp"), Some(&json!("10/Oct/2000:13:55:36 -0700")));
    assert_eq!(get(&f, "verb"), Some(&json!("GET")));
    assert_eq!(get(&f, "response"), Some(&json!("200")));
    assert_eq!(get(&f, "agent"), Some(&json!("\"Mozilla/4.08\"")));
    let f = fields("%{SYSLOGBASE} %{GREEDYDATA:msg}", "Mar  7 00:12:01 host1 sshd[42]: hello", false).unwrap();
    assert_eq!(get(&f, "logsource"), Some(&json!("host1")));
    assert_eq!(get(&f, "pid"), Some(&json!("42")));
    assert_eq!(get(&f, "msg"), Some(&json!("hello")));
    let f = fields("%{TIMESTAMP_ISO8601:ts} %{LOGLEVEL:lvl}", "2024-01-02T03:04:05Z WARN", false).unwrap();
    assert_eq!(get(&f, "ts"), Some(&json!("2024-01-02T03:04:05Z")));
    assert_eq!(get(&f, "lvl"), Some(&json!("WARN")));
}

#[test]
fn custom_inline_and_errors() {
    let mut custom = HashMap::new();
    custom.insert("TAGS".to_string(), "[a-z0-9]+".to_string());
    let g = Grok::compile("%{TAGS:t}-%{FOO:u=[A-Z]+}", &custom, 0).unwrap();
    let f = g.captures("abc-XYZ", false).unwrap().unwrap().fields;
    assert_eq!(get(&f, "t"), Some(&json!("abc")));
    assert_eq!(get(&f, "u"), Some(&json!("XYZ")));
    let e = Grok::compile("%{NOPE}", &HashMap::new(), 0).unwrap_err();
    assert_eq!(e, "Unable to find pattern [NOPE] in Grok's pattern dictionary");
    let mut cyc = HashMap::new();
    cyc.insert("A".to_string(), "%{B}".to_string());
    cyc.insert("B".to_string(), "%{A}".to_string());
    assert!(Grok::compile("%{A}", &cyc, 0).unwrap_err().starts_with("circular reference in pattern"));
    cyc.insert("S".to_string(), "x%{S}".to_string());
    assert_eq!(Grok::compile("%{S}", &cyc, 0).unwrap_err(), "circular reference in pattern [S][x%{S}]");
}

#[test]
fn traced_alternatives() {
    let p = vec!["a%{INT:n}".to_string(), "b%{INT:n}".to_string()];
    let g = Grok::compile(&combine(&p, true), &HashMap::new(), 2).unwrap();
    let m = g.captures("b7", false).unwrap().unwrap();
    assert_eq!(m.alt, Some(1));
    assert_eq!(get(&m.fields, "n"), Some(&json!("7")));
}

#[test]
fn bank_listing_sorted() {
    let v = bank_json(true);
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert!(v["IP"].is_string());
}

#[test]
fn raw_named_groups_capture() {
    let f = fields(r"(?<foo>\w+) (?<!x)%{INT:n}", "abc 12", false).unwrap();
    assert_eq!(get(&f, "foo"), Some(&json!("abc")));
    assert_eq!(get(&f, "n"), Some(&json!("12")));
    let f = fields(r"\(?<a>", "(?<a>", false).unwrap();
    assert!(f.is_empty(), "an escaped parenthesis is no group");
}
