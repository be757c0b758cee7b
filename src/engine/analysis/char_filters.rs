//! Char filters (`html_strip`, `mapping`, `pattern_replace`) and the offset corrections that map
//! offsets in their output back to their input (Lucene's `BaseCharFilter`).
//!
//! A correction is a list of `(output offset, cumulative difference)` points; an output offset
//! maps to itself plus the difference of the last point at or before it. A replacement of `L`
//! input bytes by `R` output bytes records, like Lucene's `MappingCharFilter`: when shorter, one
//! point just after the replacement (so a token ending there extends over the removed input, as
//! `<b>x</b>` gives `x` the offsets 3..8); when longer, one point per extra output byte, all
//! mapped to the last input byte of the match.

use std::collections::HashMap;
use std::fmt::Debug;

use regex::Regex;

use super::error::AnalysisError;

/// Rewrites the text before tokenization.
pub trait CharFilter: Send + Sync + Debug {
    /// The filtered text and how to map its offsets back.
    fn filter(&self, text: &str) -> (String, OffsetCorrection);
}

/// Maps byte offsets of a char filter's output to its input.
#[derive(Clone, Debug, Default)]
pub struct OffsetCorrection {
    points: Vec<(usize, isize)>,
}

impl OffsetCorrection {
    fn cumulative(&self) -> isize {
        self.points.last().map_or(0, |p| p.1)
    }

    fn record(&mut self, output: usize, diff: isize) {
        match self.points.last_mut() {
            Some(last) if last.0 == output => last.1 = diff,
            _ => self.points.push((output, diff)),
        }
    }

    /// Records that `input_len` bytes were replaced by `output_len` bytes starting at output
    /// offset `output_start`.
    pub fn replaced(&mut self, output_start: usize, input_len: usize, output_len: usize) {
        let previous = self.cumulative();
        if input_len > output_len {
            let grown = isize::try_from(input_len - output_len).unwrap_or(isize::MAX);
            self.record(output_start + output_len, previous.saturating_add(grown));
        } else if output_len > input_len {
            for extra in 0..output_len - input_len {
                let back = isize::try_from(extra + 1).unwrap_or(isize::MAX);
                self.record(output_start + input_len + extra, previous.saturating_sub(back));
            }
            // After the replacement, offsets continue from the end of the match.
            let shrunk = isize::try_from(output_len - input_len).unwrap_or(isize::MAX);
            self.record(output_start + output_len, previous.saturating_sub(shrunk));
        }
    }

    /// The input offset of output offset `offset`.
    pub fn correct(&self, offset: usize) -> usize {
        let index = self.points.partition_point(|p| p.0 <= offset);
        let diff = index.checked_sub(1).and_then(|i| self.points.get(i)).map_or(0, |p| p.1);
        let corrected = isize::try_from(offset).unwrap_or(isize::MAX).saturating_add(diff);
        usize::try_from(corrected).unwrap_or(0)
    }
}

/// `mapping`: replaces the longest matching key at each position by its value.
#[derive(Debug)]
pub struct MappingCharFilter {
    map: HashMap<String, String>,
    longest_key_chars: usize,
}

impl MappingCharFilter {
    /// From OpenSearch rules `key => value`, parsed as OpenSearch's `MappingCharFilterFactory`
    /// through `Analysis.parseWordList`: lines starting with `#` are comments, blank lines are
    /// skipped, the last `=>` splits the rule, both sides are trimmed and unescaped (`\\`,
    /// `\n`, `\t`, `\r`, `\b`, `\f`, `\uXXXX`; any other escaped character stands for
    /// itself, so `\"` is a quote and `\#` a hash), and errors name the line.
    pub fn from_rules(rules: &[String]) -> Result<Self, AnalysisError> {
        let mut map = HashMap::new();
        for (index, rule) in rules.iter().enumerate() {
            if rule.trim().is_empty() || rule.starts_with('#') {
                continue;
            }
            let at_line = |reason: String| AnalysisError::illegal_argument(format!("Line [{}]: {reason}", index + 1));
            let Some((left, right)) = rule.rsplit_once("=>") else {
                return Err(at_line(format!("Invalid mapping rule : [{rule}]")));
            };
            let left = parse_rule_string(left.trim()).map_err(at_line)?;
            let right = parse_rule_string(right.trim()).map_err(at_line)?;
            if left.is_empty() {
                return Err(AnalysisError::illegal_argument("cannot match the empty string"));
            }
            if map.contains_key(&left) {
                return Err(AnalysisError::illegal_argument(format!("match \"{left}\" was already added")));
            }
            map.insert(left, right);
        }
        let longest_key_chars = map.keys().map(|k| k.chars().count()).max().unwrap_or(0);
        Ok(MappingCharFilter { map, longest_key_chars })
    }
}

