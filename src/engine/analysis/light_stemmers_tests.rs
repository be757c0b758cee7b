//! The light stemmers against stems from Lucene's analyzer tests, never panicking; and the sizes of
//! the predefined stop lists (Lucene's files, counted).

use proptest::prelude::*;

use super::*;
use crate::engine::analysis::stop_lists::{predefined_words, Predefined};

#[test]
fn german() {
    for (word, stem) in
        [("tisch", "tisch"), ("tische", "tisch"), ("tischen", "tisch"), ("häusern", "haus"), ("bücher", "buch")]
    {
        assert_eq!(light_german(word), stem, "{word}");
    }
    assert_eq!(german_normalize("schaltflaechen"), "schaltflachen");
    assert_eq!(german_normalize("straße"), "strasse");
    assert_eq!(german_normalize("quelle"), "quelle", "ue after q stays");
    assert_eq!(german_normalize("aue"), "aue", "ue after a vowel stays");
}

#[test]
fn french() {
    for (word, stem) in [
        ("chevaux", "cheval"),
        ("finissions", "finision"),
        ("anticonstitutionnellement", "anticonstitutionel"),
        ("éléments", "element"),
        ("embrouille", "embrouil"),
        ("sécuritaires", "securitair"),
        ("a", "a"),
        ("", ""),
    ] {
        assert_eq!(light_french(word), stem, "{word}");
    }
}

#[test]
fn spanish_italian_portuguese() {
    assert_eq!(light_spanish("chicana"), "chican");
    assert_eq!(light_spanish("luces"), "luz");
    assert_eq!(light_spanish("los"), "los", "shorter than 5 stays");
    assert_eq!(light_italian("abbandonati"), "abbandonat");
    assert_eq!(light_italian("italiano"), "italian");
    assert_eq!(light_italian("ragazzi"), "ragazz");
    assert_eq!(light_portuguese("quilométricas"), "quilometric");
    assert_eq!(light_portuguese("canções"), "canca", "ões to ão, then the final vowel goes");
}

#[test]
fn stop_lists() {
    let french = predefined_words("_french_").unwrap_or_default();
    assert_eq!(french.len(), 154);
    assert!(french.contains(&"votre") && french.contains(&"celà") && !french.contains(&"son"));
    for (name, len) in
        [("_german_", 231), ("_spanish_", 308), ("_russian_", 159), ("_dutch_", 101), ("_english_", 33), ("_none_", 0)]
    {
        assert_eq!(predefined_words(name).map(|w| w.len()), Some(len), "{name}");
    }
    assert!(matches!(Predefined::named("_arabic_"), Some(Predefined::File(_))));
    assert_eq!(Predefined::named("_klingon_"), None);
    assert_eq!(predefined_words("_arabic_").map(|w| w.len()), Some(119));
}

proptest! {
    #[test]
    fn never_panic(term in "[a-zàâäçéèêëîïôöùûüßxs]{0,14}") {
        for stem in [light_german(&term), light_french(&term), light_spanish(&term), light_italian(&term), light_portuguese(&term), persian_stem(&term)] {
            prop_assert!(stem.chars().count() <= term.chars().count() + 1);
        }
        prop_assert!(german_normalize(&term).len() <= term.len() * 2);
    }
}
