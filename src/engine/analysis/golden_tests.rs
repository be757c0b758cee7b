//! The golden tables of `tests/golden/analysis/*.json`: `_analyze` requests and the tokens
//! OpenSearch documents for them (`[token, start_offset, end_offset, type, position,
//! positionLength?]`), with index settings where a case needs them.

use serde_json::Value;

use super::{analyze, IndexAnalysis};

fn check_table(file: &str) {
    let path = format!("{}/tests/golden/analysis/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the golden table exists");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("the golden table is JSON");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap_or("?");
        let index = match case.get("settings") {
            Some(settings) => match IndexAnalysis::from_settings(settings) {
                Ok(index) => Some(index),
                Err(e) => {
                    failures.push(format!("{name}: settings rejected: {e}"));
                    continue;
                }
            },
            None => None,
        };
        let response = match analyze(&case["request"], index.as_ref(), &|_| None, 10_000) {
            Ok(response) => response,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let actual: Vec<Value> = response["tokens"]
            .as_array()
            .map(|tokens| {
                tokens
                    .iter()
                    .map(|t| {
                        let mut row = vec![
                            t["token"].clone(),
                            t["start_offset"].clone(),
                            t["end_offset"].clone(),
                            t["type"].clone(),
                            t["position"].clone(),
                        ];
                        if let Some(length) = t.get("positionLength") {
                            row.push(length.clone());
                        }
                        Value::Array(row)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let expected = case["tokens"].as_array().cloned().unwrap_or_default();
        if actual != expected {
            failures.push(format!(
                "{name}:\n  expected {}\n  actual   {}",
                Value::Array(expected),
                Value::Array(actual)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{file}: {} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn golden_analyzers() {
    check_table("analyzers.json");
}

#[test]
fn golden_tokenizers() {
    check_table("tokenizers.json");
}

#[test]
fn golden_token_filters() {
    check_table("token_filters.json");
}

#[test]
fn golden_char_filters() {
    check_table("char_filters.json");
}

#[test]
fn golden_unicode() {
    check_table("unicode.json");
}

#[test]
fn golden_languages() {
    check_table("languages.json");
}

#[test]
fn golden_language_filters() {
    check_table("language_filters.json");
}

#[test]
fn golden_language_analyzers() {
    check_table("language_analyzers.json");
}

#[test]
fn golden_language_stemmers() {
    check_table("language_stemmers.json");
}

#[test]
fn golden_lucene_asciifolding() {
    check_table("lucene_asciifolding.json");
}

#[test]
fn golden_lucene_classic() {
    check_table("lucene_classic.json");
}

#[test]
fn golden_lucene_html_strip() {
    check_table("lucene_html_strip.json");
}

#[test]
fn golden_lucene_uax_url_email() {
    check_table("lucene_uax_url_email.json");
}
