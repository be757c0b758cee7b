//! The tokenizers of OpenSearch as [`Tokenizer`]s: the streaming ones of this module tree
//! (standard, letter, whitespace, keyword) adapted, plus `lowercase`, `char_group`,
//! `path_hierarchy` and the pattern tokenizers. N-grams are in [`super::ngram`].

use std::collections::HashSet;

use regex::Regex;

use super::chain::{collect_stream, Tokenizer};
use super::char_classes::{is_java_whitespace, is_letter};
use super::char_tokenizers::{CharClass, CharTokenizer, KeywordTokenizer};
use super::filters::lowercase_into;
use super::standard_tokenizer::StandardTokenizer;
use super::token_stream::TokenState;

/// `standard`, `letter`, `whitespace`, `lowercase` and `keyword`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BasicTokenizer {
    /// UAX #29 words, with `max_token_length`.
    Standard(usize),
    /// Runs of letters.
    Letter,
    /// Runs of letters, lowercased.
    Lowercase,
    /// Runs of non-whitespace, with `max_token_length`.
    Whitespace(usize),
    /// The whole text.
    Keyword,
}

impl Tokenizer for BasicTokenizer {
    fn tokenize(&self, text: &str, out: &mut Vec<TokenState>) {
        match *self {
            BasicTokenizer::Standard(max) => collect_stream(&mut StandardTokenizer::new(text, max), out),
            BasicTokenizer::Letter => collect_stream(&mut CharTokenizer::new(text, CharClass::Letter, 255), out),
            BasicTokenizer::Lowercase => {
                let first = out.len();
                collect_stream(&mut CharTokenizer::new(text, CharClass::Letter, 255), out);
                let mut lowered = String::new();
                for token in out.iter_mut().skip(first) {
                    lowercase_into(&token.term, &mut lowered);
                    std::mem::swap(&mut token.term, &mut lowered);
                }
            }
            BasicTokenizer::Whitespace(max) => {
                collect_stream(&mut CharTokenizer::new(text, CharClass::NonWhitespace, max), out)
            }
            BasicTokenizer::Keyword => collect_stream(&mut KeywordTokenizer::new(text), out),
        }
    }
}

/// Which characters a `char_group` tokenizer splits on (or which `token_chars` an n-gram
/// tokenizer keeps): Java's character classes and single characters.
#[derive(Clone, Debug, Default)]
pub struct CharSet {
    letter: bool,
    digit: bool,
    whitespace: bool,
    punctuation: bool,
    symbol: bool,
    chars: HashSet<char>,
}

impl CharSet {
    /// From OpenSearch names (`letter`, `digit`, `whitespace`, `punctuation`, `symbol`) and, when
    /// `single_chars`, single characters (`-`, `\n`); `custom` adds `custom_chars`.
    pub fn parse(items: &[String], single_chars: bool, custom_chars: &str) -> Result<Self, String> {
        let mut set = CharSet::default();
        for item in items {
            match item.as_str() {
                "letter" => set.letter = true,
                "digit" => set.digit = true,
                "whitespace" => set.whitespace = true,
                "punctuation" => set.punctuation = true,
                "symbol" => set.symbol = true,
                "custom" if !single_chars => set.chars.extend(custom_chars.chars()),
                other if single_chars => {
                    let unescaped = super::char_filters::unescape(other);
                    let mut chars = unescaped.chars();
                    match (chars.next(), chars.next()) {
                        (Some(c), None) => {
                            set.chars.insert(c);
                        }
                        _ => return Err(format!("Invalid escaped char in [{other}]")),
                    }
                }
                other => return Err(format!("Unknown token type: '{other}', must be one of [symbol, private_use, paragraph_separator, start_punctuation, unassigned, enclosing_mark, connector_punctuation, letter_number, other_number, math_symbol, lowercase_letter, space_separator, surrogate, initial_quote_punctuation, decimal_digit_number, digit, other_punctuation, dash_punctuation, currency_symbol, non_spacing_mark, format, modifier_letter, control, uppercase_letter, other_symbol, end_punctuation, modifier_symbol, other_letter, line_separator, titlecase_letter, letter, punctuation, combining_spacing_mark, final_quote_punctuation, custom, whitespace]")),
            }
        }
        Ok(set)
    }

