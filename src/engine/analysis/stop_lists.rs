//! The predefined stop word lists (`_english_`, `_french_`, `_arabic_`...) that OpenSearch names
//! in `stopwords` settings: every name of OpenSearch's `Analysis.NAMED_STOP_WORDS`, each the
//! default stop set of the Lucene analyzer it comes from.
//!
//! Provenance:
//! - `_english_` is Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET` ([`ENGLISH_STOP_WORDS`]).
//! - `_danish_`, `_dutch_`, `_finnish_`, `_french_`, `_german_`, `_hungarian_`, `_italian_`,
//!   `_norwegian_`, `_portuguese_`, `_russian_`, `_spanish_`, `_swedish_` are Lucene's
//!   `snowball/<language>_stop.txt` (from snowballstem.org), kept as the word columns only in
//!   `stopwords/<language>.txt`, one word a line after a `#` provenance line.
//! - `_irish_` is Lucene 10's `snowball/irish_stop.txt` (`IrishAnalyzer.DEFAULT_STOPWORD_FILE`),
//!   kept verbatim in Snowball format (`|` comments) in `stopwords/irish.txt`.
//! - The others are Lucene's `org/apache/lucene/analysis/<code>/stopwords.txt` (`ar`, `hy`,
//!   `eu`, `bn`, `br`, `bg`, `ca`, `cz`, `et`, `gl`, `el`, `hi`, `id`, `lv`, `lt`, `fa`, `ro`,
//!   `ckb`, `th`, `tr`), copied verbatim from the Lucene 8.7.0 analysis-common jar (unchanged in
//!   Lucene 10) after one `#` provenance line, and read as `WordlistLoader.getWordSet(reader,
//!   "#")` reads them.
//!
//! `_cjk_` is not in OpenSearch's `NAMED_STOP_WORDS` (Elasticsearch has it): as in OpenSearch it is
//! then a literal word.

use super::filters::ENGLISH_STOP_WORDS;

/// The word files, by OpenSearch name: (name, file, Snowball format).
const LISTS: [(&str, &str, bool); 33] = [
    ("_arabic_", include_str!("stopwords/arabic.txt"), false),
    ("_armenian_", include_str!("stopwords/armenian.txt"), false),
    ("_basque_", include_str!("stopwords/basque.txt"), false),
    ("_bengali_", include_str!("stopwords/bengali.txt"), false),
    ("_brazilian_", include_str!("stopwords/brazilian.txt"), false),
    ("_bulgarian_", include_str!("stopwords/bulgarian.txt"), false),
    ("_catalan_", include_str!("stopwords/catalan.txt"), false),
    ("_czech_", include_str!("stopwords/czech.txt"), false),
    ("_danish_", include_str!("stopwords/danish.txt"), false),
    ("_dutch_", include_str!("stopwords/dutch.txt"), false),
    ("_estonian_", include_str!("stopwords/estonian.txt"), false),
    ("_finnish_", include_str!("stopwords/finnish.txt"), false),
    ("_french_", include_str!("stopwords/french.txt"), false),
    ("_galician_", include_str!("stopwords/galician.txt"), false),
    ("_german_", include_str!("stopwords/german.txt"), false),
    ("_greek_", include_str!("stopwords/greek.txt"), false),
    ("_hindi_", include_str!("stopwords/hindi.txt"), false),
    ("_hungarian_", include_str!("stopwords/hungarian.txt"), false),
    ("_indonesian_", include_str!("stopwords/indonesian.txt"), false),
    ("_irish_", include_str!("stopwords/irish.txt"), true),
    ("_italian_", include_str!("stopwords/italian.txt"), false),
    ("_latvian_", include_str!("stopwords/latvian.txt"), false),
    ("_lithuanian_", include_str!("stopwords/lithuanian.txt"), false),
    ("_norwegian_", include_str!("stopwords/norwegian.txt"), false),
    ("_persian_", include_str!("stopwords/persian.txt"), false),
    ("_portuguese_", include_str!("stopwords/portuguese.txt"), false),
    ("_romanian_", include_str!("stopwords/romanian.txt"), false),
    ("_russian_", include_str!("stopwords/russian.txt"), false),
    ("_sorani_", include_str!("stopwords/sorani.txt"), false),
    ("_spanish_", include_str!("stopwords/spanish.txt"), false),
    ("_swedish_", include_str!("stopwords/swedish.txt"), false),
    ("_thai_", include_str!("stopwords/thai.txt"), false),
    ("_turkish_", include_str!("stopwords/turkish.txt"), false),
];

/// Every predefined name OpenSearch knows, `_none_` aside.
pub fn predefined_names() -> impl Iterator<Item = &'static str> {
    std::iter::once("_english_").chain(LISTS.iter().map(|(name, _, _)| *name))
}

/// A predefined list by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Predefined {
    /// The words of a list Lucene ships.
    Words(&'static [&'static str]),
    /// A word file read as Lucene's `WordlistLoader.getWordSet(reader, "#")`: lines starting
    /// with `#` are comments, the others are trimmed (Java's `trim`: characters up to U+0020).
    File(&'static str),
    /// A Snowball word file read as `WordlistLoader.getSnowballWordSet`: `|` starts a comment,
    /// the rest of a line is split on whitespace.
    Snowball(&'static str),
}

/// Java's `String.trim`: strips characters up to U+0020.
fn java_trim(line: &str) -> &str {
    line.trim_matches(|c: char| c <= ' ')
}

/// Java's `\s`: `[ \t\n\x0B\f\r]`.
fn java_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r')
}

impl Predefined {
    /// The list called `name` (`_english_`, `_french_`...); `_none_` is the empty list; None when
    /// `name` is no predefined list (OpenSearch then takes it as a literal word).
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "_english_" => Some(Predefined::Words(&ENGLISH_STOP_WORDS)),
            "_none_" => Some(Predefined::Words(&[])),
            _ => LISTS.iter().find(|(n, _, _)| *n == name).map(|(_, file, snowball)| {
                if *snowball {
                    Predefined::Snowball(file)
                } else {
                    Predefined::File(file)
                }
            }),
        }
    }

    /// The words of the list, in file order (an empty line, which Lucene adds as the empty
    /// word that no token can equal, is skipped).
    pub fn words(self) -> Box<dyn Iterator<Item = &'static str>> {
        match self {
            Predefined::Words(words) => Box::new(words.iter().copied()),
            Predefined::File(file) => {
                Box::new(file.lines().filter(|l| !l.starts_with('#')).map(java_trim).filter(|w| !w.is_empty()))
            }
            Predefined::Snowball(file) => Box::new(
                file.lines()
                    .map(|line| line.split_once('|').map_or(line, |(words, _)| words))
                    .flat_map(|words| words.split(java_space))
                    .filter(|w| !w.is_empty()),
            ),
        }
    }
}

/// The words of the predefined list `name`, None when it is not one.
pub fn predefined_words(name: &str) -> Option<Vec<&'static str>> {
    Some(Predefined::named(name)?.words().collect())
}

#[cfg(test)]
mod tests;
