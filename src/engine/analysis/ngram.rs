//! N-grams: the `ngram` and `edge_ngram` tokenizers (grams of runs of `token_chars`) and token
//! filters (grams of each token). Gram lengths count code points, as Lucene does.

use super::chain::{TokenFilter, Tokenizer};
use super::token_stream::TokenState;
use super::tokenizers::CharSet;

/// `ngram` and `edge_ngram` tokenizers.
#[derive(Clone, Debug)]
pub struct NGramTokenizer {
    /// Shortest gram (ngram default 1, edge_ngram 1).
    pub min_gram: usize,
    /// Longest gram (ngram default 2, edge_ngram 2).
    pub max_gram: usize,
    /// Characters kept in grams; empty keeps all.
    pub token_chars: CharSet,
    /// Only grams starting at the start of a run (`edge_ngram`).
    pub edge: bool,
}

impl Tokenizer for NGramTokenizer {
    fn tokenize(&self, text: &str, out: &mut Vec<TokenState>) {
        let keep_all = self.token_chars.is_empty();
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut i = 0;
        while i < chars.len() {
            if !keep_all && !chars.get(i).is_some_and(|(_, c)| self.token_chars.contains(*c)) {
                i += 1;
                continue;
            }
            let mut run_end = i;
            while run_end < chars.len()
                && (keep_all || chars.get(run_end).is_some_and(|(_, c)| self.token_chars.contains(*c)))
            {
                run_end += 1;
            }
            let starts = if self.edge { i..(i + 1).min(run_end) } else { i..run_end };
            for start in starts {
                for len in self.min_gram.max(1)..=self.max_gram {
                    let end = start + len;
                    if end > run_end {
                        break;
                    }
                    let from = chars.get(start).map_or(text.len(), |p| p.0);
                    let to = chars.get(end).map_or(text.len(), |p| p.0);
                    out.push(TokenState::new(&text[from..to], from, to, "word"));
                }
            }
            i = run_end;
        }
    }
}

/// `ngram` and `edge_ngram` token filters: grams keep the token's offsets and type and stack on
/// its position.
#[derive(Clone, Debug)]
pub struct NGramFilter {
    /// Shortest gram.
    pub min_gram: usize,
    /// Longest gram.
    pub max_gram: usize,
    /// Also keep tokens shorter than `min_gram` or longer than `max_gram`.
    pub preserve_original: bool,
    /// Only prefixes (`edge_ngram`).
    pub edge: bool,
}

impl TokenFilter for NGramFilter {
    fn filter(&self, tokens: Vec<TokenState>, end_increment: &mut u32) -> Vec<TokenState> {
        let mut out = Vec::with_capacity(tokens.len() * 2);
        let mut pending = 0u32;
        for token in tokens {
            let bounds: Vec<usize> = token.term.char_indices().map(|(i, _)| i).chain([token.term.len()]).collect();
            let length = bounds.len() - 1;
            let first = out.len();
            let starts = if self.edge { 0..1.min(length) } else { 0..length };
            for start in starts {
                for len in self.min_gram.max(1)..=self.max_gram {
                    let (Some(&from), Some(&to)) = (bounds.get(start), bounds.get(start + len)) else { break };
                    let mut gram = token.clone();
                    gram.term = token.term[from..to].to_owned();
                    gram.position_increment = 0;
                    out.push(gram);
                }
            }
            if self.preserve_original && (length < self.min_gram || length > self.max_gram) {
                let mut original = token.clone();
                original.position_increment = 0;
                out.push(original);
            }
            match out.get_mut(first) {
                Some(gram) => {
                    gram.position_increment = token.position_increment.saturating_add(std::mem::take(&mut pending))
                }
                None => pending = pending.saturating_add(token.position_increment),
            }
        }
        *end_increment = end_increment.saturating_add(pending);
        out
    }
}
