//! Building the token filters of [`word_filters`](super::word_filters),
//! [`legacy_stems`](super::legacy_stems), [`min_hash`](super::min_hash) and
//! [`referring_filters`](super::referring_filters) from their settings, with the names, defaults
//! and messages of OpenSearch's factories. Word lists come inline (`*_path` files under the
//! config directory are not read: they answer OpenSearch's message for an unreadable file).

use std::collections::HashSet;
use std::sync::Arc;

use super::chain::TokenFilter;
use super::error::AnalysisError;
use super::filters::StopWords;
use super::legacy_stems::{legacy_stem_filter, legacy_stemmer};
use super::min_hash::MinHash;
use super::params::Params;
use super::referring_filters::{Condition, Multiplexer, Predicate, PredicateFilter};
use super::synonym_graph::FlattenGraph;
use super::token_filters as tf;
use super::word_filters::{self as wf, CommonGrams, DictionaryDecompounder};

fn unreadable(key: &str) -> AnalysisError {
    AnalysisError::illegal_argument(format!("IOException while reading {key}: file not readable"))
}

/// A word list setting (`key`, or its `key_path` file): None when neither is set.
fn word_list(p: &Params<'_>, key: &str) -> Result<Option<Vec<String>>, AnalysisError> {
    let path = format!("{key}_path");
    if p.get(&path).is_some() {
        return Err(unreadable(&path));
    }
    Ok(p.list(key))
}

/// Lucene's `CharArraySet` of a word list, `key_case` deciding case (default sensitive).
fn word_set(p: &Params<'_>, key: &str) -> Result<Option<StopWords>, AnalysisError> {
    let ignore_case = p.bool(&format!("{key}_case"), false)?;
    Ok(word_list(p, key)?.map(|words| StopWords::new(words, ignore_case)))
}

fn int_setting(p: &Params<'_>, key: &str, default: usize) -> Result<usize, AnalysisError> {
    p.usize(key, default)
}

/// The filter of `kind` named `name` (for messages); None when the type is not one of these.
pub fn token_filter(kind: &str, name: &str, params: Params<'_>) -> Result<Option<Arc<dyn TokenFilter>>, AnalysisError> {
    let p = &params;
    if let Some((stemmer, reads_exclusions)) = legacy_stemmer(kind) {
        let exclusions: HashSet<String> = if reads_exclusions {
            p.list("stem_exclusion").unwrap_or_default().into_iter().collect()
        } else {
            HashSet::new()
        };
        return Ok(Some(Arc::new(legacy_stem_filter(stemmer, exclusions))));
    }
    let built: Arc<dyn TokenFilter> = match kind {
        "keep" => {
            if p.get("keep_words").is_some() == p.get("keep_words_path").is_some() {
                return Err(AnalysisError::illegal_argument(
                    "keep requires either `keep_words` or `keep_words_path` to be configured",
                ));
            }
            if p.get("enable_position_increments").is_some() {
                return Err(AnalysisError::illegal_argument(
                    "enable_position_increments is not supported anymore. Please fix your analysis chain",
                ));
            }
            Arc::new(wf::keep(word_set(p, "keep_words")?.unwrap_or_default()))
        }
        "keep_types" => {
            let Some(types) = p.list("types") else {
                return Err(AnalysisError::illegal_argument("keep_types requires `types` to be configured"));
            };
            let mode = p.string("mode").unwrap_or_else(|| "include".to_owned());
            let include = match mode.to_lowercase().as_str() {
                "include" => true,
                "exclude" => false,
                _ => {
                    return Err(AnalysisError::illegal_argument(format!(
                        "`keep_types` tokenfilter mode can only be [include] or [exclude] but was [{mode}]."
                    )))
                }
            };
            Arc::new(wf::keep_types(types.into_iter().collect(), include))
        }
        "common_grams" => {
            let ignore_case = p.bool("ignore_case", false)?;
            if word_list(p, "common_words")?.is_none_or(|words| words.is_empty()) {
                return Err(AnalysisError::illegal_argument(
                    "missing or empty [common_words] or [common_words_path] configuration for common_grams token filter",
                ));
            }
            // Like stop words, an entry may name a predefined list (`_english_`).
            let words = super::components::stop_words(p, "common_words", "_none_", ignore_case)?;
            Arc::new(CommonGrams { words, query_mode: p.bool("query_mode", false)? })
        }
        "delimited_payload" => {
            let delimiter = p.string("delimiter").and_then(|d| d.chars().next()).unwrap_or('|');
            Arc::new(wf::delimited_payload(delimiter))
        }
        "delimited_term_freq" => {
            let delimiter = match p.string("delimiter") {
                None => '|',
                Some(d) if d.chars().count() == 1 => d.chars().next().unwrap_or('|'),
                Some(d) => {
                    return Err(AnalysisError::illegal_argument(format!(
                        "Setting [delimiter] must be a single, non-null character. [{d}] was provided."
                    )))
                }
            };
            Arc::new(wf::delimited_term_freq(delimiter))
        }
        "dictionary_decompounder" | "hyphenation_decompounder" => {
            let words = word_set(p, "word_list")?;
            let Some(words) = words else {
                return Err(AnalysisError::illegal_argument(format!(
                    "word_list must be provided for [{name}], either as a path to a file, or directly"
                )));
            };
            if kind == "hyphenation_decompounder" {
                // Hyphenation grammars are XML files under the config directory, which Fathom
                // does not read.
                return Err(AnalysisError::illegal_argument(match p.get("hyphenation_patterns_path") {
                    None => "hyphenation_patterns_path is a required setting.",
                    Some(_) => "Exception while reading hyphenation_patterns_path.",
                }));
            }
            Arc::new(DictionaryDecompounder {
                words,
                min_word_size: int_setting(p, "min_word_size", 5)?,
                min_subword_size: int_setting(p, "min_subword_size", 2)?,
                max_subword_size: int_setting(p, "max_subword_size", 15)?,
                only_longest_match: p.bool("only_longest_match", false)?,
            })
        }
        "min_hash" => {
            let hash_count = int_setting(p, "hash_count", 1)?;
            let bucket_count = int_setting(p, "bucket_count", 512)?;
            let hash_set_size = int_setting(p, "hash_set_size", 1)?;
            for (value, what) in
                [(hash_count, "hashCount"), (bucket_count, "bucketCount"), (hash_set_size, "hashSetSize")]
            {
                if value == 0 {
                    return Err(AnalysisError::illegal_argument(format!("{what} must be greater than zero")));
                }
            }
            if hash_count.saturating_mul(bucket_count) > 1 << 20 {
                return Err(AnalysisError::illegal_argument("[hash_count] * [bucket_count] must be at most 1048576"));
            }
            Arc::new(MinHash {
                hash_count,
                bucket_count,
                hash_set_size,
                with_rotation: p.bool("with_rotation", bucket_count > 1)?,
            })
        }
        "multiplexer" => {
            Arc::new(Multiplexer::new(p.list("filters").unwrap_or_default(), p.bool("preserve_original", true)?))
        }
        "condition" => {
            let predicate = Predicate::compile(p.get("script"), name)?;
            let filters = p.list("filter").unwrap_or_default();
            if filters.is_empty() {
                return Err(AnalysisError::illegal_argument(format!(
                    "Empty list of filters provided to tokenfilter [{name}]"
                )));
            }
            Arc::new(Condition::new(predicate, filters))
        }
        "predicate_token_filter" => Arc::new(PredicateFilter(Predicate::compile(p.get("script"), name)?)),
        "flatten_graph" => Arc::new(FlattenGraph),
        _ => return Ok(None),
    };
    Ok(Some(built))
}

