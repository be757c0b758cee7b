//! Token filters: lowercase and stop words.

use std::sync::Arc;

use ahash::AHashSet;

use super::token_stream::{TokenState, TokenStream};

/// Lowercases one character as Lucene's `LowerCaseFilter` does: Java's per-code-point
/// `Character.toLowerCase` (simple case mapping, no context), so `İ` becomes `i` and a final `Σ`
/// becomes `σ`, not `ς`.
pub fn lowercase_char(c: char) -> char {
    if c == '\u{0130}' {
        return 'i'; // the one character whose full lowercase mapping (i + U+0307) differs
    }
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// Lowercases `term` into `out` (cleared first).
pub fn lowercase_into(term: &str, out: &mut String) {
    out.clear();
    out.extend(term.chars().map(lowercase_char));
}

/// Lucene's `LowerCaseFilter`.
#[derive(Debug)]
pub struct LowerCaseFilter<S> {
    input: S,
    scratch: String,
}

impl<S: TokenStream> LowerCaseFilter<S> {
    /// Lowercases the tokens of `input`.
    pub fn new(input: S) -> Self {
        LowerCaseFilter { input, scratch: String::new() }
    }
}

impl<S: TokenStream> TokenStream for LowerCaseFilter<S> {
    fn increment_token(&mut self, token: &mut TokenState) -> bool {
        if !self.input.increment_token(token) {
            return false;
        }
        if token.term.is_ascii() {
            token.term.make_ascii_lowercase();
        } else {
            lowercase_into(&token.term, &mut self.scratch);
            std::mem::swap(&mut token.term, &mut self.scratch);
        }
        true
    }
    fn end(&mut self) -> u32 {
        self.input.end()
    }
}

/// Lucene's English stop words (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`, OpenSearch `_english_`).
pub const ENGLISH_STOP_WORDS: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of",
    "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
];

/// A set of stop words (Lucene's `CharArraySet`).
#[derive(Clone, Debug, Default)]
pub struct StopWords {
    words: AHashSet<Box<str>>,
    ignore_case: bool,
}

impl StopWords {
    /// A set of `words`; with `ignore_case`, words and terms are compared lowercased.
    pub fn new<I, W>(words: I, ignore_case: bool) -> Self
    where
        I: IntoIterator<Item = W>,
        W: AsRef<str>,
    {
        let mut lowered = String::new();
        let words = words
            .into_iter()
            .map(|w| {
                if ignore_case {
                    lowercase_into(w.as_ref(), &mut lowered);
                    Box::from(lowered.as_str())
                } else {
                    Box::from(w.as_ref())
                }
            })
            .collect();
        StopWords { words, ignore_case }
    }

    /// `_english_`, case-sensitive (as OpenSearch's default `ignore_case: false`).
    pub fn english() -> Self {
        Self::new(ENGLISH_STOP_WORDS, false)
    }

    /// A predefined list by its OpenSearch name (`_english_`, `_french_`..., `_none_`), case-sensitive.
    pub fn predefined(name: &str) -> Option<Self> {
        super::stop_lists::predefined_words(name).map(|words| Self::new(words, false))
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Whether `term` is a stop word; `scratch` holds the lowercased term when ignoring case.
    pub fn contains(&self, term: &str, scratch: &mut String) -> bool {
        if self.ignore_case {
            lowercase_into(term, scratch);
            self.words.contains(scratch.as_str())
        } else {
            self.words.contains(term)
        }
    }
}

/// Lucene's `StopFilter`: removes stop words; the next kept token's position increment grows by
/// the increments of the removed ones, and removed trailing words are reported by `end`.
#[derive(Debug)]
pub struct StopFilter<S> {
    input: S,
    words: Arc<StopWords>,
    skipped: u32,
    scratch: String,
}

impl<S: TokenStream> StopFilter<S> {
    /// Removes the tokens of `input` found in `words`.
    pub fn new(input: S, words: Arc<StopWords>) -> Self {
        StopFilter { input, words, skipped: 0, scratch: String::new() }
    }
}

impl<S: TokenStream> TokenStream for StopFilter<S> {
    fn increment_token(&mut self, token: &mut TokenState) -> bool {
        while self.input.increment_token(token) {
            if self.words.contains(&token.term, &mut self.scratch) {
                self.skipped = self.skipped.saturating_add(token.position_increment);
                continue;
            }
            token.position_increment = token.position_increment.saturating_add(std::mem::take(&mut self.skipped));
            return true;
        }
        false
    }
    fn end(&mut self) -> u32 {
        self.input.end().saturating_add(std::mem::take(&mut self.skipped))
    }
}
