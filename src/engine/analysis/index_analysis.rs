//! An index's analysis: the analyzers, normalizers and components its settings define
//! (`index.analysis.{analyzer,normalizer,tokenizer,filter,char_filter}`), on top of the built-ins,
//! checked when the index is created with OpenSearch's messages.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::analyzers::{AnalyzerRegistry, DEFAULT_POSITION_INCREMENT_GAP};
use super::builtin_analyzers::{analyzer_of_type, builtin_analyzer, BUILTIN_ANALYZERS};
use super::chain::{CustomAnalyzer, Named, TokenFilter, Tokenizer};
use super::char_filters::CharFilter;
use super::components::{self, Limits};
use super::error::AnalysisError;
use super::params::Params;
use super::Analyzer;

/// How deep filters may name filters that name filters.
const MAX_FILTER_NESTING: usize = 8;

/// What an index's settings define, resolved.
#[derive(Clone, Debug, Default)]
pub struct IndexAnalysis {
    registry: AnalyzerRegistry,
    normalizers: HashMap<String, Arc<CustomAnalyzer>>,
    tokenizers: HashMap<String, Named<dyn Tokenizer>>,
    filters: HashMap<String, Named<dyn TokenFilter>>,
    char_filters: HashMap<String, Named<dyn CharFilter>>,
    limits: Limits,
}

/// The `analysis` object of nested index settings (`{"index":{"analysis":…}}`, `{"analysis":…}`
/// or `{"index.analysis":…}`).
fn analysis_section(settings: &Value) -> Option<&Map<String, Value>> {
    settings
        .get("index")
        .and_then(|i| i.get("analysis"))
        .or_else(|| settings.get("analysis"))
        .or_else(|| settings.get("index.analysis"))
        .and_then(Value::as_object)
}

fn index_setting<'a>(settings: &'a Value, key: &str) -> Option<&'a Value> {
    settings.get("index").and_then(|i| i.get(key)).or_else(|| settings.get(format!("index.{key}").as_str()))
}

fn group<'a>(analysis: Option<&'a Map<String, Value>>, key: &str) -> Vec<(&'a String, &'a Value)> {
    analysis.and_then(|a| a.get(key)).and_then(Value::as_object).map(|m| m.iter().collect()).unwrap_or_default()
}

fn type_of<'a>(component: &'static str, name: &str, value: &'a Value) -> Result<&'a str, AnalysisError> {
    value.get("type").and_then(Value::as_str).ok_or_else(|| {
        AnalysisError::illegal_argument(format!(
            "{component} [{name}] must specify either an analyzer type, or a tokenizer"
        ))
    })
}

fn unknown(component: &str, kind: &str, name: &str) -> AnalysisError {
    AnalysisError::illegal_argument(format!("Unknown {component} type [{kind}] for [{name}]"))
}

