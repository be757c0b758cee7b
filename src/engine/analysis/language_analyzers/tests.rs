//! The language analyzers by settings; their token goldens (generated with Lucene) are in
//! `tests/golden/analysis/language_analyzers.json`.

use serde_json::json;

use super::super::builtin_analyzers::{analyzer_of_type, BUILTIN_ANALYZERS};
use super::super::params::Params;
use super::super::Analyzer;

fn terms(analyzer: &dyn Analyzer, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    analyzer.analyze(text, 0, &mut |t| out.push(t.term.to_owned()));
    out
}

fn build(kind: &str, settings: serde_json::Value) -> Result<Option<std::sync::Arc<dyn Analyzer>>, String> {
    analyzer_of_type(kind, Params::new(&settings), 100).map_err(|e| e.to_string())
}

#[test]
fn stopwords_and_stem_exclusion_settings() {
    let arabic = build("arabic", json!({"stem_exclusion": ["الكتاب"], "stopwords": ["كبير"]})).ok().flatten();
    let arabic = arabic.unwrap_or_else(|| panic!("arabic builds"));
    assert_eq!(terms(&*arabic, "كبير الكتاب والحسن ما"), ["الكتاب", "حسن", "ما"]);
    let default = build("arabic", json!({})).ok().flatten().unwrap_or_else(|| panic!("arabic builds"));
    assert_eq!(terms(&*default, "ما الكتاب"), ["كتاب"], "ما is an _arabic_ stop word");
}

#[test]
fn persian_reads_zwnj_as_a_space() {
    let persian = build("persian", json!({})).ok().flatten().unwrap_or_else(|| panic!("persian builds"));
    let mut tokens = Vec::new();
    persian.analyze("کتاب\u{200C}خانه", 0, &mut |t| tokens.push((t.start, t.end, t.position)));
    assert_eq!(tokens, [(0, 8, 0), (11, 19, 1)], "two words, byte offsets of the original text");
}

#[test]
fn thai_segments_lowercases_and_drops_stop_words() {
    // Lucene's TestThaiAnalyzer sentence: "การ", "ที่", "ได้", "ต้อง", "ว่า" are _thai_ stop words.
    let thai = build("thai", json!({})).ok().flatten().unwrap_or_else(|| panic!("thai builds"));
    assert_eq!(terms(&*thai, "การที่ได้ต้องแสดงว่างานดี"), ["แสดง", "งาน", "ดี"]);
    assert_eq!(terms(&*thai, "ประโยคว่า The quick"), ["ประโยค", "the", "quick"]);
}

#[test]
fn missing_parts_are_errors_not_other_analyzers() {
    for name in BUILTIN_ANALYZERS {
        match build(name, json!({})) {
            Ok(Some(_)) => {}
            Ok(None) => panic!("{name} is a built-in analyzer"),
            Err(e) => assert!(e.contains("is not supported yet"), "{name}: {e}"),
        }
    }
}

#[test]
fn irish_hyphenation_elision_and_lowercase() {
    let irish = build("irish", json!({})).ok().flatten().unwrap_or_else(|| panic!("irish builds"));
    assert_eq!(terms(&*irish, "n-Athair"), ["athair"], "lowercased to n-athair, the stemmer drops n-");
    assert_eq!(terms(&*irish, "D'fhág t-uisce"), ["fág", "uisce"]);
}

#[test]
fn snowball_language_analyzers_build_and_stem() {
    for (name, text, stems) in [
        ("armenian", "Գրքերը", &["գրքերը"][..]),
        ("basque", "Etxeak", &["etxe"][..]),
        ("catalan", "Els gossos de l'home", &["goss", "hom"][..]),
        ("estonian", "Lapsed mängisid", &["lapse", "mängi"][..]),
        ("irish", "Bhí na páirceanna", &["bí", "páirceanna"][..]),
        ("lithuanian", "Vaikai žaidė", &["vaik", "žaid"][..]),
    ] {
        let analyzer = build(name, json!({})).unwrap_or_else(|e| panic!("{name}: {e}"));
        let analyzer = analyzer.unwrap_or_else(|| panic!("{name} is a language analyzer"));
        assert_eq!(terms(&*analyzer, text), stems, "{name}");
    }
    let catalan = build("catalan", json!({"stem_exclusion": ["gossos"]})).ok().flatten();
    let catalan = catalan.unwrap_or_else(|| panic!("catalan builds"));
    assert_eq!(terms(&*catalan, "gossos gats"), ["gossos", "gat"], "Lucene gives [goss, gat] without the exclusion");
}
