//! Stemmers (`stemmer`, `snowball`, `porter_stem`, `kstem`) and the filters that protect words
//! from them (`keyword_marker`, `stemmer_override`).
//!
//! The `stemmer` filter's languages follow OpenSearch's `StemmerTokenFilterFactory` (names
//! matched without regard to case, with its camelCase aliases). Ported from Lucene rule for rule:
//! `english`/`porter`/`porter_stem` (Porter's original, [`super::porter`]), `light_english`/
//! `kstem` (Krovetz with Lucene's dictionary, [`super::kstem`]), `minimal_english`,
//! `possessive_english`, the `light_*` stemmers for German, French, Spanish, Italian and
//! Portuguese ([`super::light_stemmers`]) and for Finnish, Hungarian, Norwegian/Nynorsk, Swedish
//! and Russian, `minimal_french`, `minimal_german`, `minimal_norwegian`/`minimal_nynorsk`
//! ([`super::light_stemmers2`]), `czech`, `bulgarian`, `latvian`, `indonesian`, `hindi`,
//! `sorani` ([`super::light_stemmers_more`]), `bengali` ([`super::indic`]), `portuguese_rslp`,
//! `minimal_portuguese`, `galician` and `minimal_galician` (RSLP with Lucene's rule files,
//! [`super::rslp`]) and `brazilian` ([`super::brazilian`]).
//! The Snowball languages come from `rust-stemmers` except `armenian`, `basque`, `catalan`,
//! `estonian`, `irish` and `lithuanian` (and the `snowball` filter's Nepali, Serbian, Yiddish),
//! generated from Snowball's programs into [`super::snowball`]; `german2` is rust-stemmers'
//! German after Snowball German2's ae/oe/ue rewriting. Known divergences: `dutch_kp` (Snowball's
//! Kraaij-Pohlmann, not in rust-stemmers) is approximated by Snowball Dutch; `lovins` is refused
//! as unknown.

use std::collections::HashMap;
use std::sync::Arc;

use regex::Regex;
use rust_stemmers::{Algorithm, Stemmer};

use super::arabic::arabic_stem;
use super::brazilian::brazilian;
use super::chain::TokenFilter;
use super::error::AnalysisError;
use super::filters::lowercase_into;
use super::greek::greek_stem;
use super::indic::bengali_stem;
use super::kstem::kstem;
use super::light_stemmers::{light_french, light_german, light_italian, light_portuguese, light_spanish, persian_stem};
use super::light_stemmers2::{
    german2_prelude, light_finnish, light_hungarian, light_norwegian, light_russian, light_swedish, minimal_french,
    minimal_german, minimal_norwegian, Norwegian,
};
use super::light_stemmers_more::{bulgarian, czech, hindi, indonesian, latvian, sorani};
use super::porter::porter_stem;
use super::rslp::{galician, minimal_galician, minimal_portuguese, portuguese_rslp};
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
    /// Krovetz's stemmer (Lucene's `KStemFilter`; `kstem`, `light_english`).
    KStem,
    /// Lucene's `FinnishLightStemmer`.
    LightFinnish,
    /// Lucene's `HungarianLightStemmer`.
    LightHungarian,
    /// Lucene's `NorwegianLightStemmer` (Bokmål or Nynorsk).
    LightNorwegian(Norwegian),
    /// Lucene's `NorwegianMinimalStemmer` (Bokmål or Nynorsk).
    MinimalNorwegian(Norwegian),
    /// Lucene's `SwedishLightStemmer`.
    LightSwedish,
    /// Lucene's `RussianLightStemmer`.
    LightRussian,
    /// Lucene's `FrenchMinimalStemmer`.
    MinimalFrench,
    /// Lucene's `GermanMinimalStemmer`.
    MinimalGerman,
    /// Snowball's German2 (German after rewriting ae/oe/ue to umlauts).
    German2,
    /// Lucene's `CzechStemmer`.
    Czech,
    /// Lucene's `BulgarianStemmer`.
    Bulgarian,
    /// Lucene's `LatvianStemmer`.
    Latvian,
    /// Lucene's `IndonesianStemmer` (derivational stemming on).
    Indonesian,
    /// Lucene's `HindiStemmer`.
    Hindi,
    /// Lucene's `SoraniStemmer`.
    Sorani,
    /// Lucene's `PortugueseStemmer` (RSLP).
    PortugueseRslp,
    /// Lucene's `PortugueseMinimalStemmer` (RSLP's plural step).
    MinimalPortuguese,
    /// Lucene's `BrazilianStemmer`.
    Brazilian,
    /// Lucene's `GalicianStemmer` (the Galician RSLP).
    Galician,
    /// Lucene's `GalicianMinimalStemmer` (the Galician RSLP plural step).
    MinimalGalician,
    /// A Snowball stemmer.
    Snowball(Algorithm),
    /// A Snowball stemmer `rust-stemmers` lacks, run by Fathom's own runtime
    /// ([`super::snowball`]).
    SnowballNative(SnowballLanguage),
}

