//! Words of Lucene's TestGreekStemmer with Lucene's stems; 2,100 more cases generated with Lucene are in
//! `tests/golden/analysis/language_stemmers.json`.

use proptest::prelude::*;

use super::greek_stem;

#[test]
fn lucene_cases() {
    for (word, stem) in [
        ("καθεστωτοσ", "καθεστ"),
        ("γεγονοτοσ", "γεγον"),
        ("μαμαδεσ", "μαμ"),
        ("παπαδεσ", "παπαδ"),
        ("λουλουδεσ", "λουλουδ"),
        ("αγαπαμε", "αγαπ"),
        ("αρχοντασ", "αρχοντ"),
        ("κρεοντασ", "κρεωντ"),
        ("ονιομαστε", "ονι"),
        ("ψοφαγεσ", "ψοφ"),
        ("τρανε", "τρ"),
        ("ανθρωποσ", "ανθρωπ"),
        ("ευρυτατοσ", "ευρ"),
    ] {
        assert_eq!(greek_stem(word), stem, "{word}");
    }
    assert_eq!(greek_stem("τα"), "τα", "shorter than 4: unchanged");
}

proptest! {
    #[test]
    fn never_panic(stem in "[αβγδεζηθικλμνξοπρστυφχψω]{0,6}", suffix in "[αεηιουωνσμτκγδθ]{0,9}") {
        let word = format!("{stem}{suffix}");
        prop_assert!(greek_stem(&word).chars().count() <= word.chars().count());
    }
}
