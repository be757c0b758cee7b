//! Martin Porter's original (1980) stemmer, as Lucene's `PorterStemmer` implements it (the
//! `english` stemmer, `porter_stem`, and the `english` analyzer): words of up to two characters
//! are left alone, the steps follow the reference C implementation including its `logi` → `log`
//! departure.

/// Stems `word` (expected lowercased).
pub fn porter_stem(word: &str) -> String {
    let mut s = Porter { b: word.chars().collect(), k: 0, j: 0 };
    if s.b.len() <= 2 {
        return word.to_owned();
    }
    s.k = s.b.len() - 1;
    s.step1ab();
    if s.k > 0 {
        s.step1c();
        s.step2();
        s.step3();
        s.step4();
        s.step5();
    }
    s.b.iter().take(s.k + 1).collect()
}

struct Porter {
    b: Vec<char>,
    k: usize,
    j: usize,
}

impl Porter {
    /// Whether `b[i]` is a consonant: not a vowel, and `y` only after a vowel (or first).
    /// Iterative over runs of `y` (`y` after a consonant `y` is a vowel, and so on).
    fn cons(&self, i: usize) -> bool {
        let plain = |c: Option<&char>| !matches!(c, Some('a' | 'e' | 'i' | 'o' | 'u'));
        if self.b.get(i) != Some(&'y') {
            return plain(self.b.get(i));
        }
        let mut first = i;
        while first > 0 && self.b.get(first - 1) == Some(&'y') {
            first -= 1;
        }
        // The first `y` of the run is a consonant at the start or after a vowel.
        let first_is_consonant = first == 0 || !plain(self.b.get(first - 1));
        if (i - first) % 2 == 0 {
            first_is_consonant
        } else {
            !first_is_consonant
        }
    }

    /// The number of consonant sequences between 0 and j.
    fn m(&self) -> usize {
        let (mut n, mut i) = (0, 0);
        if self.j == usize::MAX {
            return 0;
        }
        loop {
            if i > self.j {
                return n;
            }
            if !self.cons(i) {
                break;
            }
            i += 1;
        }
        i += 1;
        loop {
            loop {
                if i > self.j {
                    return n;
                }
                if self.cons(i) {
                    break;
                }
                i += 1;
            }
            i += 1;
            n += 1;
            loop {
                if i > self.j {
                    return n;
                }
                if !self.cons(i) {
                    break;
                }
                i += 1;
            }
            i += 1;
        }
    }

    fn vowel_in_stem(&self) -> bool {
        self.j != usize::MAX && (0..=self.j.min(self.b.len())).any(|i| !self.cons(i))
    }

    fn double_c(&self, j: usize) -> bool {
        j >= 1 && self.b.get(j) == self.b.get(j - 1) && self.cons(j)
    }

    fn cvc(&self, i: usize) -> bool {
        if i < 2 || !self.cons(i) || self.cons(i - 1) || !self.cons(i - 2) {
            return false;
        }
        !matches!(self.b.get(i), Some('w' | 'x' | 'y'))
    }

    fn ends(&mut self, s: &str) -> bool {
        let len = s.chars().count();
        if len > self.k + 1 {
            return false;
        }
        let start = self.k + 1 - len;
        if !self.b[start..=self.k].iter().copied().eq(s.chars()) {
            return false;
        }
        // j = k - len, which is "before the start" when the suffix is the whole word.
        self.j = start.wrapping_sub(1);
        true
    }

    fn set_to(&mut self, s: &str) {
        let start = self.j.wrapping_add(1);
        self.b.truncate(start);
        self.b.extend(s.chars());
        self.k = self.b.len().saturating_sub(1);
    }

    fn r(&mut self, s: &str) {
        if self.j != usize::MAX && self.m() > 0 {
            self.set_to(s);
        }
    }

    fn at(&self, i: usize) -> char {
        self.b.get(i).copied().unwrap_or('\0')
    }

