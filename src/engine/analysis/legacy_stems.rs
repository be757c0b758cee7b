//! The legacy per-language stem filters of OpenSearch's analysis-common module, built as its
//! factories build them: `brazilian_stem` (Lucene's `BrazilianStemFilter`), `czech_stem`
//! (`CzechStemFilter`), `dutch_stem` and `french_stem` (Snowball's Dutch and French),
//! `german_stem` (Lucene's `GermanStemFilter`, the Caumanns stemmer ported here) and
//! `russian_stem` (Snowball's Russian). All but `czech_stem` and `russian_stem` take a
//! `stem_exclusion` list whose words are marked as keywords (Lucene's `SetKeywordMarkerFilter`)
//! and left unstemmed.

use std::collections::HashSet;

use rust_stemmers::Algorithm;

use super::stemming::{stem_filter, StemAlgorithm};
use super::token_op::TokenOp;
use super::token_stream::TokenState;

/// The stemmer of a legacy filter type, and whether it reads `stem_exclusion`.
pub fn legacy_stemmer(kind: &str) -> Option<(Legacy, bool)> {
    Some(match kind {
        "brazilian_stem" => (Legacy::Algorithm(StemAlgorithm::Brazilian), true),
        "czech_stem" => (Legacy::Algorithm(StemAlgorithm::Czech), false),
        "dutch_stem" => (Legacy::Algorithm(StemAlgorithm::Snowball(Algorithm::Dutch)), true),
        "french_stem" => (Legacy::Algorithm(StemAlgorithm::Snowball(Algorithm::French)), true),
        "german_stem" => (Legacy::German, true),
        "russian_stem" => (Legacy::Algorithm(StemAlgorithm::Snowball(Algorithm::Russian)), false),
        _ => return None,
    })
}

/// A legacy stemmer.
#[derive(Clone, Copy, Debug)]
pub enum Legacy {
    /// One of the `stemmer` filter's algorithms.
    Algorithm(StemAlgorithm),
    /// Lucene's `GermanStemmer`.
    German,
}

/// The filter: marks `exclusions` as keywords, then stems the other tokens.
pub fn legacy_stem_filter(stemmer: Legacy, exclusions: HashSet<String>) -> TokenOp {
    let stem: Box<dyn Fn(&mut TokenState) -> bool + Send + Sync> = match stemmer {
        Legacy::Algorithm(algorithm) => {
            let op = stem_filter(algorithm);
            Box::new(move |token: &mut TokenState| {
                super::chain::TokenFilter::filter(&op, vec![std::mem::take(token)], &mut 0)
                    .pop()
                    .map(|t| *token = t)
                    .is_some()
            })
        }
        Legacy::German => Box::new(|token: &mut TokenState| {
            if !token.keyword {
                if let Some(stemmed) = german_stem(&token.term) {
                    token.term = stemmed;
                }
            }
            true
        }),
    };
    TokenOp::new("stemmer", false, move |token: &mut TokenState| {
        if exclusions.contains(&token.term) {
            token.keyword = true;
        }
        stem(token)
    })
    .with_keyword_attribute()
}

/// Lucene's `GermanStemmer.stem` (Jörg Caumanns' algorithm): None when the term is unchanged.
pub fn german_stem(term: &str) -> Option<String> {
    let lowered = term.to_lowercase();
    if !lowered.chars().all(super::char_classes::is_letter) {
        return (lowered != term).then_some(lowered);
    }
    let mut buffer: Vec<char> = lowered.chars().collect();
    let subst_count = substitute(&mut buffer);
    strip(&mut buffer, subst_count);
    optimize(&mut buffer, subst_count);
    resubstitute(&mut buffer);
    remove_particle_denotion(&mut buffer);
    let stemmed: String = buffer.into_iter().collect();
    (stemmed != term).then_some(stemmed)
}

fn ends_with(buffer: &[char], suffix: &str) -> bool {
    let suffix: Vec<char> = suffix.chars().collect();
    buffer.len() >= suffix.len() && buffer[buffer.len() - suffix.len()..] == suffix[..]
}

