//! Java regular expressions (`java.util.regex`) as the `regex` crate compiles them.
//!
//! The syntaxes agree on what analysis patterns use, except that Java's `\w`, `\W`, `\d`, `\D`,
//! `\s`, `\S` and `\b` are ASCII-only by default while the crate's are Unicode: they are
//! rewritten to ASCII classes. Java `flags` (`CASE_INSENSITIVE|COMMENTS|...`) become inline flags.
//! Look-around and back-references, which the crate does not have, are errors.

use regex::Regex;

use super::error::AnalysisError;

/// Compiles a Java pattern with OpenSearch's `flags` setting.
pub fn java_regex(pattern: &str, flags: &str) -> Result<Regex, AnalysisError> {
    let mut inline = String::new();
    for flag in flags.split('|').map(str::trim).filter(|f| !f.is_empty()) {
        match flag {
            "CASE_INSENSITIVE" => inline.push('i'),
            "MULTILINE" => inline.push('m'),
            "DOTALL" => inline.push('s'),
            "COMMENTS" => inline.push('x'),
            "UNICODE_CASE" | "UNICODE_CHARACTER_CLASS" | "CANON_EQ" | "LITERAL" | "UNIX_LINES" => {}
            other => {
                return Err(AnalysisError::illegal_argument(format!("Unknown regex flag [{other}]")));
            }
        }
    }
    let unicode_classes = flags.contains("UNICODE_CHARACTER_CLASS");
    let mut translated = String::with_capacity(pattern.len() + 16);
    if !inline.is_empty() {
        translated.push_str(&format!("(?{inline})"));
    }
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            translated.push(c);
            continue;
        }
        let Some(next) = chars.next() else {
            translated.push('\\');
            break;
        };
        let ascii = match next {
            'w' => "[0-9A-Za-z_]",
            'W' => "[^0-9A-Za-z_]",
            'd' => "[0-9]",
            'D' => "[^0-9]",
            's' => "[ \\t\\n\\x0B\\f\\r]",
            'S' => "[^ \\t\\n\\x0B\\f\\r]",
            'b' => "(?-u:\\b)",
            _ => "",
        };
        if ascii.is_empty() || unicode_classes {
            translated.push('\\');
            translated.push(next);
        } else {
            translated.push_str(ascii);
        }
    }
    Regex::new(&translated).map_err(|e| {
        AnalysisError::illegal_argument(format!(
            "Invalid regex pattern [{pattern}]: {}",
            e.to_string().lines().last().unwrap_or("")
        ))
    })
}
