//! Stemmers (`stemmer`, `snowball`, `porter_stem`, `kstem`) and the filters that protect words
//! from them (`keyword_marker`, `stemmer_override`).
//!
//! `english`/`porter`/`porter_stem` are Porter's original algorithm ([`super::porter`]), the
//! Snowball languages come from `rust-stemmers` except `armenian`, `basque`, `catalan`,
//! `estonian`, `irish` and `lithuanian` ([`super::snowball`]), `light_german`, `light_french`,
//! `light_spanish`, `light_italian` and `light_portuguese` from [`super::light_stemmers`]. Known divergence:
//! `light_english`/`kstem` (Krovetz, dictionary-based) is approximated by the minimal English
//! plural stemmer, and the other Lucene `light_*`/`minimal_*` stemmers (Finnish, Hungarian,
//! Norwegian, Russian, Swedish, minimal French, German and Portuguese) by their Snowball stemmer.

use std::collections::HashMap;
use std::sync::Arc;

use regex::Regex;
use rust_stemmers::{Algorithm, Stemmer};

use super::arabic::arabic_stem;
use super::chain::TokenFilter;
use super::greek::greek_stem;
use super::indic::bengali_stem;
use super::error::AnalysisError;
use super::filters::lowercase_into;
use super::light_stemmers::{light_french, light_german, light_italian, light_portuguese, light_spanish, persian_stem};
use super::porter::porter_stem;
use super::snowball::SnowballLanguage;
use super::token_op::TokenOp;
use super::token_stream::TokenState;

/// A stemming algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StemAlgorithm {
    /// Porter (1980).
    Porter,
    /// Strips plural `s` (Lucene's `EnglishMinimalStemmer`).
    MinimalEnglish,
    /// Strips `'s` (Lucene's `EnglishPossessiveFilter`).
    PossessiveEnglish,
    /// Savoy's light German stemmer (Lucene's `GermanLightStemmer`).
    LightGerman,
    /// Savoy's light French stemmer (Lucene's `FrenchLightStemmer`).
    LightFrench,
    /// Savoy's light Spanish stemmer (Lucene's `SpanishLightStemmer`).
    LightSpanish,
    /// Savoy's light Italian stemmer (Lucene's `ItalianLightStemmer`).
    LightItalian,
    /// Savoy's light Portuguese stemmer (Lucene's `PortugueseLightStemmer`).
    LightPortuguese,
    /// Lucene's `PersianStemmer` (the `persian_stem` filter).
    Persian,
    /// Lucene's `ArabicStemmer` (light10; the `arabic_stem` filter).
    Arabic,
    /// Lucene's `BengaliStemmer`.
    Bengali,
    /// Lucene's `GreekStemmer`.
    Greek,
    /// A Snowball stemmer.
    Snowball(Algorithm),
    /// A Snowball stemmer `rust-stemmers` lacks, run by Fathom's own runtime
    /// ([`super::snowball`]).
    SnowballNative(SnowballLanguage),
}

impl StemAlgorithm {
    /// The algorithm of the `stemmer` filter's `language` (or `name`).
    pub fn for_stemmer(language: &str) -> Option<Self> {
        use Algorithm::*;
        Some(match language {
            "english" | "porter" => StemAlgorithm::Porter,
            "light_english" | "kstem" | "minimal_english" => StemAlgorithm::MinimalEnglish,
            "possessive_english" => StemAlgorithm::PossessiveEnglish,
            "porter2" => StemAlgorithm::Snowball(English),
            "arabic" => StemAlgorithm::Arabic,
            "armenian" | "basque" | "catalan" | "estonian" | "irish" | "lithuanian" => {
                StemAlgorithm::SnowballNative(SnowballLanguage::from_name(language)?)
            }
            "bengali" => StemAlgorithm::Bengali,
            "danish" => StemAlgorithm::Snowball(Danish),
            "dutch" | "dutch_kp" => StemAlgorithm::Snowball(Dutch),
            "finnish" | "light_finnish" => StemAlgorithm::Snowball(Finnish),
            "light_french" => StemAlgorithm::LightFrench,
            "french" | "minimal_french" => StemAlgorithm::Snowball(French),
            "light_german" => StemAlgorithm::LightGerman,
            "german" | "german2" | "minimal_german" => StemAlgorithm::Snowball(German),
            "greek" => StemAlgorithm::Greek,
            "hungarian" | "light_hungarian" => StemAlgorithm::Snowball(Hungarian),
            "light_italian" => StemAlgorithm::LightItalian,
            "italian" => StemAlgorithm::Snowball(Italian),
            "norwegian" | "light_norwegian" | "minimal_norwegian" => StemAlgorithm::Snowball(Norwegian),
            "light_portuguese" => StemAlgorithm::LightPortuguese,
            "portuguese" | "minimal_portuguese" | "portuguese_rslp" => {
                StemAlgorithm::Snowball(Portuguese)
            }
            "romanian" => StemAlgorithm::Snowball(Romanian),
            "russian" | "light_russian" => StemAlgorithm::Snowball(Russian),
            "light_spanish" => StemAlgorithm::LightSpanish,
            "spanish" => StemAlgorithm::Snowball(Spanish),
            "swedish" | "light_swedish" => StemAlgorithm::Snowball(Swedish),
            "tamil" => StemAlgorithm::Snowball(Tamil),
            "turkish" => StemAlgorithm::Snowball(Turkish),
            _ => return None,
        })
    }

