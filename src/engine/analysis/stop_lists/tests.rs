//! Every predefined list loads, with the first and last word of its source file and the number
//! of distinct words Lucene's loader gives (checked against Lucene's `getDefaultStopSet()`).

use std::collections::HashSet;

use super::{predefined_names, predefined_words, Predefined};

/// (name, first word, last word, distinct words).
const EXPECTED: [(&str, &str, &str, usize); 21] = [
    ("_arabic_", "من", "جميع", 119),
    ("_armenian_", "այդ", "և", 45),
    ("_basque_", "al", "zuten", 98),
    ("_bengali_", "এই", "কমনে", 116),
    ("_brazilian_", "a", "uns", 126),
    ("_bulgarian_", "а", "я", 190),
    ("_catalan_", "a", "vostres", 218),
    ("_czech_", "a", "načež", 171),
    ("_estonian_", "all", "võima", 1470),
    ("_galician_", "a", "vós", 160),
    ("_greek_", "ο", "οτι", 75),
    ("_hindi_", "अंदर", "नहिं", 225),
    ("_indonesian_", "ada", "yang", 355),
    ("_latvian_", "aiz", "varēs", 161),
    ("_lithuanian_", "ant", "yra", 125),
    ("_persian_", "انان", "بود", 308),
    ("_romanian_", "acea", "vreun", 230),
    ("_sorani_", "و", "وەک", 62),
    ("_thai_", "ไว้", "กล่าว", 115),
    ("_turkish_", "acaba", "zaten", 209),
    ("_irish_", "a", "ónár", 109),
];

#[test]
fn every_list_matches_its_source() {
    for (name, first, last, distinct) in EXPECTED {
        let words = predefined_words(name).unwrap_or_else(|| panic!("{name} is predefined"));
        assert_eq!(words.first().copied(), Some(first), "{name}");
        assert_eq!(words.last().copied(), Some(last), "{name}");
        assert_eq!(words.iter().collect::<HashSet<_>>().len(), distinct, "{name}");
        assert!(
            words.iter().all(|w| !w.is_empty() && !w.starts_with('#') && !w.contains('|') || *w == "killadi|-kolladi"),
            "{name}"
        );
    }
}

#[test]
fn every_opensearch_name_is_known() {
    let names: Vec<&str> = predefined_names().collect();
    assert_eq!(names.len(), 34, "OpenSearch's NAMED_STOP_WORDS has 34 names");
    for name in names {
        let words = predefined_words(name).unwrap_or_default();
        assert!(!words.is_empty(), "{name}");
    }
    assert_eq!(predefined_words("_none_"), Some(Vec::new()));
    assert_eq!(predefined_words("_cjk_"), None, "not an OpenSearch name: a literal word");
    assert_eq!(predefined_words("_klingon_"), None);
}

#[test]
fn snowball_format_strips_bar_comments_and_splits_words() {
    let words: Vec<&str> = Predefined::Snowball(" | comment\nyang\t\t| that\npada kepada\t| at\n\n").words().collect();
    assert_eq!(words, ["yang", "pada", "kepada"]);
    let words: Vec<&str> = Predefined::File("# c\n  word \n #indented\n\nkilladi|-kolladi\n").words().collect();
    assert_eq!(words, ["word", "#indented", "killadi|-kolladi"]);
}
