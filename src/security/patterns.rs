//! The security plugin's name patterns (its `WildcardMatcher`): `*` matches everything, a
//! pattern with `*`/`?` is a glob, `/…/` is a whole-string regex, anything else is an exact
//! name. Used for action names, index patterns and role-mapping users/backend roles/hosts.
//! Index patterns may hold `${user.name}`, `${user_name}`, `${user.roles}`, `${user_roles}` and
//! `${attr.<source>.<name>}` placeholders, substituted per user before compiling.

use std::borrow::Cow;

/// A compiled pattern.
#[derive(Debug, Clone)]
pub enum Pattern {
    /// `*`.
    Any,
    Exact(String),
    /// `abc*`: the common glob, matched without the general loop.
    Prefix(String),
    Glob(String),
    Regex(regex::Regex),
    /// A `/…/` pattern whose regex does not compile: the plugin matches nothing with it.
    Never,
}

impl Pattern {
    pub fn new(p: &str) -> Pattern {
        if p == "*" {
            return Pattern::Any;
        }
        if p.len() >= 2 && p.starts_with('/') && p.ends_with('/') {
            return match regex::Regex::new(&format!("^(?:{})$", &p[1..p.len() - 1])) {
                Ok(r) => Pattern::Regex(r),
                Err(_) => Pattern::Never,
            };
        }
        match (p.find(['*', '?']), p.strip_suffix('*')) {
            (None, _) => Pattern::Exact(p.to_string()),
            (Some(_), Some(pre)) if !pre.contains(['*', '?']) => Pattern::Prefix(pre.to_string()),
            _ => Pattern::Glob(p.to_string()),
        }
    }

    pub fn matches(&self, s: &str) -> bool {
        match self {
            Pattern::Any => true,
            Pattern::Exact(e) => e == s,
            Pattern::Prefix(p) => s.starts_with(p.as_str()),
            Pattern::Glob(g) => glob(g.as_bytes(), s.as_bytes()),
            Pattern::Regex(r) => r.is_match(s),
            Pattern::Never => false,
        }
    }

    /// True for `*`, the pattern the plugin requires for actions over every index.
    pub fn is_any(&self) -> bool {
        matches!(self, Pattern::Any)
    }
}

/// `*` any run, `?` one byte; iterative with one backtrack point (linear in practice).
fn glob(p: &[u8], s: &[u8]) -> bool {
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, si));
            pi += 1;
        } else if let Some((sp, ss)) = star {
            pi = sp + 1;
            si = ss + 1;
            star = Some((sp, ss + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// Whether any of the patterns matches.
pub fn any_matches(patterns: &[Pattern], s: &str) -> bool {
    patterns.iter().any(|p| p.matches(s))
}

/// What a placeholder may be replaced with: the user's name, backend roles and attributes.
pub trait UserVars {
    fn name(&self) -> &str;
    fn backend_roles(&self) -> &[String];
    fn attribute(&self, key: &str) -> Option<&str>;
}

/// Substitutes the plugin's user placeholders; unknown `${…}` stay as written (so they match
/// nothing but a literal index of that name, as in the plugin).
pub fn substitute<'a>(pattern: &'a str, user: &dyn UserVars) -> Cow<'a, str> {
    if !pattern.contains("${") {
        return Cow::Borrowed(pattern);
    }
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut rest = pattern;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Cow::Owned(out);
        };
        let key = &after[..end];
        match key {
            "user.name" | "user_name" => out.push_str(user.name()),
            "user.roles" | "user_roles" => out.push_str(&user.backend_roles().join(",")),
            _ => match key.strip_prefix("attr.").and_then(|_| user.attribute(key)) {
                Some(v) => out.push_str(v),
                None => out.push_str(&rest[start..start + 2 + end + 1]),
            },
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct U;
    impl UserVars for U {
        fn name(&self) -> &str {
            "bob"
        }
        fn backend_roles(&self) -> &[String] {
            &[]
        }
        fn attribute(&self, key: &str) -> Option<&str> {
            (key == "attr.internal.dept").then_some("sales")
        }
    }

    #[test]
    fn kinds() {
        assert!(Pattern::new("*").matches("anything"));
        assert!(Pattern::new("logs-*").matches("logs-2024"));
        assert!(!Pattern::new("logs-*").matches("log"));
        assert!(Pattern::new("l?gs-*-x").matches("logs-a-b-x"));
        assert!(!Pattern::new("l?gs-*-x").matches("logs-a-b-y"));
        assert!(Pattern::new("*-x*").matches("a-x"));
        assert!(Pattern::new("/logs-\\d+/").matches("logs-12"));
        assert!(!Pattern::new("/logs-\\d+/").matches("xlogs-12"));
        assert!(!Pattern::new("/[/").matches("["));
        assert!(Pattern::new("exact").matches("exact"));
        assert!(!Pattern::new("exact").matches("exactly"));
    }

    #[test]
    fn placeholders() {
        assert_eq!(substitute("u-${user.name}-*", &U), "u-bob-*");
        assert_eq!(substitute("u-${user_name}", &U), "u-bob");
        assert_eq!(substitute("d-${attr.internal.dept}", &U), "d-sales");
        assert_eq!(substitute("d-${attr.internal.none}", &U), "d-${attr.internal.none}");
        assert_eq!(substitute("open-${user.name", &U), "open-${user.name");
    }
}
