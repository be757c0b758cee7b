//! Token filters that run other filters or a script: `multiplexer` (OpenSearch's
//! `MultiplexerTokenFilterFactory`), `condition` (`ScriptedConditionTokenFilterFactory`, Lucene's
//! `ConditionalTokenFilter`) and `predicate_token_filter` (`PredicateTokenFilterScriptFactory`).
//!
//! `multiplexer` and `condition` name other filters; they are built unresolved from their
//! settings and resolved ([`TokenFilter::resolve`]) once the index's filters (or the request's)
//! are known, with OpenSearch's messages for unknown names.
//!
//! Scripts see the token as `token` with the fields of Painless's `AnalysisPredicateScript.Token`
//! (`term`, `position`, `positionIncrement`, `positionLength`, `startOffset`, `endOffset`,
//! `type`, `keyword`, or their getters `getTerm()`... `isKeyword()`). Known divergences: the
//! offsets are bytes of the analyzed value (Java counts UTF-16 units; they agree on ASCII text),
//! and a script that fails at run time leaves the token unmatched (Java fails the request).

use crate::error::ErrorKind;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::chain::TokenFilter;
use super::error::AnalysisError;
use super::token_stream::TokenState;
use crate::script::Script;

/// Resolves a filter name to a filter (the index's or a built-in one).
pub type Lookup<'a> = dyn Fn(&str) -> Result<Option<Arc<dyn TokenFilter>>, AnalysisError> + 'a;

/// A `multiplexer` before or after its filters are resolved.
#[derive(Debug)]
pub struct Multiplexer {
    /// Each entry a filter name or a comma-separated chain of names.
    pub names: Vec<String>,
    /// Emit the unchanged token first (default true).
    pub preserve_original: bool,
    /// The resolved chains (empty until resolved).
    chains: Vec<Vec<Arc<dyn TokenFilter>>>,
    resolved: bool,
}

impl Multiplexer {
    /// An unresolved multiplexer.
    pub fn new(names: Vec<String>, preserve_original: bool) -> Self {
        Multiplexer { names, preserve_original, chains: Vec::new(), resolved: false }
    }
}

fn run_chain(chain: &[Arc<dyn TokenFilter>], tokens: Vec<TokenState>, end: &mut u32) -> Vec<TokenState> {
    chain.iter().fold(tokens, |tokens, filter| filter.filter(tokens, end))
}

impl TokenFilter for Multiplexer {
    fn filter(&self, tokens: Vec<TokenState>, end_increment: &mut u32) -> Vec<TokenState> {
        let mut out = Vec::with_capacity(tokens.len() * (self.chains.len() + 1));
        let mut pending = 0u32;
        for token in tokens {
            let mut group: Vec<TokenState> = Vec::new();
            if self.preserve_original {
                group.push(token.clone());
            }
            for chain in &self.chains {
                let mut copy = token.clone();
                copy.position_increment = 0;
                let mut ignored = 0;
                group.extend(run_chain(chain, vec![copy], &mut ignored));
            }
            // RemoveDuplicatesTokenFilter: a term repeated at one position goes.
            let mut seen: Vec<String> = Vec::new();
            group.retain(|t| {
                if seen.contains(&t.term) {
                    false
                } else {
                    seen.push(t.term.clone());
                    true
                }
            });
            match group.first_mut() {
                Some(first) => {
                    first.position_increment = token.position_increment.saturating_add(std::mem::take(&mut pending));
                    for other in group.iter_mut().skip(1) {
                        other.position_increment = 0;
                    }
                    out.extend(group);
                }
                None => pending = pending.saturating_add(token.position_increment),
            }
        }
        *end_increment = end_increment.saturating_add(pending);
        out
    }

