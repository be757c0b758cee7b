//! Token filters driven by word lists or delimiters: `keep` (Lucene's `KeepWordFilter`),
//! `keep_types` (`TypeTokenFilter`), `common_grams` (`CommonGramsFilter` and, with
//! `query_mode`, `CommonGramsQueryFilter`), `delimited_payload` (`DelimitedPayloadTokenFilter`:
//! the term is cut at the delimiter, the payload is not reported by `_analyze`),
//! `delimited_term_freq` (`DelimitedTermFrequencyTokenFilter`) and `dictionary_decompounder`
//! (`DictionaryCompoundWordTokenFilter`).

use std::collections::HashSet;

use super::chain::TokenFilter;
use super::filters::StopWords;
use super::token_op::TokenOp;
use super::token_stream::TokenState;

/// `keep`: keeps only the words of the set (removed tokens pass their increments on).
pub fn keep(words: StopWords) -> TokenOp {
    TokenOp::new("keep", false, move |token: &mut TokenState| words.contains(&token.term, &mut String::new()))
}

/// `keep_types`: keeps (`include`) or drops (`exclude`) the tokens of the given types.
pub fn keep_types(types: HashSet<String>, include: bool) -> TokenOp {
    TokenOp::new("keep_types", false, move |token: &mut TokenState| types.contains(token.token_type) == include)
}

/// `common_grams`: every token, and a `gram` token `first_second` (stacked on `first`, spanning two
/// positions) for each pair of adjacent tokens where either is a common word. With `query_mode`,
/// unigrams followed by a gram are dropped and grams become ordinary positions, as Lucene's
/// `CommonGramsQueryFilter` does.
#[derive(Debug)]
pub struct CommonGrams {
    /// The common words.
    pub words: StopWords,
    /// `query_mode`.
    pub query_mode: bool,
}

const GRAM_TYPE: &str = "gram";

impl CommonGrams {
    fn grams(&self, tokens: Vec<TokenState>) -> Vec<TokenState> {
        let mut scratch = String::new();
        let mut out = Vec::with_capacity(tokens.len() * 2);
        // The previous token's term and start, and whether it was common (Lucene's buffer).
        let mut previous: Option<(String, usize, bool)> = None;
        for token in tokens {
            let common = self.words.contains(&token.term, &mut scratch);
            if let Some((last_term, last_start, last_common)) = &previous {
                if *last_common || common {
                    let mut gram =
                        TokenState::new(&format!("{last_term}_{}", token.term), *last_start, token.end, GRAM_TYPE);
                    gram.position_increment = 0;
                    gram.position_length = 2;
                    out.push(gram);
                }
            }
            previous = Some((token.term.clone(), token.start, common));
            out.push(token);
        }
        out
    }
}

impl TokenFilter for CommonGrams {
    fn filter(&self, tokens: Vec<TokenState>, _end: &mut u32) -> Vec<TokenState> {
        let grams = self.grams(tokens);
        if self.query_mode {
            query_mode_select(grams)
        } else {
            grams
        }
    }
}

/// `CommonGramsQueryFilter`: a token is released when the one after it is not a gram; the last
/// one unless the token released before it was a gram. Released grams take one position.
fn query_mode_select(tokens: Vec<TokenState>) -> Vec<TokenState> {
    let is_gram: Vec<bool> = tokens.iter().map(|t| t.token_type == GRAM_TYPE).collect();
    let mut out = Vec::with_capacity(tokens.len());
    let mut last_released_gram = false;
    let count = tokens.len();
    for (i, mut token) in tokens.into_iter().enumerate() {
        let release = if i + 1 < count { !is_gram[i + 1] } else { !last_released_gram };
        if !release {
            continue;
        }
        last_released_gram = is_gram[i];
        if is_gram[i] {
            token.position_increment = 1;
            token.position_length = 1;
        }
        out.push(token);
    }
    out
}

/// `delimited_payload`: cuts each term at the first `delimiter` (what follows is the payload).
pub fn delimited_payload(delimiter: char) -> TokenOp {
    TokenOp::new("delimited_payload", false, move |token: &mut TokenState| {
        if let Some(at) = token.term.find(delimiter) {
            token.term.truncate(at);
        }
        true
    })
}

/// `delimited_term_freq`: cuts each term at the first `delimiter` and reads the term frequency
/// after it (a value that is not a positive integer leaves the frequency at 1).
pub fn delimited_term_freq(delimiter: char) -> TokenOp {
    TokenOp::new("delimited_term_freq", false, move |token: &mut TokenState| {
        if let Some(at) = token.term.find(delimiter) {
            let frequency = token.term[at + delimiter.len_utf8()..].parse::<u32>().ok();
            token.term.truncate(at);
            token.term_frequency = frequency.filter(|f| *f > 0).unwrap_or(1);
        }
        true
    })
}

