//! Lucene's other light and minimal stemmers for European languages, rule for rule:
//! `FinnishLightStemmer`, `HungarianLightStemmer`, `NorwegianLightStemmer` and
//! `NorwegianMinimalStemmer` (Bokmål or Nynorsk), `SwedishLightStemmer`, `RussianLightStemmer`,
//! `FrenchMinimalStemmer` and `GermanMinimalStemmer` (Savoy and Lucene's own, Apache-2.0).
//!
//! Like [`super::light_stemmers`], each works on the term's characters (Lucene's are UTF-16
//! units: they differ only outside the BMP, which no rule matches) and only shortens the term or
//! replaces characters in it; every index is guarded by a length check.

use super::char_classes::is_letter;

/// Whether `s[..len]` ends with `suffix` (Lucene's `StemmerUtil.endsWith`).
pub(crate) fn ends_with(s: &[char], len: usize, suffix: &str) -> bool {
    let n = suffix.chars().count();
    len >= n && len <= s.len() && s[len - n..len].iter().copied().eq(suffix.chars())
}

/// Whether `s[..len]` starts with `prefix` (Lucene's `StemmerUtil.startsWith`).
pub(crate) fn starts_with(s: &[char], len: usize, prefix: &str) -> bool {
    let n = prefix.chars().count();
    n <= len && len <= s.len() && s[..n].iter().copied().eq(prefix.chars())
}

/// Runs a Lucene `int stem(char[] s, int len)` over `term`.
pub(crate) fn run_chars(term: &str, stem: impl FnOnce(&mut Vec<char>, usize) -> usize) -> String {
    let mut s: Vec<char> = term.chars().collect();
    let len = s.len();
    let len = stem(&mut s, len).min(s.len());
    s[..len].iter().collect()
}

fn any_suffix(s: &[char], len: usize, suffixes: &[&str]) -> bool {
    suffixes.iter().any(|x| ends_with(s, len, x))
}

/// Lucene's `FinnishLightStemmer` (Savoy, CLEF 2003).
pub fn light_finnish(term: &str) -> String {
    fn vowel(c: char) -> bool {
        matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y')
    }
    fn step1(s: &[char], mut len: usize) -> usize {
        // Lucene recurses on -kin/-ko; each pass shortens the term, so this loop ends.
        loop {
            if len > 8 && ends_with(s, len, "kin") {
                len -= 3;
            } else if len > 8 && ends_with(s, len, "ko") {
                len -= 2;
            } else {
                break;
            }
        }
        if len > 11 && ends_with(s, len, "dellinen") {
            return len - 8;
        }
        if len > 11 && ends_with(s, len, "dellisuus") {
            return len - 9;
        }
        len
    }
    fn step2(s: &[char], len: usize) -> usize {
        if len > 5 {
            if any_suffix(s, len, &["lla", "tse", "sti"]) {
                return len - 3;
            }
            if ends_with(s, len, "ni") {
                return len - 2;
            }
            if ends_with(s, len, "aa") {
                return len - 1;
            }
        }
        len
    }
    fn step3(s: &mut [char], len: usize) -> usize {
        if len > 8 {
            if ends_with(s, len, "nnen") {
                s[len - 4] = 's';
                return len - 3;
            }
            if ends_with(s, len, "ntena") {
                s[len - 5] = 's';
                return len - 4;
            }
            if ends_with(s, len, "tten") {
                return len - 4;
            }
            if ends_with(s, len, "eiden") {
                return len - 5;
            }
        }
        if len > 6 {
            if any_suffix(s, len, &["neen", "niin", "seen", "teen", "inen"]) {
                return len - 4;
            }
            if s[len - 3] == 'h' && vowel(s[len - 2]) && s[len - 1] == 'n' {
                return len - 3;
            }
            if ends_with(s, len, "den") {
                s[len - 3] = 's';
                return len - 2;
            }
            if ends_with(s, len, "ksen") {
                s[len - 4] = 's';
                return len - 3;
            }
            if any_suffix(s, len, &["ssa", "sta", "lla", "lta", "tta", "ksi", "lle"]) {
                return len - 3;
            }
        }
        if len > 5 {
            if ends_with(s, len, "na") || ends_with(s, len, "ne") {
                return len - 2;
            }
            if ends_with(s, len, "nei") {
                return len - 3;
            }
        }
        if len > 4 {
            if ends_with(s, len, "ja") || ends_with(s, len, "ta") {
                return len - 2;
            }
            if s[len - 1] == 'a' {
                return len - 1;
            }
            if s[len - 1] == 'n' && vowel(s[len - 2]) {
                return len - 2;
            }
            if s[len - 1] == 'n' {
                return len - 1;
            }
        }
        len
    }
    fn norm1(s: &mut [char], len: usize) -> usize {
        if len > 5 && ends_with(s, len, "hde") {
            s[len - 3] = 'k';
            s[len - 2] = 's';
            s[len - 1] = 'i';
        }
        if len > 4 && (ends_with(s, len, "ei") || ends_with(s, len, "at")) {
            return len - 2;
        }
        if len > 3 && matches!(s[len - 1], 't' | 's' | 'j' | 'e' | 'a' | 'i') {
            return len - 1;
        }
        len
    }
    fn norm2(s: &mut Vec<char>, mut len: usize) -> usize {
        if len > 8 && matches!(s[len - 1], 'e' | 'o' | 'u') {
            len -= 1;
        }
        if len > 4 {
            if s[len - 1] == 'i' {
                len -= 1;
            }
            if len > 4 {
                // Removes the second of doubled k, p, t (Lucene's `delete(s, i--, len)`).
                let mut ch = s[0];
                let mut i = 1;
                while i < len {
                    if s[i] == ch && matches!(ch, 'k' | 'p' | 't') {
                        s.remove(i);
                        len -= 1;
                    } else {
                        ch = s[i];
                        i += 1;
                    }
                }
            }
        }
        len
    }
    run_chars(term, |s, len| {
        if len < 4 {
            return len;
        }
        for c in s.iter_mut() {
            *c = match *c {
                'ä' | 'å' => 'a',
                'ö' => 'o',
                other => other,
            };
        }
        let len = step1(s, len);
        let len = step2(s, len);
        let len = step3(s, len);
        let len = norm1(s, len);
        norm2(s, len)
    })
}

