//! `word_delimiter` and `word_delimiter_graph`: split words on delimiters, case changes and
//! letter/digit changes (`Wi-Fi` → `Wi`, `Fi`; `PowerShot500` → `Power`, `Shot`, `500`), with
//! optional catenations and the original.
//!
//! Break rules are Lucene's `WordDelimiterIterator.isBreak`: no break within one class, none
//! from an uppercase letter to any letter (`SHOTgun` stays whole), none between letters without
//! `split_on_case_change` or between letters and digits without `split_on_numerics`. A trailing
//! `'s` is dropped with `stem_english_possessive`. The graph variant puts catenations (and the
//! original) before the parts, spanning them (`positionLength`); the classic one after the
//! first part.

use std::collections::{HashMap, HashSet};

use super::error::AnalysisError;

use super::chain::TokenFilter;
use super::char_classes::is_letter;
use super::token_stream::TokenState;

/// The options of both filters (OpenSearch's names and defaults).
#[derive(Clone, Debug)]
pub struct WordDelimiter {
    /// Emit the letter parts (default true).
    pub generate_word_parts: bool,
    /// Emit the digit parts (default true).
    pub generate_number_parts: bool,
    /// Emit runs of letter parts joined (default false).
    pub catenate_words: bool,
    /// Emit runs of digit parts joined (default false).
    pub catenate_numbers: bool,
    /// Emit all parts joined (default false).
    pub catenate_all: bool,
    /// Split `camelCase` (default true).
    pub split_on_case_change: bool,
    /// Split `j2se` (default true).
    pub split_on_numerics: bool,
    /// Keep the original token (default false).
    pub preserve_original: bool,
    /// Drop a trailing `'s` (default true).
    pub stem_english_possessive: bool,
    /// Words left whole.
    pub protected_words: HashSet<String>,
    /// `word_delimiter_graph` output order and position lengths.
    pub graph: bool,
    /// Sub-token offsets inside the token (graph `adjust_offsets`, default true).
    pub adjust_offsets: bool,
    /// `type_table`: character classes overriding the default ones (Lucene's type bits).
    pub type_table: HashMap<char, u8>,
}

impl Default for WordDelimiter {
    fn default() -> Self {
        WordDelimiter {
            generate_word_parts: true,
            generate_number_parts: true,
            catenate_words: false,
            catenate_numbers: false,
            catenate_all: false,
            split_on_case_change: true,
            split_on_numerics: true,
            preserve_original: false,
            stem_english_possessive: true,
            protected_words: HashSet::new(),
            graph: false,
            adjust_offsets: true,
            type_table: HashMap::new(),
        }
    }
}

const LOWER: u8 = 1;
const UPPER: u8 = 2;
const DIGIT: u8 = 4;
const ALPHA: u8 = LOWER | UPPER;

fn class(c: char) -> u8 {
    if c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric() && !is_letter(c)) {
        DIGIT
    } else if is_letter(c) {
        if c.is_uppercase() {
            UPPER
        } else {
            LOWER
        }
    } else {
        0
    }
}

#[derive(Clone, Copy)]
struct Part {
    from: usize,
    to: usize,
    number: bool,
}

/// Lucene's `SUBWORD_DELIM` type bit.
const SUBWORD_DELIM: u8 = 8;

/// Parses `type_table` rules (`c => TYPE`, `\uXXXX` escapes allowed) as OpenSearch's
/// `WordDelimiterTokenFilterFactory.parseTypes`; a line starting with `#` that is not a rule is
/// a comment. Errors carry the line number, as OpenSearch's `Analysis.parseWordList`.
pub fn parse_type_table(rules: &[String]) -> Result<HashMap<char, u8>, AnalysisError> {
    let mut table = HashMap::new();
    for (line, rule) in rules.iter().enumerate() {
        let invalid = |detail: &str| {
            AnalysisError::illegal_argument(format!("Line [{}]: Invalid Mapping Rule : [{rule}]{detail}", line + 1))
        };
        let Some((left, right)) = rule.rsplit_once("=>") else {
            if rule.starts_with('#') {
                continue;
            }
            return Err(invalid(""));
        };
        let left = unescape_rule(left.trim()).map_err(|_| invalid(""))?;
        let kind = match right.trim() {
            "LOWER" => LOWER,
            "UPPER" => UPPER,
            "ALPHA" => ALPHA,
            "DIGIT" => DIGIT,
            "ALPHANUM" => ALPHA | DIGIT,
            "SUBWORD_DELIM" => SUBWORD_DELIM,
            _ => return Err(invalid(". Illegal type.")),
        };
        let mut chars = left.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => {
                table.insert(c, kind);
            }
            _ => return Err(invalid(". Only a single character is allowed.")),
        }
    }
    Ok(table)
}

