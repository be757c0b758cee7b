//! Analysis chains assembled from parts (Lucene's `CustomAnalyzer`): char filters rewrite the
//! text, a tokenizer splits it, token filters transform the token list.
//!
//! Unlike the hand-built hot chains of [`super::analyzers`], these stages work on whole token
//! lists (`Vec<TokenState>`): filters that look ahead (shingles, multi-word synonyms,
//! fingerprint) are then plain functions, and `_analyze`'s `explain` can record every stage of
//! one run. A stage's `end_increment` carries the positions consumed after the last token
//! (Lucene's `end()`), such as trailing stop words.

use std::fmt::Debug;
use std::sync::Arc;

use super::char_filters::{CharFilter, OffsetCorrection};
use super::error::AnalysisError;
use super::token_stream::{TokenState, TokenStream};
use super::{AnalyzeEnd, Analyzer, Token};

/// Splits (filtered) text into tokens, offsets in bytes of that text.
pub trait Tokenizer: Send + Sync + Debug {
    /// Appends the tokens of `text` to `out`.
    fn tokenize(&self, text: &str, out: &mut Vec<TokenState>);
}

/// Transforms the token list of one value.
pub trait TokenFilter: Send + Sync + Debug {
    /// The filtered tokens; `end_increment` is the positions consumed after the last token.
    fn filter(&self, tokens: Vec<TokenState>, end_increment: &mut u32) -> Vec<TokenState>;
    /// Whether a normalizer may use it (Lucene's `NormalizingTokenFilterFactory`).
    fn normalizing(&self) -> bool {
        false
    }
    /// Whether it adds Lucene's `KeywordAttribute` (then `explain` shows `keyword`).
    fn uses_keyword_attribute(&self) -> bool {
        false
    }
    /// For filters that analyze their own rules with the chain before them (synonyms): a copy
    /// built with `analyze` (the chain's tokenizer and preceding filters, returning the terms).
    fn for_chain(&self, _analyze: &dyn Fn(&str) -> Vec<String>) -> Result<Option<Arc<dyn TokenFilter>>, AnalysisError> {
        Ok(None)
    }
    /// For filters that name other filters (`multiplexer`, `condition`): a copy with those
    /// filters looked up (`name` is this filter's name, for messages).
    fn resolve(
        &self,
        _name: &str,
        _lookup: &super::referring_filters::Lookup<'_>,
    ) -> Result<Option<Arc<dyn TokenFilter>>, AnalysisError> {
        Ok(None)
    }
}

/// A component with the name `explain` reports for it.
#[derive(Debug)]
pub struct Named<T: ?Sized> {
    /// The name in settings, the built-in name, or `__anonymous__<type>` for inline definitions.
    pub name: String,
    /// The component.
    pub component: Arc<T>,
}

impl<T: ?Sized> Clone for Named<T> {
    fn clone(&self) -> Self {
        Named { name: self.name.clone(), component: self.component.clone() }
    }
}

impl<T: ?Sized> Named<T> {
    /// Names `component`.
    pub fn new(name: impl Into<String>, component: Arc<T>) -> Self {
        Named { name: name.into(), component }
    }
}

/// Every stage of one run, offsets already mapped back to the original text.
#[derive(Clone, Debug, Default)]
pub struct ChainTrace {
    /// The text after each char filter.
    pub filtered_texts: Vec<String>,
    /// The tokenizer's tokens, then each filter's, with their end increments.
    pub stages: Vec<(Vec<TokenState>, u32)>,
}

/// Char filters, a tokenizer and token filters (OpenSearch's `custom` analyzer, normalizers and
/// the transient analyzers of `_analyze`).
#[derive(Clone, Debug)]
pub struct CustomAnalyzer {
    /// Applied in order to the text.
    pub char_filters: Vec<Named<dyn CharFilter>>,
    /// Splits the filtered text.
    pub tokenizer: Named<dyn Tokenizer>,
    /// Applied in order to the tokens.
    pub filters: Vec<Named<dyn TokenFilter>>,
    /// Positions between values of a multi-valued field (custom analyzers: 100).
    pub position_increment_gap: u32,
    /// Offsets between values (Lucene's default 1).
    pub offset_gap: u32,
    /// For a built-in analyzer implemented as a chain (`english`, `pattern`...): its name, so
    /// `explain` shows it as an analyzer, not as its parts.
    pub builtin: Option<String>,
}

