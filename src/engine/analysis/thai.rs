//! The `thai` tokenizer: Lucene's `ThaiTokenizer`, which splits the text into sentences and each
//! sentence into words with the JDK's Thai-aware word `BreakIterator`, keeping the segments that
//! start with a letter or a digit (type `word`). Here the breaks come from ICU4X's
//! `icu_segmenter` (Unicode's UAX #29 rules; Thai, Lao, Khmer and Burmese runs by its LSTM
//! models, which match Lucene's own Thai test sentences). Known divergence: the JDK breaks Thai
//! with a dictionary, so an ambiguous run may split differently.

use icu_segmenter::{SentenceSegmenter, WordSegmenter};

use super::chain::Tokenizer;
use super::char_classes::is_letter;
use super::token_stream::TokenState;

/// Lucene's `ThaiTokenizer`.
#[derive(Debug, Default)]
pub struct ThaiTokenizer;

/// Java's `Character.isLetterOrDigit` on the first character of a segment.
fn starts_word(segment: &str) -> bool {
    segment.chars().next().is_some_and(|c| is_letter(c) || is_decimal_digit(c))
}

/// Unicode decimal digits (general category Nd), Java's `Character.isDigit`.
fn is_decimal_digit(c: char) -> bool {
    c.is_ascii_digit() || (c.is_numeric() && !c.is_ascii() && char_is_nd(c))
}

fn char_is_nd(c: char) -> bool {
    static ND: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let mut buf = [0u8; 4];
    ND.get_or_init(|| regex::Regex::new(r"^\p{Nd}$").expect("a constant, valid pattern"))
        .is_match(c.encode_utf8(&mut buf))
}

impl Tokenizer for ThaiTokenizer {
    fn tokenize(&self, text: &str, out: &mut Vec<TokenState>) {
        let sentences: Vec<usize> = SentenceSegmenter::new(Default::default()).segment_str(text).collect();
        let words = WordSegmenter::new_auto(Default::default());
        for sentence in sentences.windows(2) {
            let (from, to) = (sentence[0], sentence[1]);
            let breaks: Vec<usize> = words.segment_str(&text[from..to]).collect();
            for word in breaks.windows(2) {
                let (start, end) = (from + word[0], from + word[1]);
                if starts_word(&text[start..end]) {
                    out.push(TokenState::new(&text[start..end], start, end, "word"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        ThaiTokenizer.tokenize(text, &mut out);
        out.into_iter().map(|t| t.term).collect()
    }

    #[test]
    fn splits_thai_words_as_lucene_tests_expect() {
        // Lucene's TestThaiAnalyzer sentences.
        assert_eq!(terms("ภาษาไทย"), ["ภาษา", "ไทย"]);
        assert_eq!(terms("การที่ได้ต้องแสดงว่างานดี"), ["การ", "ที่", "ได้", "ต้อง", "แสดง", "ว่า", "งาน", "ดี"]);
        assert_eq!(
            terms("ประโยคว่า The quick brown fox jumped over the lazy dogs"),
            ["ประโยค", "ว่า", "The", "quick", "brown", "fox", "jumped", "over", "the", "lazy", "dogs"]
        );
        assert_eq!(terms("๑๒๓ 45, !?"), ["๑๒๓", "45"]);
        let mut out = Vec::new();
        ThaiTokenizer.tokenize("ab ภาษา. ไทย", &mut out);
        let offsets: Vec<(usize, usize)> = out.iter().map(|t| (t.start, t.end)).collect();
        assert_eq!(offsets, [(0, 2), (3, 15), (17, 26)]);
    }
}
