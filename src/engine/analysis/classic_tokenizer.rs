//! The `classic` tokenizer: Lucene's `ClassicTokenizer`, whose JFlex grammar
//! (`ClassicTokenizerImpl.jflex`, the pre-UAX#29 standard grammar) is:
//!
//! ```text
//! ALPHANUM    = (LETTER | THAI | DIGIT)+            THAI = [\u0E00-\u0E59]
//! APOSTROPHE  = ALPHA ("'" ALPHA)+                   ALPHA = LETTER+
//! ACRONYM     = LETTER "." (LETTER ".")+             P = "_" | "-" | "/" | "." | ","
//! COMPANY     = ALPHA ("&" | "@") ALPHA              HAS_DIGIT = (LETTER|DIGIT)* DIGIT (LETTER|DIGIT)*
//! EMAIL       = ALPHANUM (("."|"-"|"_") ALPHANUM)* "@" ALPHANUM (("."|"-") ALPHANUM)+
//! HOST        = ALPHANUM ("." ALPHANUM)+
//! NUM         = segments joined by P, every other one (odd or even) HAS_DIGIT, the rest ALPHANUM
//! CJ          = one Chinese/Japanese character (the CJ ranges below)
//! ACRONYM_DEP = ALPHANUM "." (ALPHANUM ".")+         reported as <HOST> without the last "."
//! ```
//!
//! where LETTER is a Unicode letter outside CJ and DIGIT a decimal digit (`%unicode 3.0`: no
//! supplementary character is either). The scanner takes the longest match at each position, the
//! earlier rule on equal lengths, and skips a character no rule matches. A match longer than
//! `max_token_length` UTF-16 units is consumed but not emitted (its position is kept).
//!
//! Every rule is a chain of word-character runs joined by single punctuation characters, and
//! only the last unit of a match can stop inside a run; so the text is cut into runs once, each
//! rule is evaluated on the runs from the current one, and the longest wins. Known divergence:
//! letters and digits are today's Unicode categories for BMP characters, not Unicode 3.0's.

use std::sync::OnceLock;

use regex::Regex;

use super::chain::Tokenizer;
use super::offsets::utf16_len;
use super::token_stream::TokenState;

/// The `classic` tokenizer.
#[derive(Clone, Copy, Debug)]
pub struct ClassicTokenizer {
    /// Longest token in UTF-16 units (default 255); longer ones are skipped.
    pub max_token_length: usize,
}

/// The grammar's `CJ` ranges.
fn is_cj(c: char) -> bool {
    matches!(c as u32, 0x3100..=0x312F | 0x3040..=0x309F | 0x30A0..=0x30FF | 0x31F0..=0x31FF | 0x3300..=0x337F
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xFF65..=0xFF9F)
}