    fn resolve(&self, name: &str, lookup: &Lookup<'_>) -> Result<Option<Arc<dyn TokenFilter>>, AnalysisError> {
        if self.resolved {
            return Ok(None);
        }
        let mut chains = Vec::with_capacity(self.names.len());
        for entry in &self.names {
            let mut chain = Vec::new();
            for part in entry.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                match lookup(part)? {
                    Some(filter) => chain.push(filter),
                    None => {
                        return Err(AnalysisError::illegal_argument(format!(
                            "Multiplexing filter [{name}] refers to undefined tokenfilter [{part}]"
                        )))
                    }
                }
            }
            chains.push(chain);
        }
        Ok(Some(Arc::new(Multiplexer {
            names: self.names.clone(),
            preserve_original: self.preserve_original,
            chains,
            resolved: true,
        })))
    }
}

/// The `script` setting of an analysis filter, compiled as a predicate, with its params.
#[derive(Clone, Debug)]
pub struct Predicate {
    script: Script,
    params: Map<String, Value>,
}

impl Predicate {
    /// Compiles the `script` setting (a string or `{source, lang, params}`; stored scripts are
    /// refused as OpenSearch refuses them).
    pub fn compile(spec: Option<&Value>, name: &str) -> Result<Predicate, AnalysisError> {
        let Some(spec) = spec else {
            return Err(AnalysisError::illegal_argument(
                "must specify either [source] for an inline script or [id] for a stored script",
            ));
        };
        if spec.get("id").is_some() {
            return Err(AnalysisError::illegal_argument(format!("Cannot use stored scripts in tokenfilter [{name}]")));
        }
        let request = crate::script::parse_script_request(spec).map_err(script_error)?;
        let script = Script::compile_analysis_predicate(&request.source, Some(&request.lang)).map_err(script_error)?;
        Ok(Predicate { script, params: request.params })
    }

    /// Runs the script on `token` at absolute `position`; a failure counts as false.
    fn test(&self, token: &TokenState, position: i64) -> bool {
        let mut ctx = match json!({
            "term": token.term,
            "position": position,
            "positionIncrement": token.position_increment,
            "positionLength": token.position_length,
            "startOffset": token.start,
            "endOffset": token.end,
            "type": token.token_type,
            "keyword": token.keyword,
        }) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        matches!(self.script.execute_ctx(&mut ctx, &self.params), Ok(Value::Bool(true)))
    }
}

fn script_error(e: crate::script::ScriptError) -> AnalysisError {
    let kind = if e.kind == ErrorKind::IllegalArgument { ErrorKind::IllegalArgument } else { ErrorKind::Script };
    let reason = match &e.caused_by {
        Some((_, cause)) if kind == ErrorKind::Script => format!("{}: {cause}", e.reason),
        _ => e.reason.clone(),
    };
    AnalysisError { kind, reason }
}

/// `predicate_token_filter`: keeps the tokens the script accepts.
#[derive(Debug)]
pub struct PredicateFilter(pub Predicate);

impl TokenFilter for PredicateFilter {
    fn filter(&self, tokens: Vec<TokenState>, end_increment: &mut u32) -> Vec<TokenState> {
        let mut out = Vec::with_capacity(tokens.len());
        let mut position: i64 = -1;
        let mut skipped = 0u32;
        for mut token in tokens {
            position += i64::from(token.position_increment);
            if self.0.test(&token, position) {
                token.position_increment = token.position_increment.saturating_add(std::mem::take(&mut skipped));
                out.push(token);
            } else {
                skipped = skipped.saturating_add(token.position_increment);
            }
        }
        *end_increment = end_increment.saturating_add(skipped);
        out
    }
}

/// `condition`: runs its filters over the runs of consecutive tokens the script accepts.
#[derive(Debug)]
pub struct Condition {
    predicate: Predicate,
    names: Vec<String>,
    filters: Vec<Arc<dyn TokenFilter>>,
    resolved: bool,
}

impl Condition {
    /// An unresolved condition filter over the filters `names`.
    pub fn new(predicate: Predicate, names: Vec<String>) -> Self {
        Condition { predicate, names, filters: Vec::new(), resolved: false }
    }
}

