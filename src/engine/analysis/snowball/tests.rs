//! The stemmers against Lucene's goldens, the runtime's `find_among` against a naive model, and
//! arbitrary input (no panic, bounded work).

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{json, Value};

use super::super::analyze;
use super::env::{Among, Env};
use super::SnowballLanguage;

/// The languages with Lucene 8.7 goldens (the `stemmer` filter's).
const LUCENE_87: [SnowballLanguage; 6] = [
    SnowballLanguage::Armenian,
    SnowballLanguage::Basque,
    SnowballLanguage::Catalan,
    SnowballLanguage::Estonian,
    SnowballLanguage::Irish,
    SnowballLanguage::Lithuanian,
];

/// The languages only the `snowball` filter reaches.
const SNOWBALL_FILTER_ONLY: [SnowballLanguage; 3] =
    [SnowballLanguage::Nepali, SnowballLanguage::Serbian, SnowballLanguage::Yiddish];

fn goldens() -> Value {
    let path = format!("{}/tests/golden/analysis/snowball_stemmers.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the snowball golden file exists");
    serde_json::from_str(&text).expect("the snowball golden file is JSON")
}

#[test]
fn every_golden_stem_matches_lucene() {
    let goldens = goldens();
    let mut checked = 0;
    let mut failures = Vec::new();
    for lang in LUCENE_87 {
        let pairs = goldens["stems"][lang.name()].as_array().expect("every language has goldens");
        let divergences = &goldens["known_divergences"][lang.name()];
        assert!(pairs.len() >= 1900, "{}: {} goldens", lang.name(), pairs.len());
        for pair in pairs {
            let (Some(word), Some(lucene)) = (pair[0].as_str(), pair[1].as_str()) else {
                panic!("malformed golden {pair}");
            };
            // Lucene 8.7 ran Lucene's own Estonian patch; Lucene 9.11+ generates the class from
            // Snowball's estonian.sbl, which stems these words differently
            let expected = divergences[word].as_str().unwrap_or(lucene);
            let actual = lang.stem(word);
            if actual != expected {
                failures.push(format!("{}: {word} -> {actual}, expected {expected}", lang.name()));
            }
            checked += 1;
        }
    }
    assert!(failures.is_empty(), "{} of {checked} differ:\n{}", failures.len(), failures.join("\n"));
}

