//! Snowball's Nepali stemmer, transcribed from the code the Snowball compiler generates for
//! `nepali.sbl` (as Lucene's `org.tartarus.snowball.ext.NepaliStemmer`) by
//! `tests/golden/analysis/snowball/py2rust.py`; runs on [`super::env::Env`].

#![allow(clippy::all, unused_parens, unused_variables, unused_labels)]

use super::among;
use super::env::{Among, Env};

static A_0: [Among; 17] = [
    among!(['ल', 'ा', 'इ'], -1, 1),
    among!(['ल', 'ा', 'ई'], -1, 1),
    among!(['स', 'ँ', 'ग'], -1, 1),
    among!(['स', 'ं', 'ग'], -1, 1),
    among!(['म', 'ा', 'र', '्', 'फ', 'त'], -1, 1),
    among!(['र', 'त'], -1, 1),
    among!(['क', 'ा'], -1, 2),
    among!(['म', 'ा'], -1, 1),
    among!(['द', '्', 'व', 'ा', 'र', 'ा'], -1, 1),
    among!(['क', 'ि'], -1, 2),
    among!(['प', 'छ', 'ि'], -1, 1),
    among!(['क', 'ी'], -1, 2),
    among!(['ल', 'े'], -1, 1),
    among!(['क', 'ै'], -1, 2),
    among!(['स', 'ँ', 'ग', 'ै'], -1, 1),
    among!(['म', 'ै'], -1, 1),
    among!(['क', 'ो'], -1, 2),
];

static A_1: [Among; 3] = [among!(['ँ'], -1, 1), among!(['ं'], -1, 1), among!(['ै'], -1, 2)];

static A_2: [Among; 91] = [
    among!(['थ', 'ि', 'ए'], -1, 1),
    among!(['छ'], -1, 1),
    among!(['इ', 'छ'], 1, 1),
    among!(['ए', 'छ'], 1, 1),
    among!(['ि', 'छ'], 1, 1),
    among!(['े', 'छ'], 1, 1),
    among!(['न', 'े', 'छ'], 5, 1),
    among!(['ह', 'ु', 'न', 'े', 'छ'], 6, 1),
    among!(['इ', 'न', '्', 'छ'], 1, 1),
    among!(['ि', 'न', '्', 'छ'], 1, 1),
    among!(['ह', 'ु', 'न', '्', 'छ'], 1, 1),
    among!(['ए', 'क', 'ा'], -1, 1),
    among!(['इ', 'ए', 'क', 'ा'], 11, 1),
    among!(['ि', 'ए', 'क', 'ा'], 11, 1),
    among!(['े', 'क', 'ा'], -1, 1),
    among!(['न', 'े', 'क', 'ा'], 14, 1),
    among!(['द', 'ा'], -1, 1),
    among!(['इ', 'द', 'ा'], 16, 1),
    among!(['ि', 'द', 'ा'], 16, 1),
    among!(['द', 'े', 'ख', 'ि'], -1, 1),
    among!(['म', 'ा', 'थ', 'ि'], -1, 1),
    among!(['ए', 'क', 'ी'], -1, 1),
    among!(['इ', 'ए', 'क', 'ी'], 21, 1),
    among!(['ि', 'ए', 'क', 'ी'], 21, 1),
    among!(['े', 'क', 'ी'], -1, 1),
    among!(['द', 'े', 'ख', 'ी'], -1, 1),
    among!(['थ', 'ी'], -1, 1),
    among!(['द', 'ी'], -1, 1),
    among!(['छ', 'ु'], -1, 1),
    among!(['ए', 'छ', 'ु'], 28, 1),
    among!(['े', 'छ', 'ु'], 28, 1),
    among!(['न', 'े', 'छ', 'ु'], 30, 1),
    among!(['न', 'ु'], -1, 1),
    among!(['ह', 'र', 'ु'], -1, 1),
    among!(['ह', 'र', 'ू'], -1, 1),
    among!(['छ', 'े'], -1, 1),
    among!(['थ', 'े'], -1, 1),
    among!(['न', 'े'], -1, 1),
    among!(['ए', 'क', 'ै'], -1, 1),
    among!(['े', 'क', 'ै'], -1, 1),
    among!(['न', 'े', 'क', 'ै'], 39, 1),
    among!(['द', 'ै'], -1, 1),
    among!(['इ', 'द', 'ै'], 41, 1),
    among!(['ि', 'द', 'ै'], 41, 1),
    among!(['ए', 'क', 'ो'], -1, 1),
    among!(['इ', 'ए', 'क', 'ो'], 44, 1),
    among!(['ि', 'ए', 'क', 'ो'], 44, 1),
    among!(['े', 'क', 'ो'], -1, 1),
    among!(['न', 'े', 'क', 'ो'], 47, 1),
    among!(['द', 'ो'], -1, 1),
    among!(['इ', 'द', 'ो'], 49, 1),
    among!(['ि', 'द', 'ो'], 49, 1),
    among!(['य', 'ो'], -1, 1),
    among!(['इ', 'य', 'ो'], 52, 1),
    among!(['भ', 'य', 'ो'], 52, 1),
    among!(['ि', 'य', 'ो'], 52, 1),
    among!(['थ', 'ि', 'य', 'ो'], 55, 1),
    among!(['द', 'ि', 'य', 'ो'], 55, 1),
    among!(['थ', '्', 'य', 'ो'], 52, 1),
    among!(['छ', 'ौ'], -1, 1),
    among!(['इ', 'छ', 'ौ'], 59, 1),
    among!(['ए', 'छ', 'ौ'], 59, 1),
    among!(['ि', 'छ', 'ौ'], 59, 1),
    among!(['े', 'छ', 'ौ'], 59, 1),
    among!(['न', 'े', 'छ', 'ौ'], 63, 1),
    among!(['य', 'ौ'], -1, 1),
    among!(['थ', 'ि', 'य', 'ौ'], 65, 1),
    among!(['छ', '्', 'य', 'ौ'], 65, 1),
    among!(['थ', '्', 'य', 'ौ'], 65, 1),
    among!(['छ', 'न', '्'], -1, 1),
    among!(['इ', 'छ', 'न', '्'], 69, 1),
    among!(['ए', 'छ', 'न', '्'], 69, 1),
    among!(['ि', 'छ', 'न', '्'], 69, 1),
    among!(['े', 'छ', 'न', '्'], 69, 1),
    among!(['न', 'े', 'छ', 'न', '्'], 73, 1),
    among!(['ल', 'ा', 'न', '्'], -1, 1),
    among!(['छ', 'ि', 'न', '्'], -1, 1),
    among!(['थ', 'ि', 'न', '्'], -1, 1),
    among!(['प', 'र', '्'], -1, 1),
    among!(['इ', 'स', '्'], -1, 1),
    among!(['थ', 'ि', 'इ', 'स', '्'], 79, 1),
    among!(['छ', 'स', '्'], -1, 1),
    among!(['इ', 'छ', 'स', '्'], 81, 1),
    among!(['ए', 'छ', 'स', '्'], 81, 1),
    among!(['ि', 'छ', 'स', '्'], 81, 1),
    among!(['े', 'छ', 'स', '्'], 81, 1),
    among!(['न', 'े', 'छ', 'स', '्'], 85, 1),
    among!(['ि', 'स', '्'], -1, 1),
    among!(['थ', 'ि', 'स', '्'], 87, 1),
    among!(['छ', 'े', 'स', '्'], -1, 1),
    among!(['ह', 'ो', 'स', '्'], -1, 1),
];

