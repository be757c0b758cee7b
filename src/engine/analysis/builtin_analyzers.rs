//! Analyzers by type (`standard`, `simple`, `stop`, `whitespace`, `keyword`, `pattern`,
//! `fingerprint`, `snowball`, the language analyzers) with their settings.
//!
//! `english` is Lucene's `EnglishAnalyzer`: standard tokenizer, possessive `'s` removal,
//! lowercase, `_english_` stop words, `stem_exclusion` keywords, Porter stemmer. The other
//! language analyzers follow [`LanguageRecipe`]: `french` (elision, `_french_`, light French),
//! `italian` (elision, `_italian_`, light Italian), `german` (`_german_`, German normalization,
//! light German), `spanish` (light Spanish), `portuguese` (light Portuguese), `dutch` (stem
//! overrides, Snowball), and `russian`, `danish`, `finnish`, `hungarian`, `norwegian`,
//! `swedish` with their Snowball list and stemmer. The other language analyzers (`arabic` …
//! `turkish`) are in [`super::language_analyzers`].

use std::sync::Arc;

use super::analyzers::{KeywordAnalyzer, LetterAnalyzer, StandardAnalyzer, WhitespaceAnalyzer};
use super::chain::{CustomAnalyzer, Named, TokenFilter, Tokenizer};
use super::components::stop_words;
use super::error::AnalysisError;
use super::java_regex::java_regex;
use super::language_analyzers::language_chain;
use super::language_normalizers::turkish_lowercase_filter;
use super::light_stemmers::german_normalization;
use super::params::Params;
use super::shingle::CjkBigram;
use super::stemming::{keyword_marker, stem_filter, stemmer_override, StemAlgorithm};
use super::token_filters as tf;
use super::tokenizers::{BasicTokenizer, PatternTokenizer};
use super::{Analyzer, DEFAULT_MAX_TOKEN_LENGTH};