/// Lucene's `HungarianLightStemmer` ("UniNE").
pub fn light_hungarian(term: &str) -> String {
    fn vowel(c: char) -> bool {
        matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y')
    }
    fn remove_case(s: &[char], len: usize) -> usize {
        if len > 6 && ends_with(s, len, "kent") {
            return len - 4;
        }
        if len > 5 {
            const THREE: &[&str] =
                &["nak", "nek", "val", "vel", "ert", "rol", "ban", "ben", "bol", "nal", "nel", "hoz", "hez", "tol"];
            if any_suffix(s, len, THREE) {
                return len - 3;
            }
            if (ends_with(s, len, "al") || ends_with(s, len, "el")) && !vowel(s[len - 3]) && s[len - 3] == s[len - 4] {
                return len - 3;
            }
        }
        if len > 4 {
            if any_suffix(s, len, &["at", "et", "ot", "va", "ve", "ra", "re", "ba", "be", "ul", "ig"]) {
                return len - 2;
            }
            if (ends_with(s, len, "on") || ends_with(s, len, "en")) && !vowel(s[len - 3]) {
                return len - 2;
            }
            match s[len - 1] {
                't' | 'n' => return len - 1,
                'a' | 'e' if s[len - 2] == s[len - 3] && !vowel(s[len - 2]) => return len - 2,
                _ => {}
            }
        }
        len
    }
    fn remove_possessive(s: &[char], len: usize) -> usize {
        if len > 6 {
            if !vowel(s[len - 5]) && any_suffix(s, len, &["atok", "otok", "etek"]) {
                return len - 4;
            }
            if ends_with(s, len, "itek") || ends_with(s, len, "itok") {
                return len - 4;
            }
        }
        if len > 5 {
            if !vowel(s[len - 4]) && any_suffix(s, len, &["unk", "tok", "tek"]) {
                return len - 3;
            }
            if vowel(s[len - 4]) && ends_with(s, len, "juk") {
                return len - 3;
            }
            if ends_with(s, len, "ink") {
                return len - 3;
            }
        }
        if len > 4 {
            if !vowel(s[len - 3]) && any_suffix(s, len, &["am", "em", "om", "ad", "ed", "od", "uk"]) {
                return len - 2;
            }
            if vowel(s[len - 3]) && any_suffix(s, len, &["nk", "ja", "je"]) {
                return len - 2;
            }
            if any_suffix(s, len, &["im", "id", "ik"]) {
                return len - 2;
            }
        }
        if len > 3 {
            match s[len - 1] {
                'a' | 'e' if !vowel(s[len - 2]) => return len - 1,
                'm' | 'd' if vowel(s[len - 2]) => return len - 1,
                'i' => return len - 1,
                _ => {}
            }
        }
        len
    }
    fn remove_plural(s: &[char], len: usize) -> usize {
        if len > 3 && s[len - 1] == 'k' {
            if matches!(s[len - 2], 'a' | 'o' | 'e') && len > 4 {
                return len - 2;
            }
            return len - 1;
        }
        len
    }
    run_chars(term, |s, len| {
        for c in s.iter_mut() {
            *c = match *c {
                'á' => 'a',
                'ë' | 'é' => 'e',
                'í' => 'i',
                'ó' | 'ő' | 'õ' | 'ö' => 'o',
                'ú' | 'ű' | 'ũ' | 'û' | 'ü' => 'u',
                other => other,
            };
        }
        let len = remove_case(s, len);
        let len = remove_possessive(s, len);
        let len = remove_plural(s, len);
        if len > 3 && matches!(s[len - 1], 'a' | 'e' | 'i' | 'o') {
            len - 1
        } else {
            len
        }
    })
}

