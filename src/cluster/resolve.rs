//! Resolving index expressions (`a,b*,-b2,_all`, aliases) to concrete index names with
//! OpenSearch's `IndicesOptions`: `expand_wildcards`, `ignore_unavailable`, `allow_no_indices`.

use std::collections::BTreeSet;

use super::metadata::{IndexState, Metadata};
use crate::error::{OsError, OsResult};

/// Which indices wildcards expand to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExpandWildcards {
    pub open: bool,
    pub closed: bool,
    pub hidden: bool,
}

impl ExpandWildcards {
    /// Parses `open,closed,hidden,all,none`.
    pub fn parse(s: &str) -> OsResult<ExpandWildcards> {
        let mut e = ExpandWildcards { open: false, closed: false, hidden: false };
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "open" => e.open = true,
                "closed" => e.closed = true,
                "hidden" => e.hidden = true,
                "all" => e = ExpandWildcards { open: true, closed: true, hidden: true },
                "none" => {}
                other => {
                    return Err(OsError::illegal(format!(
                        "No enum constant org.opensearch.action.support.IndicesOptions.WildcardStates.{}",
                        other.to_ascii_uppercase()
                    )))
                }
            }
        }
        Ok(e)
    }
}

/// OpenSearch's `IndicesOptions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndicesOptions {
    pub ignore_unavailable: bool,
    pub allow_no_indices: bool,
    pub expand: ExpandWildcards,
    /// Closed indices are an error (`index_closed_exception`) when named explicitly.
    pub forbid_closed: bool,
}

impl IndicesOptions {
    /// Strict, open wildcards, no-match is an error only for explicit names (search default).
    pub fn lenient_expand_open() -> IndicesOptions {
        IndicesOptions {
            ignore_unavailable: false,
            allow_no_indices: true,
            expand: ExpandWildcards { open: true, closed: false, hidden: false },
            forbid_closed: true,
        }
    }
    /// Strict, open and closed wildcards (delete index, get index).
    pub fn strict_expand_open_closed() -> IndicesOptions {
        IndicesOptions {
            ignore_unavailable: false,
            allow_no_indices: true,
            expand: ExpandWildcards { open: true, closed: true, hidden: false },
            forbid_closed: false,
        }
    }
}

fn is_wildcard(s: &str) -> bool {
    s.contains('*')
}

/// Simple `*` glob matching (OpenSearch's `Regex.simpleMatch`).
pub fn glob(pattern: &str, s: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == s;
    }
    let mut rest = s;
    for (i, p) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(p) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return rest.len() >= p.len() && rest.ends_with(p);
        } else if let Some(pos) = rest.find(p) {
            rest = &rest[pos + p.len()..];
        } else {
            return false;
        }
    }
    true
}

/// Resolves an expression (comma-separated) to concrete index names, sorted.
pub fn resolve(md: &Metadata, expr: &str, opts: IndicesOptions) -> OsResult<Vec<String>> {
    let parts: Vec<&str> = expr.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    let mut out: BTreeSet<String> = BTreeSet::new();
    let all = parts.is_empty() || (parts.len() == 1 && (parts[0] == "_all" || parts[0] == "*" && opts.expand.open));
    let expand_ok = |name: &str, explicit_hidden: bool| -> bool {
        let Some(m) = md.indices.get(name) else { return false };
        let state_ok = match m.state {
            IndexState::Open => opts.expand.open,
            IndexState::Close => opts.expand.closed,
        };
        state_ok && (!m.hidden() || opts.expand.hidden || explicit_hidden)
    };
    if all {
        for n in md.indices.keys() {
            if expand_ok(n, false) {
                out.insert(n.clone());
            }
        }
    } else {
        for (i, p) in parts.iter().enumerate() {
            if let Some(neg) = p.strip_prefix('-').filter(|_| i > 0) {
                let remove: Vec<String> = out.iter().filter(|n| glob(neg, n)).cloned().collect();
                for r in remove {
                    out.remove(&r);
                }
                continue;
            }
            if is_wildcard(p) {
                let explicit_hidden = p.starts_with('.');
                for n in md.indices.keys() {
                    if glob(p, n) && expand_ok(n, explicit_hidden) {
                        out.insert(n.clone());
                    }
                }
                for m in md.indices.values() {
                    for a in m.aliases.keys() {
                        if glob(p, a) && expand_ok(&m.name, true) {
                            out.insert(m.name.clone());
                        }
                    }
                }
                continue;
            }
            if let Some(m) = md.indices.get(*p) {
                if m.state == IndexState::Close && opts.forbid_closed {
                    if opts.ignore_unavailable {
                        continue;
                    }
                    return Err(OsError::index_closed(&m.name, &m.uuid));
                }
                out.insert(m.name.clone());
                continue;
            }
            let targets = md.alias_indices(p);
            if !targets.is_empty() {
                for m in targets {
                    if m.state == IndexState::Close && opts.forbid_closed {
                        continue;
                    }
                    out.insert(m.name.clone());
                }
                continue;
            }
            if !opts.ignore_unavailable {
                return Err(OsError::index_not_found(p));
            }
        }
    }
    if out.is_empty() && !opts.allow_no_indices {
        return Err(OsError::index_not_found(if expr.is_empty() { "_all" } else { expr }));
    }
    Ok(out.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("a*", "abc"));
        assert!(glob("*c", "abc"));
        assert!(glob("a*c", "abc"));
        assert!(glob("*", ""));
        assert!(!glob("a*d", "abc"));
        assert!(glob("a*b*c", "aXbYc"));
        assert!(!glob("ab", "abc"));
    }

    #[test]
    fn expand_wildcards_parse() {
        assert_eq!(ExpandWildcards::parse("all").unwrap(), ExpandWildcards { open: true, closed: true, hidden: true });
        assert!(ExpandWildcards::parse("bogus").is_err());
    }
}