    /// Whether the set is empty (for `token_chars`: keep every character).
    pub fn is_empty(&self) -> bool {
        !(self.letter || self.digit || self.whitespace || self.punctuation || self.symbol) && self.chars.is_empty()
    }

    /// Whether `c` is in the set.
    pub fn contains(&self, c: char) -> bool {
        (self.letter && is_letter(c))
            || (self.digit && is_decimal_digit(c))
            || (self.whitespace && is_java_whitespace(c))
            || (self.punctuation && is_punctuation(c))
            || (self.symbol && is_symbol(c))
            || self.chars.contains(&c)
    }
}

fn is_decimal_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric() && category_matches(c, "Nd"))
}

fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation() && !matches!(c, '$' | '+' | '<' | '=' | '>' | '^' | '`' | '|' | '~');
    }
    category_matches(c, "P")
}

fn is_symbol(c: char) -> bool {
    if c.is_ascii() {
        return matches!(c, '$' | '+' | '<' | '=' | '>' | '^' | '`' | '|' | '~');
    }
    category_matches(c, "S")
}

fn category_matches(c: char, category: &str) -> bool {
    let mut buf = [0u8; 4];
    match category {
        "P" => regex_p().is_match(c.encode_utf8(&mut buf)),
        "S" => regex_s().is_match(c.encode_utf8(&mut buf)),
        _ => regex_nd().is_match(c.encode_utf8(&mut buf)),
    }
}

macro_rules! static_regex {
    ($name:ident, $pattern:expr) => {
        fn $name() -> &'static Regex {
            static CELL: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
            CELL.get_or_init(|| Regex::new($pattern).expect("a constant, valid pattern"))
        }
    };
}
static_regex!(regex_p, r"^\p{P}$");
static_regex!(regex_s, r"^\p{S}$");
static_regex!(regex_nd, r"^\p{Nd}$");

/// `char_group`: splits on the characters of a [`CharSet`]; runs longer than
/// `max_token_length` UTF-16 units are split.
#[derive(Clone, Debug)]
pub struct CharGroupTokenizer {
    /// The separators.
    pub split_on: CharSet,
    /// Longest token (default 255).
    pub max_token_length: usize,
}

impl Tokenizer for CharGroupTokenizer {
    fn tokenize(&self, text: &str, out: &mut Vec<TokenState>) {
        runs(text, |c| !self.split_on.contains(c), self.max_token_length, out);
    }
}

/// Appends runs of characters accepted by `keep` (split every `max` UTF-16 units) as `word`s.
pub fn runs(text: &str, keep: impl Fn(char) -> bool, max: usize, out: &mut Vec<TokenState>) {
    let max = max.max(1);
    let mut start: Option<usize> = None;
    let mut units = 0;
    for (i, c) in text.char_indices() {
        if keep(c) {
            let s = *start.get_or_insert(i);
            units += c.len_utf16();
            if units >= max {
                let end = i + c.len_utf8();
                out.push(TokenState::new(&text[s..end], s, end, "word"));
                start = None;
                units = 0;
            }
        } else if let Some(s) = start.take() {
            out.push(TokenState::new(&text[s..i], s, i, "word"));
            units = 0;
        }
    }
    if let Some(s) = start {
        out.push(TokenState::new(&text[s..], s, text.len(), "word"));
    }
}

/// `pattern`: with `group` -1 the text between matches, else the given group of every match.
#[derive(Clone, Debug)]
pub struct PatternTokenizer {
    /// The pattern (default `\W+`).
    pub pattern: Regex,
    /// -1 to split, else the capture group to emit.
    pub group: i64,
}

