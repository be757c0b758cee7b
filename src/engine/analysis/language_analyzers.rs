//! The language analyzers OpenSearch registers (`arabic` … `turkish`), each as Lucene's
//! `<Language>Analyzer.createComponents` builds it: the standard tokenizer, then the filters in
//! Lucene's order. `stopwords` replaces the default list (a predefined name or words),
//! `stem_exclusion` adds Lucene's `SetKeywordMarkerFilter` where Lucene puts it.
//!
//! Stemmers are named through [`StemAlgorithm::for_stemmer`] with OpenSearch's `stemmer`
//! language names, so an analyzer picks up a stemmer as soon as it is built. Until then an
//! analyzer whose stemmer is missing is an error, not a silently different analyzer: today the
//! Lucene stemmers `brazilian`, `bulgarian`, `czech`, `galician`, `hindi`, `indonesian`,
//! `latvian`, `sorani` (ported separately). The Snowball stemmers `rust-stemmers` lacks
//! (`armenian`, `basque`, `catalan`, `estonian`, `irish`, `lithuanian`) are in
//! [`super::snowball`]. `thai` uses [`super::thai::ThaiTokenizer`].

use std::collections::HashSet;
use std::sync::Arc;

use super::arabic::sorani_normalization;
use super::chain::{Named, TokenFilter, Tokenizer};
use super::components::stop_words;
use super::error::AnalysisError;
use super::filters::StopWords;
use super::indic::{bengali_normalization, hindi_normalization, indic_normalization};
use super::language_normalizers::{greek_lowercase_filter, irish_lowercase_filter, turkish_lowercase_filter};
use super::params::Params;
use super::stemming::{keyword_marker, stem_filter, StemAlgorithm};
use super::token_filters as tf;
use super::token_op::TokenOp;
use super::token_stream::TokenState;
use super::tokenizers::BasicTokenizer;

/// One stage of a language chain.
#[derive(Clone, Copy)]
enum Step {
    /// A filter without settings.
    Filter(&'static str, fn() -> TokenOp),
    /// Lucene's `ElisionFilter` with these articles (case-insensitive).
    Elision(&'static [&'static str]),
    /// A stop filter with a fixed case-insensitive set (Irish hyphenation particles).
    FixedStop(&'static [&'static str]),
    /// The stop filter of the `stopwords` setting, with this default list.
    Stop(&'static str),
    /// The keyword marker of `stem_exclusion`, when set.
    Exclusions,
    /// The stemmer of this OpenSearch `stemmer` language.
    Stem(&'static str),
}

use Step::*;

const LOWERCASE: Step = Filter("lowercase", || tf::lowercase(None));
const DECIMAL_DIGIT: Step = Filter("decimal_digit", tf::decimal_digit);

/// Lucene's `CatalanAnalyzer.DEFAULT_ARTICLES`.
const CATALAN_ARTICLES: [&str; 6] = ["d", "l", "m", "n", "s", "t"];
/// Lucene's `IrishAnalyzer.DEFAULT_ARTICLES`.
const IRISH_ARTICLES: [&str; 3] = ["d", "m", "b"];
/// Lucene's `IrishAnalyzer.HYPHENATIONS`.
const IRISH_HYPHENATIONS: [&str; 3] = ["h", "n", "t"];

/// The steps of the analyzer `language` after the standard tokenizer; None when it is not one
/// of these languages.
fn steps(language: &str) -> Option<&'static [Step]> {
    Some(match language {
        "arabic" => &[
            LOWERCASE,
            DECIMAL_DIGIT,
            Stop("_arabic_"),
            Filter("arabic_normalization", tf::arabic_normalization),
            Exclusions,
            Stem("arabic"),
        ],
        "armenian" => &[LOWERCASE, Stop("_armenian_"), Exclusions, Stem("armenian")],
        "basque" => &[LOWERCASE, Stop("_basque_"), Exclusions, Stem("basque")],
        "bengali" => &[
            LOWERCASE,
            DECIMAL_DIGIT,
            Exclusions,
            Filter("indic_normalization", indic_normalization),
            Filter("bengali_normalization", bengali_normalization),
            Stop("_bengali_"),
            Stem("bengali"),
        ],
        "brazilian" => &[LOWERCASE, Stop("_brazilian_"), Exclusions, Stem("brazilian")],
        "bulgarian" => &[LOWERCASE, Stop("_bulgarian_"), Exclusions, Stem("bulgarian")],
        "catalan" => &[Elision(&CATALAN_ARTICLES), LOWERCASE, Stop("_catalan_"), Exclusions, Stem("catalan")],
        "czech" => &[LOWERCASE, Stop("_czech_"), Exclusions, Stem("czech")],
        "estonian" => &[LOWERCASE, Stop("_estonian_"), Exclusions, Stem("estonian")],
        "galician" => &[LOWERCASE, Stop("_galician_"), Exclusions, Stem("galician")],
        "greek" => &[Filter("lowercase", greek_lowercase_filter), Stop("_greek_"), Exclusions, Stem("greek")],
        "hindi" => &[
            LOWERCASE,
            DECIMAL_DIGIT,
            Exclusions,
            Filter("indic_normalization", indic_normalization),
            Filter("hindi_normalization", hindi_normalization),
            Stop("_hindi_"),
            Stem("hindi"),
        ],
        "indonesian" => &[LOWERCASE, Stop("_indonesian_"), Exclusions, Stem("indonesian")],
        "irish" => &[
            FixedStop(&IRISH_HYPHENATIONS),
            Elision(&IRISH_ARTICLES),
            Filter("lowercase", irish_lowercase_filter),
            Stop("_irish_"),
            Exclusions,
            Stem("irish"),
        ],
        "latvian" => &[LOWERCASE, Stop("_latvian_"), Exclusions, Stem("latvian")],
        "lithuanian" => &[LOWERCASE, Stop("_lithuanian_"), Exclusions, Stem("lithuanian")],
        // OpenSearch's PersianAnalyzerProvider passes no stem exclusions
        "persian" => &[
            LOWERCASE,
            DECIMAL_DIGIT,
            Filter("arabic_normalization", tf::arabic_normalization),
            Filter("persian_normalization", tf::persian_normalization),
            Stop("_persian_"),
            Filter("persian_stem", || stem_filter(StemAlgorithm::Persian)),
        ],
        "romanian" => &[LOWERCASE, Stop("_romanian_"), Exclusions, Stem("romanian")],
        "sorani" => &[
            Filter("sorani_normalization", sorani_normalization),
            LOWERCASE,
            DECIMAL_DIGIT,
            Stop("_sorani_"),
            Exclusions,
            Stem("sorani"),
        ],
        // Lucene's ThaiAnalyzer: ThaiTokenizer, lowercase, decimal digits, stop words.
        "thai" => &[LOWERCASE, DECIMAL_DIGIT, Stop("_thai_")],
        "turkish" => &[
            Filter("apostrophe", tf::apostrophe),
            Filter("lowercase", turkish_lowercase_filter),
            Stop("_turkish_"),
            Exclusions,
            Stem("turkish"),
        ],
        _ => return None,
    })
}

