//! The token filters that work token by token or on the whole list without lookahead rules:
//! case, folding, stop words, length limits, elision, patterns, digits, widths, Arabic/Persian
//! normalization, `limit`, `unique`, `fingerprint`, `pattern_capture`.

use std::collections::HashSet;
use std::sync::Arc;

use regex::Regex;

use super::ascii_folding::fold;
use super::chain::TokenFilter;
use super::char_filters::java_replacement_syntax;
use super::filters::{lowercase_char, StopWords};
use super::offsets::utf16_len;
use super::token_op::{rewrite, TokenOp};
use super::token_stream::TokenState;

/// `lowercase` (with `language`: `turkish` maps `I` to `ı`; `greek` also folds final sigma).
pub fn lowercase(language: Option<&str>) -> TokenOp {
    let turkish = language == Some("turkish");
    let greek = language == Some("greek");
    TokenOp::new("lowercase", true, move |token: &mut TokenState| {
        let lowered: String = token
            .term
            .chars()
            .map(|c| match c {
                'I' if turkish => 'ı',
                '\u{0130}' if turkish => 'i',
                'ς' if greek => 'σ',
                _ => lowercase_char(c),
            })
            .collect();
        token.term = lowered;
        true
    })
}

/// `uppercase`.
pub fn uppercase() -> TokenOp {
    TokenOp::new("uppercase", true, |token: &mut TokenState| {
        token.term = token
            .term
            .chars()
            .map(|c| {
                let mut upper = c.to_uppercase();
                match (upper.next(), upper.next()) {
                    (Some(u), None) => u,
                    _ => c,
                }
            })
            .collect();
        true
    })
}

/// `asciifolding`; with `preserve_original` the original follows the folded token at the same
/// position when they differ.
#[derive(Debug)]
pub struct AsciiFolding {
    /// Keep the unfolded token too.
    pub preserve_original: bool,
}

impl TokenFilter for AsciiFolding {
    fn filter(&self, tokens: Vec<TokenState>, _end: &mut u32) -> Vec<TokenState> {
        let mut out = Vec::with_capacity(tokens.len());
        for mut token in tokens {
            match fold(&token.term) {
                Some(folded) if self.preserve_original => {
                    let mut original = token.clone();
                    original.position_increment = 0;
                    token.term = folded;
                    out.push(token);
                    out.push(original);
                }
                Some(folded) => {
                    token.term = folded;
                    out.push(token);
                }
                None => out.push(token),
            }
        }
        out
    }
    fn normalizing(&self) -> bool {
        true
    }
}

/// `stop`: removes stop words; with `remove_trailing: false` a stop word ending the text stays.
pub fn stop(words: Arc<StopWords>, remove_trailing: bool) -> Arc<dyn TokenFilter> {
    Arc::new(Stop { words, remove_trailing })
}

#[derive(Debug)]
struct Stop {
    words: Arc<StopWords>,
    remove_trailing: bool,
}

impl TokenFilter for Stop {
    fn filter(&self, tokens: Vec<TokenState>, end_increment: &mut u32) -> Vec<TokenState> {
        let last = tokens.len().saturating_sub(1);
        let mut scratch = String::new();
        let mut out = Vec::with_capacity(tokens.len());
        let mut skipped = 0u32;
        for (i, mut token) in tokens.into_iter().enumerate() {
            let keep_last = !self.remove_trailing && i == last;
            if !keep_last && self.words.contains(&token.term, &mut scratch) {
                skipped = skipped.saturating_add(token.position_increment);
                continue;
            }
            token.position_increment = token.position_increment.saturating_add(std::mem::take(&mut skipped));
            out.push(token);
        }
        *end_increment = end_increment.saturating_add(skipped);
        out
    }
}

/// `trim`: strips leading and trailing whitespace from terms (offsets unchanged).
pub fn trim() -> TokenOp {
    TokenOp::new("trim", true, |token: &mut TokenState| {
        rewrite(token, |t| {
            let trimmed = t.trim_matches(|c: char| c.is_whitespace());
            (trimmed.len() != t.len()).then(|| trimmed.to_owned())
        });
        true
    })
}

