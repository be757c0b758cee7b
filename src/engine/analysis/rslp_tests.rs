//! The RSLP rule files parse; stems followed through Lucene's rules by hand (most are the examples
//! in the rule files' comments); no stemmer panics.

use proptest::prelude::*;

use super::*;

#[test]
fn rule_files_parse_into_lucenes_steps() {
    let steps = portuguese_steps().expect("portuguese.rslp parses");
    let mut names: Vec<&str> = steps.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["Adverb", "Augmentative", "Feminine", "Noun", "Plural", "Verb", "Vowel"]);
    let count = |name: &str| steps.get(name).map_or(0, |s| s.rules.len());
    assert_eq!(
        [
            count("Plural"),
            count("Adverb"),
            count("Feminine"),
            count("Augmentative"),
            count("Noun"),
            count("Verb"),
            count("Vowel")
        ],
        [11, 1, 15, 23, 84, 101, 7]
    );
    // Step minimums computed as Lucene does when the header says 0.
    assert_eq!(steps.get("Adverb").map(|s| s.min), Some(9));
    assert_eq!(steps.get("Plural").map(|s| s.min), Some(3));
    let galician = galician_steps().expect("galician.rslp parses");
    let count = |name: &str| galician.get(name).map_or(0, |s| s.rules.len());
    assert_eq!(
        [
            count("Plural"),
            count("Unification"),
            count("Adverb"),
            count("Augmentative"),
            count("Noun"),
            count("Verb"),
            count("Vowel")
        ],
        [20, 27, 1, 46, 59, 164, 13]
    );
}

#[test]
fn minimal_portuguese_reduces_plurals() {
    for (word, stem) in [
        ("bons", "bom"),
        ("balões", "balão"),
        ("capitães", "capitão"),
        ("mães", "mãe"),
        ("normais", "normal"),
        ("papéis", "papel"),
        ("amáveis", "amável"),
        ("lençóis", "lençol"),
        ("barris", "barril"),
        ("lápis", "lápis"),
        ("casas", "casa"),
        ("males", "male"),
        ("mares", "mare"),
        ("mais", "mais"),
        ("gás", "gás"),
        ("as", "as"),
        ("", ""),
    ] {
        assert_eq!(minimal_portuguese(word), stem, "{word}");
    }
}

#[test]
fn portuguese_rslp_runs_all_steps() {
    for (word, stem) in [
        ("felizmente", "feliz"),
        ("cantando", "cant"),
        ("meninas", "menin"),
        ("menino", "menin"),
        ("casas", "cas"),
        ("balões", "bal"),
    ] {
        assert_eq!(portuguese_rslp(word), stem, "{word}");
    }
}

#[test]
fn minimal_galician_reduces_plurals() {
    for (word, stem) in [
        ("casas", "casa"),
        ("luces", "luz"),
        ("balões", "balón"),
        ("xamós", "xamón"),
        ("cais", "cail"),
        ("mais", "mail"),
        ("luns", "lun"),
        ("bons", "bon"),
        ("londres", "londre"),
    ] {
        assert_eq!(minimal_galician(word), stem, "{word}");
    }
}

#[test]
fn galician_runs_all_steps() {
    for (word, stem) in
        [("felizmente", "feliz"), ("cantando", "cant"), ("casas", "cas"), ("luces", "luz"), ("grandito", "grand")]
    {
        assert_eq!(galician(word), stem, "{word}");
    }
}

proptest! {
    #[test]
    fn never_panics(s in "\\PC{0,16}|[a-zãõáéíóúâêôçà]{0,14}") {
        for stem in [portuguese_rslp, minimal_portuguese, galician, minimal_galician] {
            let out = stem(&s);
            prop_assert!(out.chars().count() <= s.chars().count() + 1);
        }
    }
}
