//! Building tokenizers, token filters and char filters from a type name and its settings, with
//! OpenSearch's names, parameters and defaults. A type that needs settings (such as `mapping`)
//! cannot be referred to by name alone.

use std::collections::HashSet;
use std::sync::Arc;

use super::arabic::{arabic_stem_filter, sorani_normalization};
use super::chain::{TokenFilter, Tokenizer};
use super::char_filters::{CharFilter, MappingCharFilter, PatternReplaceCharFilter};
use super::classic_tokenizer::ClassicTokenizer;
use super::error::AnalysisError;
use super::filters::StopWords;
use super::html_strip::HtmlStripCharFilter;
use super::indic::{bengali_normalization, hindi_normalization, indic_normalization};
use super::java_regex::java_regex;
use super::language_normalizers::{
    greek_lowercase_filter, irish_lowercase_filter, scandinavian_folding, scandinavian_normalization,
    serbian_normalization, turkish_lowercase_filter,
};
use super::light_stemmers::german_normalization;
use super::ngram::{NGramFilter, NGramTokenizer};
use super::params::Params;
use super::shingle::{CjkBigram, Shingle};
use super::stemming::{keyword_marker, stem_filter, stemmer_override, StemAlgorithm};
use super::stop_lists::Predefined;
use super::synonyms::SynonymFilter;
use super::token_filters as tf;
use super::tokenizers::{
    BasicTokenizer, CharGroupTokenizer, CharSet, PathHierarchyTokenizer, PatternTokenizer, SimplePatternTokenizer,
};
use super::uax_url_email::UaxUrlEmailTokenizer;
use super::word_delimiter::{parse_type_table, WordDelimiter};
use super::DEFAULT_MAX_TOKEN_LENGTH;

/// Index-level limits that components check.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// `index.max_ngram_diff` (default 1).
    pub max_ngram_diff: usize,
    /// `index.max_shingle_diff` (default 3).
    pub max_shingle_diff: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_ngram_diff: 1, max_shingle_diff: 3 }
    }
}

/// Stop words from a `stopwords` setting, as OpenSearch's `Analysis.parseWords`: `_none_` is
/// empty, otherwise each entry of the list is a predefined list name (`_english_`,
/// `_french_`...) standing for its words, or a literal word.
pub fn stop_words(
    params: &Params<'_>,
    key: &str,
    default: &str,
    ignore_case: bool,
) -> Result<StopWords, AnalysisError> {
    let entries = match params.get(key) {
        None => vec![default.to_owned()],
        Some(_) => params.list(key).unwrap_or_default(),
    };
    if matches!(entries.as_slice(), [single] if single == "_none_") {
        return Ok(StopWords::default());
    }
    let mut words: Vec<String> = Vec::with_capacity(entries.len());
    for entry in entries {
        match Predefined::named(&entry) {
            Some(list) => words.extend(list.words().map(str::to_owned)),
            None => words.push(entry),
        }
    }
    Ok(StopWords::new(words, ignore_case))
}

fn regex(params: &Params<'_>, key: &str, default: &str) -> Result<regex::Regex, AnalysisError> {
    let pattern = params.string(key).unwrap_or_else(|| default.to_owned());
    java_regex(&pattern, &params.string("flags").unwrap_or_default())
}

fn char_set(params: &Params<'_>, key: &str, single_chars: bool) -> Result<CharSet, AnalysisError> {
    let items = params.list(key).unwrap_or_default();
    let custom = params.string("custom_token_chars").unwrap_or_default();
    CharSet::parse(&items, single_chars, &custom).map_err(AnalysisError::illegal_argument)
}

fn check_ngram_diff(min: usize, max: usize, limits: Limits, what: &str) -> Result<(), AnalysisError> {
    let diff = max.saturating_sub(min);
    if diff > limits.max_ngram_diff {
        return Err(AnalysisError::illegal_argument(format!(
            "The difference between max_gram and min_gram in NGram {what} must be less than or equal to: [{}] but was [{diff}]. This limit can be set by changing the [index.max_ngram_diff] index level setting.",
            limits.max_ngram_diff
        )));
    }
    Ok(())
}