/// `truncate`: keeps the first `length` characters (default 10).
pub fn truncate(length: usize) -> TokenOp {
    TokenOp::new("truncate", true, move |token: &mut TokenState| {
        if let Some((cut, _)) = token.term.char_indices().nth(length) {
            token.term.truncate(cut);
        }
        true
    })
}

/// `reverse`: reverses each term.
pub fn reverse() -> TokenOp {
    TokenOp::new("reverse", true, |token: &mut TokenState| {
        token.term = token.term.chars().rev().collect();
        true
    })
}

/// `length`: keeps terms of `min..=max` UTF-16 units.
pub fn length(min: usize, max: usize) -> TokenOp {
    TokenOp::new("length", false, move |token: &mut TokenState| {
        let len = utf16_len(&token.term);
        (min..=max).contains(&len)
    })
}

/// French articles Lucene's `ElisionFilter` removes by default.
pub const DEFAULT_ARTICLES: [&str; 13] =
    ["l", "m", "t", "qu", "n", "s", "j", "d", "c", "jusqu", "quoiqu", "lorsqu", "puisqu"];

/// `elision`: drops an article and its apostrophe (`l'avion` → `avion`).
pub fn elision(articles: HashSet<String>, ignore_case: bool) -> TokenOp {
    TokenOp::new("elision", true, move |token: &mut TokenState| {
        if let Some(index) = token.term.find(['\'', '\u{2019}']) {
            let prefix = &token.term[..index];
            let hit = if ignore_case { articles.contains(&prefix.to_lowercase()) } else { articles.contains(prefix) };
            if hit {
                let apostrophe_len = token.term[index..].chars().next().map_or(1, char::len_utf8);
                token.term.replace_range(..index + apostrophe_len, "");
            }
        }
        true
    })
}

/// `pattern_replace` (token filter): replaces the first or every match in each term.
pub fn pattern_replace(pattern: Regex, java_replacement: &str, all: bool) -> TokenOp {
    let replacement = java_replacement_syntax(java_replacement);
    TokenOp::new("pattern_replace", true, move |token: &mut TokenState| {
        let replaced = if all {
            pattern.replace_all(&token.term, replacement.as_str())
        } else {
            pattern.replace(&token.term, replacement.as_str())
        };
        if let std::borrow::Cow::Owned(new) = replaced {
            token.term = new;
        }
        true
    })
}

/// `decimal_digit`: Unicode decimal digits to ASCII.
pub fn decimal_digit() -> TokenOp {
    TokenOp::new("decimal_digit", true, |token: &mut TokenState| {
        rewrite(token, |t| (!t.is_ascii()).then(|| t.chars().map(ascii_digit).collect()));
        true
    })
}

fn ascii_digit(c: char) -> char {
    if c.is_ascii() || !is_nd(c) {
        return c;
    }
    // Decimal digit blocks are runs of ten from zero: count the Nd characters before this one.
    let mut value = 0u32;
    let mut code = c as u32;
    while value < 9 {
        match code.checked_sub(1).and_then(char::from_u32) {
            Some(previous) if is_nd(previous) => {
                value += 1;
                code -= 1;
            }
            _ => break,
        }
    }
    char::from_digit(value % 10, 10).unwrap_or(c)
}

fn is_nd(c: char) -> bool {
    static ND: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let mut buf = [0u8; 4];
    ND.get_or_init(|| Regex::new(r"^\p{Nd}$").expect("a constant, valid pattern")).is_match(c.encode_utf8(&mut buf))
}

/// `apostrophe`: drops an apostrophe and everything after it.
pub fn apostrophe() -> TokenOp {
    TokenOp::new("apostrophe", false, |token: &mut TokenState| {
        if let Some(index) = token.term.find(['\'', '\u{2019}']) {
            token.term.truncate(index);
        }
        true
    })
}