/// Which Norwegian the Norwegian stemmers strip (Lucene's `BOKMAAL`/`NYNORSK` flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Norwegian {
    /// Bokmål (`light_norwegian`, `minimal_norwegian`).
    Bokmaal,
    /// Nynorsk (`light_nynorsk`, `minimal_nynorsk`).
    Nynorsk,
}

/// Lucene's `NorwegianLightStemmer`.
pub fn light_norwegian(term: &str, variant: Norwegian) -> String {
    let bm = variant == Norwegian::Bokmaal;
    let nn = variant == Norwegian::Nynorsk;
    run_chars(term, |s, mut len| {
        let e = |len: usize, x: &str| ends_with(s, len, x);
        if len > 4 && s[len - 1] == 's' {
            len -= 1;
        }
        if len > 7 && ((bm && (e(len, "heter") || e(len, "heten"))) || (nn && e(len, "heita"))) {
            return len - 5;
        }
        if len > 8 && nn && (e(len, "heiter") || e(len, "leiken") || e(len, "leikar")) {
            return len - 6;
        }
        if len > 5 && (e(len, "dom") || (e(len, "het") && bm)) {
            return len - 3;
        }
        if len > 6 && nn && (e(len, "heit") || e(len, "semd") || e(len, "leik")) {
            return len - 4;
        }
        if len > 7 && (e(len, "elser") || e(len, "elsen")) {
            return len - 5;
        }
        if len > 6
            && ((e(len, "ende") && bm)
                || (e(len, "ande") && nn)
                || e(len, "else")
                || (e(len, "este") && bm)
                || (e(len, "aste") && nn)
                || (e(len, "eren") && bm)
                || (e(len, "aren") && nn))
        {
            return len - 4;
        }
        if len > 5
            && ((e(len, "ere") && bm)
                || (e(len, "are") && nn)
                || (e(len, "est") && bm)
                || (e(len, "ast") && nn)
                || e(len, "ene")
                || (e(len, "ane") && nn))
        {
            return len - 3;
        }
        if len > 4
            && (e(len, "er")
                || e(len, "en")
                || e(len, "et")
                || (e(len, "ar") && nn)
                || (e(len, "st") && bm)
                || e(len, "te"))
        {
            return len - 2;
        }
        if len > 3 && matches!(s[len - 1], 'a' | 'e' | 'n') {
            return len - 1;
        }
        len
    })
}

/// Lucene's `NorwegianMinimalStemmer`.
pub fn minimal_norwegian(term: &str, variant: Norwegian) -> String {
    let nn = variant == Norwegian::Nynorsk;
    run_chars(term, |s, mut len| {
        if len > 4 && s[len - 1] == 's' {
            len -= 1;
        }
        if len > 5 && (ends_with(s, len, "ene") || (ends_with(s, len, "ane") && nn)) {
            return len - 3;
        }
        if len > 4
            && (ends_with(s, len, "er")
                || ends_with(s, len, "en")
                || ends_with(s, len, "et")
                || (ends_with(s, len, "ar") && nn))
        {
            return len - 2;
        }
        if len > 3 && matches!(s[len - 1], 'a' | 'e') {
            return len - 1;
        }
        len
    })
}

/// Lucene's `SwedishLightStemmer` (Savoy, CLEF 2003).
pub fn light_swedish(term: &str) -> String {
    run_chars(term, |s, mut len| {
        if len > 4 && s[len - 1] == 's' {
            len -= 1;
        }
        if len > 7 && any_suffix(s, len, &["elser", "heten"]) {
            return len - 5;
        }
        if len > 6 && any_suffix(s, len, &["arne", "erna", "ande", "else", "aste", "orna", "aren"]) {
            return len - 4;
        }
        if len > 5 && any_suffix(s, len, &["are", "ast", "het"]) {
            return len - 3;
        }
        if len > 4 && any_suffix(s, len, &["ar", "er", "or", "en", "at", "te", "et"]) {
            return len - 2;
        }
        if len > 3 && matches!(s[len - 1], 't' | 'a' | 'e' | 'n') {
            return len - 1;
        }
        len
    })
}

