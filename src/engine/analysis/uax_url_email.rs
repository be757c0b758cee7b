//! `uax_url_email`: the standard tokenizer, except that URLs and e-mail addresses are single
//! `<URL>` and `<EMAIL>` tokens. Known divergence: URLs and addresses are found by a regular
//! expression, not by Lucene's grammar with the full list of top-level domains.

use std::sync::OnceLock;

use regex::Regex;

use super::chain::{collect_stream, Tokenizer};
use super::standard_tokenizer::StandardTokenizer;
use super::token_stream::TokenState;

fn pattern() -> &'static Regex {
    static CELL: OnceLock<Regex> = OnceLock::new();
    CELL.get_or_init(|| {
        Regex::new(
            r"(?P<email>[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,})|(?P<url>(?:[A-Za-z][A-Za-z0-9+.\-]*://|www\.)[^\s<>\x22'()\[\]{}]*[^\s<>\x22'()\[\]{}.,;:!?])",
        )
        .expect("a constant, valid pattern")
    })
}

/// The tokenizer, with `max_token_length` (default 255).
#[derive(Clone, Copy, Debug)]
pub struct UaxUrlEmailTokenizer {
    /// Longest token in UTF-16 units.
    pub max_token_length: usize,
}

impl Tokenizer for UaxUrlEmailTokenizer {
    fn tokenize(&self, text: &str, out: &mut Vec<TokenState>) {
        let mut last = 0;
        let gap = |from: usize, to: usize, out: &mut Vec<TokenState>| {
            let first = out.len();
            collect_stream(&mut StandardTokenizer::new(&text[from..to], self.max_token_length), out);
            for token in out.iter_mut().skip(first) {
                token.start += from;
                token.end += from;
            }
        };
        for found in pattern().captures_iter(text) {
            let (Some(whole), kind) = (found.get(0), if found.name("email").is_some() { "<EMAIL>" } else { "<URL>" }) else {
                continue;
            };
            gap(last, whole.start(), out);
            out.push(TokenState::new(whole.as_str(), whole.start(), whole.end(), kind));
            last = whole.end();
        }
        gap(last, text.len(), out);
    }
}