/// `classic` (after the classic tokenizer): drops `'s` of `<APOSTROPHE>` tokens and the dots of
/// `<ACRONYM>`s.
pub fn classic() -> TokenOp {
    TokenOp::new("classic", false, |token: &mut TokenState| {
        match token.token_type {
            "<APOSTROPHE>" if (token.term.ends_with("'s") || token.term.ends_with("'S")) => {
                let cut = token.term.len() - 2;
                token.term.truncate(cut);
            }
            "<ACRONYM>" => token.term.retain(|c| c != '.'),
            _ => {}
        }
        true
    })
}

/// Halfwidth katakana U+FF65..=U+FF9F as fullwidth (Lucene's `CJKWidthFilter`).
const HALFWIDTH_KANA: [u32; 59] = [
    0x30fb, 0x30f2, 0x30a1, 0x30a3, 0x30a5, 0x30a7, 0x30a9, 0x30e3, 0x30e5, 0x30e7, 0x30c3, 0x30fc, 0x30a2, 0x30a4,
    0x30a6, 0x30a8, 0x30aa, 0x30ab, 0x30ad, 0x30af, 0x30b1, 0x30b3, 0x30b5, 0x30b7, 0x30b9, 0x30bb, 0x30bd, 0x30bf,
    0x30c1, 0x30c4, 0x30c6, 0x30c8, 0x30ca, 0x30cb, 0x30cc, 0x30cd, 0x30ce, 0x30cf, 0x30d2, 0x30d5, 0x30d8, 0x30db,
    0x30de, 0x30df, 0x30e0, 0x30e1, 0x30e2, 0x30e4, 0x30e6, 0x30e8, 0x30e9, 0x30ea, 0x30eb, 0x30ec, 0x30ed, 0x30ef,
    0x30f3, 0x3099, 0x309a,
];

/// `cjk_width`: fullwidth ASCII to ASCII, halfwidth katakana to fullwidth (a halfwidth voiced
/// or semi-voiced mark composes with the kana before it: `ﾄﾞ` → `ド`).
pub fn cjk_width() -> TokenOp {
    TokenOp::new("cjk_width", true, |token: &mut TokenState| {
        if token.term.is_ascii() {
            return true;
        }
        let mut out: Vec<char> = Vec::with_capacity(token.term.len());
        for c in token.term.chars() {
            let code = c as u32;
            if let (0xFF9E | 0xFF9F, Some(last)) = (code, out.last_mut()) {
                let base = *last as u32;
                let voiced = code == 0xFF9E;
                let composed = match base {
                    0x30A6 if voiced => Some(0x30F4),
                    0x30AB..=0x30C2 | 0x30C4..=0x30C8 if voiced && (base % 2 == 1) == (base < 0x30C3) => Some(base + 1),
                    0x30CF..=0x30DD if (base - 0x30CF) % 3 == 0 => Some(base + if voiced { 1 } else { 2 }),
                    _ => None,
                };
                if let Some(composed) = composed.and_then(char::from_u32) {
                    *last = composed;
                    continue;
                }
            }
            out.push(match code {
                0xFF01..=0xFF5E => char::from_u32(code - 0xFEE0).unwrap_or(c),
                0xFF65..=0xFF9F => {
                    HALFWIDTH_KANA.get((code - 0xFF65) as usize).and_then(|&k| char::from_u32(k)).unwrap_or(c)
                }
                _ => c,
            });
        }
        token.term = out.into_iter().collect();
        true
    })
}

/// `arabic_normalization` (Lucene's `ArabicNormalizer`).
pub fn arabic_normalization() -> TokenOp {
    TokenOp::new("arabic_normalization", true, |token: &mut TokenState| {
        token.term = token
            .term
            .chars()
            .filter(|c| !matches!(*c as u32, 0x0640 | 0x064B..=0x0652))
            .map(|c| match c {
                '\u{0622}' | '\u{0623}' | '\u{0625}' => '\u{0627}',
                '\u{0629}' => '\u{0647}',
                '\u{0649}' => '\u{064A}',
                _ => c,
            })
            .collect();
        true
    })
}