impl CustomAnalyzer {
    /// A chain with the custom analyzer defaults (gap 100, offset gap 1).
    pub fn new(
        char_filters: Vec<Named<dyn CharFilter>>,
        tokenizer: Named<dyn Tokenizer>,
        filters: Vec<Named<dyn TokenFilter>>,
    ) -> Self {
        CustomAnalyzer { char_filters, tokenizer, filters, position_increment_gap: 100, offset_gap: 1, builtin: None }
    }

    /// Runs the chain over `text`: tokens with byte offsets into `text`, and the end increment.
    /// With `trace`, records every stage.
    pub fn run(&self, text: &str, mut trace: Option<&mut ChainTrace>) -> (Vec<TokenState>, u32) {
        let mut corrections: Vec<OffsetCorrection> = Vec::new();
        let mut current: Option<String> = None;
        for filter in &self.char_filters {
            let (filtered, correction) = filter.component.filter(current.as_deref().unwrap_or(text));
            if let Some(trace) = trace.as_deref_mut() {
                trace.filtered_texts.push(filtered.clone());
            }
            corrections.push(correction);
            current = Some(filtered);
        }
        let filtered = current.as_deref().unwrap_or(text);
        let map = |tokens: &mut Vec<TokenState>| {
            for token in tokens.iter_mut() {
                for correction in corrections.iter().rev() {
                    token.start = correction.correct(token.start);
                    token.end = correction.correct(token.end);
                }
                token.start = token.start.min(text.len());
                token.end = token.end.clamp(token.start, text.len());
            }
        };
        let mut tokens = Vec::new();
        self.tokenizer.component.tokenize(filtered, &mut tokens);
        if corrections.is_empty() {
            return self.filter_all(tokens, trace);
        }
        // Offsets are mapped before the filters run so the trace and the result agree.
        map(&mut tokens);
        self.filter_all(tokens, trace)
    }

    fn filter_all(&self, mut tokens: Vec<TokenState>, mut trace: Option<&mut ChainTrace>) -> (Vec<TokenState>, u32) {
        let mut end_increment = 0u32;
        if let Some(trace) = trace.as_deref_mut() {
            trace.stages.push((tokens.clone(), end_increment));
        }
        for filter in &self.filters {
            tokens = filter.component.filter(tokens, &mut end_increment);
            if let Some(trace) = trace.as_deref_mut() {
                trace.stages.push((tokens.clone(), end_increment));
            }
        }
        (tokens, end_increment)
    }

    /// Whether the first `filters` filters add the keyword attribute.
    pub fn uses_keyword_attribute(&self, filters: usize) -> bool {
        self.filters.iter().take(filters).any(|f| f.component.uses_keyword_attribute())
    }
}

impl Analyzer for CustomAnalyzer {
    fn analyze(&self, text: &str, first_position: u32, sink: &mut dyn FnMut(&Token<'_>)) -> AnalyzeEnd {
        let (tokens, end_increment) = self.run(text, None);
        emit(&tokens, end_increment, first_position, sink)
    }
    fn position_increment_gap(&self) -> u32 {
        self.position_increment_gap
    }
    fn as_chain(&self) -> Option<&CustomAnalyzer> {
        Some(self)
    }
}

/// Gives `tokens` to `sink` with absolute positions, as [`super::token_stream::drive`] does.
pub fn emit(
    tokens: &[TokenState],
    end_increment: u32,
    first_position: u32,
    sink: &mut dyn FnMut(&Token<'_>),
) -> AnalyzeEnd {
    let mut next_position = first_position;
    let mut last_position: Option<u32> = None;
    let mut length = 0u32;
    for state in tokens {
        let position = match (state.position_increment, last_position) {
            (0, Some(last)) => last,
            (increment, _) => next_position.saturating_add(increment.max(1) - 1),
        };
        if state.position_increment > 0 {
            length = length.saturating_add(1);
        }
        last_position = Some(position);
        next_position = position.saturating_add(1);
        sink(&Token {
            term: &state.term,
            start: state.start,
            end: state.end,
            position,
            position_length: state.position_length.max(1),
            token_type: state.token_type,
        });
    }
    AnalyzeEnd { next_position: next_position.saturating_add(end_increment), length }
}

/// Pulls every token of a streaming tokenizer into `out`.
pub fn collect_stream(stream: &mut dyn TokenStream, out: &mut Vec<TokenState>) {
    let mut state = TokenState::default();
    while stream.increment_token(&mut state) {
        out.push(state.clone());
    }
}