fn category_regexes() -> &'static (Regex, Regex) {
    static CELL: OnceLock<(Regex, Regex)> = OnceLock::new();
    CELL.get_or_init(|| {
        (
            Regex::new(r"^\p{L}$").expect("a constant, valid pattern"),
            Regex::new(r"^\p{Nd}$").expect("a constant, valid pattern"),
        )
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Letter,
    Digit,
    /// In the THAI range but neither letter nor digit (vowel signs, tone marks): ALPHANUM only.
    Thai,
    Other,
}

fn class_of(c: char) -> Class {
    if c.is_ascii() {
        return if c.is_ascii_alphabetic() {
            Class::Letter
        } else if c.is_ascii_digit() {
            Class::Digit
        } else {
            Class::Other
        };
    }
    let code = c as u32;
    let mut buf = [0u8; 4];
    let s = &*c.encode_utf8(&mut buf);
    let (letter, digit) = category_regexes();
    // U+02C6..U+02CF and U+02EC were modifier symbols (Sk) before Unicode 4.0.
    let modifier_symbol = matches!(code, 0x02C6..=0x02CF | 0x02EC);
    if code <= 0xFFFF && !is_cj(c) && !modifier_symbol && c.is_alphabetic() && letter.is_match(s) {
        Class::Letter
    } else if code <= 0xFFFF && c.is_numeric() && digit.is_match(s) {
        Class::Digit
    } else if (0x0E00..=0x0E59).contains(&code) {
        Class::Thai
    } else {
        Class::Other
    }
}

fn is_joiner(c: char) -> bool {
    matches!(c, '.' | '-' | '_' | '/' | ',' | '\'' | '&' | '@')
}

/// A maximal run of ALPHANUM characters (byte offsets), with the prefixes the rules need.
#[derive(Clone, Copy, Debug)]
struct Run {
    start: usize,
    end: usize,
    /// End of the longest prefix of letters (ALPHA), `start` when none.
    alpha_end: usize,
    /// End of the longest prefix of letters and digits (no THAI-only character).
    letter_digit_end: usize,
    /// Whether that prefix holds a digit (then it is a HAS_DIGIT).
    letter_digit_has_digit: bool,
    /// The joiner just before the run when the previous run ends right before it.
    join_before: Option<char>,
}

impl Run {
    fn scan(text: &str, start: usize) -> Run {
        let mut run = Run {
            start,
            end: start,
            alpha_end: start,
            letter_digit_end: start,
            letter_digit_has_digit: false,
            join_before: None,
        };
        let (mut alpha, mut letter_digit) = (true, true);
        for (offset, c) in text[start..].char_indices() {
            let class = class_of(c);
            if class == Class::Other {
                break;
            }
            let end = start + offset + c.len_utf8();
            run.end = end;
            alpha &= class == Class::Letter;
            letter_digit &= class != Class::Thai;
            if alpha {
                run.alpha_end = end;
            }
            if letter_digit {
                run.letter_digit_end = end;
                run.letter_digit_has_digit |= class == Class::Digit;
            }
        }
        run
    }

    fn is_alpha(&self) -> bool {
        self.alpha_end == self.end
    }

    fn is_has_digit(&self) -> bool {
        self.letter_digit_has_digit && self.letter_digit_end == self.end
    }

    /// The end of the longest HAS_DIGIT prefix.
    fn has_digit_end(&self) -> Option<usize> {
        self.letter_digit_has_digit.then_some(self.letter_digit_end)
    }

    fn single_letter(&self, text: &str) -> bool {
        let mut chars = text[self.start..self.end].chars();
        matches!((chars.next(), chars.next()), (Some(c), None) if class_of(c) == Class::Letter)
    }
}

/// The runs of a text, and for each the last run of its e-mail local part and of its domain.
struct Runs {
    runs: Vec<Run>,
    /// `local_end[k]`: the last run reachable from `k` through `.`, `-`, `_` joiners.
    local_end: Vec<usize>,
    /// `domain_end[k]`: the last run reachable from `k` through `.`, `-` joiners.
    domain_end: Vec<usize>,
}

impl Runs {
    fn new(text: &str) -> Runs {
        let mut runs: Vec<Run> = Vec::new();
        let mut i = 0;
        while i < text.len() {
            let Some(c) = text[i..].chars().next() else { break };
            if class_of(c) == Class::Other {
                i += c.len_utf8();
                continue;
            }
            let mut run = Run::scan(text, i);
            if let Some(previous) = runs.last() {
                let gap = &text[previous.end..i];
                let mut chars = gap.chars();
                if let (Some(j), None) = (chars.next(), chars.next()) {
                    run.join_before = is_joiner(j).then_some(j);
                }
            }
            i = run.end.max(i + c.len_utf8());
            runs.push(run);
        }
        let chain_end = |allowed: &dyn Fn(char) -> bool| {
            let mut ends = vec![0; runs.len()];
            for k in (0..runs.len()).rev() {
                let continues = runs.get(k + 1).and_then(|r| r.join_before).is_some_and(allowed);
                ends[k] = if continues { ends[k + 1] } else { k };
            }
            ends
        };
        let local_end = chain_end(&|c| matches!(c, '.' | '-' | '_'));
        let domain_end = chain_end(&|c| matches!(c, '.' | '-'));
        Runs { runs, local_end, domain_end }
    }
}

/// The rules' token types, in the grammar's priority order.
const TYPES: [&str; 9] =
    ["<ALPHANUM>", "<APOSTROPHE>", "<ACRONYM>", "<COMPANY>", "<EMAIL>", "<HOST>", "<NUM>", "<CJ>", "<ACRONYM_DEP>"];

/// The runs from the current position: run 0 is `first` (possibly the tail of `runs[at]`), run
/// `k` is `runs[at + k]`.
struct Chain<'a> {
    text: &'a str,
    all: &'a Runs,
    at: usize,
    first: Run,
}