/// Pre-configured filters whose form by name differs from their type with no settings: `elision`
/// (French articles, ignoring case), `multiplexer`, `condition` and `predicate_token_filter`
/// (none: they need settings).
pub fn prebuilt_filter(name: &str) -> Option<Option<Arc<dyn TokenFilter>>> {
    match name {
        "elision" => {
            let articles = tf::DEFAULT_ARTICLES.iter().map(|a| (*a).to_owned()).collect();
            Some(Some(Arc::new(tf::elision(articles, true))))
        }
        "multiplexer"
        | "condition"
        | "predicate_token_filter"
        | "keep"
        | "keep_types"
        | "common_grams"
        | "dictionary_decompounder"
        | "hyphenation_decompounder" => Some(None),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::index_analysis::IndexAnalysis;

    fn create_error(filter: serde_json::Value) -> String {
        let settings = json!({"analysis": {"filter": {"my_filter": filter}}});
        IndexAnalysis::from_settings(&settings).map(|_| ()).expect_err("settings are refused").reason
    }

    #[test]
    fn settings_errors_name_the_filter_as_opensearch() {
        assert_eq!(
            create_error(json!({"type": "dictionary_decompounder"})),
            "word_list must be provided for [my_filter], either as a path to a file, or directly"
        );
        assert_eq!(
            create_error(json!({"type": "hyphenation_decompounder", "word_list": ["a"]})),
            "hyphenation_patterns_path is a required setting."
        );
        assert_eq!(
            create_error(json!({"type": "condition", "filter": [], "script": {"source": "true"}})),
            "Empty list of filters provided to tokenfilter [my_filter]"
        );
        assert_eq!(
            create_error(json!({"type": "condition", "filter": ["lowercase"], "script": {"id": "x"}})),
            "Cannot use stored scripts in tokenfilter [my_filter]"
        );
        assert_eq!(
            create_error(json!({"type": "condition", "filter": ["nope"], "script": "true"})),
            "ScriptedConditionTokenFilter [my_filter] refers to undefined token filter [nope]"
        );
        assert_eq!(
            create_error(json!({"type": "elision"})),
            "elision filter requires [articles] or [articles_path] setting"
        );
        assert_eq!(
            create_error(json!({"type": "keep_types", "types": ["<NUM>"], "mode": "both"})),
            "`keep_types` tokenfilter mode can only be [include] or [exclude] but was [both]."
        );
        assert_eq!(
            create_error(json!({"type": "delimited_term_freq", "delimiter": "||"})),
            "Setting [delimiter] must be a single, non-null character. [||] was provided."
        );
        assert_eq!(
            create_error(json!({"type": "keep"})),
            "keep requires either `keep_words` or `keep_words_path` to be configured"
        );
    }

    #[test]
    fn prebuilt_elision_uses_the_french_articles() {
        let index = IndexAnalysis::from_settings(&json!({})).unwrap();
        assert!(index.filter("elision").unwrap().is_some());
        assert!(index.filter("multiplexer").unwrap().is_none(), "multiplexer needs settings");
    }
}