impl TokenFilter for Condition {
    fn filter(&self, tokens: Vec<TokenState>, end_increment: &mut u32) -> Vec<TokenState> {
        let mut out = Vec::with_capacity(tokens.len());
        let mut run: Vec<TokenState> = Vec::new();
        let mut position: i64 = -1;
        for token in tokens {
            position += i64::from(token.position_increment);
            if self.predicate.test(&token, position) {
                run.push(token);
                continue;
            }
            if !run.is_empty() {
                let mut ignored = 0;
                out.extend(run_chain(&self.filters, std::mem::take(&mut run), &mut ignored));
            }
            out.push(token);
        }
        if !run.is_empty() {
            out.extend(run_chain(&self.filters, run, end_increment));
        }
        out
    }

    fn resolve(&self, name: &str, lookup: &Lookup<'_>) -> Result<Option<Arc<dyn TokenFilter>>, AnalysisError> {
        if self.resolved {
            return Ok(None);
        }
        let mut filters = Vec::with_capacity(self.names.len());
        for filter in &self.names {
            match lookup(filter)? {
                Some(found) => filters.push(found),
                None => {
                    return Err(AnalysisError::illegal_argument(format!(
                        "ScriptedConditionTokenFilter [{name}] refers to undefined token filter [{filter}]"
                    )))
                }
            }
        }
        Ok(Some(Arc::new(Condition {
            predicate: self.predicate.clone(),
            names: self.names.clone(),
            filters,
            resolved: true,
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::analysis::token_filters;

    fn words(text: &str) -> Vec<TokenState> {
        let mut at = 0;
        text.split(' ')
            .map(|w| {
                let t = TokenState::new(w, at, at + w.len(), "word");
                at += w.len() + 1;
                t
            })
            .collect()
    }

    fn lookup(name: &str) -> Result<Option<Arc<dyn TokenFilter>>, AnalysisError> {
        Ok(match name {
            "lowercase" => Some(Arc::new(token_filters::lowercase(None))),
            "uppercase" => Some(Arc::new(token_filters::uppercase())),
            _ => None,
        })
    }

    fn terms(tokens: &[TokenState]) -> Vec<(&str, u32)> {
        tokens.iter().map(|t| (t.term.as_str(), t.position_increment)).collect()
    }

    #[test]
    fn multiplexer_stacks_each_chain_and_drops_duplicates() {
        let m = Multiplexer::new(vec!["lowercase".into(), "uppercase".into()], true);
        let m = m.resolve("m", &lookup).unwrap().unwrap();
        let out = m.filter(words("The fox"), &mut 0);
        assert_eq!(terms(&out), vec![("The", 1), ("the", 0), ("THE", 0), ("fox", 1), ("FOX", 0)]);
        let err = Multiplexer::new(vec!["nope".into()], true).resolve("m", &lookup).unwrap_err();
        assert_eq!(err.reason, "Multiplexing filter [m] refers to undefined tokenfilter [nope]");
    }

    #[test]
    fn scripts_see_the_token() {
        let spec =
            json!({"source": "token.getTerm().length() > 3 && token.position >= 1 && token.getType() == 'word'"});
        let predicate = Predicate::compile(Some(&spec), "p").unwrap();
        let out = PredicateFilter(predicate.clone()).filter(words("Vorsprung Durch Technik a"), &mut 0);
        assert_eq!(terms(&out), vec![("Durch", 2), ("Technik", 1)]);
        let condition = Condition::new(predicate, vec!["lowercase".into()]).resolve("c", &lookup).unwrap().unwrap();
        let out = condition.filter(words("Vorsprung Durch Technik"), &mut 0);
        assert_eq!(terms(&out), vec![("Vorsprung", 1), ("durch", 1), ("technik", 1)]);
        assert!(Predicate::compile(Some(&json!({"source": "token.term.length( >"})), "p").is_err());
        assert!(Predicate::compile(Some(&json!({"id": "stored"})), "p").is_err());
    }
}
