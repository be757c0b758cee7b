//! The predefined stop word lists (`_english_`, `_french_`...) that OpenSearch names in
//! `stopwords` settings, as Lucene ships them.
//!
//! `_english_` is Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`; the Snowball languages are
//! Lucene's `snowball/<language>_stop.txt` (from snowballstem.org), kept as the word columns
//! only in `stopwords/<language>.txt`, one word a line after a `#` provenance line.
//!
//! Known gap: the lists Lucene keeps outside `snowball/` (`_arabic_`, `_armenian_`, `_basque_`,
//! `_bengali_`, `_brazilian_`, `_bulgarian_`, `_catalan_`, `_czech_`, `_estonian_`,
//! `_galician_`, `_greek_`, `_hindi_`, `_indonesian_`, `_irish_`, `_latvian_`, `_lithuanian_`,
//! `_persian_`, `_romanian_`, `_sorani_`, `_thai_`, `_turkish_`) are not built: naming one is an
//! error rather than a silently different list.

use super::filters::ENGLISH_STOP_WORDS;

/// The word files of the Snowball lists, by OpenSearch name.
const SNOWBALL_LISTS: [(&str, &str); 12] = [
    ("_danish_", include_str!("stopwords/danish.txt")),
    ("_dutch_", include_str!("stopwords/dutch.txt")),
    ("_finnish_", include_str!("stopwords/finnish.txt")),
    ("_french_", include_str!("stopwords/french.txt")),
    ("_german_", include_str!("stopwords/german.txt")),
    ("_hungarian_", include_str!("stopwords/hungarian.txt")),
    ("_italian_", include_str!("stopwords/italian.txt")),
    ("_norwegian_", include_str!("stopwords/norwegian.txt")),
    ("_portuguese_", include_str!("stopwords/portuguese.txt")),
    ("_russian_", include_str!("stopwords/russian.txt")),
    ("_spanish_", include_str!("stopwords/spanish.txt")),
    ("_swedish_", include_str!("stopwords/swedish.txt")),
];

/// The names OpenSearch's `Analysis.namedStopWords` knows whose lists are not built here.
const NOT_BUILT: [&str; 21] = [
    "_arabic_", "_armenian_", "_basque_", "_bengali_", "_brazilian_", "_bulgarian_", "_catalan_", "_czech_",
    "_estonian_", "_galician_", "_greek_", "_hindi_", "_indonesian_", "_irish_", "_latvian_", "_lithuanian_",
    "_persian_", "_romanian_", "_sorani_", "_thai_", "_turkish_",
];

/// A predefined list by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Predefined {
    /// The words of a list Lucene ships.
    Words(&'static [&'static str]),
    /// A Snowball word file (one word a line, `#` lines are comments).
    File(&'static str),
    /// A list OpenSearch knows that is not built here.
    NotBuilt,
}

impl Predefined {
    /// The list called `name` (`_english_`, `_french_`...); `_none_` is the empty list; None when
    /// `name` is no predefined list (OpenSearch then takes it as a literal word).
    pub fn named(name: &str) -> Option<Self> {
        if name == "_english_" {
            return Some(Predefined::Words(&ENGLISH_STOP_WORDS));
        }
        if name == "_none_" {
            return Some(Predefined::Words(&[]));
        }
        if let Some((_, file)) = SNOWBALL_LISTS.iter().find(|(n, _)| *n == name) {
            return Some(Predefined::File(file));
        }
        NOT_BUILT.contains(&name).then_some(Predefined::NotBuilt)
    }

    /// The words of the list (none for [`Predefined::NotBuilt`]).
    pub fn words(self) -> Box<dyn Iterator<Item = &'static str>> {
        match self {
            Predefined::Words(words) => Box::new(words.iter().copied()),
            Predefined::File(file) => Box::new(file.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'))),
            Predefined::NotBuilt => Box::new(std::iter::empty()),
        }
    }
}

/// The words of the predefined list `name`, None when it is not one or not built.
pub fn predefined_words(name: &str) -> Option<Vec<&'static str>> {
    match Predefined::named(name)? {
        Predefined::NotBuilt => None,
        list => Some(list.words().collect()),
    }
}