    /// The algorithm of the `snowball` filter's `language` (Snowball's capitalized names).
    pub fn for_snowball(language: &str) -> Option<Self> {
        match language {
            "Porter" => Some(StemAlgorithm::Porter),
            "English" => Some(StemAlgorithm::Snowball(Algorithm::English)),
            // Snowball's own programs, not the Lucene stemmers the `stemmer` filter names so
            "Arabic" => Some(StemAlgorithm::Snowball(Algorithm::Arabic)),
            "Greek" => Some(StemAlgorithm::Snowball(Algorithm::Greek)),
            // (Snowball's Hindi and Indonesian need among-entry routines, not in the runtime yet)
            "Nepali" | "Serbian" | "Yiddish" => {
                SnowballLanguage::from_name(&language.to_lowercase()).map(StemAlgorithm::SnowballNative)
            }
            other => Self::for_stemmer(&other.to_lowercase()),
        }
    }

    /// The stem of `term`.
    pub fn stem(self, term: &str, snowball: Option<&Stemmer>) -> String {
        match self {
            StemAlgorithm::Porter => porter_stem(term),
            StemAlgorithm::MinimalEnglish => minimal_english(term),
            StemAlgorithm::PossessiveEnglish => possessive_english(term).to_owned(),
            StemAlgorithm::LightGerman => light_german(term),
            StemAlgorithm::LightFrench => light_french(term),
            StemAlgorithm::LightSpanish => light_spanish(term),
            StemAlgorithm::LightItalian => light_italian(term),
            StemAlgorithm::Persian => persian_stem(term),
            StemAlgorithm::Arabic => arabic_stem(term),
            StemAlgorithm::Bengali => bengali_stem(term),
            StemAlgorithm::Greek => greek_stem(term),
            StemAlgorithm::LightPortuguese => light_portuguese(term),
            StemAlgorithm::SnowballNative(language) => language.stem(term),
            StemAlgorithm::Snowball(_) => snowball.map_or_else(|| term.to_owned(), |s| s.stem(term).into_owned()),
        }
    }
}

/// Lucene's `EnglishMinimalStemmer`.
pub fn minimal_english(term: &str) -> String {
    let s: Vec<char> = term.chars().collect();
    let len = s.len();
    if len < 3 || s[len - 1] != 's' {
        return term.to_owned();
    }
    let keep = |n: usize| s.iter().take(n).collect::<String>();
    match s[len - 2] {
        'u' | 's' => term.to_owned(),
        'e' => {
            if len > 3 && s[len - 3] == 'i' && s[len - 4] != 'a' && s[len - 4] != 'e' {
                return format!("{}y", keep(len - 3));
            }
            if matches!(s[len - 3], 'i' | 'a' | 'o' | 'e') {
                return term.to_owned();
            }
            keep(len - 1)
        }
        _ => keep(len - 1),
    }
}

/// Lucene's `EnglishPossessiveFilter`: drops a trailing `'s`, `’s` or `＇s`.
pub fn possessive_english(term: &str) -> &str {
    for suffix in ["'s", "'S", "\u{2019}s", "\u{2019}S", "\u{FF07}s", "\u{FF07}S"] {
        if let Some(stripped) = term.strip_suffix(suffix) {
            return stripped;
        }
    }
    term
}

/// A stemming filter; keyword-marked tokens are left alone.
pub fn stem_filter(algorithm: StemAlgorithm) -> TokenOp {
    let snowball = match algorithm {
        StemAlgorithm::Snowball(a) => Some(Stemmer::create(a)),
        _ => None,
    };
    let op = TokenOp::new("stemmer", false, move |token: &mut TokenState| {
        if !token.keyword {
            token.term = algorithm.stem(&token.term, snowball.as_ref());
        }
        true
    });
    if algorithm == StemAlgorithm::PossessiveEnglish {
        op
    } else {
        op.with_keyword_attribute()
    }
}

/// `keyword_marker`: marks the given words (or those matching `keywords_pattern`) as keywords.
pub fn keyword_marker(words: Vec<String>, pattern: Option<Regex>, ignore_case: bool) -> TokenOp {
    let words: std::collections::HashSet<String> =
        words.into_iter().map(|w| if ignore_case { w.to_lowercase() } else { w }).collect();
    TokenOp::new("keyword_marker", false, move |token: &mut TokenState| {
        let hit = match &pattern {
            Some(p) => p.find(&token.term).is_some_and(|m| m.start() == 0 && m.end() == token.term.len()),
            None if ignore_case => {
                let mut lowered = String::new();
                lowercase_into(&token.term, &mut lowered);
                words.contains(&lowered)
            }
            None => words.contains(&token.term),
        };
        if hit {
            token.keyword = true;
        }
        true
    })
    .with_keyword_attribute()
}

/// `stemmer_override`: rules `word, word => stem` replace the term and mark it a keyword.
pub fn stemmer_override(rules: &[String]) -> Result<Arc<dyn TokenFilter>, AnalysisError> {
    let mut map = HashMap::new();
    for rule in rules {
        let Some((left, right)) = rule.split_once("=>") else {
            return Err(AnalysisError::illegal_argument(format!("Invalid Keyword override Rule:{rule}")));
        };
        let right = right.trim();
        if right.is_empty() || left.trim().is_empty() {
            return Err(AnalysisError::illegal_argument(format!("Invalid Keyword override Rule:{rule}")));
        }
        for word in left.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            map.entry(word.to_owned()).or_insert_with(|| right.to_owned());
        }
    }
    Ok(Arc::new(
        TokenOp::new("stemmer_override", false, move |token: &mut TokenState| {
            if !token.keyword {
                if let Some(stem) = map.get(&token.term) {
                    token.term = stem.clone();
                    token.keyword = true;
                }
            }
            true
        })
        .with_keyword_attribute(),
    ))
}
