//! The `classic` tokenizer: Lucene's `ClassicTokenizer` (the pre-UAX#29 standard grammar).
//!
//! A token is the longest match of one of, in priority order for equal lengths: `<ALPHANUM>`
//! (letters and digits), `<APOSTROPHE>` (letter runs joined by `'`), `<ACRONYM>` (`U.S.A.`,
//! trailing dot included), `<COMPANY>` (`AT&T`), `<EMAIL>`, `<HOST>` (runs joined by `.`),
//! `<NUM>` (runs joined by `_-/.,`, every other one holding a digit), and `<CJ>` (one CJK
//! character). Runs joined by `.` with a trailing dot are Lucene's deprecated acronym form,
//! reported as `<HOST>` without the dot. Tokens longer than `max_token_length` UTF-16 units are
//! skipped (their positions kept), as Lucene does.
//!
//! The scanner collects the longest chain of letter/digit runs joined by single connectors,
//! then tries prefixes of it from the longest down: an approximation of the JFlex automaton that
//! agrees on the grammar's documented cases.

use super::chain::Tokenizer;
use super::offsets::utf16_len;
use super::token_stream::TokenState;

/// The `classic` tokenizer.
#[derive(Clone, Copy, Debug)]
pub struct ClassicTokenizer {
    /// Longest token in UTF-16 units (default 255); longer ones are skipped.
    pub max_token_length: usize,
}

fn is_cj(c: char) -> bool {
    matches!(c as u32, 0x3100..=0x312F | 0x3040..=0x309F | 0x30A0..=0x30FF | 0x31F0..=0x31FF | 0x3300..=0x337F
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xFF65..=0xFF9F)
}

fn is_alnum(c: char) -> bool {
    !is_cj(c) && (c.is_alphabetic() || c.is_numeric())
}

/// One run of letters and digits, as byte offsets.
#[derive(Clone, Copy)]
struct Run {
    end: usize,
    has_digit: bool,
    letters_only: bool,
    single_letter: bool,
}

fn run_at(text: &str, start: usize) -> Run {
    let mut end = start;
    let (mut has_digit, mut letters_only, mut count) = (false, true, 0usize);
    for (i, c) in text[start..].char_indices() {
        if !is_alnum(c) {
            break;
        }
        end = start + i + c.len_utf8();
        count += 1;
        if c.is_numeric() {
            has_digit = true;
            letters_only = false;
        }
    }
    Run { end, has_digit, letters_only, single_letter: count == 1 && letters_only }
}

/// The token type and byte end of the longest rule matching a prefix of `runs` joined by
/// `joins`, `trailing_dot` when a `.` follows the last run.
fn classify(runs: &[Run], joins: &[char], trailing_dot: bool) -> (&'static str, usize, usize) {
    if runs.is_empty() {
        return ("<ALPHANUM>", 0, 0);
    }
    for k in (1..=runs.len()).rev() {
        let (r, j) = (&runs[..k], &joins[..k - 1]);
        let end = r[k - 1].end;
        let dots = j.iter().all(|c| *c == '.');
        let dot_after = if k == runs.len() { trailing_dot } else { joins[k - 1] == '.' };
        if k >= 2 && dots && dot_after && r.iter().all(|x| x.single_letter) {
            return ("<ACRONYM>", end + 1, k);
        }
        if k == 1 {
            return ("<ALPHANUM>", end, 1);
        }
        if j.iter().all(|c| *c == '\'') && r.iter().all(|x| x.letters_only) {
            return ("<APOSTROPHE>", end, k);
        }
        if k == 2 && matches!(j[0], '&' | '@') && r.iter().all(|x| x.letters_only) {
            return ("<COMPANY>", end, k);
        }
        if let Some(at) = j.iter().position(|c| *c == '@') {
            let local = j[..at].iter().all(|c| matches!(c, '.' | '-' | '_'));
            let domain = &j[at + 1..];
            if local && !domain.is_empty() && domain.iter().all(|c| matches!(c, '.' | '-')) {
                return ("<EMAIL>", end, k);
            }
        }
        if dots {
            return ("<HOST>", end, k);
        }
        let punct = j.iter().all(|c| matches!(c, '_' | '-' | '/' | '.' | ','));
        let alternate = |parity: usize| r.iter().enumerate().filter(|(i, _)| i % 2 == parity).all(|(_, x)| x.has_digit);
        if punct && (alternate(0) || alternate(1)) {
            return ("<NUM>", end, k);
        }
    }
    ("<ALPHANUM>", runs.first().map_or(0, |r| r.end), 1)
}

impl Tokenizer for ClassicTokenizer {
    fn tokenize(&self, text: &str, out: &mut Vec<TokenState>) {
        let mut skipped = 0u32;
        let mut i = 0usize;
        while i < text.len() {
            let Some(c) = text[i..].chars().next() else { break };
            if is_cj(c) {
                let end = i + c.len_utf8();
                let mut token = TokenState::new(&text[i..end], i, end, "<CJ>");
                token.position_increment = 1 + std::mem::take(&mut skipped);
                out.push(token);
                i = end;
                continue;
            }
            if !is_alnum(c) {
                i += c.len_utf8();
                continue;
            }
            // the chain of runs joined by single connectors (bounded by the text)
            let mut runs = vec![run_at(text, i)];
            let mut joins = Vec::new();
            let mut trailing_dot = false;
            loop {
                let Some(last) = runs.last().copied() else { break };
                let mut rest = text[last.end..].chars();
                let (Some(join), next) = (rest.next(), rest.next()) else { break };
                if !matches!(join, '.' | '-' | '_' | '/' | ',' | '\'' | '&' | '@') {
                    break;
                }
                match next {
                    Some(n) if is_alnum(n) => {
                        joins.push(join);
                        runs.push(run_at(text, last.end + join.len_utf8()));
                    }
                    _ => {
                        trailing_dot = join == '.';
                        break;
                    }
                }
            }
            let (kind, end, _) = classify(&runs, &joins, trailing_dot);
            let term_end = end.min(text.len());
            let term = &text[i..term_end];
            if utf16_len(term) > self.max_token_length {
                skipped += 1;
            } else {
                let mut token = TokenState::new(term, i, term_end, kind);
                token.position_increment = 1 + std::mem::take(&mut skipped);
                out.push(token);
            }
            i = end.max(i + c.len_utf8());
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn tokens_are_slices_of_the_text(text in "[a-zA-Z0-9 .@&'_/,中-]{0,40}") {
            let mut out = Vec::new();
            ClassicTokenizer { max_token_length: 255 }.tokenize(&text, &mut out);
            let mut last = 0;
            for token in &out {
                prop_assert!(token.start >= last && token.start < token.end && token.end <= text.len());
                prop_assert_eq!(&text[token.start..token.end], token.term.as_str());
                last = token.end;
            }
        }
    }
}
