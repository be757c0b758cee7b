//! Node filters for `*.routing.allocation.{require,include,exclude}.*` (OpenSearch's
//! `DiscoveryNodeFilters`): `_name`, `_id`, `_host`, `_ip`, `_host_ip`, `_publish_ip` or a node
//! attribute, each a comma-separated list of values with `*` wildcards. `require` (AND) needs
//! every filter to match; `include`/`exclude` (OR) match when any does.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

use super::settings::{list, value_str};
use super::AllocNode;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OpType {
    And,
    Or,
}

/// The filters of one group (`require`, `include` or `exclude`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodeFilters {
    op: OpType,
    filters: BTreeMap<String, Vec<String>>,
}

/// `Regex.simpleMatch`: `*` matches any run of characters.
pub(crate) fn simple_match(pattern: &str, s: &str) -> bool {
    let Some(star) = pattern.find('*') else { return pattern == s };
    if pattern == "*" {
        return true;
    }
    let (head, rest) = (&pattern[..star], &pattern[star + 1..]);
    if !s.starts_with(head) {
        return false;
    }
    let s = &s[head.len()..];
    if rest.is_empty() {
        return true;
    }
    (0..=s.len()).filter(|&i| s.is_char_boundary(i)).any(|i| simple_match(rest, &s[i..]))
}

impl NodeFilters {
    /// The filters under `prefix` (`cluster.routing.allocation.require.`), `None` when no key
    /// has a non-empty value (an empty value removes a filter). Tier filters are ignored.
    pub(crate) fn from_settings(m: &Map<String, Value>, prefix: &str, op: OpType) -> Option<NodeFilters> {
        let mut filters = BTreeMap::new();
        for (k, v) in m {
            let Some(attr) = k.strip_prefix(prefix) else { continue };
            if attr.is_empty() || attr.starts_with("_tier") {
                continue;
            }
            let values = value_str(v).map(|s| list(&s)).unwrap_or_default();
            if !values.is_empty() {
                filters.insert(attr.to_string(), values);
            }
        }
        (!filters.is_empty()).then_some(NodeFilters { op, filters })
    }

    /// Whether `node` matches.
    pub(crate) fn matches(&self, node: &AllocNode) -> bool {
        let or = self.op == OpType::Or;
        let publish_ip = node.transport_address.rsplit_once(':').map_or(node.transport_address.as_str(), |(ip, _)| ip);
        for (attr, values) in &self.filters {
            let candidates: Vec<&str> = match attr.as_str() {
                "_ip" => vec![node.host.as_str(), publish_ip],
                "_host_ip" => vec![node.host.as_str()],
                "_publish_ip" => vec![publish_ip],
                "_host" => vec![node.host.as_str()],
                "_id" => vec![node.id.as_str()],
                "_name" | "name" => vec![node.name.as_str()],
                a => match node.attributes.get(a) {
                    Some(v) => vec![v.as_str()],
                    None if or => continue,
                    None => return false,
                },
            };
            let exact = attr == "_id";
            if matches!(attr.as_str(), "_ip" | "_host_ip" | "_publish_ip") {
                // One decision for the whole list: any value matching any address.
                let m = values.iter().any(|p| candidates.iter().any(|c| simple_match(p, c)));
                match (or, m) {
                    (true, true) => return true,
                    (false, false) => return false,
                    _ => continue,
                }
            }
            for p in values {
                let m = candidates.iter().any(|c| if exact { p == c } else { simple_match(p, c) });
                if m && or {
                    return true;
                }
                if !m && !or {
                    return false;
                }
            }
        }
        !or
    }
}

/// `_id:"id1 OR id2",name:"a"`, as the deciders' messages print it.
impl fmt::Display for NodeFilters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = if self.op == OpType::And { " AND " } else { " OR " };
        let parts: Vec<String> = self.filters.iter().map(|(k, vs)| format!("{k}:\"{}\"", vs.join(op))).collect();
        f.write_str(&parts.join(","))
    }
}
