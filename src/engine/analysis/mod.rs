//! analysis/: "turn this text into tokens".
//!
//! An [`Analyzer`] turns one value of a text field into [`Token`]s: term, byte offsets, absolute
//! position, type. Inside, it is a Lucene-like chain ([`token_stream`]): a tokenizer fills a
//! reusable [`TokenState`] and each filter mutates it, pulled token by token, without allocating
//! per token. The built-ins match OpenSearch's:
//!
//! | analyzer | chain |
//! |---|---|
//! | `standard` | [`StandardTokenizer`] (UAX #29, Lucene's token types) → lowercase → stop (none by default) |
//! | `simple` | letter tokenizer → lowercase |
//! | `stop` | letter tokenizer → lowercase → stop (`_english_`) |
//! | `whitespace` | whitespace tokenizer |
//! | `keyword` | the whole value |
//!
//! Offsets are bytes of the Rust `str`; OpenSearch's API reports UTF-16 code units (Java chars),
//! converted with [`Utf16Offsets`]. Limits count UTF-16 units too, as Lucene does.
//!
//! Everything else is assembled from parts ([`chain::CustomAnalyzer`]): char filters
//! ([`char_filters`], [`html_strip`]), tokenizers ([`tokenizers`], [`ngram`],
//! [`uax_url_email`]) and token filters ([`token_filters`], [`stemming`], [`light_stemmers`],
//! [`synonyms`], [`shingle`], [`word_delimiter`]; per-language normalizers and stemmers in
//! [`arabic`], [`greek`], [`indic`], [`language_normalizers`]; predefined stop lists in
//! [`stop_lists`]), built by type and settings in [`components`], by index
//! settings in [`index_analysis::IndexAnalysis`] (custom analyzers, normalizers, `default`),
//! and used by the `_analyze` API logic in [`analyze_api::analyze`]. The language and other
//! typed analyzers are in [`builtin_analyzers`] and [`language_analyzers`].

pub mod analyze_api;
pub mod analyzers;
pub mod arabic;
pub mod ascii_folding;
mod ascii_folding_table;
pub mod brazilian;
pub mod builtin_analyzers;
pub mod chain;
pub mod char_filters;
pub mod char_tokenizers;
pub mod classic_tokenizer;
pub mod components;
pub mod error;
pub mod filter_factories;
pub mod filters;
pub mod greek;
mod html_entities;
pub mod html_strip;
pub mod index_analysis;
pub mod indic;
pub mod java_regex;
pub mod kstem;
pub mod language_analyzers;
pub mod language_normalizers;
pub mod legacy_stems;
pub mod light_stemmers;
pub mod light_stemmers2;
pub mod light_stemmers_more;
pub mod min_hash;
pub mod ngram;
pub mod offsets;
pub mod params;
pub mod porter;
pub mod referring_filters;
pub mod rslp;
pub mod shingle;
pub mod snowball;
pub mod standard_tokenizer;
pub mod stemming;
pub mod stop_lists;
pub mod synonym_graph;
pub mod synonyms;
pub mod thai;
pub mod token_filters;
pub mod token_op;
pub mod token_stream;
pub mod tokenizers;
mod uax_tlds;
pub mod uax_url_email;
pub mod word_delimiter;
pub mod word_filters;

mod char_classes;

#[cfg(test)]
mod component_tests;
#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod tests;

pub use analyze_api::{analyze, FieldAnalysis};
pub use analyzers::{
    AnalyzerRegistry, KeywordAnalyzer, LetterAnalyzer, StandardAnalyzer, WhitespaceAnalyzer,
    DEFAULT_POSITION_INCREMENT_GAP,
};
pub use chain::CustomAnalyzer;
pub use error::AnalysisError;
pub use filters::{LowerCaseFilter, StopFilter, StopWords, ENGLISH_STOP_WORDS};
pub use index_analysis::IndexAnalysis;
pub use offsets::{utf16_len, utf16_offset, Utf16Offsets};
pub use standard_tokenizer::{StandardTokenizer, TokenType, DEFAULT_MAX_TOKEN_LENGTH, MAX_TOKEN_LENGTH_LIMIT};
pub use token_stream::{TokenState, TokenStream};

/// One token of an analyzed value, borrowed from the analyzer's reusable state for the duration
/// of the sink call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    /// The term, after filters.
    pub term: &'a str,
    /// Byte offset of the token's start in the value (for the API use [`Utf16Offsets`]).
    pub start: usize,
    /// Byte offset just past the token's end.
    pub end: usize,
    /// Absolute position in the field (continues across values of a multi-valued field).
    pub position: u32,
    /// Positions spanned (1 except for multi-word synonyms).
    pub position_length: u32,
    /// Lucene's token type: `<ALPHANUM>`, `<NUM>`, `word`...
    pub token_type: &'static str,
}

/// Where an analyzed value ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnalyzeEnd {
    /// The position after the last token (and after removed trailing tokens): the next value of
    /// a multi-valued field starts at `next_position + position_increment_gap()`.
    pub next_position: u32,
    /// The number of tokens, tokens stacked at the same position (increment 0) not counted: the
    /// field length for norms.
    pub length: u32,
}

/// Turns text into tokens. Shared between indexing threads.
pub trait Analyzer: Send + Sync + std::fmt::Debug {
    /// Calls `sink` for every token of `text`; positions start at `first_position`; returns the
    /// position after the last token, to continue the next value of a multi-valued field (+gap) and
    /// the count of tokens (field length for norms, overlaps — position increment 0 — discounted).
    fn analyze(&self, text: &str, first_position: u32, sink: &mut dyn FnMut(&Token<'_>)) -> AnalyzeEnd;
    /// Positions left between two values of a multi-valued field (default 100 for text fields).
    fn position_increment_gap(&self) -> u32;
    /// The chain behind an analyzer assembled from parts (for `_analyze`'s `explain`).
    fn as_chain(&self) -> Option<&CustomAnalyzer> {
        None
    }
}