/// The tokenizer of `kind` with `params`; None for an unknown type.
pub fn tokenizer(kind: &str, params: Params<'_>, limits: Limits) -> Result<Option<Arc<dyn Tokenizer>>, AnalysisError> {
    let max_token_length = params.usize("max_token_length", DEFAULT_MAX_TOKEN_LENGTH)?;
    let built: Arc<dyn Tokenizer> = match kind {
        "standard" => Arc::new(BasicTokenizer::Standard(max_token_length.clamp(1, 1024 * 1024))),
        "classic" => Arc::new(ClassicTokenizer { max_token_length: max_token_length.clamp(1, 1024 * 1024) }),
        "letter" => Arc::new(BasicTokenizer::Letter),
        "lowercase" => Arc::new(BasicTokenizer::Lowercase),
        "whitespace" => Arc::new(BasicTokenizer::Whitespace(max_token_length.max(1))),
        "keyword" => Arc::new(BasicTokenizer::Keyword),
        "thai" => Arc::new(super::thai::ThaiTokenizer),
        "uax_url_email" => Arc::new(UaxUrlEmailTokenizer { max_token_length: max_token_length.max(1) }),
        "pattern" => {
            Arc::new(PatternTokenizer { pattern: regex(&params, "pattern", "\\W+")?, group: params.int("group", -1)? })
        }
        "simple_pattern" | "simple_pattern_split" => Arc::new(SimplePatternTokenizer {
            pattern: java_regex(&params.string("pattern").unwrap_or_default(), "")?,
            split: kind == "simple_pattern_split",
        }),
        "char_group" => {
            Arc::new(CharGroupTokenizer { split_on: char_set(&params, "tokenize_on_chars", true)?, max_token_length })
        }
        "ngram" | "nGram" | "edge_ngram" | "edgeNGram" => {
            let edge = kind.starts_with('e');
            let (min_gram, max_gram) = (params.usize("min_gram", 1)?, params.usize("max_gram", 2)?);
            if !edge {
                check_ngram_diff(min_gram, max_gram, limits, "Tokenizer")?;
            }
            Arc::new(NGramTokenizer { min_gram, max_gram, token_chars: char_set(&params, "token_chars", false)?, edge })
        }
        "path_hierarchy" | "PathHierarchy" => {
            let first = |key: &str, default: char| params.string(key).and_then(|s| s.chars().next()).unwrap_or(default);
            let delimiter = first("delimiter", '/');
            Arc::new(PathHierarchyTokenizer {
                delimiter,
                replacement: first("replacement", delimiter),
                skip: params.usize("skip", 0)?,
                reverse: params.bool("reverse", false)?,
            })
        }
        _ => return Ok(None),
    };
    Ok(Some(built))
}

/// The char filter of `kind` with `params`; None for an unknown type.
pub fn char_filter(kind: &str, params: Params<'_>) -> Result<Option<Arc<dyn CharFilter>>, AnalysisError> {
    let built: Arc<dyn CharFilter> = match kind {
        "html_strip" => Arc::new(HtmlStripCharFilter::new(params.list("escaped_tags").unwrap_or_default())),
        "mapping" => {
            let Some(rules) = params.rules("mappings") else {
                return Err(AnalysisError::illegal_argument(
                    "mapping requires either `mappings` or `mappings_path` to be configured",
                ));
            };
            Arc::new(MappingCharFilter::from_rules(&rules)?)
        }
        "pattern_replace" => {
            let pattern = regex(&params, "pattern", "")?;
            Arc::new(PatternReplaceCharFilter::new(pattern, &params.string("replacement").unwrap_or_default()))
        }
        _ => return Ok(None),
    };
    Ok(Some(built))
}