    fn step1ab(&mut self) {
        if self.at(self.k) == 's' {
            if self.ends("sses") {
                self.k -= 2;
            } else if self.ends("ies") {
                self.set_to("i");
            } else if self.k >= 1 && self.at(self.k - 1) != 's' {
                self.k -= 1;
            }
            self.b.truncate(self.k + 1);
        }
        if self.ends("eed") {
            if self.j != usize::MAX && self.m() > 0 {
                self.k -= 1;
                self.b.truncate(self.k + 1);
            }
        } else if (self.ends("ed") || self.ends("ing")) && self.j != usize::MAX && self.vowel_in_stem() {
            self.k = self.j;
            self.b.truncate(self.k + 1);
            if self.ends("at") {
                self.set_to("ate");
            } else if self.ends("bl") {
                self.set_to("ble");
            } else if self.ends("iz") {
                self.set_to("ize");
            } else if self.double_c(self.k) {
                let ch = self.at(self.k);
                if !matches!(ch, 'l' | 's' | 'z') {
                    self.k -= 1;
                    self.b.truncate(self.k + 1);
                }
            } else {
                self.j = self.k;
                if self.m() == 1 && self.cvc(self.k) {
                    self.j = self.k;
                    self.set_to_after_k("e");
                }
            }
        }
    }

    fn set_to_after_k(&mut self, s: &str) {
        self.b.truncate(self.k + 1);
        self.b.extend(s.chars());
        self.k = self.b.len() - 1;
    }

    fn step1c(&mut self) {
        if self.ends("y") && self.j != usize::MAX && self.vowel_in_stem() {
            self.b[self.k] = 'i';
        }
    }

    fn rules(&mut self, rules: &[(&str, &str)]) {
        for (suffix, replacement) in rules {
            if self.ends(suffix) {
                self.r(replacement);
                return;
            }
        }
    }

    fn step2(&mut self) {
        if self.k == 0 {
            return;
        }
        match self.at(self.k - 1) {
            'a' => self.rules(&[("ational", "ate"), ("tional", "tion")]),
            'c' => self.rules(&[("enci", "ence"), ("anci", "ance")]),
            'e' => self.rules(&[("izer", "ize")]),
            'l' => self.rules(&[("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous")]),
            'o' => self.rules(&[("ization", "ize"), ("ation", "ate"), ("ator", "ate")]),
            's' => self.rules(&[("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous")]),
            't' => self.rules(&[("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")]),
            'g' => self.rules(&[("logi", "log")]),
            _ => {}
        }
    }

    fn step3(&mut self) {
        match self.at(self.k) {
            'e' => self.rules(&[("icate", "ic"), ("ative", ""), ("alize", "al")]),
            'i' => self.rules(&[("iciti", "ic")]),
            'l' => self.rules(&[("ical", "ic"), ("ful", "")]),
            's' => self.rules(&[("ness", "")]),
            _ => {}
        }
    }

    fn step4(&mut self) {
        if self.k == 0 {
            return;
        }
        let found = match self.at(self.k - 1) {
            'a' => self.ends("al"),
            'c' => self.ends("ance") || self.ends("ence"),
            'e' => self.ends("er"),
            'i' => self.ends("ic"),
            'l' => self.ends("able") || self.ends("ible"),
            'n' => self.ends("ant") || self.ends("ement") || self.ends("ment") || self.ends("ent"),
            'o' => {
                (self.ends("ion") && self.j != usize::MAX && matches!(self.at(self.j), 's' | 't')) || self.ends("ou")
            }
            's' => self.ends("ism"),
            't' => self.ends("ate") || self.ends("iti"),
            'u' => self.ends("ous"),
            'v' => self.ends("ive"),
            'z' => self.ends("ize"),
            _ => false,
        };
        if found && self.j != usize::MAX && self.m() > 1 {
            self.k = self.j;
            self.b.truncate(self.k + 1);
        }
    }

    fn step5(&mut self) {
        self.j = self.k;
        if self.at(self.k) == 'e' {
            let a = self.m();
            if a > 1 || (a == 1 && !(self.k >= 1 && self.cvc(self.k - 1))) {
                self.k -= 1;
                self.b.truncate(self.k + 1);
            }
        }
        if self.at(self.k) == 'l' && self.double_c(self.k) && self.m() > 1 {
            self.k -= 1;
            self.b.truncate(self.k + 1);
        }
    }
}