impl Tokenizer for PatternTokenizer {
    fn tokenize(&self, text: &str, out: &mut Vec<TokenState>) {
        if self.group < 0 {
            split_on_matches(&self.pattern, text, out);
            return;
        }
        let group = usize::try_from(self.group).unwrap_or(usize::MAX);
        for captures in self.pattern.captures_iter(text) {
            if let Some(m) = captures.get(group).filter(|m| !m.is_empty()) {
                out.push(TokenState::new(m.as_str(), m.start(), m.end(), "word"));
            }
        }
    }
}

fn split_on_matches(pattern: &Regex, text: &str, out: &mut Vec<TokenState>) {
    let mut last = 0;
    for m in pattern.find_iter(text) {
        if m.start() > last {
            out.push(TokenState::new(&text[last..m.start()], last, m.start(), "word"));
        }
        last = last.max(m.end());
    }
    if last < text.len() {
        out.push(TokenState::new(&text[last..], last, text.len(), "word"));
    }
}

/// `simple_pattern` (matches are tokens) and `simple_pattern_split` (matches separate tokens).
#[derive(Clone, Debug)]
pub struct SimplePatternTokenizer {
    /// The pattern (Lucene regexp syntax; the common subset is the same).
    pub pattern: Regex,
    /// True for `simple_pattern_split`.
    pub split: bool,
}

impl Tokenizer for SimplePatternTokenizer {
    fn tokenize(&self, text: &str, out: &mut Vec<TokenState>) {
        if self.split {
            split_on_matches(&self.pattern, text, out);
        } else {
            for m in self.pattern.find_iter(text).filter(|m| !m.is_empty()) {
                out.push(TokenState::new(m.as_str(), m.start(), m.end(), "word"));
            }
        }
    }
}

/// `path_hierarchy`: every ancestor path (`/a`, `/a/b`, `/a/b/c`), stacked at one position;
/// `reverse` gives the suffixes instead.
#[derive(Clone, Debug)]
pub struct PathHierarchyTokenizer {
    /// The separator (default `/`).
    pub delimiter: char,
    /// What the separator becomes in tokens (default: the delimiter).
    pub replacement: char,
    /// Leading (or, reversed, trailing) parts to skip.
    pub skip: usize,
    /// Suffixes instead of prefixes.
    pub reverse: bool,
}

impl Tokenizer for PathHierarchyTokenizer {
    fn tokenize(&self, text: &str, out: &mut Vec<TokenState>) {
        let delimiters: Vec<usize> =
            text.char_indices().filter(|(_, c)| *c == self.delimiter).map(|(i, _)| i).collect();
        let d = self.delimiter.len_utf8();
        let mut spans: Vec<(usize, usize)> = Vec::new();
        if !self.reverse {
            // Parts start at 0 and at every delimiter but one at 0.
            let mut starts: Vec<usize> = vec![0];
            starts.extend(delimiters.iter().copied().filter(|&i| i > 0));
            let Some(&start) = starts.get(self.skip) else { return };
            for (k, _) in starts.iter().enumerate().skip(self.skip) {
                let end = starts.get(k + 1).copied().unwrap_or(text.len());
                if end > start {
                    spans.push((start, end));
                }
            }
        } else {
            let mut starts: Vec<usize> = vec![0];
            starts.extend(delimiters.iter().map(|&i| i + d).filter(|&i| i < text.len()));
            let keep = starts.len().saturating_sub(self.skip);
            let end = match starts.get(keep) {
                Some(&next) if self.skip > 0 => next.saturating_sub(d),
                _ => text.len(),
            };
            for &start in starts.iter().take(keep) {
                if end > start {
                    spans.push((start, end));
                }
            }
        }
        for (i, (start, end)) in spans.into_iter().enumerate() {
            let term: String =
                text[start..end].chars().map(|c| if c == self.delimiter { self.replacement } else { c }).collect();
            let mut token = TokenState::new(&term, start, end, "word");
            token.position_increment = u32::from(i == 0);
            out.push(token);
        }
    }
}
