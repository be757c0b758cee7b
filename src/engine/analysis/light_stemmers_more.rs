//! Lucene's stemmers for Czech, Bulgarian, Latvian, Indonesian, Hindi and Sorani, rule
//! for rule (`CzechStemmer`, `BulgarianStemmer`, `LatvianStemmer`, `IndonesianStemmer`,
//! `HindiStemmer`, `SoraniStemmer`; Apache-2.0).
//!
//! Lucene's analyzers for these languages run normalization filters before the stemmer; the
//! `stemmer` token filter, like these functions, does not.

use super::light_stemmers2::{ends_with, run_chars, starts_with};

fn any_suffix(s: &[char], len: usize, suffixes: &[&str]) -> bool {
    suffixes.iter().any(|x| ends_with(s, len, x))
}

/// Lucene's `CzechStemmer` (Dolamic and Savoy).
pub fn czech(term: &str) -> String {
    fn remove_case(s: &[char], len: usize) -> usize {
        if len > 7 && ends_with(s, len, "atech") {
            return len - 5;
        }
        if len > 6 && any_suffix(s, len, &["ětem", "etem", "atům"]) {
            return len - 4;
        }
        const THREE: &[&str] = &[
            "ech", "ich", "ích", "ého", "ěmi", "emi", "ému", "ěte", "ete", "ěti", "eti", "ího", "iho", "ími", "ímu",
            "imu", "ách", "ata", "aty", "ých", "ama", "ami", "ové", "ovi", "ými",
        ];
        if len > 5 && any_suffix(s, len, THREE) {
            return len - 3;
        }
        const TWO: &[&str] = &["em", "es", "ém", "ím", "ům", "at", "ám", "os", "us", "ým", "mi", "ou"];
        if len > 4 && any_suffix(s, len, TWO) {
            return len - 2;
        }
        if len > 3 && matches!(s[len - 1], 'a' | 'e' | 'i' | 'o' | 'u' | 'ů' | 'y' | 'á' | 'é' | 'í' | 'ý' | 'ě')
        {
            return len - 1;
        }
        len
    }
    fn normalize(s: &mut [char], len: usize) -> usize {
        if ends_with(s, len, "čt") {
            s[len - 2] = 'c';
            s[len - 1] = 'k';
            return len;
        }
        if ends_with(s, len, "št") {
            s[len - 2] = 's';
            s[len - 1] = 'k';
            return len;
        }
        match s[len - 1] {
            'c' | 'č' => {
                s[len - 1] = 'k';
                return len;
            }
            'z' | 'ž' => {
                s[len - 1] = 'h';
                return len;
            }
            _ => {}
        }
        if len > 1 && s[len - 2] == 'e' {
            s[len - 2] = s[len - 1];
            return len - 1;
        }
        if len > 2 && s[len - 2] == 'ů' {
            s[len - 2] = 'o';
        }
        len
    }
    run_chars(term, |s, len| {
        let len = remove_case(s, len);
        let len = if len > 5 && any_suffix(s, len, &["ov", "in", "ův"]) { len - 2 } else { len };
        if len > 0 {
            normalize(s, len)
        } else {
            len
        }
    })
}