/// Lucene's `RussianLightStemmer` (Dolamic and Savoy).
pub fn light_russian(term: &str) -> String {
    fn remove_case(s: &[char], len: usize) -> usize {
        if len > 6 && any_suffix(s, len, &["иями", "оями"]) {
            return len - 4;
        }
        const THREE: &[&str] =
            &["иям", "иях", "оях", "ями", "оям", "оьв", "ами", "его", "ему", "ери", "ими", "ого", "ому", "ыми", "оев"];
        if len > 5 && any_suffix(s, len, THREE) {
            return len - 3;
        }
        const TWO: &[&str] = &[
            "ая", "яя", "ях", "юю", "ах", "ею", "их", "ия", "ию", "ьв", "ою", "ую", "ям", "ых", "ея", "ам", "ем", "ей",
            "ём", "ев", "ий", "им", "ое", "ой", "ом", "ов", "ые", "ый", "ым", "ми",
        ];
        if len > 4 && any_suffix(s, len, TWO) {
            return len - 2;
        }
        if len > 3 && matches!(s[len - 1], 'а' | 'е' | 'и' | 'о' | 'у' | 'й' | 'ы' | 'я' | 'ь') {
            return len - 1;
        }
        len
    }
    run_chars(term, |s, len| {
        let len = remove_case(s, len);
        if len > 3 && (matches!(s[len - 1], 'ь' | 'и') || (s[len - 1] == 'н' && s[len - 2] == 'н')) {
            len - 1
        } else {
            len
        }
    })
}

/// Lucene's `FrenchMinimalStemmer` (Savoy).
pub fn minimal_french(term: &str) -> String {
    run_chars(term, |s, mut len| {
        if len < 6 {
            return len;
        }
        if s[len - 1] == 'x' {
            if s[len - 3] == 'a' && s[len - 2] == 'u' {
                s[len - 2] = 'l';
            }
            return len - 1;
        }
        for c in ['s', 'r', 'e', 'é'] {
            if s[len - 1] == c {
                len -= 1;
            }
        }
        if s[len - 1] == s[len - 2] && is_letter(s[len - 1]) {
            len -= 1;
        }
        len
    })
}

/// Lucene's `GermanMinimalStemmer` (Savoy).
pub fn minimal_german(term: &str) -> String {
    run_chars(term, |s, len| {
        if len < 5 {
            return len;
        }
        for c in s.iter_mut() {
            *c = match *c {
                'ä' => 'a',
                'ö' => 'o',
                'ü' => 'u',
                other => other,
            };
        }
        if len > 6 && ends_with(s, len, "nen") {
            return len - 3;
        }
        if len > 5 {
            match (s[len - 2], s[len - 1]) {
                ('e', 'n') | ('s', 'e') | ('e', 's') | ('e', 'r') => return len - 2,
                _ => {}
            }
        }
        if matches!(s[len - 1], 'n' | 'e' | 's' | 'r') {
            len - 1
        } else {
            len
        }
    })
}

/// The part of Snowball's `german2` prelude that `german` lacks: `ae`, `oe` and `ue` become
/// `ä`, `ö` and `ü`, except `ue` after `q` and a `u` between vowels (which Snowball marks as a
/// consonant first). Running Snowball's German on the result gives German2's stem.
pub fn german2_prelude(term: &str) -> String {
    let cs: Vec<char> = term.chars().collect();
    let vowel = |c: char| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y' | 'ä' | 'ö' | 'ü');
    let mut out = String::with_capacity(term.len());
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        let next = cs.get(i + 1).copied();
        if c == 'q' && next == Some('u') {
            out.push_str("qu");
            i += 2;
            continue;
        }
        if next == Some('e') {
            let marked_u = c == 'u' && i > 0 && vowel(cs[i - 1]);
            let umlaut = match c {
                'a' => Some('ä'),
                'o' => Some('ö'),
                'u' if !marked_u => Some('ü'),
                _ => None,
            };
            if let Some(u) = umlaut {
                out.push(u);
                i += 2;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

#[cfg(test)]
#[path = "light_stemmers2_tests.rs"]
mod tests;
