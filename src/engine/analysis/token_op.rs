//! Token filters that look at one token at a time: a function that rewrites the token and says
//! whether to keep it. Removed tokens hand their position increments to the next kept token (and
//! to the end), as Lucene's `FilteringTokenFilter` does.

use std::fmt;

use super::chain::TokenFilter;
use super::token_stream::TokenState;

type Op = dyn Fn(&mut TokenState) -> bool + Send + Sync;

/// A per-token filter.
pub struct TokenOp {
    name: &'static str,
    op: Box<Op>,
    normalizing: bool,
    keyword_attribute: bool,
}

impl fmt::Debug for TokenOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TokenOp({})", self.name)
    }
}

impl TokenOp {
    /// A filter called `name` (for debugging) applying `op`; `normalizing` when normalizers may
    /// use it.
    pub fn new(
        name: &'static str,
        normalizing: bool,
        op: impl Fn(&mut TokenState) -> bool + Send + Sync + 'static,
    ) -> Self {
        TokenOp { name, op: Box::new(op), normalizing, keyword_attribute: false }
    }

    /// Marks the filter as one that adds Lucene's keyword attribute (stemmers, markers).
    pub fn with_keyword_attribute(mut self) -> Self {
        self.keyword_attribute = true;
        self
    }
}

impl TokenFilter for TokenOp {
    fn filter(&self, tokens: Vec<TokenState>, end_increment: &mut u32) -> Vec<TokenState> {
        let mut out = Vec::with_capacity(tokens.len());
        let mut skipped = 0u32;
        for mut token in tokens {
            if (self.op)(&mut token) {
                token.position_increment = token.position_increment.saturating_add(std::mem::take(&mut skipped));
                out.push(token);
            } else {
                skipped = skipped.saturating_add(token.position_increment);
            }
        }
        *end_increment = end_increment.saturating_add(skipped);
        out
    }
    fn normalizing(&self) -> bool {
        self.normalizing
    }
    fn uses_keyword_attribute(&self) -> bool {
        self.keyword_attribute
    }
}

/// Replaces `token.term` by `f(term)` when it returns something.
pub fn rewrite(token: &mut TokenState, f: impl FnOnce(&str) -> Option<String>) {
    if let Some(new) = f(&token.term) {
        token.term = new;
    }
}
