//! Stems from Lucene's tests (the Norwegian vocabulary files in `tests/golden/analysis/stemmers/`,
//! TestFrenchMinimalStemFilter, TestGermanMinimalStemFilter) and cases followed through the
//! algorithms by hand; no stemmer panics.

use proptest::prelude::*;

use super::*;

fn check(stem: &dyn Fn(&str) -> String, cases: &[(&str, &str)]) {
    let failures: Vec<String> = cases
        .iter()
        .filter(|(word, expected)| stem(word) != *expected)
        .map(|(word, expected)| format!("{word}: expected {expected}, got {}", stem(word)))
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}

fn vocabulary(file: &str) -> Vec<(String, String)> {
    let path = format!("{}/tests/golden/analysis/stemmers/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the vocabulary file exists");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t'))
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .collect()
}

fn check_vocabulary(file: &str, stem: &dyn Fn(&str) -> String) {
    let cases = vocabulary(file);
    assert!(cases.len() > 50, "{file}");
    let pairs: Vec<(&str, &str)> = cases.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    check(stem, &pairs);
}

#[test]
fn norwegian_vocabularies() {
    check_vocabulary("nb_light.txt", &|w| light_norwegian(w, Norwegian::Bokmaal));
    check_vocabulary("nb_minimal.txt", &|w| minimal_norwegian(w, Norwegian::Bokmaal));
    check_vocabulary("nn_minimal.txt", &|w| minimal_norwegian(w, Norwegian::Nynorsk));
    check(
        &|w| light_norwegian(w, Norwegian::Nynorsk),
        &[("gutane", "gut"), ("farlegaste", "farleg"), ("hemmelegheita", "hemmeleg")],
    );
}

#[test]
fn minimal_french_and_german() {
    check(
        &minimal_french,
        &[
            ("chevaux", "cheval"),
            ("hiboux", "hibou"),
            ("chantés", "chant"),
            ("chanter", "chant"),
            ("chante", "chant"),
            ("baronnes", "baron"),
            ("barons", "baron"),
            ("baron", "baron"),
            ("1234555", "1234555"),
            ("12333345", "12333345"),
            ("1234", "1234"),
            ("abcdeff", "abcdef"),
            ("abcccddeef", "abcccddeef"),
            ("créées", "cré"),
            ("22hh00", "22hh00"),
            ("", ""),
        ],
    );
    check(
        &minimal_german,
        &[
            ("sängerinnen", "sangerin"),
            ("frauen", "frau"),
            ("kenntnisse", "kenntnis"),
            ("staates", "staat"),
            ("bilder", "bild"),
            ("boote", "boot"),
            ("götter", "gott"),
            ("äpfel", "apfel"),
            ("", ""),
        ],
    );
}

#[test]
fn finnish_hungarian_swedish_russian() {
    check(
        &light_finnish,
        &[
            ("taloissa", "talo"),
            ("kissa", "kis"),
            ("äiti", "ait"),
            ("ikkuna", "ikku"),
            ("pöydällä", "poyd"),
            ("kkk", "kkk"),
        ],
    );
    check(&light_hungarian, &[("házakban", "haz"), ("kertben", "kert"), ("almát", "alm")]);
    check(&light_swedish, &[("flickorna", "flick"), ("bilarna", "bilarn"), ("husets", "hus")]);
    check(&light_russian, &[("книгами", "книг"), ("столов", "стол"), ("армии", "арм")]);
}

#[test]
fn german2_rewrites_umlaut_digraphs() {
    for (word, expected) in [
        ("haeuser", "häuser"),
        ("boese", "böse"),
        ("ueber", "über"),
        ("quelle", "quelle"),
        ("aue", "aue"),
        ("frau", "frau"),
    ] {
        assert_eq!(german2_prelude(word), expected, "{word}");
    }
}

proptest! {
    #[test]
    fn never_panics(s in "\\PC{0,16}|[a-zäöüåéá]{0,14}|[а-яё]{0,12}") {
        let stems: [&dyn Fn(&str) -> String; 11] = [
            &light_finnish, &light_hungarian, &|w| light_norwegian(w, Norwegian::Bokmaal),
            &|w| light_norwegian(w, Norwegian::Nynorsk), &|w| minimal_norwegian(w, Norwegian::Bokmaal),
            &|w| minimal_norwegian(w, Norwegian::Nynorsk), &light_swedish, &light_russian, &minimal_french,
            &minimal_german, &german2_prelude,
        ];
        for stem in stems {
            let out = stem(&s);
            prop_assert!(out.chars().count() <= s.chars().count());
        }
    }
}

#[test]
fn every_opensearch_stemmer_name_resolves_or_is_a_known_gap() {
    use crate::engine::analysis::stemming::StemAlgorithm;
    const SUPPORTED: &[&str] = &[
        "arabic",
        "bengali",
        "brazilian",
        "bulgarian",
        "czech",
        "danish",
        "dutch",
        "dutch_kp",
        "dutchKp",
        "kp",
        "english",
        "light_english",
        "lightEnglish",
        "kstem",
        "porter",
        "porter2",
        "minimal_english",
        "minimalEnglish",
        "possessive_english",
        "possessiveEnglish",
        "finnish",
        "light_finish",
        "lightFinish",
        "light_finnish",
        "lightFinnish",
        "french",
        "light_french",
        "lightFrench",
        "minimal_french",
        "minimalFrench",
        "galician",
        "minimal_galician",
        "german",
        "german2",
        "light_german",
        "lightGerman",
        "minimal_german",
        "minimalGerman",
        "greek",
        "hindi",
        "hungarian",
        "light_hungarian",
        "lightHungarian",
        "indonesian",
        "italian",
        "light_italian",
        "lightItalian",
        "latvian",
        "norwegian",
        "light_norwegian",
        "lightNorwegian",
        "minimal_norwegian",
        "light_nynorsk",
        "lightNynorsk",
        "minimal_nynorsk",
        "minimalNynorsk",
        "portuguese",
        "light_portuguese",
        "lightPortuguese",
        "minimal_portuguese",
        "minimalPortuguese",
        "portuguese_rslp",
        "romanian",
        "russian",
        "light_russian",
        "lightRussian",
        "spanish",
        "light_spanish",
        "lightSpanish",
        "sorani",
        "swedish",
        "light_swedish",
        "lightSwedish",
        "turkish",
        "KStem",
        "LIGHT_ENGLISH",
        "armenian",
        "basque",
        "catalan",
        "estonian",
        "irish",
        "lithuanian",
        "Catalan",
    ];
    for name in SUPPORTED {
        assert!(StemAlgorithm::for_stemmer(name).is_some(), "{name}");
    }
    // Lovins (not built), and OpenSearch's case-sensitive "minimalNorwegian".
    for name in ["lovins", "minimalNorwegian"] {
        assert!(StemAlgorithm::for_stemmer(name).is_none(), "{name}");
    }
    assert_eq!(StemAlgorithm::for_stemmer("light_nynorsk"), Some(StemAlgorithm::LightNorwegian(Norwegian::Nynorsk)));
    assert_eq!(StemAlgorithm::for_stemmer("lightEnglish"), Some(StemAlgorithm::KStem));
}