/// The escapes of `type_table` rules (`\\`, `\n`, `\t`, `\r`, `\b`, `\f`, `\uXXXX`).
fn unescape_rule(s: &str) -> Result<String, ()> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next().ok_or(())? {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                if hex.len() != 4 {
                    return Err(());
                }
                u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).ok_or(())?
            }
            other => other,
        });
    }
    Ok(out)
}

impl WordDelimiter {
    /// The class of `c`: the type table's, else the default; delimiters are 0.
    fn class_of(&self, c: char) -> u8 {
        match self.type_table.get(&c) {
            Some(&kind) if kind & SUBWORD_DELIM != 0 => 0,
            Some(&kind) => kind,
            None => class(c),
        }
    }

    fn is_break(&self, last: u8, current: u8) -> bool {
        if current & last != 0 {
            return false;
        }
        if !self.split_on_case_change && last & ALPHA != 0 && current & ALPHA != 0 {
            return false;
        }
        if last & UPPER != 0 && current & ALPHA != 0 {
            return false;
        }
        if !self.split_on_numerics
            && ((last & ALPHA != 0 && current & DIGIT != 0) || (last & DIGIT != 0 && current & ALPHA != 0))
        {
            return false;
        }
        true
    }

    fn parts(&self, term: &str) -> Vec<Part> {
        let mut end = term.len();
        if self.stem_english_possessive {
            for suffix in ["'s", "'S"] {
                if let Some(stripped) = term.strip_suffix(suffix) {
                    if stripped.chars().last().is_some_and(|c| self.class_of(c) & ALPHA != 0) {
                        end = stripped.len();
                    }
                }
            }
        }
        let mut parts = Vec::new();
        let mut current: Option<(usize, u8)> = None;
        for (i, c) in term[..end].char_indices() {
            let kind = self.class_of(c);
            match current {
                Some((start, last)) if kind == 0 => {
                    parts.push(Part { from: start, to: i, number: last == DIGIT });
                    current = None;
                }
                Some((start, last)) if self.is_break(last, kind) => {
                    parts.push(Part { from: start, to: i, number: last == DIGIT });
                    current = Some((i, kind));
                }
                Some((start, _)) => current = Some((start, kind)),
                None if kind != 0 => current = Some((i, kind)),
                None => {}
            }
        }
        if let Some((start, last)) = current {
            parts.push(Part { from: start, to: end, number: last == DIGIT });
        }
        if self.stem_english_possessive {
            // A `'s` inside the term (`Neil's-Super`) is dropped like a trailing one.
            let bytes = term.as_bytes();
            parts.retain(|p| {
                let is_s = &term[p.from..p.to] == "s" || &term[p.from..p.to] == "S";
                let after_apostrophe = p.from >= 2
                    && bytes.get(p.from - 1) == Some(&b'\'')
                    && bytes.get(p.from - 2).is_some_and(u8::is_ascii_alphabetic);
                let at_boundary = p.to == end || term[p.to..].chars().next().is_some_and(|c| self.class_of(c) == 0);
                !(is_s && after_apostrophe && at_boundary)
            });
        }
        parts
    }
}