/// `persian_normalization` (Lucene's `PersianNormalizer`).
pub fn persian_normalization() -> TokenOp {
    TokenOp::new("persian_normalization", true, |token: &mut TokenState| {
        token.term = token
            .term
            .chars()
            .filter(|c| *c != '\u{0654}')
            .map(|c| match c {
                '\u{06CC}' => '\u{064A}',
                '\u{06A9}' => '\u{0643}',
                '\u{06C0}' | '\u{06C1}' | '\u{0629}' => '\u{0647}',
                _ => c,
            })
            .collect();
        true
    })
}

/// `limit`: the first `max_token_count` tokens (default 1).
#[derive(Debug)]
pub struct Limit {
    /// How many tokens pass.
    pub max_token_count: usize,
}

impl TokenFilter for Limit {
    fn filter(&self, mut tokens: Vec<TokenState>, _end: &mut u32) -> Vec<TokenState> {
        tokens.truncate(self.max_token_count);
        tokens
    }
}

/// `unique`: drops repeated terms (only at the same position with `only_on_same_position`);
/// positions are not adjusted, as in OpenSearch's `UniqueTokenFilter`.
#[derive(Debug)]
pub struct Unique {
    /// Only drop a term repeated at one position.
    pub only_on_same_position: bool,
}

impl TokenFilter for Unique {
    fn filter(&self, tokens: Vec<TokenState>, _end: &mut u32) -> Vec<TokenState> {
        let mut seen = HashSet::new();
        let mut out = Vec::with_capacity(tokens.len());
        for token in tokens {
            if self.only_on_same_position && token.position_increment > 0 {
                seen.clear();
            }
            if seen.insert(token.term.clone()) {
                out.push(token);
            }
        }
        out
    }
}

/// `fingerprint`: one token of the sorted distinct terms joined by `separator`, none when longer
/// than `max_output_size`.
#[derive(Debug)]
pub struct Fingerprint {
    /// Joins terms (default a space).
    pub separator: String,
    /// Longest output in characters (default 255).
    pub max_output_size: usize,
}

impl TokenFilter for Fingerprint {
    fn filter(&self, tokens: Vec<TokenState>, _end: &mut u32) -> Vec<TokenState> {
        let Some(first) = tokens.first() else { return tokens };
        let end = tokens.iter().map(|t| t.end).max().unwrap_or(first.end);
        let mut terms: Vec<&str> = tokens.iter().map(|t| t.term.as_str()).collect();
        terms.sort_unstable();
        terms.dedup();
        let joined = terms.join(&self.separator);
        if joined.chars().count() > self.max_output_size {
            return Vec::new();
        }
        vec![TokenState::new(&joined, 0, end, "fingerprint")]
    }
}

/// `pattern_capture`: the original token (with `preserve_original`) and every capture group of
/// every pattern, stacked at its position.
#[derive(Debug)]
pub struct PatternCapture {
    /// The patterns.
    pub patterns: Vec<Regex>,
    /// Emit the original too (default true).
    pub preserve_original: bool,
}

impl TokenFilter for PatternCapture {
    fn filter(&self, tokens: Vec<TokenState>, _end: &mut u32) -> Vec<TokenState> {
        let mut out = Vec::with_capacity(tokens.len());
        for token in tokens {
            let mut captures: Vec<String> = Vec::new();
            for pattern in &self.patterns {
                for found in pattern.captures_iter(&token.term) {
                    let groups = if found.len() > 1 { 1..found.len() } else { 0..1 };
                    for group in groups {
                        if let Some(m) = found.get(group).filter(|m| !m.is_empty()) {
                            let whole = m.start() == 0 && m.end() == token.term.len();
                            if (!whole || !self.preserve_original) && !captures.iter().any(|c| c == m.as_str()) {
                                captures.push(m.as_str().to_owned());
                            }
                        }
                    }
                }
            }
            let first = out.len();
            if self.preserve_original || captures.is_empty() {
                out.push(token.clone());
            }
            for capture in captures {
                let mut t = token.clone();
                t.term = capture;
                t.position_increment = if out.len() == first { token.position_increment } else { 0 };
                out.push(t);
            }
        }
        out
    }
}
