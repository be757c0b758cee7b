//! Lucene's RSLP stemmers (`RSLPStemmerBase`): `portuguese_rslp` (`PortugueseStemmer`, all
//! seven steps of `rslp/portuguese.rslp`), `minimal_portuguese` (`PortugueseMinimalStemmer`, its
//! "Plural" step), `galician` (`GalicianStemmer`, `rslp/galician.rslp`) and `minimal_galician`
//! (`GalicianMinimalStemmer`, its "Plural" step). The rule files are Lucene's, parsed here as
//! Lucene parses them.
//!
//! A step applies its first matching rule: the word ends with the suffix, the stem left is at
//! least the rule's minimum, and the word is not one of the rule's exceptions (whole words, or
//! suffixes when the step's flag is 0); the suffix is then replaced.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::light_stemmers2::{ends_with, run_chars};

const PORTUGUESE: &str = include_str!("rslp/portuguese.rslp");
const GALICIAN: &str = include_str!("rslp/galician.rslp");

struct Rule {
    suffix: Vec<char>,
    min: usize,
    replacement: Vec<char>,
    exceptions: Vec<Vec<char>>,
}

struct Step {
    rules: Vec<Rule>,
    min: usize,
    /// The word must end with one of these to enter the step (none: always).
    conditions: Vec<String>,
    /// Exceptions are whole words (`true`) or suffixes (`false`).
    whole_word_exceptions: bool,
}

impl Step {
    /// `RSLPStemmerBase.Step.apply`.
    fn apply(&self, s: &mut Vec<char>, len: usize) -> usize {
        if len < self.min {
            return len;
        }
        if !self.conditions.is_empty() && !self.conditions.iter().any(|c| ends_with(s, len, c)) {
            return len;
        }
        for rule in &self.rules {
            let n = rule.suffix.len();
            let matches = len >= n + rule.min
                && s[len - n..len] == rule.suffix[..]
                && !rule.exceptions.iter().any(|e| {
                    if self.whole_word_exceptions {
                        s[..len] == e[..]
                    } else {
                        e.len() <= len && s[len - e.len()..len] == e[..]
                    }
                });
            if matches {
                s.truncate(len - n);
                s.extend_from_slice(&rule.replacement);
                return s.len();
            }
        }
        len
    }
}

/// A token of the rule file: a quoted string, a number or punctuation.
#[derive(Debug, PartialEq)]
enum Tok {
    Str(String),
    Num(usize),
    Open,
    Close,
    Semi,
}

fn tokenize(line: &str) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' => out.push(Tok::Open),
            '}' => out.push(Tok::Close),
            ';' => out.push(Tok::Semi),
            ',' | ' ' | '\t' => {}
            '"' => {
                let mut s = String::new();
                loop {
                    match chars.next()? {
                        '"' => break,
                        ch => s.push(ch),
                    }
                }
                out.push(Tok::Str(s));
            }
            '0'..='9' => {
                let mut n = c.to_digit(10)? as usize;
                while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                    n = n.checked_mul(10)?.checked_add(d as usize)?;
                    chars.next();
                }
                out.push(Tok::Num(n));
            }
            _ => return None,
        }
    }
    Some(out)
}

/// `{"a","b"}` starting at `toks[i]` (an `Open`): the strings and the index after the `Close`.
fn list(toks: &[Tok], mut i: usize) -> Option<(Vec<String>, usize)> {
    if toks.get(i)? != &Tok::Open {
        return None;
    }
    i += 1;
    let mut items = Vec::new();
    loop {
        match toks.get(i)? {
            Tok::Str(s) => items.push(s.clone()),
            Tok::Close => return Some((items, i + 1)),
            _ => return None,
        }
        i += 1;
    }
}

