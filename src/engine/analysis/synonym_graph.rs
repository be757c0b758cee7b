//! Graph token streams: the output side of Lucene's `SynonymGraphFilter` (the `synonym_graph`
//! filter; rules are parsed by [`super::synonyms`]) and Lucene's `FlattenGraphFilter`
//! (`flatten_graph`).
//!
//! `SynonymGraphFilter` numbers the nodes of the token graph: a token that is no synonym match
//! leaves from the node after the previous one (its increment) and arrives `positionLength`
//! later. A match of `n` input tokens fans out, from the next free node, one side path per
//! output (a multi-word output gets intermediate nodes) and, when the original is kept, the
//! input tokens on their own path; all paths end at one node. Output tokens come first (type
//! `SYNONYM`, offsets of the whole match), then the original's first token, then the rest of
//! each path.
//!
//! `FlattenGraphFilter` then merges the nodes so every path touches every position: an input
//! node maps to one more than the highest output node of the tokens arriving at it, and tokens
//! are released output node by output node.

use std::collections::BTreeMap;

use super::chain::TokenFilter;
use super::token_stream::TokenState;

/// Lucene's `SynonymGraphFilter` over a token list; `matcher` returns, for tokens starting at an
/// index, the longest match: its input length, outputs (each a list of words) and whether the
/// original is kept.
pub fn synonym_graph<'m>(
    tokens: Vec<TokenState>,
    matcher: impl Fn(&[TokenState]) -> Option<(usize, &'m [Vec<String>], bool)>,
) -> Vec<TokenState> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut last_node_out: i64 = -1;
    let mut next_node_out: i64 = 0;
    let mut i = 0;
    while i < tokens.len() {
        let Some((len, paths, keep_orig)) =
            matcher(&tokens[i..]).filter(|(len, paths, _)| *len > 0 && !paths.is_empty())
        else {
            let token = tokens[i].clone();
            last_node_out += i64::from(token.position_increment);
            next_node_out = last_node_out + i64::from(token.position_length.max(1));
            out.push(token);
            i += 1;
            continue;
        };
        let matched = &tokens[i..i + len];
        let (match_start, match_end) = (matched[0].start, matched[len - 1].end);
        let mut total_path_nodes = if keep_orig { len as i64 - 1 } else { 0 };
        for path in paths {
            total_path_nodes += path.len().max(1) as i64 - 1;
        }
        let start_node = next_node_out;
        let end_node = start_node + total_path_nodes + 1;
        // (original token or None for a synonym word, term, start node, end node)
        let mut buffer: Vec<(Option<&TokenState>, &str, i64, i64)> = Vec::new();
        let mut new_node_count: i64 = 0;
        for path in paths {
            let path_end = if path.len() <= 1 {
                end_node
            } else {
                let end = next_node_out + new_node_count + 1;
                new_node_count += path.len() as i64 - 1;
                end
            };
            buffer.push((None, path.first().map_or("", String::as_str), start_node, path_end));
        }
        if keep_orig {
            let input_end = if len == 1 { end_node } else { next_node_out + new_node_count + 1 };
            buffer.push((Some(&matched[0]), &matched[0].term, start_node, input_end));
        }
        next_node_out = end_node;
        for (path_id, path) in paths.iter().enumerate() {
            if path.len() > 1 {
                let mut last_node = buffer[path_id].3;
                for word in &path[1..path.len() - 1] {
                    buffer.push((None, word, last_node, last_node + 1));
                    last_node += 1;
                }
                buffer.push((None, &path[path.len() - 1], last_node, end_node));
            }
        }
        if keep_orig && len > 1 {
            let mut last_node = buffer[paths.len()].3;
            for token in &matched[1..len - 1] {
                buffer.push((Some(token), &token.term, last_node, last_node + 1));
                last_node += 1;
            }
            buffer.push((Some(&matched[len - 1]), &matched[len - 1].term, last_node, end_node));
        }
        for (original, term, start, end) in buffer {
            let mut token = match original {
                Some(original) => original.clone(),
                None => TokenState::new(term, match_start, match_end, "SYNONYM"),
            };
            token.position_increment = u32::try_from(start - last_node_out).unwrap_or(0);
            token.position_length = u32::try_from(end - start).unwrap_or(1).max(1);
            last_node_out = start;
            out.push(token);
        }
        i += len;
    }
    out
}

#[derive(Default)]
struct InputNode {
    output: Option<i64>,
    tokens: Vec<usize>,
    min_to: Option<i64>,
}

#[derive(Default)]
struct OutputNode {
    inputs: Vec<i64>,
    start_offset: Option<usize>,
    end_offset: Option<usize>,
}

/// `flatten_graph` (Lucene's `FlattenGraphFilter`).
#[derive(Debug, Default)]
pub struct FlattenGraph;

impl TokenFilter for FlattenGraph {
    fn filter(&self, tokens: Vec<TokenState>, _end: &mut u32) -> Vec<TokenState> {
        flatten(tokens)
    }
}

