//! The built-in analyzers (`standard`, `simple`, `whitespace`, `keyword`, `stop`) and the registry
//! that names them.

use std::collections::HashMap;
use std::sync::Arc;

use super::char_tokenizers::{CharClass, CharTokenizer, KeywordTokenizer, DEFAULT_MAX_WORD_LENGTH};
use super::filters::{LowerCaseFilter, StopFilter, StopWords};
use super::standard_tokenizer::{StandardTokenizer, DEFAULT_MAX_TOKEN_LENGTH};
use super::token_stream::drive;
use super::{AnalyzeEnd, Analyzer, Token};

/// OpenSearch's default `position_increment_gap` for `text` fields: positions skipped between
/// the values of a multi-valued field, so phrases do not match across values.
pub const DEFAULT_POSITION_INCREMENT_GAP: u32 = 100;

/// `standard`: standard tokenizer, lowercase, then stop words (none by default).
#[derive(Clone, Debug)]
pub struct StandardAnalyzer {
    /// Longest token in UTF-16 units; longer ones are split (default 255, 1..=1048576).
    pub max_token_length: usize,
    /// Stop words removed after lowercasing (default: none, OpenSearch's `_none_`).
    pub stop_words: Option<Arc<StopWords>>,
    /// Positions between values of a multi-valued field (default 100).
    pub position_increment_gap: u32,
}

impl Default for StandardAnalyzer {
    fn default() -> Self {
        StandardAnalyzer {
            max_token_length: DEFAULT_MAX_TOKEN_LENGTH,
            stop_words: None,
            position_increment_gap: DEFAULT_POSITION_INCREMENT_GAP,
        }
    }
}

impl Analyzer for StandardAnalyzer {
    fn analyze(&self, text: &str, first_position: u32, sink: &mut dyn FnMut(&Token<'_>)) -> AnalyzeEnd {
        let lowered = LowerCaseFilter::new(StandardTokenizer::new(text, self.max_token_length));
        match &self.stop_words {
            Some(words) if !words.is_empty() => {
                drive(&mut StopFilter::new(lowered, words.clone()), first_position, sink)
            }
            _ => drive(&mut { lowered }, first_position, sink),
        }
    }
    fn position_increment_gap(&self) -> u32 {
        self.position_increment_gap
    }
}

/// `simple` (letter tokenizer + lowercase) and `stop` (the same, then stop words, `_english_` by
/// default).
#[derive(Clone, Debug)]
pub struct LetterAnalyzer {
    /// Stop words (None for `simple`).
    pub stop_words: Option<Arc<StopWords>>,
    /// Positions between values of a multi-valued field (default 100).
    pub position_increment_gap: u32,
}

impl LetterAnalyzer {
    /// The `simple` analyzer.
    pub fn simple() -> Self {
        LetterAnalyzer { stop_words: None, position_increment_gap: DEFAULT_POSITION_INCREMENT_GAP }
    }
    /// The `stop` analyzer with `_english_`.
    pub fn stop() -> Self {
        LetterAnalyzer {
            stop_words: Some(Arc::new(StopWords::english())),
            position_increment_gap: DEFAULT_POSITION_INCREMENT_GAP,
        }
    }
}

impl Analyzer for LetterAnalyzer {
    fn analyze(&self, text: &str, first_position: u32, sink: &mut dyn FnMut(&Token<'_>)) -> AnalyzeEnd {
        let lowered = LowerCaseFilter::new(CharTokenizer::new(text, CharClass::Letter, DEFAULT_MAX_WORD_LENGTH));
        match &self.stop_words {
            Some(words) => drive(&mut StopFilter::new(lowered, words.clone()), first_position, sink),
            None => drive(&mut { lowered }, first_position, sink),
        }
    }
    fn position_increment_gap(&self) -> u32 {
        self.position_increment_gap
    }
}

/// `whitespace`: splits on whitespace, no normalization.
#[derive(Clone, Debug)]
pub struct WhitespaceAnalyzer {
    /// Positions between values of a multi-valued field (default 100).
    pub position_increment_gap: u32,
}

impl Analyzer for WhitespaceAnalyzer {
    fn analyze(&self, text: &str, first_position: u32, sink: &mut dyn FnMut(&Token<'_>)) -> AnalyzeEnd {
        drive(&mut CharTokenizer::new(text, CharClass::NonWhitespace, DEFAULT_MAX_WORD_LENGTH), first_position, sink)
    }
    fn position_increment_gap(&self) -> u32 {
        self.position_increment_gap
    }
}

/// `keyword`: the whole value as one token.
#[derive(Clone, Debug)]
pub struct KeywordAnalyzer {
    /// Positions between values of a multi-valued field (default 100).
    pub position_increment_gap: u32,
}

impl Analyzer for KeywordAnalyzer {
    fn analyze(&self, text: &str, first_position: u32, sink: &mut dyn FnMut(&Token<'_>)) -> AnalyzeEnd {
        drive(&mut KeywordTokenizer::new(text), first_position, sink)
    }
    fn position_increment_gap(&self) -> u32 {
        self.position_increment_gap
    }
}

/// Analyzers by name: the built-ins, plus those an index defines in its settings (issue 5).
#[derive(Clone, Debug, Default)]
pub struct AnalyzerRegistry {
    analyzers: HashMap<String, Arc<dyn Analyzer>>,
}

impl AnalyzerRegistry {
    /// `standard`, `simple`, `whitespace`, `keyword` and `stop` with their default settings.
    pub fn with_builtins() -> Self {
        let gap = DEFAULT_POSITION_INCREMENT_GAP;
        let mut registry = AnalyzerRegistry::default();
        registry.register("standard", Arc::new(StandardAnalyzer::default()));
        registry.register("simple", Arc::new(LetterAnalyzer::simple()));
        registry.register("stop", Arc::new(LetterAnalyzer::stop()));
        registry.register("whitespace", Arc::new(WhitespaceAnalyzer { position_increment_gap: gap }));
        registry.register("keyword", Arc::new(KeywordAnalyzer { position_increment_gap: gap }));
        registry
    }

    /// Adds or replaces the analyzer called `name`.
    pub fn register(&mut self, name: &str, analyzer: Arc<dyn Analyzer>) {
        self.analyzers.insert(name.to_owned(), analyzer);
    }

    /// The analyzer called `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Analyzer>> {
        self.analyzers.get(name).cloned()
    }
}
