//! `logger.*` cluster settings: log levels that take effect as soon as a node applies them
//! (OpenSearch's `Loggers.setLevel`). `logger._root` sets the level of everything;
//! `logger.<name>` the level of one part of Fathom: its own module paths written with dots
//! (`logger.fathom.cluster.coordination`), or the OpenSearch package a user knows mapped to the
//! Fathom modules that do that work (`logger.org.opensearch.discovery` → the coordination). A
//! package Fathom has no counterpart for sets the level of all of Fathom rather than nothing.
//! The binary installs the hook that swaps its log filter ([`set_hook`]); library users and
//! tests without one only validate.

use std::sync::OnceLock;

use serde_json::{Map, Value};

type Hook = Box<dyn Fn(&str) + Send + Sync>;

static HOOK: OnceLock<(String, Hook)> = OnceLock::new();

/// Installs the filter swap: `base` is the filter the process started with, `hook` receives
/// the whole filter to use (base and the settings' directives).
pub fn set_hook(base: &str, hook: Hook) {
    let _ = HOOK.set((base.to_string(), hook));
}

/// OpenSearch's level names, as Fathom's filter levels; `Err` is OpenSearch's message.
pub fn level(v: &str) -> Result<&'static str, String> {
    Ok(match v.trim().to_ascii_uppercase().as_str() {
        "ALL" | "TRACE" => "trace",
        "DEBUG" => "debug",
        "INFO" => "info",
        "WARN" => "warn",
        "ERROR" | "FATAL" => "error",
        "OFF" => "off",
        _ => return Err(format!("Unknown level constant [{}].", v.trim().to_ascii_uppercase())),
    })
}

/// The Fathom module paths that do the work of an OpenSearch package.
fn targets(name: &str) -> Vec<String> {
    if name == "fathom" || name.starts_with("fathom.") {
        return vec![name.replace('.', "::")];
    }
    let pkg = name.strip_prefix("org.opensearch.").unwrap_or(name);
    let first = pkg.split('.').next().unwrap_or("");
    let mapped: &[&str] = match first {
        "cluster" | "gateway" | "indices" => &["fathom::cluster"],
        "discovery" | "coordination" => &["fathom::cluster::coordination"],
        "index" => &["fathom::shard", "fathom::engine"],
        "action" | "search" => &["fathom::action"],
        "transport" => &["fathom::transport"],
        "http" | "rest" => &["fathom::http"],
        "node" | "bootstrap" => &["fathom::node"],
        "tasks" => &["fathom::tasks"],
        "threadpool" => &["fathom::threadpool"],
        _ => &["fathom"],
    };
    mapped.iter().map(|s| s.to_string()).collect()
}

/// The filter directives of the effective cluster `settings` (after `base`).
pub fn directives(base: &str, settings: &Map<String, Value>) -> String {
    let mut out: Vec<String> = vec![base.to_string()];
    let mut named: Vec<(&String, &Value)> = settings.iter().filter(|(k, _)| k.starts_with("logger.")).collect();
    // The root first, then longer names after shorter ones (the more specific wins).
    named.sort_by_key(|(k, _)| (k.as_str() != "logger._root", k.len()));
    for (k, v) in named {
        let Some(lvl) = v.as_str().and_then(|s| level(s).ok()) else { continue };
        let name = &k["logger.".len()..];
        if name == "_root" {
            out.push(lvl.to_string());
        } else {
            out.extend(targets(name).into_iter().map(|t| format!("{t}={lvl}")));
        }
    }
    out.join(",")
}

/// Applies the `logger.*` settings of the effective cluster `settings` (no-op without a hook).
pub fn apply(settings: &Map<String, Value>) {
    if let Some((base, hook)) = HOOK.get() {
        hook(&directives(base, settings));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_become_filter_directives() {
        let m = json!({"logger.org.opensearch.discovery": "DEBUG", "logger._root": "warn",
                       "logger.fathom.http": "TRACE", "search.max_buckets": "3"});
        let d = directives("info", m.as_object().unwrap());
        assert_eq!(d, "info,warn,fathom::http=trace,fathom::cluster::coordination=debug");
        assert_eq!(level("fatal"), Ok("error"));
        assert_eq!(level("LOUD"), Err("Unknown level constant [LOUD].".to_string()));
        assert_eq!(targets("org.opensearch.somethingelse"), vec!["fathom".to_string()]);
    }
}
