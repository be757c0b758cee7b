//! `synonym` and `synonym_graph` with inline Solr-format rules: `a, b, c` (equivalent words:
//! with `expand` each maps to all, keeping the original; without, all map to the first) and
//! `a, b => c, d` (explicit, replacing the input). Rules are analyzed with the chain before the
//! filter (its tokenizer and preceding filters), as OpenSearch does.
//!
//! Matching is greedy longest-match at each position. Synonyms stack on the first matched
//! token (type `SYNONYM`, `positionLength` the matched length); a multi-word synonym continues
//! on the following positions. Known divergence: Lucene's exact interleaving of multi-word
//! outputs of the non-graph `synonym` filter is not reproduced.

use std::collections::HashMap;
use std::sync::Arc;

use super::chain::TokenFilter;
use super::char_filters::unescape;
use super::error::AnalysisError;
use super::synonym_graph::synonym_graph;
use super::token_stream::TokenState;

/// A synonym filter, before (rules only) or after being built for its chain.
#[derive(Clone, Debug, Default)]
pub struct SynonymFilter {
    /// The Solr-format rules.
    pub rules: Vec<String>,
    /// Equivalent words map to all of them (default true).
    pub expand: bool,
    /// Skip rules that cannot be parsed or analyzed (default false).
    pub lenient: bool,
    /// `synonym_graph`: Lucene's `SynonymGraphFilter` output ([`super::synonym_graph`]).
    pub graph: bool,
    map: HashMap<Vec<String>, (Vec<Vec<String>>, bool)>,
    longest: usize,
}

fn split_list(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                current.push('\\');
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            ',' => out.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    out.push(current);
    out.into_iter().map(|p| unescape(p.trim())).filter(|p| !p.is_empty()).collect()
}

impl SynonymFilter {
    /// A filter for `rules`, to be built with [`TokenFilter::for_chain`].
    pub fn new(rules: Vec<String>, expand: bool, lenient: bool) -> Self {
        SynonymFilter { rules, expand, lenient, ..Default::default() }
    }

    fn add(&mut self, input: Vec<String>, output: Vec<String>, keep_original: bool) {
        self.longest = self.longest.max(input.len());
        let entry = self.map.entry(input).or_insert_with(|| (Vec::new(), keep_original));
        entry.1 = entry.1 || keep_original;
        if !entry.0.contains(&output) {
            entry.0.push(output);
        }
    }

    fn build(&self, analyze: &dyn Fn(&str) -> Vec<String>) -> Result<SynonymFilter, AnalysisError> {
        let mut built = SynonymFilter::new(Vec::new(), self.expand, self.lenient);
        built.graph = self.graph;
        for rule in &self.rules {
            let rule = rule.trim();
            if rule.is_empty() || rule.starts_with('#') {
                continue;
            }
            let analyzed = |phrases: Vec<String>| -> Result<Vec<Vec<String>>, AnalysisError> {
                phrases
                    .iter()
                    .map(|phrase| {
                        let terms = analyze(phrase);
                        if terms.is_empty() {
                            Err(AnalysisError::illegal_argument(format!(
                                "failed to build synonyms: term: {phrase} was completely eliminated by analyzer"
                            )))
                        } else {
                            Ok(terms)
                        }
                    })
                    .collect()
            };
            let result = match rule.split_once("=>") {
                Some((left, right)) => analyzed(split_list(left)).and_then(|inputs| {
                    let outputs = analyzed(split_list(right))?;
                    if inputs.is_empty() || outputs.is_empty() {
                        return Err(AnalysisError::illegal_argument(format!(
                            "failed to build synonyms: Invalid synonym rule: {rule}"
                        )));
                    }
                    Ok((inputs, Some(outputs)))
                }),
                None => analyzed(split_list(rule)).map(|inputs| (inputs, None)),
            };
            let (inputs, outputs) = match result {
                Ok(parsed) => parsed,
                Err(_) if self.lenient => continue,
                Err(e) => return Err(e),
            };
            match outputs {
                Some(outputs) => {
                    for input in &inputs {
                        for output in &outputs {
                            built.add(input.clone(), output.clone(), false);
                        }
                    }
                }
                None if self.expand => {
                    for (i, input) in inputs.iter().enumerate() {
                        for (j, output) in inputs.iter().enumerate() {
                            if i != j {
                                built.add(input.clone(), output.clone(), true);
                            }
                        }
                    }
                }
                None => {
                    if let Some(first) = inputs.first() {
                        for input in &inputs {
                            built.add(input.clone(), first.clone(), false);
                        }
                    }
                }
            }
        }
        Ok(built)
    }
}

