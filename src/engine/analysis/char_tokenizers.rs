//! Tokenizers that split on a character predicate (Lucene's `CharTokenizer` family: `letter`,
//! `whitespace`) and the `keyword` tokenizer that emits the whole value.

use super::char_classes::{is_java_whitespace, is_letter};
use super::token_stream::{TokenState, TokenStream};

/// Lucene's `CharTokenizer.DEFAULT_MAX_WORD_LEN`: longer runs are split (in UTF-16 units).
pub const DEFAULT_MAX_WORD_LENGTH: usize = 255;

/// Which characters make up tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CharClass {
    /// Java's `Character.isLetter` (the `letter` tokenizer).
    Letter,
    /// Anything but Java's `Character.isWhitespace` (the `whitespace` tokenizer).
    NonWhitespace,
}

impl CharClass {
    fn is_token_char(self, c: char) -> bool {
        match self {
            CharClass::Letter => is_letter(c),
            CharClass::NonWhitespace => !is_java_whitespace(c),
        }
    }
}

/// Lucene's `CharTokenizer`: maximal runs of token characters, split once a run reaches
/// `max_word_length` UTF-16 units (a surrogate pair may take it one unit over). Type `word`.
#[derive(Debug)]
pub struct CharTokenizer<'a> {
    text: &'a str,
    pos: usize,
    class: CharClass,
    max_word_length: usize,
}

impl<'a> CharTokenizer<'a> {
    /// A tokenizer over `text` keeping runs of `class` (`max_word_length` at least 1).
    pub fn new(text: &'a str, class: CharClass, max_word_length: usize) -> Self {
        CharTokenizer { text, pos: 0, class, max_word_length: max_word_length.max(1) }
    }
}

impl TokenStream for CharTokenizer<'_> {
    fn increment_token(&mut self, token: &mut TokenState) -> bool {
        let rest = &self.text[self.pos..];
        let mut start = None;
        let mut units = 0;
        let mut end = rest.len();
        for (i, c) in rest.char_indices() {
            if self.class.is_token_char(c) {
                start.get_or_insert(i);
                units += c.len_utf16();
                if units >= self.max_word_length {
                    end = i + c.len_utf8();
                    break;
                }
            } else if start.is_some() {
                end = i;
                break;
            }
        }
        let Some(start) = start else {
            self.pos = self.text.len();
            return false;
        };
        let (start, end) = (self.pos + start, self.pos + end);
        self.pos = end;
        token.set(&self.text[start..end], start, end, "word");
        true
    }
}

/// Lucene's `KeywordTokenizer`: the whole value as one token (also when it is empty), type `word`.
#[derive(Debug)]
pub struct KeywordTokenizer<'a> {
    text: &'a str,
    done: bool,
}

impl<'a> KeywordTokenizer<'a> {
    /// A tokenizer emitting `text` once.
    pub fn new(text: &'a str) -> Self {
        KeywordTokenizer { text, done: false }
    }
}

impl TokenStream for KeywordTokenizer<'_> {
    fn increment_token(&mut self, token: &mut TokenState) -> bool {
        if std::mem::replace(&mut self.done, true) {
            return false;
        }
        token.set(self.text, 0, self.text.len(), "word");
        true
    }
}