/// Parses a rule file into its named steps (`RSLPStemmerBase.parse`).
fn parse(text: &str) -> Option<HashMap<String, Step>> {
    let mut steps = HashMap::new();
    let mut current: Option<(String, Step)> = None;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let toks = tokenize(line)?;
        match &mut current {
            None => {
                // { "Name", min, flag, {conditions},
                let [Tok::Open, Tok::Str(name), Tok::Num(min), Tok::Num(flag), ..] = &toks[..] else {
                    return None;
                };
                let (conditions, _) = list(&toks, 4)?;
                let step = Step { rules: Vec::new(), min: *min, conditions, whole_word_exceptions: *flag == 1 };
                current = Some((name.clone(), step));
            }
            Some((_, step)) => {
                // {"suffix", min[, "replacement"[, {exceptions}]]} then `,` or `};`
                let [Tok::Open, Tok::Str(suffix), Tok::Num(min), rest @ ..] = &toks[..] else {
                    return None;
                };
                let (replacement, exceptions) = match rest {
                    [Tok::Str(r), Tok::Open, ..] => (r.clone(), list(&toks, 4)?.0),
                    [Tok::Str(r), ..] => (r.clone(), Vec::new()),
                    _ => (String::new(), Vec::new()),
                };
                step.rules.push(Rule {
                    suffix: suffix.chars().collect(),
                    min: *min,
                    replacement: replacement.chars().collect(),
                    exceptions: exceptions.iter().map(|e| e.chars().collect()).collect(),
                });
                if toks.last() == Some(&Tok::Semi) {
                    let (name, mut step) = current.take()?;
                    if step.min == 0 {
                        step.min = step.rules.iter().map(|r| r.min + r.suffix.len()).min().unwrap_or(0);
                    }
                    steps.insert(name, step);
                }
            }
        }
    }
    current.is_none().then_some(steps)
}

fn portuguese_steps() -> Option<&'static HashMap<String, Step>> {
    static STEPS: OnceLock<Option<HashMap<String, Step>>> = OnceLock::new();
    STEPS.get_or_init(|| parse(PORTUGUESE)).as_ref()
}

fn galician_steps() -> Option<&'static HashMap<String, Step>> {
    static STEPS: OnceLock<Option<HashMap<String, Step>>> = OnceLock::new();
    STEPS.get_or_init(|| parse(GALICIAN)).as_ref()
}

fn apply(steps: Option<&HashMap<String, Step>>, name: &str, s: &mut Vec<char>, len: usize) -> usize {
    match steps.and_then(|steps| steps.get(name)) {
        Some(step) => step.apply(s, len),
        None => len,
    }
}

/// Lucene's `PortugueseStemmer` (RSLP; the `portuguese_rslp` stemmer).
pub fn portuguese_rslp(term: &str) -> String {
    let steps = portuguese_steps();
    run_chars(term, |s, len| {
        let mut len = apply(steps, "Plural", s, len);
        len = apply(steps, "Adverb", s, len);
        len = apply(steps, "Feminine", s, len);
        len = apply(steps, "Augmentative", s, len);
        let old = len;
        len = apply(steps, "Noun", s, len);
        if len == old {
            let old = len;
            len = apply(steps, "Verb", s, len);
            if len == old {
                len = apply(steps, "Vowel", s, len);
            }
        }
        for c in s.iter_mut().take(len) {
            *c = match *c {
                'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => 'a',
                'ç' => 'c',
                'è' | 'é' | 'ê' | 'ë' => 'e',
                'ì' | 'í' | 'î' | 'ï' => 'i',
                'ñ' => 'n',
                'ò' | 'ó' | 'ô' | 'õ' | 'ö' => 'o',
                'ù' | 'ú' | 'û' | 'ü' => 'u',
                'ý' | 'ÿ' => 'y',
                other => other,
            };
        }
        len
    })
}

/// Lucene's `PortugueseMinimalStemmer` (RSLP-S: the plural step).
pub fn minimal_portuguese(term: &str) -> String {
    let steps = portuguese_steps();
    run_chars(term, |s, len| apply(steps, "Plural", s, len))
}

/// Lucene's `GalicianStemmer` ("Regras do lematizador para o galego"; the `galician` stemmer).
pub fn galician(term: &str) -> String {
    let steps = galician_steps();
    run_chars(term, |s, len| {
        let mut len = apply(steps, "Plural", s, len);
        len = apply(steps, "Unification", s, len);
        len = apply(steps, "Adverb", s, len);
        // Lucene repeats the augmentative step while it shortens the word; bounded by its length.
        let bound = len;
        for _ in 0..=bound {
            let old = len;
            len = apply(steps, "Augmentative", s, len);
            if len == old {
                break;
            }
        }
        let old = len;
        len = apply(steps, "Noun", s, len);
        if len == old {
            len = apply(steps, "Verb", s, len);
        }
        len = apply(steps, "Vowel", s, len);
        for c in s.iter_mut().take(len) {
            *c = match *c {
                'á' => 'a',
                'é' | 'ê' => 'e',
                'í' => 'i',
                'ó' => 'o',
                'ú' => 'u',
                other => other,
            };
        }
        len
    })
}

/// Lucene's `GalicianMinimalStemmer` (the Galician plural step).
pub fn minimal_galician(term: &str) -> String {
    let steps = galician_steps();
    run_chars(term, |s, len| apply(steps, "Plural", s, len))
}

#[cfg(test)]
#[path = "rslp_tests.rs"]
mod tests;