/// Names of the built-in analyzers (also usable without settings).
pub const BUILTIN_ANALYZERS: [&str; 44] = [
    "standard",
    "simple",
    "stop",
    "whitespace",
    "keyword",
    "pattern",
    "fingerprint",
    "snowball",
    "english",
    "french",
    "german",
    "spanish",
    "italian",
    "portuguese",
    "dutch",
    "russian",
    "danish",
    "finnish",
    "hungarian",
    "norwegian",
    "swedish",
    "cjk",
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

fn named_filter(name: &str, filter: impl TokenFilter + 'static) -> Named<dyn TokenFilter> {
    Named::new(name, Arc::new(filter) as Arc<dyn TokenFilter>)
}

fn chain(
    name: &str,
    tokenizer: Arc<dyn Tokenizer>,
    filters: Vec<Named<dyn TokenFilter>>,
    gap: u32,
) -> Arc<dyn Analyzer> {
    let mut analyzer = CustomAnalyzer::new(Vec::new(), Named::new("standard", tokenizer), filters);
    analyzer.position_increment_gap = gap;
    analyzer.builtin = Some(name.to_owned());
    Arc::new(analyzer)
}

/// The analyzer of type `kind` with `params` and `gap`; None when `kind` is not an analyzer type.
pub fn analyzer_of_type(kind: &str, params: Params<'_>, gap: u32) -> Result<Option<Arc<dyn Analyzer>>, AnalysisError> {
    let p = &params;
    let gap = u32::try_from(p.usize("position_increment_gap", gap as usize)?).unwrap_or(gap);
    let max_token_length = p.usize("max_token_length", DEFAULT_MAX_TOKEN_LENGTH)?.clamp(1, 1024 * 1024);
    let standard =
        || -> Result<Arc<dyn Tokenizer>, AnalysisError> { Ok(Arc::new(BasicTokenizer::Standard(max_token_length))) };
    let stop = |default: &str| -> Result<Named<dyn TokenFilter>, AnalysisError> {
        Ok(Named::new("stop", tf::stop(Arc::new(stop_words(p, "stopwords", default, false)?), true)))
    };
    let exclusions = || -> Option<Named<dyn TokenFilter>> {
        let words = p.list("stem_exclusion").filter(|w| !w.is_empty())?;
        Some(named_filter("keyword_marker", keyword_marker(words, None, false)))
    };
    let analyzer: Arc<dyn Analyzer> = match kind {
        "standard" => {
            let words = stop_words(p, "stopwords", "_none_", false)?;
            Arc::new(StandardAnalyzer {
                max_token_length: p.usize("max_token_length", DEFAULT_MAX_TOKEN_LENGTH)?.clamp(1, 1024 * 1024),
                stop_words: (!words.is_empty()).then(|| Arc::new(words)),
                position_increment_gap: gap,
            })
        }
        "simple" => Arc::new(LetterAnalyzer { position_increment_gap: gap, ..LetterAnalyzer::simple() }),
        "stop" => Arc::new(LetterAnalyzer {
            stop_words: Some(Arc::new(stop_words(p, "stopwords", "_english_", false)?)),
            position_increment_gap: gap,
        }),
        "whitespace" => Arc::new(WhitespaceAnalyzer { position_increment_gap: gap }),
        "keyword" => Arc::new(KeywordAnalyzer { position_increment_gap: gap }),
        "pattern" => {
            let pattern = java_regex(
                &p.string("pattern").unwrap_or_else(|| "\\W+".to_owned()),
                &p.string("flags").unwrap_or_default(),
            )?;
            let mut filters = Vec::new();
            if p.bool("lowercase", true)? {
                filters.push(named_filter("lowercase", tf::lowercase(None)));
            }
            filters.push(stop("_none_")?);
            chain("pattern", Arc::new(PatternTokenizer { pattern, group: -1 }), filters, gap)
        }
        "fingerprint" => chain(
            "fingerprint",
            standard()?,
            vec![
                named_filter("lowercase", tf::lowercase(None)),
                named_filter("asciifolding", tf::AsciiFolding { preserve_original: false }),
                stop("_none_")?,
                named_filter(
                    "fingerprint",
                    tf::Fingerprint {
                        separator: p.string("separator").unwrap_or_else(|| " ".to_owned()),
                        max_output_size: p.usize("max_output_size", 255)?,
                    },
                ),
            ],
            gap,
        ),
        "english" => {
            let mut filters = vec![
                named_filter("possessive_english", stem_filter(StemAlgorithm::PossessiveEnglish)),
                named_filter("lowercase", tf::lowercase(None)),
                stop("_english_")?,
            ];
            filters.extend(exclusions());
            filters.push(named_filter("porter_stem", stem_filter(StemAlgorithm::Porter)));
            chain("english", standard()?, filters, gap)
        }
        "cjk" => chain(
            "cjk",
            standard()?,
            vec![
                named_filter("cjk_width", tf::cjk_width()),
                named_filter("lowercase", tf::lowercase(None)),
                named_filter("cjk_bigram", CjkBigram { output_unigrams: false }),
                stop("_english_")?,
            ],
            gap,
        ),
        "snowball" => {
            let language = p.string("language").unwrap_or_else(|| "English".to_owned());
            let Some(algorithm) = StemAlgorithm::for_snowball(&language) else {
                return Err(AnalysisError::illegal_argument(format!("Unknown snowball language [{language}]")));
            };
            // Lucene's SnowballAnalyzer: possessive removal for the English stemmers, Turkish lowercasing
            let mut filters = Vec::new();
            if matches!(language.as_str(), "English" | "Porter" | "Lovins") {
                filters.push(named_filter("possessive_english", stem_filter(StemAlgorithm::PossessiveEnglish)));
            }
            if language == "Turkish" {
                filters.push(named_filter("lowercase", turkish_lowercase_filter()));
            } else {
                filters.push(named_filter("lowercase", tf::lowercase(None)));
            }
            filters.push(stop("_english_")?);
            filters.push(named_filter("stemmer", stem_filter(algorithm)));
            chain(kind, standard()?, filters, gap)
        }
        language => {
            if let Some((tokenizer, filters)) = language_chain(language, p, standard()?, max_token_length)? {
                return Ok(Some(chain(language, tokenizer, filters, gap)));
            }
            let Some(recipe) = LanguageRecipe::of(language) else {
                return Ok(None);
            };
            let mut filters = Vec::new();
            if let Some(articles) = recipe.elision {
                let articles = articles.iter().map(|s| (*s).to_owned()).collect();
                filters.push(named_filter("elision", tf::elision(articles, true)));
            }
            filters.push(named_filter("lowercase", tf::lowercase(None)));
            filters.push(stop(recipe.stop_words)?);
            filters.extend(exclusions());
            if language == "german" {
                filters.push(named_filter("german_normalization", german_normalization()));
            }
            if language == "dutch" {
                let overrides = DUTCH_STEM_OVERRIDES.map(str::to_owned);
                filters.push(Named::new("stemmer_override", stemmer_override(&overrides)?));
            }
            filters.push(named_filter("stemmer", stem_filter(recipe.stemmer)));
            chain(language, standard()?, filters, gap)
        }
    };
    Ok(Some(analyzer))
}

/// Lucene's `ItalianAnalyzer.DEFAULT_ARTICLES`, removed by elision before lowercasing.
pub const ITALIAN_ARTICLES: [&str; 21] = [
    "c", "l", "all", "dall", "dell", "nell", "sull", "coll", "pell", "gl", "agl", "dagl", "degl", "negl", "sugl", "un",
    "m", "t", "s", "v", "d",
];

/// Lucene's `DutchAnalyzer` default stem dictionary (applied before the Snowball stemmer).
const DUTCH_STEM_OVERRIDES: [&str; 4] = ["fiets => fiets", "bromfiets => bromfiets", "ei => eier", "kind => kinder"];

/// How Lucene builds a language analyzer: standard tokenizer → elision (French, Italian) →
/// lowercase → stop → `stem_exclusion` keyword marker → (German normalization, Dutch stem
/// overrides) → stemmer.
struct LanguageRecipe {
    elision: Option<&'static [&'static str]>,
    stop_words: &'static str,
    stemmer: StemAlgorithm,
}

impl LanguageRecipe {
    fn of(language: &str) -> Option<Self> {
        let (elision, stop_words, stemmer): (Option<&'static [&'static str]>, &str, &str) = match language {
            "french" => (Some(&tf::DEFAULT_ARTICLES), "_french_", "light_french"),
            "italian" => (Some(&ITALIAN_ARTICLES), "_italian_", "light_italian"),
            "german" => (None, "_german_", "light_german"),
            "spanish" => (None, "_spanish_", "light_spanish"),
            "portuguese" => (None, "_portuguese_", "light_portuguese"),
            "dutch" => (None, "_dutch_", "dutch"),
            "russian" => (None, "_russian_", "russian"),
            "danish" => (None, "_danish_", "danish"),
            "finnish" => (None, "_finnish_", "finnish"),
            "hungarian" => (None, "_hungarian_", "hungarian"),
            "norwegian" => (None, "_norwegian_", "norwegian"),
            "swedish" => (None, "_swedish_", "swedish"),
            _ => return None,
        };
        Some(LanguageRecipe { elision, stop_words, stemmer: StemAlgorithm::for_stemmer(stemmer)? })
    }
}

/// The built-in analyzer `name` with default settings.
pub fn builtin_analyzer(name: &str, gap: u32) -> Option<Arc<dyn Analyzer>> {
    analyzer_of_type(name, Params::empty(), gap).ok().flatten()
}