/// Flattens a token graph (see the module documentation).
pub fn flatten(tokens: Vec<TokenState>) -> Vec<TokenState> {
    let mut inputs: BTreeMap<i64, InputNode> = BTreeMap::new();
    let mut outputs: BTreeMap<i64, OutputNode> = BTreeMap::new();
    inputs.insert(0, InputNode { output: Some(0), ..Default::default() });
    outputs.insert(0, OutputNode { inputs: vec![0], start_offset: Some(0), end_offset: None });
    let mut max_output: i64 = 0;
    let mut input_from: i64 = -1;
    let mut froms = Vec::with_capacity(tokens.len());
    for (index, token) in tokens.iter().enumerate() {
        let increment = i64::from(token.position_increment);
        input_from += increment;
        let input_to = input_from + i64::from(token.position_length.max(1));
        froms.push(input_from);
        let known = inputs.get(&input_from).and_then(|n| n.output);
        let src_output = match known {
            Some(output) => {
                let node = outputs.entry(output).or_default();
                node.start_offset = Some(node.start_offset.map_or(token.start, |s| s.max(token.start)));
                output
            }
            None => {
                // A hole: nothing arrived at this node; place it after what may lead to it.
                let previous = input_from - increment;
                let output = if previous >= 0 {
                    match inputs.get(&previous).and_then(|n| n.min_to).filter(|to| *to < input_from) {
                        Some(to) => inputs.get(&to).and_then(|n| n.output).unwrap_or(max_output) + 1,
                        None => max_output,
                    }
                } else {
                    max_output + 1
                };
                max_output = max_output.max(output);
                let node = outputs.entry(output).or_default();
                node.start_offset = Some(node.start_offset.map_or(token.start, |s| s.max(token.start)));
                node.inputs.push(input_from);
                inputs.entry(input_from).or_default().output = Some(output);
                output
            }
        };
        let src = inputs.entry(input_from).or_default();
        src.tokens.push(index);
        src.min_to = Some(src.min_to.map_or(input_to, |m| m.min(input_to)));
        let output_end = src_output + 1;
        max_output = max_output.max(output_end);
        let dest = inputs.entry(input_to).or_default();
        if dest.output.is_none_or(|current| output_end > current) {
            if let Some(old) = dest.output {
                if let Some(node) = outputs.get_mut(&old) {
                    node.inputs.retain(|n| *n != input_to);
                }
            }
            outputs.entry(output_end).or_default().inputs.push(input_to);
            dest.output = Some(output_end);
        }
        let dest_output = dest.output.unwrap_or(output_end);
        let node = outputs.entry(dest_output).or_default();
        node.end_offset = Some(node.end_offset.map_or(token.end, |e| e.min(token.end)));
    }
    let mut out = Vec::with_capacity(tokens.len());
    let mut last_output: i64 = -1;
    let mut last_start = 0usize;
    for (&output_from, node) in &outputs {
        for input in &node.inputs {
            let Some(input_node) = inputs.get(input) else { continue };
            for &index in &input_node.tokens {
                let mut token = tokens[index].clone();
                let to = froms[index] + i64::from(token.position_length.max(1));
                let to_output = inputs.get(&to).and_then(|n| n.output).unwrap_or(output_from + 1);
                token.position_increment = u32::try_from(output_from - last_output).unwrap_or(0);
                token.position_length = u32::try_from(to_output - output_from).unwrap_or(1).max(1);
                let start = last_start.max(node.start_offset.unwrap_or(token.start));
                let end_offset = outputs.get(&to_output).and_then(|n| n.end_offset).unwrap_or(token.end);
                token.start = start;
                token.end = start.max(end_offset);
                last_start = start;
                last_output = output_from;
                out.push(token);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// (term, position, positionLength)
    fn positioned(tokens: &[TokenState]) -> Vec<(String, u32, u32)> {
        let mut position: i64 = -1;
        tokens
            .iter()
            .map(|t| {
                position += i64::from(t.position_increment);
                (t.term.clone(), position as u32, t.position_length)
            })
            .collect()
    }

    fn atm_graph() -> Vec<TokenState> {
        let outputs = vec![vec!["atm".to_owned()], vec!["cash".to_owned(), "point".to_owned()]];
        synonym_graph(words("this automatic teller machine is down"), |tokens| {
            let terms: Vec<&str> = tokens.iter().take(3).map(|t| t.term.as_str()).collect();
            (terms == ["automatic", "teller", "machine"]).then_some((3, outputs.as_slice(), true))
        })
    }

    #[test]
    fn multi_word_synonyms_form_side_paths() {
        let expected = [
            ("this", 0, 1),
            ("atm", 1, 4),
            ("cash", 1, 1),
            ("automatic", 1, 2),
            ("point", 2, 3),
            ("teller", 3, 1),
            ("machine", 4, 1),
            ("is", 5, 1),
            ("down", 6, 1),
        ];
        let expected: Vec<(String, u32, u32)> = expected.iter().map(|(t, p, l)| ((*t).to_owned(), *p, *l)).collect();
        assert_eq!(positioned(&atm_graph()), expected);
    }

    #[test]
    fn flattening_merges_the_side_paths() {
        let expected = [
            ("this", 0, 1),
            ("atm", 1, 3),
            ("cash", 1, 1),
            ("automatic", 1, 1),
            ("point", 2, 2),
            ("teller", 2, 1),
            ("machine", 3, 1),
            ("is", 4, 1),
            ("down", 5, 1),
        ];
        let expected: Vec<(String, u32, u32)> = expected.iter().map(|(t, p, l)| ((*t).to_owned(), *p, *l)).collect();
        assert_eq!(positioned(&flatten(atm_graph())), expected);
    }

    #[test]
    fn flattening_a_flat_stream_keeps_it_and_its_holes() {
        let mut tokens = words("a b c");
        tokens[2].position_increment = 2;
        let flat = flatten(tokens);
        assert_eq!(positioned(&flat), vec![("a".into(), 0, 1), ("b".into(), 1, 1), ("c".into(), 3, 1)]);
    }
}