/// One side of a mapping rule, unescaped as OpenSearch's `MappingCharFilterFactory.parseString`.
fn parse_rule_string(s: &str) -> Result<String, String> {
    let invalid = || format!("Invalid escaped char in [{s}]");
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next().ok_or_else(invalid)? {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                if hex.chars().count() != 4 {
                    return Err(invalid());
                }
                let unit = u32::from_str_radix(&hex, 16).map_err(|_| format!("For input string: \"{hex}\""))?;
                char::from_u32(unit).ok_or_else(invalid)?
            }
            other => other,
        });
    }
    Ok(out)
}

/// Resolves the escapes of mapping and synonym rules.
pub fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(decoded) => out.push(decoded),
                    None => out.push_str(&hex),
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

impl CharFilter for MappingCharFilter {
    fn filter(&self, text: &str) -> (String, OffsetCorrection) {
        let mut out = String::with_capacity(text.len());
        let mut correction = OffsetCorrection::default();
        let mut pos = 0;
        while pos < text.len() {
            let rest = &text[pos..];
            let mut ends: Vec<usize> =
                rest.char_indices().skip(1).map(|(i, _)| i).take(self.longest_key_chars).collect();
            if ends.len() < self.longest_key_chars {
                ends.push(rest.len());
            }
            let found = ends.iter().rev().find_map(|&end| self.map.get(&rest[..end]).map(|v| (end, v)));
            match found {
                Some((len, value)) => {
                    correction.replaced(out.len(), len, value.len());
                    out.push_str(value);
                    pos += len;
                }
                None => {
                    let len = rest.chars().next().map_or(1, char::len_utf8);
                    out.push_str(&rest[..len]);
                    pos += len;
                }
            }
        }
        (out, correction)
    }
}

/// `pattern_replace` (char filter): replaces every match of `pattern` by `replacement`.
#[derive(Debug)]
pub struct PatternReplaceCharFilter {
    pattern: Regex,
    replacement: String,
}

impl PatternReplaceCharFilter {
    /// From a Java regex and a Java replacement (`$1` groups).
    pub fn new(pattern: Regex, java_replacement: &str) -> Self {
        PatternReplaceCharFilter { pattern, replacement: java_replacement_syntax(java_replacement) }
    }
}

/// Converts a Java replacement string (`$1`, `\$`) to the regex crate's (`${1}`, `$$`).
pub fn java_replacement_syntax(java: &str) -> String {
    let mut out = String::with_capacity(java.len());
    let mut chars = java.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('$') => out.push_str("$$"),
                Some(other) => out.push(other),
                None => {}
            },
            '$' => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    digits.push(*d);
                    chars.next();
                }
                if digits.is_empty() {
                    out.push('$');
                } else {
                    out.push_str(&format!("${{{digits}}}"));
                }
            }
            _ => out.push(c),
        }
    }
    out
}

impl CharFilter for PatternReplaceCharFilter {
    fn filter(&self, text: &str) -> (String, OffsetCorrection) {
        let mut out = String::with_capacity(text.len());
        let mut correction = OffsetCorrection::default();
        let mut last = 0;
        for captures in self.pattern.captures_iter(text) {
            let Some(whole) = captures.get(0) else { continue };
            out.push_str(&text[last..whole.start()]);
            let before = out.len();
            captures.expand(&self.replacement, &mut out);
            correction.replaced(before, whole.len(), out.len() - before);
            last = whole.end();
        }
        out.push_str(&text[last..]);
        (out, correction)
    }
}