impl IndexAnalysis {
    /// Builds the analysis of an index from its nested settings.
    pub fn from_settings(settings: &Value) -> Result<IndexAnalysis, AnalysisError> {
        let analysis = analysis_section(settings);
        let mut limits = Limits::default();
        let read_limit = |key: &str, default: usize| -> Result<usize, AnalysisError> {
            match index_setting(settings, key) {
                Some(v) => Params::new(&serde_json::json!({ key: v })).usize(key, default),
                None => Ok(default),
            }
        };
        limits.max_ngram_diff = read_limit("max_ngram_diff", 1)?;
        limits.max_shingle_diff = read_limit("max_shingle_diff", 3)?;
        let mut index = IndexAnalysis { limits, ..Default::default() };

        for (name, value) in group(analysis, "tokenizer") {
            let kind = type_of("tokenizer", name, value)?;
            let built = components::tokenizer(kind, Params::new(value), limits)?
                .ok_or_else(|| unknown("tokenizer", kind, name))?;
            index.tokenizers.insert(name.clone(), Named::new(name.clone(), built));
        }
        for (name, value) in group(analysis, "char_filter") {
            let kind = type_of("char_filter", name, value)?;
            let built =
                components::char_filter(kind, Params::new(value))?.ok_or_else(|| unknown("char_filter", kind, name))?;
            index.char_filters.insert(name.clone(), Named::new(name.clone(), built));
        }
        for (name, value) in group(analysis, "filter") {
            let kind = type_of("filter", name, value)?;
            let built = match super::filter_factories::token_filter(kind, name, Params::new(value))? {
                Some(built) => built,
                None => components::token_filter(kind, Params::new(value), limits)?
                    .ok_or_else(|| unknown("filter", kind, name))?,
            };
            index.filters.insert(name.clone(), Named::new(name.clone(), built));
        }
        let names: Vec<String> = index.filters.keys().cloned().collect();
        let mut resolved = Vec::with_capacity(names.len());
        for name in names {
            if let Some(filter) = index.resolved_filter(&name, 0)? {
                resolved.push((name, filter));
            }
        }
        for (name, filter) in resolved {
            if let Some(entry) = index.filters.get_mut(&name) {
                entry.component = filter;
            }
        }

        let mut registry = AnalyzerRegistry::default();
        for name in BUILTIN_ANALYZERS {
            if let Some(analyzer) = builtin_analyzer(name, DEFAULT_POSITION_INCREMENT_GAP) {
                registry.register(name, analyzer);
            }
        }
        for (name, value) in group(analysis, "analyzer") {
            if name.starts_with('_') {
                return Err(AnalysisError::illegal_argument(format!(
                    "analyzer name must not start with '_'. got \"{name}\""
                )));
            }
            let params = Params::new(value);
            let kind = params.string("type");
            let analyzer: Arc<dyn Analyzer> = match kind.as_deref() {
                None | Some("custom") => {
                    let Some(tokenizer) = params.string("tokenizer") else {
                        return Err(AnalysisError::illegal_argument(match kind {
                            None => format!("analyzer [{name}] must specify either an analyzer type, or a tokenizer"),
                            Some(_) => format!("custom analyzer [{name}] must be configured with a tokenizer"),
                        }));
                    };
                    let mut custom = index.custom_chain("Custom Analyzer", name, Some(&tokenizer), &params, false)?;
                    custom.position_increment_gap =
                        u32::try_from(params.usize("position_increment_gap", DEFAULT_POSITION_INCREMENT_GAP as usize)?)
                            .unwrap_or(DEFAULT_POSITION_INCREMENT_GAP);
                    custom.offset_gap = u32::try_from(params.usize("offset_gap", 1)?).unwrap_or(1);
                    Arc::new(custom)
                }
                Some(kind) => analyzer_of_type(kind, params, DEFAULT_POSITION_INCREMENT_GAP)?
                    .ok_or_else(|| unknown("analyzer", kind, name))?,
            };
            registry.register(name, analyzer);
        }
        if registry.get("default").is_none() {
            if let Some(standard) = builtin_analyzer("standard", DEFAULT_POSITION_INCREMENT_GAP) {
                registry.register("default", standard);
            }
        }
        if registry.get("default_search").is_none() {
            if let Some(default) = registry.get("default") {
                registry.register("default_search", default);
            }
        }
        if registry.get("default_search_quoted").is_none() {
            if let Some(search) = registry.get("default_search") {
                registry.register("default_search_quoted", search);
            }
        }
        index.registry = registry;

        for (name, value) in group(analysis, "normalizer") {
            let params = Params::new(value);
            if let Some(kind) = params.string("type").filter(|k| k != "custom") {
                return Err(unknown("normalizer", &kind, name));
            }
            if params.get("tokenizer").is_some() {
                return Err(AnalysisError::illegal_argument(format!(
                    "Custom normalizer [{name}] cannot configure a tokenizer"
                )));
            }
            let mut normalizer = index.custom_chain("Custom normalizer", name, None, &params, true)?;
            normalizer.position_increment_gap = 0;
            index.normalizers.insert(name.clone(), Arc::new(normalizer));
        }
        if !index.normalizers.contains_key("lowercase") {
            // OpenSearch's prebuilt `lowercase` normalizer (keyword tokenizer, lowercase filter).
            let def = serde_json::json!({"filter": ["lowercase"]});
            let mut normalizer =
                index.custom_chain("Custom normalizer", "lowercase", None, &Params::new(&def), true)?;
            normalizer.position_increment_gap = 0;
            index.normalizers.insert("lowercase".into(), Arc::new(normalizer));
        }
        Ok(index)
    }

    /// A chain named `name` from `params` (`char_filter`, `filter` lists; `tokenizer` or, for
    /// normalizers, `keyword`).
    fn custom_chain(
        &self,
        what: &str,
        name: &str,
        tokenizer: Option<&str>,
        params: &Params<'_>,
        normalizer: bool,
    ) -> Result<CustomAnalyzer, AnalysisError> {
        let missing = |component: &str, missing: &str| {
            AnalysisError::illegal_argument(format!(
                "{what} [{name}] failed to find {component} under name [{missing}]"
            ))
        };
        let tokenizer = match tokenizer {
            Some(t) => self.tokenizer(t)?.ok_or_else(|| missing("tokenizer", t))?,
            None => self.tokenizer("keyword")?.ok_or_else(|| missing("tokenizer", "keyword"))?,
        };
        let mut char_filters = Vec::new();
        for c in params.list("char_filter").unwrap_or_default() {
            char_filters.push(self.char_filter(&c)?.ok_or_else(|| missing("char_filter", &c))?);
        }
        let mut filters = Vec::new();
        for f in params.list("filter").unwrap_or_default() {
            let filter = self.filter(&f)?.ok_or_else(|| missing("filter", &f))?;
            if normalizer && !filter.component.normalizing() {
                return Err(AnalysisError::illegal_argument(format!(
                    "Custom normalizer [{name}] may not use filter [{f}]"
                )));
            }
            filters.push(filter);
        }
        chain_aware(CustomAnalyzer::new(char_filters, tokenizer, filters))
    }