/// The stemmer's state: the buffer and the program's own variables.
pub(super) struct NepaliStemmer {
    env: Env,
}

impl std::ops::Deref for NepaliStemmer {
    type Target = Env;
    fn deref(&self) -> &Env {
        &self.env
    }
}

impl std::ops::DerefMut for NepaliStemmer {
    fn deref_mut(&mut self) -> &mut Env {
        &mut self.env
    }
}

/// The Nepali stem of `word`.
pub fn stem(word: &str) -> String {
    let mut program = NepaliStemmer { env: Env::new(word) };
    program.stem_program();
    program.env.into_string()
}

impl NepaliStemmer {
    fn r_remove_category_1(&mut self) -> bool {
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_0);
        if among_var == 0 {
            return false;
        }
        self.bra = self.cursor;
        if among_var == 1 {
            if !self.slice_del() {
                return false;
            }
        } else {
            'lab0: {
                let v_1 = self.limit - self.cursor;
                'lab1: {
                    if !self.eq_s_b("\u{090F}") {
                        break 'lab1;
                    }
                    break 'lab0;
                }
                self.cursor = self.limit - v_1;
                'lab2: {
                    if !self.eq_s_b("\u{0947}") {
                        break 'lab2;
                    }
                    break 'lab0;
                }
                self.cursor = self.limit - v_1;
                if !self.slice_del() {
                    return false;
                }
            }
        }
        return true;
    }

    fn r_remove_category_2(&mut self) -> bool {
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_1);
        if among_var == 0 {
            return false;
        }
        self.bra = self.cursor;
        if among_var == 1 {
            'lab0: {
                let v_1 = self.limit - self.cursor;
                'lab1: {
                    if !self.eq_s_b("\u{092F}\u{094C}") {
                        break 'lab1;
                    }
                    break 'lab0;
                }
                self.cursor = self.limit - v_1;
                'lab2: {
                    if !self.eq_s_b("\u{091B}\u{094C}") {
                        break 'lab2;
                    }
                    break 'lab0;
                }
                self.cursor = self.limit - v_1;
                'lab3: {
                    if !self.eq_s_b("\u{0928}\u{094C}") {
                        break 'lab3;
                    }
                    break 'lab0;
                }
                self.cursor = self.limit - v_1;
                if !self.eq_s_b("\u{0925}\u{0947}") {
                    return false;
                }
            }
            if !self.slice_del() {
                return false;
            }
        } else {
            if !self.eq_s_b("\u{0924}\u{094D}\u{0930}") {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        }
        return true;
    }

    fn r_remove_category_3(&mut self) -> bool {
        self.ket = self.cursor;
        if self.find_among_b(&A_2) == 0 {
            return false;
        }
        self.bra = self.cursor;
        if !self.slice_del() {
            return false;
        }
        return true;
    }

    fn stem_program(&mut self) -> bool {
        self.limit_backward = self.cursor;
        self.cursor = self.limit;
        let v_1 = self.limit - self.cursor;
        self.r_remove_category_1();
        self.cursor = self.limit - v_1;
        'loop1: loop {
            if self.out_of_fuel() {
                return false;
            }
            let v_2 = self.limit - self.cursor;
            'lab0: {
                let v_3 = self.limit - self.cursor;
                self.r_remove_category_2();
                self.cursor = self.limit - v_3;
                if !self.r_remove_category_3() {
                    break 'lab0;
                }
                continue 'loop1;
            }
            self.cursor = self.limit - v_2;
            break 'loop1;
        }
        self.cursor = self.limit_backward;
        return true;
    }
}