fn strip(buffer: &mut Vec<char>, subst_count: usize) {
    while buffer.len() > 3 {
        let len = buffer.len();
        if len + subst_count > 5 && ends_with(buffer, "nd") {
            buffer.truncate(len - 2);
        } else if len + subst_count > 4 && (ends_with(buffer, "em") || ends_with(buffer, "er")) {
            buffer.truncate(len - 2);
        } else if matches!(buffer[len - 1], 'e' | 's' | 'n' | 't') {
            buffer.truncate(len - 1);
        } else {
            break;
        }
    }
}

fn optimize(buffer: &mut Vec<char>, subst_count: usize) {
    // Female plurals of professions and inhabitants.
    if buffer.len() > 5 && ends_with(buffer, "erin*") {
        buffer.pop();
        strip(buffer, subst_count);
    }
    // Irregular plural nouns: Matrizen -> Matrix.
    if let Some(last) = buffer.last_mut() {
        if *last == 'z' {
            *last = 'x';
        }
    }
}

fn remove_particle_denotion(buffer: &mut Vec<char>) {
    if buffer.len() > 4 {
        for c in 0..buffer.len() - 3 {
            if buffer[c..c + 4] == ['g', 'e', 'g', 'e'] {
                buffer.drain(c..c + 2);
                return;
            }
        }
    }
}

/// Umlauts to vowels, `ß` to `ss`, the second of a doubled letter to `*`, and `sch`, `ch`, `ei`,
/// `ie`, `ig`, `st` to one-character tokens; returns how many characters the tokens saved.
fn substitute(buffer: &mut Vec<char>) -> usize {
    let mut subst_count = 0;
    let mut c = 0;
    while c < buffer.len() {
        if c > 0 && buffer[c] == buffer[c - 1] {
            buffer[c] = '*';
        } else if buffer[c] == 'ä' {
            buffer[c] = 'a';
        } else if buffer[c] == 'ö' {
            buffer[c] = 'o';
        } else if buffer[c] == 'ü' {
            buffer[c] = 'u';
        } else if buffer[c] == 'ß' {
            buffer[c] = 's';
            buffer.insert(c + 1, 's');
            subst_count += 1;
        }
        if c + 1 < buffer.len() {
            let next = buffer[c + 1];
            if c + 2 < buffer.len() && buffer[c] == 's' && next == 'c' && buffer[c + 2] == 'h' {
                buffer[c] = '$';
                buffer.drain(c + 1..c + 3);
                subst_count += 2;
            } else {
                let token = match (buffer[c], next) {
                    ('c', 'h') => Some('§'),
                    ('e', 'i') => Some('%'),
                    ('i', 'e') => Some('&'),
                    ('i', 'g') => Some('#'),
                    ('s', 't') => Some('!'),
                    _ => None,
                };
                if let Some(token) = token {
                    buffer[c] = token;
                    buffer.remove(c + 1);
                    subst_count += 1;
                }
            }
        }
        c += 1;
    }
    subst_count
}

fn resubstitute(buffer: &mut Vec<char>) {
    let mut c = 0;
    while c < buffer.len() {
        let expansion: Option<[char; 2]> = match buffer[c] {
            '*' if c > 0 => {
                buffer[c] = buffer[c - 1];
                None
            }
            '$' => {
                buffer[c] = 's';
                buffer.splice(c + 1..c + 1, ['c', 'h']);
                None
            }
            '§' => Some(['c', 'h']),
            '%' => Some(['e', 'i']),
            '&' => Some(['i', 'e']),
            '#' => Some(['i', 'g']),
            '!' => Some(['s', 't']),
            _ => None,
        };
        if let Some([first, second]) = expansion {
            buffer[c] = first;
            buffer.insert(c + 1, second);
        }
        c += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::german_stem;

    #[test]
    fn german_stems_as_lucene() {
        // Expected values from Lucene's GermanStemFilter test data (data.txt).
        for (word, stem) in [
            ("abschließen", "abschliess"),
            ("abschließender", "abschliess"),
            ("Matrizen", "matrix"),
            ("häufig", "haufig"),
            ("Schreiben", "schreib"),
            ("geheimtür", "geheimtur"),
            ("Tisch", "tisch"),
        ] {
            assert_eq!(german_stem(word).as_deref().unwrap_or(word), stem, "{word}");
        }
    }
}