impl TokenFilter for WordDelimiter {
    fn filter(&self, tokens: Vec<TokenState>, end_increment: &mut u32) -> Vec<TokenState> {
        let mut out = Vec::with_capacity(tokens.len() * 2);
        let mut pending = 0u32;
        for token in tokens {
            if self.protected_words.contains(&token.term) {
                let mut kept = token;
                kept.position_increment = kept.position_increment.saturating_add(std::mem::take(&mut pending));
                out.push(kept);
                continue;
            }
            let parts = self.parts(&token.term);
            if parts.len() == 1 && parts[0].from == 0 && parts[0].to == token.term.len() {
                let mut kept = token;
                kept.position_increment = kept.position_increment.saturating_add(std::mem::take(&mut pending));
                out.push(kept);
                continue;
            }
            let adjust = self.adjust_offsets && token.end.saturating_sub(token.start) == token.term.len();
            let make = |from: usize, to: usize, text: String| {
                let (start, end) =
                    if adjust { (token.start + from, token.start + to) } else { (token.start, token.end) };
                let mut t = TokenState::new(&text, start, end, token.token_type);
                t.position_increment = 0;
                t
            };
            // Which parts are emitted, and the catenations starting at each part.
            let emitted: Vec<bool> = parts
                .iter()
                .map(|p| if p.number { self.generate_number_parts } else { self.generate_word_parts })
                .collect();
            let mut catenations: Vec<Vec<(usize, TokenState)>> = vec![Vec::new(); parts.len()];
            let mut run = |same: &dyn Fn(&Part) -> bool, enabled: bool| {
                if !enabled {
                    return;
                }
                let mut i = 0;
                while i < parts.len() {
                    let mut j = i;
                    while j < parts.len() && same(&parts[j]) {
                        j += 1;
                    }
                    if j - i >= 2 {
                        let text: String = parts[i..j].iter().map(|p| &token.term[p.from..p.to]).collect();
                        catenations[i].push((j - i, make(parts[i].from, parts[j - 1].to, text)));
                    }
                    i = j.max(i + 1);
                }
            };
            run(&|p: &Part| !p.number, self.catenate_words);
            run(&|p: &Part| p.number, self.catenate_numbers);
            let all_covered = self.catenate_all && parts.len() >= 2;
            if all_covered {
                let text: String = parts.iter().map(|p| &token.term[p.from..p.to]).collect();
                let last = parts.len() - 1;
                let mut t = make(parts[0].from, parts[last].to, text);
                if catenations[0].iter().any(|(_, c)| c.term == t.term) {
                    t.term.clear();
                }
                if !t.term.is_empty() {
                    catenations[0].push((parts.len(), t));
                }
            }
            let first_out = out.len();
            let parts_emitted = emitted.iter().filter(|e| **e).count().max(1);
            if self.preserve_original {
                let mut original = token.clone();
                original.position_increment = 0;
                if self.graph {
                    original.position_length = u32::try_from(parts_emitted).unwrap_or(1);
                }
                out.push(original);
            }
            let mut advanced = false;
            for (i, part) in parts.iter().enumerate() {
                let part_token = make(part.from, part.to, token.term[part.from..part.to].to_owned());
                let mut cats: Vec<TokenState> = std::mem::take(&mut catenations[i])
                    .into_iter()
                    .map(|(span, mut c)| {
                        if self.graph {
                            c.position_length = u32::try_from(span).unwrap_or(1);
                        }
                        c
                    })
                    .collect();
                let mut group: Vec<TokenState> = Vec::new();
                if self.graph {
                    cats.sort_by_key(|c| std::cmp::Reverse(c.position_length));
                    group.extend(cats);
                    group.extend(emitted[i].then_some(part_token));
                } else {
                    group.extend(emitted[i].then_some(part_token));
                    group.extend(cats);
                }
                if let Some(first) = group.first_mut() {
                    first.position_increment = u32::from(advanced);
                    advanced = true;
                }
                out.extend(group);
            }
            match out.get_mut(first_out) {
                Some(first) => {
                    first.position_increment = token.position_increment.saturating_add(std::mem::take(&mut pending))
                }
                None => pending = pending.saturating_add(token.position_increment),
            }
        }
        *end_increment = end_increment.saturating_add(pending);
        out
    }
}
