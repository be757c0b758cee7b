//! `shingle` (word n-grams stacked on their first word) and `cjk_bigram` (bigrams of adjacent
//! CJK characters).

use super::chain::TokenFilter;
use super::token_stream::TokenState;

/// Lucene's `ShingleFilter`.
#[derive(Clone, Debug)]
pub struct Shingle {
    /// Fewest words in a shingle (default 2).
    pub min_shingle_size: usize,
    /// Most words in a shingle (default 2).
    pub max_shingle_size: usize,
    /// Emit the single words too (default true).
    pub output_unigrams: bool,
    /// Emit the single words when no shingle could be built (default false).
    pub output_unigrams_if_no_shingles: bool,
    /// Between words (default a space).
    pub token_separator: String,
    /// Stands for a removed word (default `_`).
    pub filler_token: String,
}

impl TokenFilter for Shingle {
    fn filter(&self, tokens: Vec<TokenState>, _end: &mut u32) -> Vec<TokenState> {
        // One slot per position; removed words (increments above 1) become filler slots.
        let mut slots: Vec<TokenState> = Vec::with_capacity(tokens.len());
        for token in &tokens {
            for _ in 1..token.position_increment.min(64) {
                if !slots.is_empty() {
                    let mut filler = TokenState::new(&self.filler_token, token.start, token.start, "shingle");
                    filler.position_increment = 1;
                    slots.push(filler);
                }
            }
            if token.position_increment > 0 || slots.is_empty() {
                slots.push(token.clone());
            }
        }
        let min = self.min_shingle_size.max(2);
        let max = self.max_shingle_size.max(min);
        let mut out = Vec::with_capacity(slots.len() * 2);
        let mut any_shingle = false;
        let mut pending_increment = 0u32;
        for (i, slot) in slots.iter().enumerate() {
            let is_filler = slot.token_type == "shingle" && slot.start == slot.end && slot.term == self.filler_token;
            let increment = if i == 0 { slot.position_increment.max(1) } else { 1 };
            let mut first = true;
            if self.output_unigrams && !is_filler {
                let mut unigram = slot.clone();
                unigram.position_increment = increment.saturating_add(std::mem::take(&mut pending_increment));
                out.push(unigram);
                first = false;
            }
            for size in min..=max {
                let Some(window) = i.checked_add(size).and_then(|end| slots.get(i..end)) else { break };
                let mut term = String::new();
                for (k, part) in window.iter().enumerate() {
                    if k > 0 {
                        term.push_str(&self.token_separator);
                    }
                    term.push_str(&part.term);
                }
                let last = window.last().map_or(slot.end, |t| t.end);
                let mut shingle = TokenState::new(&term, slot.start, last, "shingle");
                shingle.position_length = u32::try_from(size).unwrap_or(u32::MAX);
                shingle.position_increment =
                    if first { increment.saturating_add(std::mem::take(&mut pending_increment)) } else { 0 };
                first = false;
                out.push(shingle);
                any_shingle = true;
            }
            if first {
                pending_increment = pending_increment.saturating_add(increment);
            }
        }
        if !any_shingle && !self.output_unigrams && self.output_unigrams_if_no_shingles {
            return tokens;
        }
        out
    }
}

fn is_cjk_type(token_type: &str) -> bool {
    matches!(token_type, "<IDEOGRAPHIC>" | "<HIRAGANA>" | "<KATAKANA>" | "<HANGUL>")
}

/// Lucene's `CJKBigramFilter`: adjacent CJK characters become `<DOUBLE>` bigrams, a lone one a
/// `<SINGLE>` unigram; with `output_unigrams` every character is also a unigram.
#[derive(Clone, Debug)]
pub struct CjkBigram {
    /// Also emit unigrams (default false).
    pub output_unigrams: bool,
}

impl TokenFilter for CjkBigram {
    fn filter(&self, tokens: Vec<TokenState>, _end: &mut u32) -> Vec<TokenState> {
        let mut out = Vec::with_capacity(tokens.len());
        let mut run: Vec<(String, usize, usize)> = Vec::new();
        let mut run_increment = 1u32;
        for token in tokens {
            if !is_cjk_type(token.token_type) {
                self.flush(&mut run, run_increment, &mut out);
                out.push(token);
                continue;
            }
            let contiguous = run.last().is_some_and(|last| last.2 == token.start && token.position_increment == 1);
            if !contiguous {
                self.flush(&mut run, run_increment, &mut out);
                run_increment = token.position_increment;
            }
            let exact = token.end.saturating_sub(token.start) == token.term.len();
            for (i, c) in token.term.char_indices() {
                let (start, end) =
                    if exact { (token.start + i, token.start + i + c.len_utf8()) } else { (token.start, token.end) };
                run.push((c.to_string(), start, end));
            }
        }
        self.flush(&mut run, run_increment, &mut out);
        out
    }
}

impl CjkBigram {
    fn flush(&self, run: &mut Vec<(String, usize, usize)>, increment: u32, out: &mut Vec<TokenState>) {
        let chars = std::mem::take(run);
        if chars.len() == 1 {
            if let Some((c, start, end)) = chars.first() {
                let mut single = TokenState::new(c, *start, *end, "<SINGLE>");
                single.position_increment = increment;
                out.push(single);
            }
            return;
        }
        for (i, (c, start, end)) in chars.iter().enumerate() {
            let first_increment = if i == 0 { increment } else { 1 };
            if self.output_unigrams {
                let mut single = TokenState::new(c, *start, *end, "<SINGLE>");
                single.position_increment = first_increment;
                out.push(single);
            }
            if let Some((next, _, next_end)) = chars.get(i + 1) {
                let mut double = TokenState::new(&format!("{c}{next}"), *start, *next_end, "<DOUBLE>");
                double.position_increment = if self.output_unigrams { 0 } else { first_increment };
                if self.output_unigrams {
                    double.position_length = 2;
                }
                out.push(double);
            }
        }
    }
}