impl StemAlgorithm {
    /// The algorithm of the `stemmer` filter's `language` (or `name`), matched without regard to
    /// case with OpenSearch's camelCase aliases (`StemmerTokenFilterFactory`).
    pub fn for_stemmer(language: &str) -> Option<Self> {
        use super::light_stemmers2::Norwegian::{Bokmaal, Nynorsk};
        use Algorithm::*;
        Some(match language.to_ascii_lowercase().as_str() {
            "english" | "porter" => StemAlgorithm::Porter,
            "light_english" | "lightenglish" | "kstem" => StemAlgorithm::KStem,
            "minimal_english" | "minimalenglish" => StemAlgorithm::MinimalEnglish,
            "possessive_english" | "possessiveenglish" => StemAlgorithm::PossessiveEnglish,
            "porter2" => StemAlgorithm::Snowball(English),
            "arabic" => StemAlgorithm::Arabic,
            lower @ ("armenian" | "basque" | "catalan" | "estonian" | "irish" | "lithuanian") => {
                StemAlgorithm::SnowballNative(SnowballLanguage::from_name(lower)?)
            }
            "bengali" => StemAlgorithm::Bengali,
            "brazilian" => StemAlgorithm::Brazilian,
            "bulgarian" => StemAlgorithm::Bulgarian,
            "czech" => StemAlgorithm::Czech,
            "danish" => StemAlgorithm::Snowball(Danish),
            // Snowball's Kraaij-Pohlmann stemmer is not in rust-stemmers: approximated by Dutch.
            "dutch" | "dutch_kp" | "dutchkp" | "kp" => StemAlgorithm::Snowball(Dutch),
            "finnish" => StemAlgorithm::Snowball(Finnish),
            "light_finnish" | "lightfinnish" | "light_finish" | "lightfinish" => StemAlgorithm::LightFinnish,
            "light_french" | "lightfrench" => StemAlgorithm::LightFrench,
            "minimal_french" | "minimalfrench" => StemAlgorithm::MinimalFrench,
            "french" => StemAlgorithm::Snowball(French),
            "light_german" | "lightgerman" => StemAlgorithm::LightGerman,
            "minimal_german" | "minimalgerman" => StemAlgorithm::MinimalGerman,
            "german" => StemAlgorithm::Snowball(German),
            "german2" => StemAlgorithm::German2,
            "greek" => StemAlgorithm::Greek,
            "hindi" => StemAlgorithm::Hindi,
            "hungarian" => StemAlgorithm::Snowball(Hungarian),
            "light_hungarian" | "lighthungarian" => StemAlgorithm::LightHungarian,
            "indonesian" => StemAlgorithm::Indonesian,
            "light_italian" | "lightitalian" => StemAlgorithm::LightItalian,
            "italian" => StemAlgorithm::Snowball(Italian),
            "latvian" => StemAlgorithm::Latvian,
            "norwegian" => StemAlgorithm::Snowball(Norwegian),
            "light_norwegian" | "lightnorwegian" => StemAlgorithm::LightNorwegian(Bokmaal),
            // OpenSearch compares "minimalNorwegian" case-sensitively to the capitalized name, so
            // that alias never matches.
            "minimal_norwegian" => StemAlgorithm::MinimalNorwegian(Bokmaal),
            "light_nynorsk" | "lightnynorsk" => StemAlgorithm::LightNorwegian(Nynorsk),
            "minimal_nynorsk" | "minimalnynorsk" => StemAlgorithm::MinimalNorwegian(Nynorsk),
            "light_portuguese" | "lightportuguese" => StemAlgorithm::LightPortuguese,
            "portuguese" => StemAlgorithm::Snowball(Portuguese),
            "minimal_portuguese" | "minimalportuguese" => StemAlgorithm::MinimalPortuguese,
            "portuguese_rslp" => StemAlgorithm::PortugueseRslp,
            "galician" => StemAlgorithm::Galician,
            "minimal_galician" => StemAlgorithm::MinimalGalician,
            "romanian" => StemAlgorithm::Snowball(Romanian),
            "russian" => StemAlgorithm::Snowball(Russian),
            "light_russian" | "lightrussian" => StemAlgorithm::LightRussian,
            "light_spanish" | "lightspanish" => StemAlgorithm::LightSpanish,
            "sorani" => StemAlgorithm::Sorani,
            "spanish" => StemAlgorithm::Snowball(Spanish),
            "swedish" => StemAlgorithm::Snowball(Swedish),
            "light_swedish" | "lightswedish" => StemAlgorithm::LightSwedish,
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
            StemAlgorithm::KStem => kstem(term),
            StemAlgorithm::LightFinnish => light_finnish(term),
            StemAlgorithm::LightHungarian => light_hungarian(term),
            StemAlgorithm::LightNorwegian(variant) => light_norwegian(term, variant),
            StemAlgorithm::MinimalNorwegian(variant) => minimal_norwegian(term, variant),
            StemAlgorithm::LightSwedish => light_swedish(term),
            StemAlgorithm::LightRussian => light_russian(term),
            StemAlgorithm::MinimalFrench => minimal_french(term),
            StemAlgorithm::MinimalGerman => minimal_german(term),
            StemAlgorithm::German2 => {
                let term = german2_prelude(term);
                snowball.map_or_else(|| term.clone(), |s| s.stem(&term).into_owned())
            }
            StemAlgorithm::Czech => czech(term),
            StemAlgorithm::Bulgarian => bulgarian(term),
            StemAlgorithm::Latvian => latvian(term),
            StemAlgorithm::Indonesian => indonesian(term),
            StemAlgorithm::Hindi => hindi(term),
            StemAlgorithm::Sorani => sorani(term),
            StemAlgorithm::PortugueseRslp => portuguese_rslp(term),
            StemAlgorithm::MinimalPortuguese => minimal_portuguese(term),
            StemAlgorithm::Brazilian => brazilian(term).into_owned(),
            StemAlgorithm::Galician => galician(term),
            StemAlgorithm::MinimalGalician => minimal_galician(term),
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
        StemAlgorithm::German2 => Some(Stemmer::create(Algorithm::German)),
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