/// Lucene's `BulgarianStemmer` (Savoy).
pub fn bulgarian(term: &str) -> String {
    fn remove_article(s: &[char], len: usize) -> usize {
        if len > 6 && ends_with(s, len, "ият") {
            return len - 3;
        }
        if len > 5 && any_suffix(s, len, &["ът", "то", "те", "та", "ия"]) {
            return len - 2;
        }
        if len > 4 && ends_with(s, len, "ят") {
            return len - 2;
        }
        len
    }
    fn remove_plural(s: &mut [char], len: usize) -> usize {
        if len > 6 {
            if ends_with(s, len, "овци") || ends_with(s, len, "ове") {
                return len - 3;
            }
            if ends_with(s, len, "еве") {
                s[len - 3] = 'й';
                return len - 2;
            }
        }
        if len > 5 {
            if ends_with(s, len, "ища") {
                return len - 3;
            }
            if ends_with(s, len, "та") {
                return len - 2;
            }
            if ends_with(s, len, "ци") {
                s[len - 2] = 'к';
                return len - 1;
            }
            if ends_with(s, len, "зи") {
                s[len - 2] = 'г';
                return len - 1;
            }
            if s[len - 3] == 'е' && s[len - 1] == 'и' {
                s[len - 3] = 'я';
                return len - 1;
            }
        }
        if len > 4 {
            if ends_with(s, len, "си") {
                s[len - 2] = 'х';
                return len - 1;
            }
            if ends_with(s, len, "и") {
                return len - 1;
            }
        }
        len
    }
    run_chars(term, |s, len| {
        if len < 4 {
            return len;
        }
        if len > 5 && ends_with(s, len, "ища") {
            return len - 3;
        }
        let mut len = remove_article(s, len);
        len = remove_plural(s, len);
        if len > 3 {
            if ends_with(s, len, "я") {
                len -= 1;
            }
            if any_suffix(s, len, &["а", "о", "е"]) {
                len -= 1;
            }
        }
        if len > 4 && ends_with(s, len, "ен") {
            s[len - 2] = 'н';
            len -= 1;
        }
        if len > 5 && s[len - 2] == 'ъ' {
            s[len - 2] = s[len - 1];
            len -= 1;
        }
        len
    })
}

/// Lucene's `LatvianStemmer` (a light version of Kreslins').
pub fn latvian(term: &str) -> String {
    // (suffix, vowel count of the suffix, palatalizes)
    const AFFIXES: &[(&str, usize, bool)] = &[
        ("ajiem", 3, false),
        ("ajai", 3, false),
        ("ajam", 2, false),
        ("ajām", 2, false),
        ("ajos", 2, false),
        ("ajās", 2, false),
        ("iem", 2, true),
        ("ajā", 2, false),
        ("ais", 2, false),
        ("ai", 2, false),
        ("ei", 2, false),
        ("ām", 1, false),
        ("am", 1, false),
        ("ēm", 1, false),
        ("īm", 1, false),
        ("im", 1, false),
        ("um", 1, false),
        ("us", 1, true),
        ("as", 1, false),
        ("ās", 1, false),
        ("es", 1, false),
        ("os", 1, true),
        ("ij", 1, false),
        ("īs", 1, false),
        ("ēs", 1, false),
        ("is", 1, false),
        ("ie", 1, false),
        ("u", 1, true),
        ("a", 1, true),
        ("i", 1, true),
        ("e", 1, false),
        ("ā", 1, false),
        ("ē", 1, false),
        ("ī", 1, false),
        ("ū", 1, false),
        ("o", 1, false),
        ("s", 0, false),
        ("š", 0, false),
    ];
    fn unpalatalize(s: &mut [char], mut len: usize) -> usize {
        if s.get(len) == Some(&'u') {
            if ends_with(s, len, "kš") {
                len += 1;
                s[len - 2] = 's';
                s[len - 1] = 't';
                return len;
            }
            if ends_with(s, len, "ņņ") {
                s[len - 2] = 'n';
                s[len - 1] = 'n';
                return len;
            }
        }
        if any_suffix(s, len, &["pj", "bj", "mj", "vj"]) {
            return len - 1;
        }
        for (from, to) in [
            ("šņ", ['s', 'n']),
            ("žņ", ['z', 'n']),
            ("šļ", ['s', 'l']),
            ("žļ", ['z', 'l']),
            ("ļņ", ['l', 'n']),
            ("ļļ", ['l', 'l']),
        ] {
            if ends_with(s, len, from) {
                s[len - 2] = to[0];
                s[len - 1] = to[1];
                return len;
            }
        }
        if len > 0 {
            let last = &mut s[len - 1];
            *last = match *last {
                'č' => 'c',
                'ļ' => 'l',
                'ņ' => 'n',
                other => other,
            };
        }
        len
    }
    run_chars(term, |s, len| {
        let vowels =
            s[..len].iter().filter(|c| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'ā' | 'ī' | 'ē' | 'ū')).count();
        for &(affix, vc, palatalizes) in AFFIXES {
            let n = affix.chars().count();
            if vowels > vc && len >= n + 3 && ends_with(s, len, affix) {
                let len = len - n;
                return if palatalizes { unpalatalize(s, len) } else { len };
            }
        }
        len
    })
}