/// The token filter of `kind` with `params`; None for an unknown type.
pub fn token_filter(
    kind: &str,
    params: Params<'_>,
    limits: Limits,
) -> Result<Option<Arc<dyn TokenFilter>>, AnalysisError> {
    let p = &params;
    let built: Arc<dyn TokenFilter> = match kind {
        "lowercase" => match p.string("language").as_deref() {
            Some("greek") => Arc::new(greek_lowercase_filter()),
            Some("irish") => Arc::new(irish_lowercase_filter()),
            Some("turkish") => Arc::new(turkish_lowercase_filter()),
            language => Arc::new(tf::lowercase(language)),
        },
        "uppercase" => Arc::new(tf::uppercase()),
        "asciifolding" => Arc::new(tf::AsciiFolding { preserve_original: p.bool("preserve_original", false)? }),
        "stop" => {
            let ignore_case = p.bool("ignore_case", false)?;
            tf::stop(Arc::new(stop_words(p, "stopwords", "_english_", ignore_case)?), p.bool("remove_trailing", true)?)
        }
        "stemmer" => {
            let language = p.string("language").or_else(|| p.string("name")).unwrap_or_else(|| "english".to_owned());
            let Some(algorithm) = StemAlgorithm::for_stemmer(&language) else {
                return Err(AnalysisError::illegal_argument(format!("Unknown stemmer language [{language}]")));
            };
            Arc::new(stem_filter(algorithm))
        }
        "porter_stem" => Arc::new(stem_filter(StemAlgorithm::Porter)),
        "kstem" => Arc::new(stem_filter(StemAlgorithm::KStem)),
        "snowball" => {
            let language = p.string("language").unwrap_or_else(|| "English".to_owned());
            let Some(algorithm) = StemAlgorithm::for_snowball(&language) else {
                return Err(AnalysisError::illegal_argument(format!("Unknown snowball language [{language}]")));
            };
            Arc::new(stem_filter(algorithm))
        }
        "keyword_marker" => {
            let keywords = p.list("keywords");
            let pattern = p.string("keywords_pattern");
            match (&keywords, &pattern) {
                (Some(_), Some(_)) => {
                    return Err(AnalysisError::illegal_argument(
                        "cannot specify both `keywords_pattern` and `keywords` or `keywords_path`",
                    ))
                }
                (None, None) => {
                    return Err(AnalysisError::illegal_argument(
                        "keyword filter requires either `keywords`, `keywords_path`, or `keywords_pattern` to be configured",
                    ))
                }
                _ => {}
            }
            let pattern = pattern.map(|s| java_regex(&s, "")).transpose()?;
            Arc::new(keyword_marker(keywords.unwrap_or_default(), pattern, p.bool("ignore_case", false)?))
        }
        "stemmer_override" => stemmer_override(&p.rules("rules").unwrap_or_default())?,
        "synonym" | "synonym_graph" => {
            let Some(rules) = p.rules("synonyms") else {
                return Err(AnalysisError::illegal_argument(
                    "synonym requires either `synonyms` or `synonyms_path` to be configured",
                ));
            };
            let mut filter = SynonymFilter::new(rules, p.bool("expand", true)?, p.bool("lenient", false)?);
            filter.graph = kind == "synonym_graph";
            Arc::new(filter)
        }
        "word_delimiter" | "word_delimiter_graph" => {
            let d = WordDelimiter::default();
            Arc::new(WordDelimiter {
                generate_word_parts: p.bool("generate_word_parts", d.generate_word_parts)?,
                generate_number_parts: p.bool("generate_number_parts", d.generate_number_parts)?,
                catenate_words: p.bool("catenate_words", false)?,
                catenate_numbers: p.bool("catenate_numbers", false)?,
                catenate_all: p.bool("catenate_all", false)?,
                split_on_case_change: p.bool("split_on_case_change", true)?,
                split_on_numerics: p.bool("split_on_numerics", true)?,
                preserve_original: p.bool("preserve_original", false)?,
                stem_english_possessive: p.bool("stem_english_possessive", true)?,
                protected_words: p.list("protected_words").unwrap_or_default().into_iter().collect::<HashSet<_>>(),
                graph: kind == "word_delimiter_graph",
                adjust_offsets: p.bool("adjust_offsets", true)?,
                type_table: match p.get("type_table_path") {
                    Some(_) => {
                        return Err(AnalysisError::illegal_argument(
                            "IOException while reading type_table_path: file not readable",
                        ))
                    }
                    None => parse_type_table(&p.rules("type_table").unwrap_or_default())?,
                },
            })
        }
        "length" => Arc::new(tf::length(p.usize("min", 0)?, p.usize("max", i32::MAX as usize)?)),
        "trim" => Arc::new(tf::trim()),
        "truncate" => Arc::new(tf::truncate(p.usize("length", 10)?)),
        "unique" => Arc::new(tf::Unique { only_on_same_position: p.bool("only_on_same_position", false)? }),
        "remove_duplicates" => Arc::new(tf::Unique { only_on_same_position: true }),
        "reverse" => Arc::new(tf::reverse()),
        "shingle" => {
            let min = p.usize("min_shingle_size", 2)?;
            let max = p.usize("max_shingle_size", 2)?;
            let output_unigrams = p.bool("output_unigrams", true)?;
            let diff = (max + usize::from(output_unigrams)).saturating_sub(min);
            if diff > limits.max_shingle_diff {
                return Err(AnalysisError::illegal_argument(format!(
                    "In Shingle TokenFilter the difference between max_shingle_size and min_shingle_size (and +1 if outputting unigrams) must be less than or equal to: [{}] but was [{diff}]. This limit can be set by changing the [index.max_shingle_diff] index level setting.",
                    limits.max_shingle_diff
                )));
            }
            Arc::new(Shingle {
                min_shingle_size: min,
                max_shingle_size: max,
                output_unigrams,
                output_unigrams_if_no_shingles: p.bool("output_unigrams_if_no_shingles", false)?,
                token_separator: p.string("token_separator").unwrap_or_else(|| " ".to_owned()),
                filler_token: p.string("filler_token").unwrap_or_else(|| "_".to_owned()),
            })
        }
        "ngram" | "nGram" | "edge_ngram" | "edgeNGram" => {
            let edge = kind.starts_with('e');
            let (min_gram, max_gram) = (p.usize("min_gram", 1)?, p.usize("max_gram", 2)?);
            if !edge {
                check_ngram_diff(min_gram, max_gram, limits, "Tokenfilter")?;
            }
            Arc::new(NGramFilter { min_gram, max_gram, preserve_original: p.bool("preserve_original", false)?, edge })
        }
        "elision" => {
            if p.get("articles_path").is_some() {
                return Err(AnalysisError::illegal_argument(
                    "IOException while reading articles_path: file not readable",
                ));
            }
            let Some(articles) = p.list("articles") else {
                return Err(AnalysisError::illegal_argument(
                    "elision filter requires [articles] or [articles_path] setting",
                ));
            };
            let ignore_case = p.bool("articles_case", false)?;
            let articles = articles.into_iter().map(|a| if ignore_case { a.to_lowercase() } else { a }).collect();
            Arc::new(tf::elision(articles, ignore_case))
        }
        "pattern_replace" => Arc::new(tf::pattern_replace(
            regex(p, "pattern", "")?,
            &p.string("replacement").unwrap_or_default(),
            p.bool("all", true)?,
        )),
        "pattern_capture" => {
            let patterns = p.rules("patterns").unwrap_or_default();
            let patterns = patterns.iter().map(|s| java_regex(s, "")).collect::<Result<Vec<_>, _>>()?;
            Arc::new(tf::PatternCapture { patterns, preserve_original: p.bool("preserve_original", true)? })
        }
        "decimal_digit" => Arc::new(tf::decimal_digit()),
        "apostrophe" => Arc::new(tf::apostrophe()),
        "classic" => Arc::new(tf::classic()),
        "limit" => Arc::new(tf::Limit { max_token_count: p.usize("max_token_count", 1)? }),
        "fingerprint" => Arc::new(tf::Fingerprint {
            separator: p.string("separator").unwrap_or_else(|| " ".to_owned()),
            max_output_size: p.usize("max_output_size", 255)?,
        }),
        "cjk_width" => Arc::new(tf::cjk_width()),
        "cjk_bigram" => Arc::new(CjkBigram { output_unigrams: p.bool("output_unigrams", false)? }),
        "arabic_normalization" => Arc::new(tf::arabic_normalization()),
        "persian_normalization" => Arc::new(tf::persian_normalization()),
        "arabic_stem" => Arc::new(arabic_stem_filter()),
        "sorani_normalization" => Arc::new(sorani_normalization()),
        "hindi_normalization" => Arc::new(hindi_normalization()),
        "indic_normalization" => Arc::new(indic_normalization()),
        "bengali_normalization" => Arc::new(bengali_normalization()),
        "scandinavian_normalization" => Arc::new(scandinavian_normalization()),
        "scandinavian_folding" => Arc::new(scandinavian_folding()),
        "serbian_normalization" => Arc::new(serbian_normalization()),
        "persian_stem" => Arc::new(stem_filter(StemAlgorithm::Persian)),
        "german_normalization" => Arc::new(german_normalization()),
        "porter" => Arc::new(stem_filter(StemAlgorithm::Porter)),
        _ => return super::filter_factories::token_filter(kind, &format!("__anonymous__{kind}"), params),
    };
    Ok(Some(built))
}

/// Token filter types that cannot be used by name alone (they need settings).
pub fn filter_requires_settings(kind: &str) -> bool {
    matches!(
        kind,
        "keyword_marker" | "stemmer_override" | "synonym" | "synonym_graph" | "pattern_replace" | "pattern_capture"
    )
}

/// Char filter types that need settings.
pub fn char_filter_requires_settings(kind: &str) -> bool {
    matches!(kind, "mapping" | "pattern_replace")
}