impl Chain<'_> {
    fn run(&self, k: usize) -> Option<Run> {
        if k == 0 {
            Some(self.first)
        } else {
            self.all.runs.get(self.at + k).copied()
        }
    }

    /// The joiner between run `k - 1` and run `k`.
    fn join(&self, k: usize) -> Option<char> {
        if k == 0 {
            return None;
        }
        self.all.runs.get(self.at + k).and_then(|r| r.join_before)
    }

    fn dot_after(&self, run: &Run) -> bool {
        self.text.as_bytes().get(run.end) == Some(&b'.')
    }

    fn apostrophe(&self) -> Option<usize> {
        let mut best = None;
        let mut k = 1;
        while self.join(k) == Some('\'') && self.run(k - 1)?.is_alpha() {
            let run = self.run(k)?;
            if run.alpha_end == run.start {
                break;
            }
            best = Some(run.alpha_end);
            k += 1;
        }
        best
    }

    /// LETTER "." (LETTER ".")+, or with `any_alnum` ALPHANUM "." (ALPHANUM ".")+.
    fn dotted(&self, any_alnum: bool) -> Option<usize> {
        let mut best = None;
        let mut k = 0;
        while let Some(run) = self.run(k) {
            if !(any_alnum || run.single_letter(self.text)) || !self.dot_after(&run) {
                break;
            }
            if k >= 1 {
                best = Some(run.end + 1);
            }
            if self.join(k + 1) != Some('.') {
                break;
            }
            k += 1;
        }
        best
    }

    fn company(&self) -> Option<usize> {
        let (first, second) = (self.run(0)?, self.run(1)?);
        (matches!(self.join(1), Some('&' | '@')) && first.is_alpha() && second.alpha_end > second.start)
            .then_some(second.alpha_end)
    }

    fn email(&self) -> Option<usize> {
        let local_last = *self.all.local_end.get(self.at)?;
        let domain_first = local_last + 1;
        if self.all.runs.get(domain_first)?.join_before != Some('@') {
            return None;
        }
        let domain_last = *self.all.domain_end.get(domain_first)?;
        (domain_last > domain_first).then(|| self.all.runs.get(domain_last).map(|r| r.end)).flatten()
    }

    fn host(&self) -> Option<usize> {
        let mut k = 1;
        while self.join(k) == Some('.') {
            k += 1;
        }
        (k > 1).then(|| self.run(k - 1).map(|r| r.end)).flatten()
    }

    /// Segments joined by P where the segments of index parity `digits` are HAS_DIGIT.
    fn num(&self, digits: usize) -> Option<usize> {
        let mut best = None;
        let mut k = 0;
        while let Some(run) = self.run(k) {
            let needs_digit = k % 2 == digits;
            if k >= 1 {
                let end = if needs_digit { run.has_digit_end() } else { Some(run.end) };
                match end {
                    Some(end) => best = Some(end),
                    None => break,
                }
            }
            if (needs_digit && !run.is_has_digit()) || !matches!(self.join(k + 1), Some('_' | '-' | '/' | '.' | ',')) {
                break;
            }
            k += 1;
        }
        best
    }

    /// The longest match: (end of the consumed text, rule index into [`TYPES`]).
    fn longest(&self) -> (usize, usize) {
        let candidates = [
            (Some(self.first.end), 0),
            (self.apostrophe(), 1),
            (self.dotted(false), 2),
            (self.company(), 3),
            (self.email(), 4),
            (self.host(), 5),
            (self.num(0).max(self.num(1)), 6),
            (self.dotted(true), 8),
        ];
        let mut best = (self.first.end, 0);
        for (end, rule) in candidates {
            if let Some(end) = end {
                if end > best.0 {
                    best = (end, rule);
                }
            }
        }
        best
    }
}

impl Tokenizer for ClassicTokenizer {
    fn tokenize(&self, text: &str, out: &mut Vec<TokenState>) {
        let runs = Runs::new(text);
        let mut skipped = 0u32;
        let mut at = 0usize;
        let mut i = 0usize;
        while i < text.len() {
            let Some(c) = text[i..].chars().next() else { break };
            while runs.runs.get(at).is_some_and(|r| r.end <= i) {
                at += 1;
            }
            let (end, kind, term_end) = match runs.runs.get(at) {
                Some(run) if run.start <= i => {
                    let first = if run.start == i { *run } else { Run::scan(text, i) };
                    let chain = Chain { text, all: &runs, at, first };
                    let (end, rule) = chain.longest();
                    // ACRONYM_DEP is reported as a HOST without its final dot.
                    let (kind, term_end) = if rule == 8 { ("<HOST>", end - 1) } else { (TYPES[rule], end) };
                    (end, kind, term_end)
                }
                _ if is_cj(c) => (i + c.len_utf8(), TYPES[7], i + c.len_utf8()),
                _ => {
                    i += c.len_utf8();
                    continue;
                }
            };
            let (end, term_end) = (end.min(text.len()), term_end.min(text.len()));
            if utf16_len(&text[i..end]) > self.max_token_length {
                skipped += 1;
            } else {
                let mut token = TokenState::new(&text[i..term_end], i, term_end, kind);
                token.position_increment = 1 + std::mem::take(&mut skipped);
                out.push(token);
            }
            i = end.max(i + c.len_utf8());
        }
    }
}

#[cfg(test)]
#[path = "classic_tokenizer_tests.rs"]
mod tests;