/// `dictionary_decompounder`: after each token of at least `min_word_size` characters, the
/// dictionary words found inside it (stacked on it, with its offsets).
#[derive(Debug)]
pub struct DictionaryDecompounder {
    /// The dictionary.
    pub words: StopWords,
    /// Shorter tokens are left alone (default 5).
    pub min_word_size: usize,
    /// Shortest subword (default 2).
    pub min_subword_size: usize,
    /// Longest subword (default 15).
    pub max_subword_size: usize,
    /// Only the longest subword starting at each offset.
    pub only_longest_match: bool,
}

impl DictionaryDecompounder {
    /// The subwords of `term`, as Lucene's `DictionaryCompoundWordTokenFilter.decompose`.
    pub fn decompose(&self, term: &str) -> Vec<String> {
        let chars: Vec<char> = term.chars().collect();
        let len = chars.len();
        let mut found = Vec::new();
        if len < self.min_word_size {
            return found;
        }
        let mut scratch = String::new();
        let mut i = 0;
        while i + self.min_subword_size <= len {
            let mut longest: Option<String> = None;
            for j in self.min_subword_size..=self.max_subword_size {
                if i + j > len {
                    break;
                }
                let candidate: String = chars[i..i + j].iter().collect();
                if self.words.contains(&candidate, &mut scratch) {
                    if self.only_longest_match {
                        longest = Some(candidate);
                    } else {
                        found.push(candidate);
                    }
                }
            }
            found.extend(longest);
            i += 1;
        }
        found
    }
}

impl TokenFilter for DictionaryDecompounder {
    fn filter(&self, tokens: Vec<TokenState>, _end: &mut u32) -> Vec<TokenState> {
        let mut out = Vec::with_capacity(tokens.len());
        for token in tokens {
            let parts = self.decompose(&token.term);
            let (start, end, token_type) = (token.start, token.end, token.token_type);
            out.push(token);
            for part in parts {
                let mut sub = TokenState::new(&part, start, end, token_type);
                sub.position_increment = 0;
                out.push(sub);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(words: &[&str]) -> Vec<TokenState> {
        let mut at = 0;
        words
            .iter()
            .map(|w| {
                let t = TokenState::new(w, at, at + w.len(), "word");
                at += w.len() + 1;
                t
            })
            .collect()
    }

    fn terms(tokens: &[TokenState]) -> Vec<(String, u32, u32)> {
        tokens.iter().map(|t| (t.term.clone(), t.position_increment, t.position_length)).collect()
    }

    #[test]
    fn common_grams_index_and_query_mode() {
        let filter = CommonGrams { words: StopWords::new(["the"], false), query_mode: false };
        let out = filter.filter(tokens(&["the", "quick", "fox"]), &mut 0);
        assert_eq!(
            terms(&out),
            vec![("the".into(), 1, 1), ("the_quick".into(), 0, 2), ("quick".into(), 1, 1), ("fox".into(), 1, 1)]
        );
        let filter = CommonGrams { words: StopWords::new(["the"], false), query_mode: true };
        let out = filter.filter(tokens(&["the", "quick", "fox"]), &mut 0);
        assert_eq!(terms(&out), vec![("the_quick".into(), 1, 1), ("quick".into(), 1, 1), ("fox".into(), 1, 1)]);
        let out = filter.filter(tokens(&["the", "quick"]), &mut 0);
        assert_eq!(terms(&out), vec![("the_quick".into(), 1, 1)]);
        let out = filter.filter(tokens(&["fox"]), &mut 0);
        assert_eq!(terms(&out), vec![("fox".into(), 1, 1)]);
    }

    #[test]
    fn decompounder_finds_every_dictionary_word() {
        let filter = DictionaryDecompounder {
            words: StopWords::new(["foo", "bar", "foob"], false),
            min_word_size: 5,
            min_subword_size: 2,
            max_subword_size: 15,
            only_longest_match: false,
        };
        assert_eq!(filter.decompose("foobar"), vec!["foo", "foob", "bar"]);
        assert!(filter.decompose("foob").is_empty());
        let longest = DictionaryDecompounder { only_longest_match: true, ..filter };
        assert_eq!(longest.decompose("foobar"), vec!["foob", "bar"]);
    }

    #[test]
    fn delimited_filters_cut_the_term() {
        let mut token = TokenState::new("foo|100", 0, 7, "word");
        assert!(TokenFilter::filter(&delimited_term_freq('|'), vec![token.clone()], &mut 0)
            .first()
            .is_some_and(|t| t.term == "foo" && t.term_frequency == 100));
        token.term = "foo^bar".into();
        assert_eq!(TokenFilter::filter(&delimited_payload('^'), vec![token], &mut 0)[0].term, "foo");
    }
}
