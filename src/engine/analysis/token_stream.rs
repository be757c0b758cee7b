//! The token stream: Lucene's attribute-source model reduced to one reusable [`TokenState`] that a
//! tokenizer fills and each filter then mutates in place, pulled one token at a time.
//!
//! A chain is built per analyzed value on the stack (`StopFilter<LowerCaseFilter<StandardTokenizer>>`)
//! or boxed (`Box<dyn TokenStream>`) when it is assembled from settings. The term buffer is reused
//! from token to token (and from call to call through a thread-local), so the hot path does not
//! allocate per token.

use std::cell::RefCell;

use super::{AnalyzeEnd, Token};

/// The token being produced, mutated by every stage of the chain.
#[derive(Clone, Debug, Default)]
pub struct TokenState {
    /// The term text (a buffer reused across tokens).
    pub term: String,
    /// Byte offset of the token's first byte in the analyzed text.
    pub start: usize,
    /// Byte offset just past the token's last byte.
    pub end: usize,
    /// Positions advanced from the previous token: 1 normally, 0 for a token stacked on the
    /// previous one (synonym), more than 1 after removed tokens (stop words).
    pub position_increment: u32,
    /// How many positions the token spans (1 except for multi-word synonyms).
    pub position_length: u32,
    /// Lucene's token type, such as `<ALPHANUM>` or `word`.
    pub token_type: &'static str,
    /// Lucene's `KeywordAttribute`: set by `keyword_marker` (and `stemmer_override`) so that
    /// stemmers leave the token alone.
    pub keyword: bool,
    /// Lucene's `TermFrequencyAttribute` (set by `delimited_term_freq`); 0 reads as 1.
    pub term_frequency: u32,
}

impl TokenState {
    /// Resets the state for the next token of a tokenizer and copies `term` into the buffer.
    pub fn set(&mut self, term: &str, start: usize, end: usize, token_type: &'static str) {
        self.term.clear();
        self.term.push_str(term);
        self.start = start;
        self.end = end;
        self.position_increment = 1;
        self.position_length = 1;
        self.token_type = token_type;
        self.keyword = false;
        self.term_frequency = 1;
    }

    /// A new token (increment 1, length 1, not a keyword).
    pub fn new(term: &str, start: usize, end: usize, token_type: &'static str) -> Self {
        TokenState {
            term: term.to_owned(),
            start,
            end,
            position_increment: 1,
            position_length: 1,
            token_type,
            keyword: false,
            term_frequency: 1,
        }
    }
}

/// A stage of an analysis chain (tokenizer or filter), Lucene's `TokenStream`.
pub trait TokenStream {
    /// Fills `token` with the next token and returns true, or returns false at the end.
    fn increment_token(&mut self, token: &mut TokenState) -> bool;
    /// Called once after the last token: the position increments consumed after it (tokens
    /// removed at the end, such as trailing stop words), as Lucene's `end()` reports them.
    fn end(&mut self) -> u32 {
        0
    }
}

impl<S: TokenStream + ?Sized> TokenStream for Box<S> {
    fn increment_token(&mut self, token: &mut TokenState) -> bool {
        (**self).increment_token(token)
    }
    fn end(&mut self) -> u32 {
        (**self).end()
    }
}

thread_local! {
    static STATE: RefCell<TokenState> = RefCell::new(TokenState::default());
}

/// Pulls every token of `stream`, gives each to `sink` with its absolute position, and returns
/// where the next value of the field continues. Positions follow Lucene's indexing chain: a token
/// sits `position_increment` positions after the previous one (the first one after
/// `first_position - 1`); tokens with increment 0 share the previous position and are not counted
/// in the length (overlaps are discounted for norms).
pub fn drive<S: TokenStream + ?Sized>(
    stream: &mut S,
    first_position: u32,
    sink: &mut dyn FnMut(&Token<'_>),
) -> AnalyzeEnd {
    STATE.with(|cell| match cell.try_borrow_mut() {
        Ok(mut state) => drive_with(stream, &mut state, first_position, sink),
        // Re-entered from inside a sink: use a fresh buffer instead of the shared one.
        Err(_) => drive_with(stream, &mut TokenState::default(), first_position, sink),
    })
}

fn drive_with<S: TokenStream + ?Sized>(
    stream: &mut S,
    state: &mut TokenState,
    first_position: u32,
    sink: &mut dyn FnMut(&Token<'_>),
) -> AnalyzeEnd {
    let mut next_position = first_position;
    let mut last_position: Option<u32> = None;
    let mut length = 0u32;
    while stream.increment_token(state) {
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
            position_length: state.position_length,
            token_type: state.token_type,
        });
    }
    next_position = next_position.saturating_add(stream.end());
    AnalyzeEnd { next_position, length }
}