/// The names of the analyzers built here.
pub const LANGUAGE_ANALYZERS: [&str; 22] = [
    "arabic",
    "armenian",
    "basque",
    "bengali",
    "brazilian",
    "bulgarian",
    "catalan",
    "czech",
    "estonian",
    "galician",
    "greek",
    "hindi",
    "indonesian",
    "irish",
    "latvian",
    "lithuanian",
    "persian",
    "romanian",
    "sorani",
    "turkish",
    "thai",
    "tamil",
];

/// The standard tokenizer over the text with ZWNJ (U+200C) read as a space, as Lucene's
/// `PersianCharFilter` does before `PersianAnalyzer`'s tokenizer. U+2002 (EN SPACE) is a space
/// of the same UTF-8 length, so offsets need no correction.
#[derive(Debug)]
struct ZwnjAsSpace(BasicTokenizer);

impl Tokenizer for ZwnjAsSpace {
    fn tokenize(&self, text: &str, out: &mut Vec<TokenState>) {
        if text.contains('\u{200C}') {
            self.0.tokenize(&text.replace('\u{200C}', "\u{2002}"), out);
        } else {
            self.0.tokenize(text, out);
        }
    }
}

/// A language analyzer's tokenizer and filters.
pub type LanguageChain = (Arc<dyn Tokenizer>, Vec<Named<dyn TokenFilter>>);

/// The tokenizer and filters of the language analyzer `language`; Ok(None) when it is not one.
pub fn language_chain(
    language: &str,
    p: &Params<'_>,
    standard: Arc<dyn Tokenizer>,
    max_token_length: usize,
) -> Result<Option<LanguageChain>, AnalysisError> {
    // `tamil` is not an OpenSearch analyzer; kept for compatibility: lowercase → Snowball Tamil
    let tamil: &[Step] = &[LOWERCASE, Stop("_none_"), Exclusions, Stem("tamil")];
    let Some(steps) = steps(language).or((language == "tamil").then_some(tamil)) else {
        return Ok(None);
    };
    let mut filters: Vec<Named<dyn TokenFilter>> = Vec::with_capacity(steps.len());
    for step in steps {
        match *step {
            Filter(name, make) => filters.push(Named::new(name, Arc::new(make()) as Arc<dyn TokenFilter>)),
            Elision(articles) => {
                let articles: HashSet<String> = articles.iter().map(|a| (*a).to_owned()).collect();
                filters.push(Named::new("elision", Arc::new(tf::elision(articles, true)) as Arc<dyn TokenFilter>));
            }
            FixedStop(words) => filters.push(Named::new("stop", tf::stop(Arc::new(StopWords::new(words, true)), true))),
            Stop(default) => {
                filters.push(Named::new("stop", tf::stop(Arc::new(stop_words(p, "stopwords", default, false)?), true)))
            }
            Exclusions => {
                let words = p.list("stem_exclusion").unwrap_or_default();
                if !(words.is_empty() || words == ["_none_"]) {
                    let marker = keyword_marker(words, None, false);
                    filters.push(Named::new("keyword_marker", Arc::new(marker) as Arc<dyn TokenFilter>));
                }
            }
            Stem(name) => {
                let Some(algorithm) = StemAlgorithm::for_stemmer(name) else {
                    return Err(AnalysisError::illegal_argument(format!(
                        "analyzer [{language}] is not supported yet: its stemmer [{name}] is not built"
                    )));
                };
                filters.push(Named::new("stemmer", Arc::new(stem_filter(algorithm)) as Arc<dyn TokenFilter>));
            }
        }
    }
    let tokenizer: Arc<dyn Tokenizer> = if language == "persian" {
        Arc::new(ZwnjAsSpace(BasicTokenizer::Standard(max_token_length)))
    } else if language == "thai" {
        Arc::new(super::thai::ThaiTokenizer)
    } else {
        standard
    };
    Ok(Some((tokenizer, filters)))
}

#[cfg(test)]
mod tests;
