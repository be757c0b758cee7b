//! Node settings: `config/fathom.yml` (OpenSearch's setting names, YAML nested maps or dotted
//! keys, lists) overridden by `-E key=value` arguments.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Flat node settings (`cluster.name` → `fathom`). Lists are stored comma-joined.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeSettings {
    map: BTreeMap<String, String>,
    /// The config directory the settings came from (`FATHOM_PATH_CONF`, else `config`): relative
    /// paths in settings (TLS certificates) resolve against it.
    conf_dir: Option<PathBuf>,
}

/// A configuration error (bad YAML, bad `-E`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn unquote(v: &str) -> String {
    let v = v.trim();
    if v.len() >= 2 && ((v.starts_with('"') && v.ends_with('"')) || (v.starts_with('\'') && v.ends_with('\''))) {
        v[1..v.len() - 1].to_string()
    } else {
        v.to_string()
    }
}

fn strip_comment(line: &str) -> &str {
    let mut in_q: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (c, in_q) {
            ('"' | '\'', None) => in_q = Some(c),
            (q, Some(open)) if q == open => in_q = None,
            ('#', None) if i == 0 || line[..i].ends_with(' ') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// Parses the YAML subset OpenSearch configs use: nested maps by indentation, `key: value`,
/// dotted keys, `- item` lists and `[a, b]` flow lists, comments.
pub fn parse_yaml(text: &str) -> Result<BTreeMap<String, String>, ConfigError> {
    let mut out = BTreeMap::new();
    // Stack of (indent, key prefix).
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut list_key: Option<(usize, String)> = None;
    for (n, raw) in text.lines().enumerate().take(100_000) {
        let line = strip_comment(raw);
        if line.trim().is_empty() || line.trim() == "---" {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let t = line.trim();
        if let Some(item) = t.strip_prefix("- ").or(if t == "-" { Some("") } else { None }) {
            let Some((li, key)) = &list_key else {
                return Err(ConfigError(format!("line {}: list item without a key", n + 1)));
            };
            if indent < *li {
                return Err(ConfigError(format!("line {}: bad indentation", n + 1)));
            }
            let e = out.entry(key.clone()).or_insert_with(String::new);
            if !e.is_empty() {
                e.push(',');
            }
            e.push_str(&unquote(item));
            continue;
        }
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let Some((k, v)) = t.split_once(':') else {
            return Err(ConfigError(format!("line {}: expected `key: value`, found [{t}]", n + 1)));
        };
        let key = match stack.last() {
            Some((_, p)) => format!("{p}.{}", unquote(k)),
            None => unquote(k),
        };
        let v = v.trim();
        if v.is_empty() {
            stack.push((indent, key.clone()));
            list_key = Some((indent, key));
        } else if let Some(inner) = v.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            let items: Vec<String> = inner.split(',').map(unquote).filter(|s| !s.is_empty()).collect();
            out.insert(key, items.join(","));
            list_key = None;
        } else {
            out.insert(key, unquote(v));
            list_key = None;
        }
    }
    Ok(out)
}

impl NodeSettings {
    /// Loads `config/fathom.yml` under `conf_dir` (if present) and applies `-E` overrides.
    pub fn load(conf_dir: Option<&Path>, overrides: &[String]) -> Result<NodeSettings, ConfigError> {
        let mut map = BTreeMap::new();
        let dir = conf_dir.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("config"));
        let file = dir.join("fathom.yml");
        if file.exists() {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| ConfigError(format!("cannot read [{}]: {e}", file.display())))?;
            map = parse_yaml(&text).map_err(|e| ConfigError(format!("{}: {}", file.display(), e.0)))?;
        }
        for o in overrides {
            let Some((k, v)) = o.split_once('=') else {
                return Err(ConfigError(format!("setting [{o}] must be of the form key=value")));
            };
            if k.is_empty() {
                return Err(ConfigError(format!("setting [{o}] must be of the form key=value")));
            }
            map.insert(k.to_string(), v.to_string());
        }
        Ok(NodeSettings { map, conf_dir: Some(dir) })
    }

    /// From explicit pairs (tests).
    pub fn from_pairs(pairs: &[(&str, &str)]) -> NodeSettings {
        NodeSettings { map: pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(), conf_dir: None }
    }

    /// The same settings read from config directory `dir` (tests).
    pub fn with_conf_dir(mut self, dir: &Path) -> NodeSettings {
        self.conf_dir = Some(dir.to_path_buf());
        self
    }

    /// The config directory (`config` when none was given).
    pub fn conf_dir(&self) -> PathBuf {
        self.conf_dir.clone().unwrap_or_else(|| PathBuf::from("config"))
    }

    /// A setting.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.map.get(key).map(String::as_str)
    }

    /// A setting or a default.
    pub fn get_or<'a>(&'a self, key: &str, default: &'a str) -> &'a str {
        self.get(key).unwrap_or(default)
    }

    /// Settings under a prefix, with the prefix removed (`node.attr.`).
    pub fn with_prefix(&self, prefix: &str) -> Vec<(String, String)> {
        self.map.iter().filter_map(|(k, v)| k.strip_prefix(prefix).map(|s| (s.to_string(), v.clone()))).collect()
    }

    /// Every setting.
    pub fn all(&self) -> &BTreeMap<String, String> {
        &self.map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested_and_dotted() {
        let y = "cluster.name: my-cluster # comment\nnode:\n  name: n1\n  attr:\n    zone: a\nnode.roles: [data, ingest]\npath:\n  repo:\n    - /tmp/a\n    - /tmp/b\nhttp.port: \"9201\"\n";
        let m = parse_yaml(y).unwrap();
        assert_eq!(m["cluster.name"], "my-cluster");
        assert_eq!(m["node.name"], "n1");
        assert_eq!(m["node.attr.zone"], "a");
        assert_eq!(m["node.roles"], "data,ingest");
        assert_eq!(m["path.repo"], "/tmp/a,/tmp/b");
        assert_eq!(m["http.port"], "9201");
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse_yaml("just words").is_err());
        assert!(parse_yaml("- orphan").is_err());
    }

    #[test]
    fn overrides_win() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("fathom.yml"), "cluster.name: a\n").unwrap();
        let s = NodeSettings::load(Some(dir.path()), &["cluster.name=b".into(), "node.attr.x=1".into()]).unwrap();
        assert_eq!(s.get("cluster.name"), Some("b"));
        assert_eq!(s.with_prefix("node.attr."), vec![("x".to_string(), "1".to_string())]);
        assert!(NodeSettings::load(Some(dir.path()), &["novalue".into()]).is_err());
    }
}