/// The `armenian` … `lithuanian` analyzers against `tests/golden/analysis/snowball_analyzers.json`
/// (Lucene 8.7's `<Language>Analyzer` on the texts in `snowball/texts/`).
#[test]
fn language_analyzers_match_lucene() {
    let path = format!("{}/tests/golden/analysis/snowball_analyzers.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the analyzer golden file exists");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("the analyzer golden file is JSON");
    assert!(cases.len() > 100);
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap_or("?");
        let response = match analyze(&case["request"], None, &|_| None, 10_000) {
            Ok(response) => response,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let actual: Vec<Value> = response["tokens"]
            .as_array()
            .map(|tokens| {
                let row = |t: &Value| {
                    Value::Array(vec![
                        t["token"].clone(),
                        t["start_offset"].clone(),
                        t["end_offset"].clone(),
                        t["type"].clone(),
                        t["position"].clone(),
                    ])
                };
                tokens.iter().map(row).collect()
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
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn stemmer_and_snowball_filters_name_the_languages() {
    let cases = [
        (json!({"type": "snowball", "language": "Catalan"}), "gossos", "goss"),
        (json!({"type": "snowball", "language": "Basque"}), "etxeak", "etxe"),
        (json!({"type": "stemmer", "language": "lithuanian"}), "vaikai", "vaik"),
        (json!({"type": "stemmer", "name": "irish"}), "bhfear", "fear"),
        (json!({"type": "stemmer", "language": "estonian"}), "lapsed", "lapse"),
        (json!({"type": "stemmer", "language": "armenian"}), "ազատություններ", "ազատ"),
        (json!({"type": "snowball", "language": "Serbian"}), "кућама", "kuć"),
    ];
    for (filter, word, stem) in cases {
        let request = json!({"tokenizer": "keyword", "filter": [filter], "text": word});
        let response = analyze(&request, None, &|_| None, 10_000).unwrap_or_else(|e| panic!("{request}: {e}"));
        assert_eq!(response["tokens"][0]["token"], stem, "{request}");
    }
}

/// The `snowball`-filter-only languages (Lucene 8.7 has no class for them) against the Snowball
/// project's own expected output.
#[test]
fn snowball_data_stems_match() {
    let goldens = goldens();
    let mut failures = Vec::new();
    for lang in SNOWBALL_FILTER_ONLY {
        let pairs = goldens["snowball_data"][lang.name()].as_array().expect("every language has goldens");
        assert!(pairs.len() >= 700, "{}: {} goldens", lang.name(), pairs.len());
        for pair in pairs {
            let (Some(word), Some(stem)) = (pair[0].as_str(), pair[1].as_str()) else {
                panic!("malformed golden {pair}");
            };
            let actual = lang.stem(word);
            if actual != stem {
                failures.push(format!("{}: {word} -> {actual}, expected {stem}", lang.name()));
            }
        }
    }
    assert!(failures.is_empty(), "{} differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn known_divergences_are_only_estonian() {
    let goldens = goldens();
    let divergences = goldens["known_divergences"].as_object().expect("an object");
    assert_eq!(divergences.keys().collect::<Vec<_>>(), ["estonian"]);
    assert!(divergences["estonian"].as_object().map_or(0, |m| m.len()) < 30);
}

/// `SNOWBALL_FULL_VOCAB=path cargo test -- --ignored`: every line `language\tword\tstem` of a
/// larger vocabulary (the Snowball project's voc.txt files stemmed by the generated Python).
#[test]
#[ignore]
fn full_vocabulary() {
    let Ok(path) = std::env::var("SNOWBALL_FULL_VOCAB") else { return };
    let text = std::fs::read_to_string(path).expect("the vocabulary file is readable");
    let mut failures = Vec::new();
    let mut checked = 0usize;
    for line in text.lines() {
        let mut fields = line.split('\t');
        let (Some(lang), Some(word), Some(stem)) = (fields.next(), fields.next(), fields.next()) else { continue };
        let Some(lang) = SnowballLanguage::from_name(lang) else { continue };
        checked += 1;
        let actual = lang.stem(word);
        if actual != stem {
            failures.push(format!("{}: {word} -> {actual}, expected {stem}", lang.name()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures[..failures.len().min(50)].join("\n")
    );
}

#[test]
fn examples() {
    assert_eq!(SnowballLanguage::Catalan.stem("gossos"), "goss");
    assert_eq!(SnowballLanguage::Basque.stem("etxeak"), "etxe");
    assert_eq!(SnowballLanguage::Irish.stem("bhfear"), "fear");
    assert_eq!(SnowballLanguage::from_name("catalan"), Some(SnowballLanguage::Catalan));
    assert_eq!(SnowballLanguage::from_name("klingon"), None);
    for lang in SnowballLanguage::ALL {
        assert_eq!(SnowballLanguage::from_name(lang.name()), Some(lang));
        assert_eq!(lang.stem(""), "");
    }
}

/// A backward `among` table as the Snowball compiler lays it out: sorted by the reversed
/// strings, each entry pointing at its longest proper suffix in the table.
fn backward_table(words: &[String]) -> Vec<Among> {
    let mut units: Vec<Vec<u16>> = words.iter().map(|w| w.encode_utf16().collect()).collect();
    units.sort_by(|a, b| a.iter().rev().cmp(b.iter().rev()));
    units.dedup();
    let leaked: Vec<&'static [u16]> = units.into_iter().map(|u| &*Box::leak(u.into_boxed_slice())).collect();
    (0..leaked.len())
        .map(|k| {
            let s = leaked[k];
            let substring_i = (0..k).rev().find(|&j| leaked[j].len() < s.len() && s.ends_with(leaked[j]));
            Among { s, substring_i: substring_i.map_or(-1, |j| j as i32), result: k as i32 + 1 }
        })
        .collect()
}

proptest! {
    #[test]
    fn find_among_b_finds_the_longest_suffix(
        words in prop::collection::vec("[ab\u{e0}]{0,4}", 1..12),
        text in "[ab\u{e0}]{0,6}",
    ) {
        let table = backward_table(&words);
        let mut env = Env::new(&text);
        env.cursor = env.limit;
        let result = env.find_among_b(&table);
        let units: Vec<u16> = text.encode_utf16().collect();
        let model: BTreeMap<usize, i32> = table
            .iter()
            .filter(|w| units.ends_with(w.s))
            .map(|w| (w.s.len(), w.result))
            .collect();
        let expected = model.iter().next_back().map_or(0, |(_, r)| *r);
        prop_assert_eq!(result, expected);
        if let Some((len, _)) = model.iter().next_back() {
            prop_assert_eq!(env.cursor, (units.len() - len) as i32);
        }
    }

    #[test]
    fn stemmers_never_panic_and_stay_bounded(word in "\\PC{0,40}") {
        for lang in SnowballLanguage::ALL {
            let stem = lang.stem(&word);
            // the stemmers strip or rewrite suffixes; Serbian transliterates (љ -> lj)
            prop_assert!(stem.chars().count() <= 2 * word.chars().count() + 8, "{}: {} -> {}", lang.name(), word, stem);
        }
    }

    #[test]
    fn stemmers_handle_language_letters(word in "[a-z\u{e0}-\u{ff}\u{105}\u{10d}\u{117}\u{119}\u{12f}\u{161}\u{16b}\u{173}\u{17e}\u{531}-\u{587}'\\-\u{b7}]{0,30}") {
        for lang in SnowballLanguage::ALL {
            let _ = lang.stem(&word);
        }
    }
}