/// Lucene's `IndonesianStemmer` with derivational stemming (the `stemmer` filter's default).
pub fn indonesian(term: &str) -> String {
    const KE: u8 = 1;
    const PENG: u8 = 2;
    const DI: u8 = 4;
    const MENG: u8 = 8;
    const TER: u8 = 16;
    const BER: u8 = 32;
    const PE: u8 = 64;
    fn vowel(c: char) -> bool {
        matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')
    }
    struct St {
        syllables: usize,
        flags: u8,
    }
    fn delete_prefix(s: &mut Vec<char>, len: usize, n: usize) -> usize {
        s.drain(..n.min(len));
        len - n.min(len)
    }
    fn first_order(st: &mut St, s: &mut Vec<char>, len: usize) -> usize {
        let sw = |s: &[char], p: &str| starts_with(s, len, p);
        let (flag, replace, n): (u8, Option<(usize, char)>, usize) = if sw(s, "meng") {
            (MENG, None, 4)
        } else if sw(s, "meny") && len > 4 && vowel(s[4]) {
            (MENG, Some((3, 's')), 3)
        } else if sw(s, "men") || sw(s, "mem") {
            (MENG, None, 3)
        } else if sw(s, "me") {
            (MENG, None, 2)
        } else if sw(s, "peng") {
            (PENG, None, 4)
        } else if sw(s, "peny") && len > 4 && vowel(s[4]) {
            (PENG, Some((3, 's')), 3)
        } else if sw(s, "peny") {
            (PENG, None, 4)
        } else if sw(s, "pen") && len > 3 && vowel(s[3]) {
            (PENG, Some((2, 't')), 2)
        } else if sw(s, "pen") || sw(s, "pem") {
            (PENG, None, 3)
        } else if sw(s, "di") {
            (DI, None, 2)
        } else if sw(s, "ter") {
            (TER, None, 3)
        } else if sw(s, "ke") {
            (KE, None, 2)
        } else {
            return len;
        };
        st.flags |= flag;
        if let Some((i, c)) = replace {
            s[i] = c;
        }
        st.syllables = st.syllables.saturating_sub(1);
        delete_prefix(s, len, n)
    }
    fn second_order(st: &mut St, s: &mut Vec<char>, len: usize) -> usize {
        let sw = |s: &[char], p: &str| starts_with(s, len, p);
        let (flag, n) = if sw(s, "ber") || (len == 7 && sw(s, "belajar")) {
            (BER, 3)
        } else if sw(s, "be") && len > 4 && !vowel(s[2]) && s[3] == 'e' && s[4] == 'r' {
            (BER, 2)
        } else if sw(s, "per") || (len == 7 && sw(s, "pelajar")) {
            (0, 3)
        } else if sw(s, "pe") {
            (PE, 2)
        } else {
            return len;
        };
        st.flags |= flag;
        st.syllables = st.syllables.saturating_sub(1);
        delete_prefix(s, len, n)
    }
    fn suffix(st: &mut St, s: &[char], len: usize) -> usize {
        let f = st.flags;
        let n = if ends_with(s, len, "kan") && f & (KE | PENG | PE) == 0 {
            3
        } else if ends_with(s, len, "an") && f & (DI | MENG | TER) == 0 {
            2
        } else if ends_with(s, len, "i") && !ends_with(s, len, "si") && f & (BER | KE | PENG) == 0 {
            1
        } else {
            return len;
        };
        st.syllables = st.syllables.saturating_sub(1);
        len - n
    }
    run_chars(term, |s, mut len| {
        let mut st = St { syllables: s[..len].iter().filter(|&&c| vowel(c)).count(), flags: 0 };
        if st.syllables > 2 && any_suffix(s, len, &["kah", "lah", "pun"]) {
            st.syllables -= 1;
            len -= 3;
        }
        if st.syllables > 2 {
            if ends_with(s, len, "ku") || ends_with(s, len, "mu") {
                st.syllables -= 1;
                len -= 2;
            } else if ends_with(s, len, "nya") {
                st.syllables -= 1;
                len -= 3;
            }
        }
        // stemDerivational
        let old = len;
        if st.syllables > 2 {
            len = first_order(&mut st, s, len);
        }
        if old != len {
            let old = len;
            if st.syllables > 2 {
                len = suffix(&mut st, s, len);
            }
            if old != len && st.syllables > 2 {
                len = second_order(&mut st, s, len);
            }
        } else {
            if st.syllables > 2 {
                len = second_order(&mut st, s, len);
            }
            if st.syllables > 2 {
                len = suffix(&mut st, s, len);
            }
        }
        len
    })
}