impl SynonymFilter {
    /// The longest rule matching the start of `window` (terms only, as Lucene's FST lookup):
    /// its length, outputs and whether the original is kept.
    fn longest_match(&self, window: &[TokenState]) -> Option<(usize, &[Vec<String>], bool)> {
        (1..=self.longest.min(window.len())).rev().find_map(|len| {
            let key: Vec<String> = window[..len].iter().map(|t| t.term.clone()).collect();
            self.map.get(&key).map(|(outputs, keep)| (len, outputs.as_slice(), *keep))
        })
    }
}

impl TokenFilter for SynonymFilter {
    fn filter(&self, tokens: Vec<TokenState>, _end: &mut u32) -> Vec<TokenState> {
        if self.map.is_empty() {
            return tokens;
        }
        if self.graph {
            return synonym_graph(tokens, |window| self.longest_match(window));
        }
        let mut out = Vec::with_capacity(tokens.len());
        let mut i = 0;
        while i < tokens.len() {
            let mut matched: Option<(usize, &(Vec<Vec<String>>, bool))> = None;
            for len in (1..=self.longest.min(tokens.len() - i)).rev() {
                let window = &tokens[i..i + len];
                if window.iter().skip(1).any(|t| t.position_increment != 1) {
                    continue;
                }
                let key: Vec<String> = window.iter().map(|t| t.term.clone()).collect();
                if let Some(found) = self.map.get(&key) {
                    matched = Some((len, found));
                    break;
                }
            }
            let Some((len, (outputs, keep_original))) = matched else {
                out.push(tokens[i].clone());
                i += 1;
                continue;
            };
            let first = &tokens[i];
            let last = &tokens[i + len - 1];
            let span = u32::try_from(len).unwrap_or(1);
            let mut stacked: Vec<TokenState> = Vec::new();
            let mut continued: Vec<TokenState> = Vec::new();
            for output in outputs {
                let output_span = u32::try_from(output.len()).unwrap_or(1);
                for (k, word) in output.iter().enumerate() {
                    let mut t = TokenState::new(word, first.start, last.end, "SYNONYM");
                    t.position_increment = u32::from(k > 0);
                    if k == 0 {
                        t.position_length = if output.len() == 1 { span } else { 1 };
                        stacked.push(t);
                    } else {
                        continued.push(t);
                    }
                }
                let _ = output_span;
            }
            let mut group: Vec<TokenState> = Vec::new();
            if *keep_original {
                let mut head = first.clone();
                let longest_output = outputs.iter().map(Vec::len).max().unwrap_or(1);
                if len == 1 && longest_output > 1 {
                    head.position_length = u32::try_from(longest_output).unwrap_or(1);
                }
                group.push(head);
                group.extend(stacked);
                group.extend(continued);
                group.extend(tokens[i + 1..i + len].iter().cloned());
            } else {
                if let Some(head) = stacked.first_mut() {
                    head.position_increment = first.position_increment;
                }
                group.extend(stacked);
                group.extend(continued);
            }
            out.extend(group);
            i += len;
        }
        out
    }

    fn for_chain(&self, analyze: &dyn Fn(&str) -> Vec<String>) -> Result<Option<Arc<dyn TokenFilter>>, AnalysisError> {
        Ok(Some(Arc::new(self.build(analyze)?)))
    }
}