    /// The tokenizer `name`: defined by the index, else built in.
    pub fn tokenizer(&self, name: &str) -> Result<Option<Named<dyn Tokenizer>>, AnalysisError> {
        if let Some(found) = self.tokenizers.get(name) {
            return Ok(Some(found.clone()));
        }
        builtin_tokenizer(name, self.limits)
    }

    /// The token filter `name`: defined by the index, else built in.
    pub fn filter(&self, name: &str) -> Result<Option<Named<dyn TokenFilter>>, AnalysisError> {
        if let Some(found) = self.filters.get(name) {
            return Ok(Some(found.clone()));
        }
        builtin_filter(name, self.limits)
    }

    /// The token filter `name` with the filters it names resolved (`multiplexer`, `condition`).
    pub fn resolved_filter(&self, name: &str, depth: usize) -> Result<Option<Arc<dyn TokenFilter>>, AnalysisError> {
        let Some(found) = self.filter(name)? else { return Ok(None) };
        if depth > MAX_FILTER_NESTING {
            return Err(AnalysisError::illegal_argument(format!(
                "token filter [{name}] refers to filters nested more than {MAX_FILTER_NESTING} levels deep (circular reference?)"
            )));
        }
        let lookup = |other: &str| self.resolved_filter(other, depth + 1);
        Ok(Some(found.component.resolve(&found.name, &lookup)?.unwrap_or(found.component)))
    }

    /// The char filter `name`: defined by the index, else built in.
    pub fn char_filter(&self, name: &str) -> Result<Option<Named<dyn CharFilter>>, AnalysisError> {
        if let Some(found) = self.char_filters.get(name) {
            return Ok(Some(found.clone()));
        }
        builtin_char_filter(name)
    }

    /// The index-level limits (`index.max_ngram_diff`, `index.max_shingle_diff`).
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The analyzers by name: built-ins, custom ones, `default`, `default_search`.
    pub fn registry(&self) -> AnalyzerRegistry {
        self.registry.clone()
    }

    /// The analyzer `name`.
    pub fn analyzer(&self, name: &str) -> Option<Arc<dyn Analyzer>> {
        self.registry.get(name)
    }

    /// The normalizer `name` (keyword tokenizer, normalizing filters).
    pub fn normalizer(&self, name: &str) -> Option<Arc<dyn Analyzer>> {
        self.normalizers.get(name).map(|n| n.clone() as Arc<dyn Analyzer>)
    }
}

/// The built-in tokenizer `name`.
pub fn builtin_tokenizer(name: &str, limits: Limits) -> Result<Option<Named<dyn Tokenizer>>, AnalysisError> {
    if matches!(name, "simple_pattern" | "simple_pattern_split" | "char_group") {
        return Ok(None);
    }
    Ok(components::tokenizer(name, Params::empty(), limits)?.map(|t| Named::new(name, t)))
}

/// The built-in token filter `name`.
pub fn builtin_filter(name: &str, limits: Limits) -> Result<Option<Named<dyn TokenFilter>>, AnalysisError> {
    if let Some(prebuilt) = super::filter_factories::prebuilt_filter(name) {
        return Ok(prebuilt.map(|f| Named::new(name, f)));
    }
    if components::filter_requires_settings(name) {
        return Ok(None);
    }
    Ok(components::token_filter(name, Params::empty(), limits)?.map(|f| Named::new(name, f)))
}

/// The built-in char filter `name`.
pub fn builtin_char_filter(name: &str) -> Result<Option<Named<dyn CharFilter>>, AnalysisError> {
    if components::char_filter_requires_settings(name) {
        return Ok(None);
    }
    Ok(components::char_filter(name, Params::empty())?.map(|c| Named::new(name, c)))
}

/// Rebuilds the filters that analyze their own rules (synonyms) with the chain before them.
pub fn chain_aware(mut analyzer: CustomAnalyzer) -> Result<CustomAnalyzer, AnalysisError> {
    for i in 0..analyzer.filters.len() {
        let prefix =
            CustomAnalyzer { filters: analyzer.filters[..i].to_vec(), char_filters: Vec::new(), ..analyzer.clone() };
        let analyze = |text: &str| -> Vec<String> { prefix.run(text, None).0.into_iter().map(|t| t.term).collect() };
        if let Some(rebuilt) = analyzer.filters[i].component.for_chain(&analyze)? {
            analyzer.filters[i].component = rebuilt;
        }
    }
    Ok(analyzer)
}