/// Lucene's "if (len > N+1 && endsWith(any of the N-letter suffixes)) return len - N" cascades.
fn strip_longest(s: &[char], len: usize, groups: &[(usize, &[&str])]) -> usize {
    for &(cut, suffixes) in groups {
        if len > cut + 1 && suffixes.iter().any(|x| ends_with(s, len, x)) {
            return len - cut;
        }
    }
    len
}

/// Lucene's `HindiStemmer` (Ramanathan and Rao).
pub fn hindi(term: &str) -> String {
    const GROUPS: &[(usize, &[&str])] = &[
        (5, &["ाएंगी", "ाएंगे", "ाऊंगी", "ाऊंगा", "ाइयाँ", "ाइयों", "ाइयां"]),
        (
            4,
            &[
                "ाएगी",
                "ाएगा",
                "ाओगी",
                "ाओगे",
                "एंगी",
                "ेंगी",
                "एंगे",
                "ेंगे",
                "ूंगी",
                "ूंगा",
                "ातीं",
                "नाओं",
                "नाएं",
                "ताओं",
                "ताएं",
                "ियाँ",
                "ियों",
                "ियां",
            ],
        ),
        (
            3,
            &[
                "ाकर",
                "ाइए",
                "ाईं",
                "ाया",
                "ेगी",
                "ेगा",
                "ोगी",
                "ोगे",
                "ाने",
                "ाना",
                "ाते",
                "ाती",
                "ाता",
                "तीं",
                "ाओं",
                "ाएं",
                "ुओं",
                "ुएं",
                "ुआं",
            ],
        ),
        (2, &["कर", "ाओ", "िए", "ाई", "ाए", "ने", "नी", "ना", "ते", "ीं", "ती", "ता", "ाँ", "ां", "ों", "ें"]),
        (1, &["ो", "े", "ू", "ु", "ी", "ि", "ा"]),
    ];
    run_chars(term, |s, len| strip_longest(s, len, GROUPS))
}

/// Lucene's `SoraniStemmer`.
pub fn sorani(term: &str) -> String {
    run_chars(term, |s, mut len| {
        let e = |len: usize, x: &str| ends_with(s, len, x);
        if len > 5 && e(len, "دا") {
            len -= 2;
        } else if len > 4 && e(len, "نا") {
            len -= 1;
        } else if len > 6 && e(len, "ەوە") {
            len -= 3;
        }
        if len > 6 && (e(len, "مان") || e(len, "یان") || e(len, "تان")) {
            len -= 3;
        }
        if len > 6 && e(len, "ێکی") {
            return len - 3;
        } else if len > 7 && e(len, "یەکی") {
            return len - 4;
        }
        let rules: &[(usize, &str, usize)] = &[
            (5, "ێک", 2),
            (6, "یەک", 3),
            (6, "ەکە", 3),
            (5, "کە", 2),
            (7, "ەکان", 4),
            (6, "کان", 3),
            (7, "یانی", 4),
            (6, "انی", 3),
            (6, "یان", 3),
            (5, "ان", 2),
            (7, "یانە", 4),
            (6, "انە", 3),
            (5, "ایە", 2),
            (5, "ەیە", 2),
            (4, "ە", 1),
            (4, "ی", 1),
        ];
        for &(min, suffix, cut) in rules {
            if len > min && e(len, suffix) {
                return len - cut;
            }
        }
        len
    })
}

#[cfg(test)]
#[path = "light_stemmers_more_tests.rs"]
mod tests;
